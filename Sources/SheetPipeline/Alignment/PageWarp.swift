import SheetModel

/// Template points → image pixels for a page that may not lie flat: the markers' homography, after a
/// smooth correction of the template point (`PageWarp`), and a fold's kink (`PageCrease`) where the page has one,
/// fitted to where the printed box lines were found.
public struct PageMapping: Sendable {
    public let homography: Homography
    /// Nil when the page is flat enough that the homography alone places every box line.
    public let warp: PageWarp?
    /// A fold the smooth correction cannot follow, nil for a page without one.
    public let crease: PageCrease?

    public init(homography: Homography, warp: PageWarp? = nil, crease: PageCrease? = nil) {
        self.homography = homography
        self.warp = warp
        self.crease = crease
    }

    /// Whether the homography alone maps the page.
    public var isFlat: Bool { warp == nil && crease == nil }

    /// How far the page's shape moves the template point `p` (template points).
    public func displacement(at p: Point) -> Point {
        var d = warp?.displacement(at: p) ?? Point(x: 0, y: 0)
        if let crease {
            let c = crease.displacement(at: p)
            d = Point(x: d.x + c.x, y: d.y + c.y)
        }
        return d
    }

    /// The template point `p` corrected for the page's shape (still in template points).
    public func corrected(_ p: Point) -> Point {
        guard !isFlat else { return p }
        let d = displacement(at: p)
        return Point(x: p.x + d.x, y: p.y + d.y)
    }

    public func apply(_ p: Point) -> Point { homography.apply(corrected(p)) }
}

/// A smooth displacement of template points, stored at the nodes of a coarse grid and interpolated
/// bilinearly between them: where each printed point really lies, in template points, before the
/// markers' homography takes it into the image.
///
/// Fitted by least squares with a penalty on the grid's second differences (a discrete thin plate): an
/// affine correction costs nothing, a bend costs by its curvature. A bowed, curled or folded page bends
/// over inches; handwriting that darkens a stretch of one line bends nothing, since its pull on one
/// node is outweighed by the curvature it would need against the lines around it.
public struct PageWarp: Sendable, Equatable {
    /// Template point of node (0, 0), and the distance between nodes (points).
    public let origin: Point
    public let spacing: Double
    public let columns: Int, rows: Int
    /// Displacement at each node, row-major.
    public let dx: [Double], dy: [Double]

    public init(origin: Point, spacing: Double, columns: Int, rows: Int, dx: [Double], dy: [Double]) {
        precondition(columns >= 2 && rows >= 2 && dx.count == columns * rows && dy.count == columns * rows)
        self.origin = origin; self.spacing = spacing; self.columns = columns; self.rows = rows; self.dx = dx; self.dy = dy
    }

    /// The displacement at `p`; beyond the grid, the nearest border's.
    public func displacement(at p: Point) -> Point {
        let (k, w) = weights(p)
        var x = 0.0, y = 0.0
        for n in 0..<4 { x += w[n] * dx[k[n]]; y += w[n] * dy[k[n]] }
        return Point(x: x, y: y)
    }

    /// The largest displacement at any node.
    public var largest: Double {
        zip(dx, dy).map { ($0 * $0 + $1 * $1).squareRoot() }.max() ?? 0
    }

    /// The steepest change of the displacement between neighbouring nodes, in points per point: how much
    /// the correction stretches or shears the page anywhere.
    public var steepest: Double {
        var most = 0.0
        for j in 0..<rows {
            for i in 0..<columns {
                let k = j * columns + i
                if i + 1 < columns { most = max(most, abs(dx[k + 1] - dx[k]), abs(dy[k + 1] - dy[k])) }
                if j + 1 < rows { most = max(most, abs(dx[k + columns] - dx[k]), abs(dy[k + columns] - dy[k])) }
            }
        }
        return most / spacing
    }

    /// The four nodes around `p` and their bilinear weights.
    func weights(_ p: Point) -> ([Int], [Double]) {
        let gx = min(max((p.x - origin.x) / spacing, 0), Double(columns - 1))
        let gy = min(max((p.y - origin.y) / spacing, 0), Double(rows - 1))
        let i = min(Int(gx), columns - 2), j = min(Int(gy), rows - 2)
        let fx = gx - Double(i), fy = gy - Double(j)
        let k = [j * columns + i, j * columns + i + 1, (j + 1) * columns + i, (j + 1) * columns + i + 1]
        return (k, [(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy])
    }

    /// One measurement of the displacement: along x where a vertical line was found, along y where a
    /// horizontal one was (a line says nothing of where along itself it was printed).
    public struct Sample: Sendable, Equatable {
        public enum Axis: Sendable { case x, y }
        public var at: Point
        public var axis: Axis
        public var offset: Double
        public var weight: Double

        public init(at: Point, axis: Axis, offset: Double, weight: Double = 1) {
            self.at = at; self.axis = axis; self.offset = offset; self.weight = weight
        }
    }

    /// The smooth displacement over `area` (a node every `spacing` points) that best explains `samples`
    /// with a curvature penalty `stiffness`. Samples that stay far (more than `outlier` points) from the
    /// fit lose their weight and the fit is made again, twice: a line taken for its neighbour, or ink
    /// along a line, does not pull the page. Nil when there are no samples.
    public static func fit(_ samples: [Sample], over area: Rect, spacing: Double, stiffness: Double,
                           outlier: Double = 2.5) -> PageWarp? {
        guard !samples.isEmpty else { return nil }
        let shell = shell(over: area, spacing: spacing)
        var weights = samples.map(\.weight)
        var fitted = shell
        for _ in 0..<3 {
            let x = solve(samples, weights: weights, axis: .x, shell: shell, stiffness: stiffness)
            let y = solve(samples, weights: weights, axis: .y, shell: shell, stiffness: stiffness)
            fitted = PageWarp(origin: shell.origin, spacing: spacing, columns: shell.columns, rows: shell.rows, dx: x, dy: y)
            weights = reweighted(samples, outlier: outlier) { fitted.residual(of: $0) }
        }
        return fitted
    }

    /// The same with a crease along `line`: the smooth displacement and the bend beyond the line fitted
    /// together (the bend unpenalised: a fold turns as sharply as it turns), outliers dropped the same way.
    public static func fit(_ samples: [Sample], over area: Rect, spacing: Double, stiffness: Double, crease line: PageCrease,
                           outlier: Double = 2.5) -> (PageWarp, PageCrease)? {
        guard !samples.isEmpty else { return nil }
        let shell = shell(over: area, spacing: spacing)
        var weights = samples.map(\.weight)
        var fitted: (PageWarp, PageCrease)?
        for _ in 0..<3 {
            guard let sx = PageCrease.AxisSystem(samples, weights: weights, axis: .x, over: area, spacing: spacing, stiffness: stiffness),
                  let sy = PageCrease.AxisSystem(samples, weights: weights, axis: .y, over: area, spacing: spacing, stiffness: stiffness),
                  let (x, bx) = sx.solve(with: line), let (y, by) = sy.solve(with: line) else { return fitted }
            var crease = line
            crease.bend = Point(x: bx, y: by)
            let warp = PageWarp(origin: shell.origin, spacing: spacing, columns: shell.columns, rows: shell.rows, dx: x, dy: y)
            fitted = (warp, crease)
            weights = reweighted(samples, outlier: outlier) { s in
                let d = crease.displacement(at: s.at)
                return warp.residual(of: s) - (s.axis == .x ? d.x : d.y)
            }
        }
        return fitted
    }

    /// A grid of zero displacement over `area`, a node every `spacing` points.
    static func shell(over area: Rect, spacing: Double) -> PageWarp {
        let columns = max(2, Int((area.width / spacing).rounded(.up)) + 1)
        let rows = max(2, Int((area.height / spacing).rounded(.up)) + 1)
        return PageWarp(origin: Point(x: area.x, y: area.y), spacing: spacing, columns: columns, rows: rows,
                        dx: [Double](repeating: 0, count: columns * rows), dy: [Double](repeating: 0, count: columns * rows))
    }

    /// Samples farther than `outlier` points from the fit keep a tenth of their weight, less the farther.
    static func reweighted(_ samples: [Sample], outlier: Double = 2.5, residual: (Sample) -> Double) -> [Double] {
        samples.map { s in
            let r = abs(residual(s))
            return r <= outlier ? s.weight : s.weight * outlier / r * 0.1
        }
    }

    /// How far `sample` lies from this displacement (points).
    public func residual(of sample: Sample) -> Double {
        let d = displacement(at: sample.at)
        return sample.offset - (sample.axis == .x ? d.x : d.y)
    }

    private static func solve(_ samples: [Sample], weights: [Double], axis: Sample.Axis, shell: PageWarp,
                              stiffness: Double) -> [Double] {
        let n = shell.columns * shell.rows
        let (a, b) = normalEquations(samples, weights: weights, axis: axis, shell: shell, stiffness: stiffness)
        return choleskySolve(a, b, n) ?? [Double](repeating: 0, count: n)
    }

    /// Normal equations of one axis: data terms, curvature penalty on second differences along rows,
    /// columns and across, and a faint pull to zero so nodes far from any line stay put.
    static func normalEquations(_ samples: [Sample], weights: [Double], axis: Sample.Axis, shell: PageWarp,
                                stiffness: Double) -> ([Double], [Double]) {
        let n = shell.columns * shell.rows
        var a = [Double](repeating: 0, count: n * n), b = [Double](repeating: 0, count: n)
        for (s, w) in zip(samples, weights) where s.axis == axis && w > 0 {
            let (k, c) = shell.weights(s.at)
            for p in 0..<4 {
                b[k[p]] += w * c[p] * s.offset
                for q in 0..<4 { a[k[p] * n + k[q]] += w * c[p] * c[q] }
            }
        }
        func penalize(_ k: [Int], _ c: [Double]) {
            for p in k.indices {
                for q in k.indices { a[k[p] * n + k[q]] += stiffness * c[p] * c[q] }
            }
        }
        let cols = shell.columns, rows = shell.rows
        for j in 0..<rows {
            for i in 0..<cols {
                let k = j * cols + i
                if i > 0 && i < cols - 1 { penalize([k - 1, k, k + 1], [1, -2, 1]) }
                if j > 0 && j < rows - 1 { penalize([k - cols, k, k + cols], [1, -2, 1]) }
                if i < cols - 1 && j < rows - 1 { penalize([k, k + 1, k + cols, k + cols + 1], [1.4, -1.4, -1.4, 1.4]) }
                a[k * n + k] += 1e-4
            }
        }
        return (a, b)
    }

    /// Solves the symmetric positive definite system `a x = b` (a few hundred unknowns at most): written
    /// here since the package links no LAPACK, and the system is small enough that a dense factorisation
    /// costs well under a millisecond.
    static func choleskySolve(_ a: [Double], _ b: [Double], _ n: Int) -> [Double]? {
        guard let l = cholesky(a, n) else { return nil }
        return substitute(l, b, n)
    }

    /// The lower-triangular factor `l` of `a = l lᵀ` (row-major, upper part left as it was), nil when `a`
    /// is not positive definite.
    static func cholesky(_ a: [Double], _ n: Int) -> [Double]? {
        var l = a
        let solved = l.withUnsafeMutableBufferPointer { l -> Bool in
            for j in 0..<n {
                var d = l[j * n + j]
                for k in 0..<j { d -= l[j * n + k] * l[j * n + k] }
                guard d > 1e-12 else { return false }
                let root = d.squareRoot()
                l[j * n + j] = root
                var i = j + 1
                while i < n {
                    var s = l[i * n + j]
                    for k in 0..<j { s -= l[i * n + k] * l[j * n + k] }
                    l[i * n + j] = s / root
                    i += 1
                }
            }
            return true
        }
        return solved ? l : nil
    }

    /// `x` with `l lᵀ x = b`, from `cholesky`'s factor: a forward and a back substitution.
    static func substitute(_ l: [Double], _ b: [Double], _ n: Int) -> [Double] {
        var x = b
        l.withUnsafeBufferPointer { l in
            x.withUnsafeMutableBufferPointer { x in
                for i in 0..<n {
                    var s = x[i]
                    for k in 0..<i { s -= l[i * n + k] * x[k] }
                    x[i] = s / l[i * n + i]
                }
                for i in stride(from: n - 1, through: 0, by: -1) {
                    var s = x[i]
                    var k = i + 1
                    while k < n { s -= l[k * n + i] * x[k]; k += 1 }
                    x[i] = s / l[i * n + i]
                }
            }
        }
        return x
    }
}
