import SheetModel

/// A plane-to-plane projective transform (3×3, h33 = 1): how a flat sheet maps into a photo of it.
public struct Homography: Sendable, Equatable {
    /// Row-major h11…h32; h33 is 1.
    public let h: [Double]

    public init(_ h: [Double]) {
        precondition(h.count == 8, "a homography has 8 free coefficients")
        self.h = h
    }

    public static let identity = Homography([1, 0, 0, 0, 1, 0, 0, 0])

    /// The homography mapping each `from` point onto the matching `to` point (exactly four pairs), or nil
    /// when three of them are collinear.
    public init?(from: [Point], to: [Point]) {
        guard from.count == 4, to.count == 4 else { return nil }
        // Two linear equations per correspondence in the eight unknowns (direct linear transform).
        var a = [[Double]](repeating: [Double](repeating: 0, count: 9), count: 8)
        for i in 0..<4 {
            let (x, y, u, v) = (from[i].x, from[i].y, to[i].x, to[i].y)
            a[2 * i] = [x, y, 1, 0, 0, 0, -u * x, -u * y, u]
            a[2 * i + 1] = [0, 0, 0, x, y, 1, -v * x, -v * y, v]
        }
        guard let solution = Self.solve(&a) else { return nil }
        self.init(solution)
    }

    public func apply(_ p: Point) -> Point {
        let w = h[6] * p.x + h[7] * p.y + 1
        return Point(x: (h[0] * p.x + h[1] * p.y + h[2]) / w, y: (h[3] * p.x + h[4] * p.y + h[5]) / w)
    }

    /// How many image pixels one unit of the source plane spans near `p` (geometric mean of the two axes).
    public func localScale(at p: Point) -> Double {
        let o = apply(p), dx = apply(Point(x: p.x + 1, y: p.y)), dy = apply(Point(x: p.x, y: p.y + 1))
        return (dx.distance(to: o) * dy.distance(to: o)).squareRoot()
    }

    /// Gaussian elimination with partial pivoting on an 8×9 augmented matrix.
    private static func solve(_ a: inout [[Double]]) -> [Double]? {
        let n = 8
        for col in 0..<n {
            guard let pivot = (col..<n).max(by: { abs(a[$0][col]) < abs(a[$1][col]) }), abs(a[pivot][col]) > 1e-12 else { return nil }
            a.swapAt(col, pivot)
            for row in 0..<n where row != col {
                let f = a[row][col] / a[col][col]
                if f != 0 { for k in col...n { a[row][k] -= f * a[col][k] } }
            }
        }
        return (0..<n).map { a[$0][n] / a[$0][$0] }
    }
}
