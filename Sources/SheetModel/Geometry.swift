/// A point in template space: points (1/72 inch), origin at the page's top-left corner, y down.
public struct Point: Sendable, Equatable, Hashable {
    public var x: Double, y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }

    /// The straight-line distance to `other`.
    public func distance(to other: Point) -> Double {
        ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
    }
}

/// A rectangle in template space, written in JSON as `[x, y, width, height]`.
public struct Rect: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    public var x: Double, y: Double, width: Double, height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
    public var center: Point { Point(x: x + width / 2, y: y + height / 2) }

    public func insetBy(_ dx: Double, _ dy: Double) -> Rect {
        Rect(x: x + dx, y: y + dy, width: width - 2 * dx, height: height - 2 * dy)
    }

    /// The smallest rect holding both.
    public func union(_ other: Rect) -> Rect {
        let (minX, minY) = (Swift.min(x, other.x), Swift.min(y, other.y))
        return Rect(x: minX, y: minY, width: Swift.max(maxX, other.maxX) - minX, height: Swift.max(maxY, other.maxY) - minY)
    }

    /// The part both cover, or nil when they do not overlap.
    public func intersection(_ other: Rect) -> Rect? {
        let (x0, y0) = (Swift.max(x, other.x), Swift.max(y, other.y))
        let (x1, y1) = (Swift.min(maxX, other.maxX), Swift.min(maxY, other.maxY))
        return x1 > x0 && y1 > y0 ? Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0) : nil
    }

    public func intersects(_ other: Rect) -> Bool {
        x < other.maxX && other.x < maxX && y < other.maxY && other.y < maxY
    }

    /// The `index`-th of `count` equal-width slices, left to right (a comb box).
    public func slice(_ index: Int, of count: Int) -> Rect {
        let w = width / Double(count)
        return Rect(x: x + Double(index) * w, y: y, width: w, height: height)
    }

    public init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        let values = [try c.decode(Double.self), try c.decode(Double.self), try c.decode(Double.self), try c.decode(Double.self)]
        guard c.isAtEnd else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "a rect is [x, y, width, height]: four numbers")
        }
        self.init(x: values[0], y: values[1], width: values[2], height: values[3])
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(contentsOf: [x, y, width, height])
    }

    public var description: String {
        "[\([x, y, width, height].map { $0.formatted }.joined(separator: ", "))]"
    }
}

extension Double {
    /// "12" for whole numbers, "12.5" otherwise: how template numbers are echoed back in messages.
    var formatted: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }
}
