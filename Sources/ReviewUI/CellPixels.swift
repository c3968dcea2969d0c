/// A field's cell image as 8-bit gray pixels (0 black … 255 white), row-major. The review screen
/// gets it decoded from the store's PNG (or cut again from the sheet's file) by a `CellImageSource`.
public struct CellPixels: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height, "pixel count must equal width × height")
        self.width = width; self.height = height; self.pixels = pixels
    }

    /// Box-averaged to `newWidth × newHeight` (each output pixel the mean of the source pixels it
    /// covers), then stretched so the darkest ink is black and the paper white: phone photos are grey.
    public func fitted(width newWidth: Int, height newHeight: Int) -> CellPixels {
        let w = max(1, newWidth), h = max(1, newHeight)
        var out = [UInt8](repeating: 255, count: w * h)
        for y in 0..<h {
            let y0 = y * height / h, y1 = max(y0 + 1, (y + 1) * height / h)
            for x in 0..<w {
                let x0 = x * width / w, x1 = max(x0 + 1, (x + 1) * width / w)
                var sum = 0
                for sy in y0..<y1 { for sx in x0..<x1 { sum += Int(pixels[sy * width + sx]) } }
                out[y * w + x] = UInt8(sum / ((y1 - y0) * (x1 - x0)))
            }
        }
        if let lo = out.min(), let hi = out.max(), hi > lo {
            let span = Int(hi - lo)
            for i in out.indices { out[i] = UInt8((Int(out[i] - lo) * 255) / span) }
        }
        return CellPixels(width: w, height: h, pixels: out)
    }

    /// The size, keeping the aspect ratio (pixels are square: a half-block is one pixel wide and two
    /// tall on a cell about twice as tall as wide), that fits `columns × 2·rows` pixels.
    public func fittingSize(columns: Int, rows: Int) -> (width: Int, height: Int) {
        let scale = min(Double(columns) / Double(width), Double(2 * rows) / Double(height))
        return (max(1, min(columns, Int((Double(width) * scale).rounded()))),
                max(1, min(2 * rows, Int((Double(height) * scale).rounded()))))
    }
}

/// Where the screen gets a field's cell image.
public protocol CellImageSource: Sendable {
    func cellImage(sheet: SheetImageKey, field: String) async -> CellPixels?
}

/// Enough of a stored sheet to find its cells: the store id, and the file and template for reading
/// it again when the store has no snapshot.
public struct SheetImageKey: Sendable, Hashable {
    public var sheetID: Int64
    public var path: String
    public var templateID: String
    public init(sheetID: Int64, path: String, templateID: String) {
        self.sheetID = sheetID; self.path = path; self.templateID = templateID
    }
}
