import Foundation
import SheetModel

/// A fold in the page: two flat halves meeting along a straight crease. Seen through the markers'
/// homography, each half is its own plane, so the displacement of printed points is smooth on either side
/// and turns sharply at the crease: `bend` points of displacement per point of distance beyond the line.
/// Added to a smooth `PageWarp`, which takes everything else (perspective of the two planes, any bow),
/// it takes the kink a smooth correction can only round off (or bend a finer mesh to follow, ink and all).
///
/// Which side is "beyond" is arbitrary: the two choices differ by an affine correction, which the
/// smooth warp represents at no cost.
public struct PageCrease: Sendable, Equatable {
    /// A point of the crease and the line's unit normal (template points).
    public let through: Point, normal: Point
    /// Displacement gained per point of distance beyond the line, along x and y.
    public var bend: Point

    public init(through: Point, normal: Point, bend: Point = Point(x: 0, y: 0)) {
        self.through = through; self.normal = normal; self.bend = bend
    }

    /// The crease with normal at `angle` (radians from the x axis) at signed distance `offset` from `origin`.
    init(angle: Double, offset: Double, from origin: Point) {
        let n = Point(x: cos(angle), y: sin(angle))
        self.init(through: Point(x: origin.x + n.x * offset, y: origin.y + n.y * offset), normal: n)
    }

    /// Distance beyond the crease, nothing on its near side: the hinge the bend multiplies.
    @inline(__always) func hinge(_ p: Point) -> Double {
        max(0, (p.x - through.x) * normal.x + (p.y - through.y) * normal.y)
    }

    public func displacement(at p: Point) -> Point {
        let h = hinge(p)
        return Point(x: bend.x * h, y: bend.y * h)
    }

    /// The angle the two halves turn by, as the correction sees it (radians, small): how much a point
    /// is displaced per point away from the crease.
    public var turn: Double { (bend.x * bend.x + bend.y * bend.y).squareRoot() }

    /// Where the crease line crosses `rect` (its two ends), nil when it misses it.
    public func ends(in rect: Rect) -> (Point, Point)? {
        let d = Point(x: -normal.y, y: normal.x)
        var lo = -Double.infinity, hi = Double.infinity
        for (o, dir, min, max) in [(through.x, d.x, rect.x, rect.maxX), (through.y, d.y, rect.y, rect.maxY)] {
            if abs(dir) < 1e-12 {
                guard o >= min && o <= max else { return nil }
                continue
            }
            let a = (min - o) / dir, b = (max - o) / dir
            lo = Swift.max(lo, Swift.min(a, b)); hi = Swift.min(hi, Swift.max(a, b))
        }
        guard lo < hi else { return nil }
        return (Point(x: through.x + d.x * lo, y: through.y + d.y * lo), Point(x: through.x + d.x * hi, y: through.y + d.y * hi))
    }
}

extension PageCrease {
    /// The straight line that best splits what a smooth correction leaves of `samples`: for each line
    /// tried (every `angleStep` of direction, every `offsetStep` points across `area`, at least `inset`
    /// inside it), the smooth warp (`spacing`, `stiffness`) and a bend along the line are fitted together,
    /// and the line whose fit leaves the least robust misfit (each sample's squared residual, capped at
    /// `cap`²) wins; then it is looked for again, finer, around the winner. A line needs `minimumSide`
    /// printed-line samples on each side. Nil when no line tried improves on the smooth fit alone.
    ///
    /// The smooth part's normal equations do not depend on the line, so they are factored once per
    /// axis; each line only adds one column (its hinge), solved by the Schur complement: a couple of
    /// triangular solves per line.
    static func search(_ samples: [PageWarp.Sample], over area: Rect, spacing: Double, stiffness: Double,
                       angleStep: Double = .pi / 36, offsetStep: Double = 12, inset: Double = 36,
                       cap: Double = 2.5, minimumSide: Int = 12) -> (crease: PageCrease, misfit: Double, smoothMisfit: Double)? {
        guard let x = AxisSystem(samples, axis: .x, over: area, spacing: spacing, stiffness: stiffness),
              let y = AxisSystem(samples, axis: .y, over: area, spacing: spacing, stiffness: stiffness) else { return nil }
        let centre = Point(x: area.x + area.width / 2, y: area.y + area.height / 2)
        let smooth = x.misfit(cap: cap) + y.misfit(cap: cap)
        // A bend is told only by lines on both sides: a line with hardly any beyond it (or before it)
        // would only free the few samples there, a marker's among them, from the smooth fit.
        let told = samples.filter { $0.weight <= 1 }.map(\.at)
        func score(_ angle: Double, _ offset: Double) -> Double {
            let line = PageCrease(angle: angle, offset: offset, from: centre)
            let beyond = told.reduce(0) { $0 + (line.hinge($1) > 0 ? 1 : 0) }
            guard min(beyond, told.count - beyond) >= minimumSide else { return .infinity }
            return x.misfit(with: line, cap: cap) + y.misfit(with: line, cap: cap)
        }
        // The line's reach across the area at this angle: offsets that leave `inset` of the area each side.
        func offsets(_ angle: Double) -> ClosedRange<Double>? {
            let n = Point(x: cos(angle), y: sin(angle))
            let reach = abs(n.x) * area.width / 2 + abs(n.y) * area.height / 2 - inset
            return reach > 0 ? -reach...reach : nil
        }
        var best = (angle: 0.0, offset: 0.0, misfit: Double.infinity)
        var angle = 0.0
        while angle < .pi {
            if let range = offsets(angle) {
                var o = range.lowerBound
                while o <= range.upperBound {
                    let m = score(angle, o)
                    if m < best.misfit { best = (angle, o, m) }
                    o += offsetStep
                }
            }
            angle += angleStep
        }
        guard best.misfit.isFinite else { return nil }
        // Finer, around the winner.
        let coarse = best
        for da in stride(from: -angleStep, through: angleStep, by: angleStep / 5) {
            let a = coarse.angle + da
            guard let range = offsets(a) else { continue }
            for d in stride(from: -offsetStep, through: offsetStep, by: offsetStep / 6) {
                let o = coarse.offset + d
                guard range.contains(o) else { continue }
                let m = score(a, o)
                if m < best.misfit { best = (a, o, m) }
            }
        }
        guard best.misfit < smooth else { return nil }
        return (PageCrease(angle: best.angle, offset: best.offset, from: centre), best.misfit, smooth)
    }

    /// One axis's smooth fit, factored, ready to have a hinge column added.
    struct AxisSystem {
        let shell: PageWarp
        let n: Int
        let factor: [Double]          // Cholesky factor of the smooth normal equations (n × n)
        let smooth: [Double]          // the smooth solution
        let points: [Point], offsets: [Double], weights: [Double]
        let nodes: [(Int, Int, Int, Int)], coefficients: [(Double, Double, Double, Double)]

        init?(_ samples: [PageWarp.Sample], weights all: [Double]? = nil, axis: PageWarp.Sample.Axis, over area: Rect,
              spacing: Double, stiffness: Double) {
            let all = all ?? samples.map(\.weight)
            let kept = samples.indices.filter { samples[$0].axis == axis && all[$0] > 0 }
            guard !kept.isEmpty else { return nil }
            let mine = kept.map { samples[$0] }
            shell = PageWarp.shell(over: area, spacing: spacing)
            n = shell.columns * shell.rows
            points = mine.map(\.at); offsets = mine.map(\.offset); weights = kept.map { all[$0] }
            var nodes: [(Int, Int, Int, Int)] = [], coefficients: [(Double, Double, Double, Double)] = []
            for p in points {
                let (k, c) = shell.weights(p)
                nodes.append((k[0], k[1], k[2], k[3])); coefficients.append((c[0], c[1], c[2], c[3]))
            }
            self.nodes = nodes; self.coefficients = coefficients
            let (a, b) = PageWarp.normalEquations(mine, weights: weights, axis: axis, shell: shell, stiffness: stiffness)
            guard let l = PageWarp.cholesky(a, n) else { return nil }
            factor = l
            smooth = PageWarp.substitute(l, b, n)
        }

        func value(_ i: Int, _ m: [Double]) -> Double {
            let k = nodes[i], c = coefficients[i]
            return c.0 * m[k.0] + c.1 * m[k.1] + c.2 * m[k.2] + c.3 * m[k.3]
        }

        func misfit(cap: Double) -> Double {
            var total = 0.0
            for i in points.indices {
                let r = offsets[i] - value(i, smooth)
                total += weights[i] * min(r * r, cap * cap)
            }
            return total
        }

        /// The misfit left when the line's hinge joins the smooth warp (and the bend along this axis).
        func misfit(with line: PageCrease, cap: Double) -> Double {
            guard let (m, bend) = solve(with: line) else { return .infinity }
            var total = 0.0
            for i in points.indices {
                let r = offsets[i] - value(i, m) - bend * line.hinge(points[i])
                total += weights[i] * min(r * r, cap * cap)
            }
            return total
        }

        /// Schur complement of the hinge column: the smooth nodes and the bend fitted together.
        func solve(with line: PageCrease) -> ([Double], Double)? {
            var g = [Double](repeating: 0, count: n)
            var s = 0.0, t = 0.0
            for i in points.indices {
                let h = line.hinge(points[i])
                guard h > 0 else { continue }
                let w = weights[i] * h, k = nodes[i], c = coefficients[i]
                g[k.0] += w * c.0; g[k.1] += w * c.1; g[k.2] += w * c.2; g[k.3] += w * c.3
                s += w * h; t += w * offsets[i]
            }
            let z = PageWarp.substitute(factor, g, n)
            var gz = 0.0, gm = 0.0
            for k in 0..<n { gz += g[k] * z[k]; gm += g[k] * smooth[k] }
            let schur = s - gz
            guard schur > 1e-6 * max(1, s) else { return nil }
            let bend = (t - gm) / schur
            return ((0..<n).map { smooth[$0] - z[$0] * bend }, bend)
        }
    }
}
