import SheetModel

extension Homography {
    /// The full 3×3 matrix, row-major, h33 = 1.
    var matrix: [Double] { h + [1] }

    /// The homography of a 3×3 matrix, scaled so its last entry is 1; nil when that entry is 0.
    init?(matrix m: [Double]) {
        guard m.count == 9, abs(m[8]) > 1e-12, m.allSatisfy(\.isFinite) else { return nil }
        self.init(m[0..<8].map { $0 / m[8] })
    }

    /// `self` after `first`: a point goes through `first`, then through `self`.
    func after(_ first: Homography) -> Homography? {
        Homography(matrix: Self.product(matrix, first.matrix))
    }

    /// The inverse transform (image pixels → template points for a sheet's fit); nil when singular.
    var inverse: Homography? {
        let m = matrix
        let c = [m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
                 m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
                 m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3]]
        let det = m[0] * c[0] + m[1] * c[3] + m[2] * c[6]
        guard abs(det) > 1e-15 else { return nil }
        return Homography(matrix: c.map { $0 / det })
    }

    static func product(_ a: [Double], _ b: [Double]) -> [Double] {
        var m = [Double](repeating: 0, count: 9)
        for i in 0..<3 {
            for j in 0..<3 {
                var sum = 0.0
                for k in 0..<3 { sum += a[i * 3 + k] * b[k * 3 + j] }
                m[i * 3 + j] = sum
            }
        }
        return m
    }
}
