import OCRKit
import SheetModel

/// Points along the fields' printed borders, each with the normal a dark line crosses it on: how well a
/// mapping lands on the print is the share of them where the line is found.
struct BoxLineProbes {
    struct Probe {
        let at: Point, normal: Point
    }

    let probes: [Probe]

    init(probes: [Probe]) { self.probes = probes }

    /// The probes on lines that run across `axis` (`.x`: the vertical lines, whose place tells x).
    func telling(_ axis: PageWarp.Sample.Axis) -> BoxLineProbes {
        BoxLineProbes(probes: probes.filter { axis == .x ? $0.normal.x != 0 : $0.normal.y != 0 })
    }

    /// The probes a move of the frame's corner `corner` moves at least `share` as far: a homography's
    /// change of one corner moves a point about as much as its bilinear weight toward that corner,
    /// from nothing at the opposite corner (`opposite`) and along the two sides through it.
    func moved(by corner: Point, from opposite: Point, atLeast share: Double) -> BoxLineProbes {
        BoxLineProbes(probes: probes.filter { probe in
            let u = (probe.at.x - opposite.x) / (corner.x - opposite.x), v = (probe.at.y - opposite.y) / (corner.y - opposite.y)
            return max(0, min(1, u)) * max(0, min(1, v)) >= share
        })
    }

    /// Every `step` points along each field's top and bottom, then its left and right, 2 points in from
    /// the corners (where the lines of a box meet, neither tells a direction).
    init(_ template: SheetTemplate, step: Double) {
        var probes: [Probe] = []
        for field in template.fields {
            let r = field.rect
            var x = r.x + 2
            while x < r.maxX - 2 {
                probes.append(Probe(at: Point(x: x, y: r.y), normal: Point(x: 0, y: 1)))
                probes.append(Probe(at: Point(x: x, y: r.maxY), normal: Point(x: 0, y: 1)))
                x += step
            }
            var y = r.y + 2
            while y < r.maxY - 2 {
                probes.append(Probe(at: Point(x: r.x, y: y), normal: Point(x: 1, y: 0)))
                probes.append(Probe(at: Point(x: r.maxX, y: y), normal: Point(x: 1, y: 0)))
                y += step
            }
        }
        self.probes = probes
    }

    /// The share of probes where a dark line lies within `tolerance` points of where `mapping` puts it:
    /// darker than 75% of the paper on either side just beyond, by at least 20 levels. The line is looked
    /// for every 0.75 point or closer, so a printed line (about a point wide) is not stepped over.
    func share(in image: GrayBuffer, through mapping: PageMapping, within tolerance: Double) -> Double {
        let steps = 2 * Int((tolerance / 0.75).rounded(.up))
        let offsets = (0...steps).map { -tolerance + Double($0) * 2 * tolerance / Double(steps) }
        let beyond = [-(tolerance + 2.5), tolerance + 2.5, -(tolerance + 3.5), tolerance + 3.5]
        var hits = 0
        for probe in probes {
            func at(_ t: Double) -> Double {
                let q = mapping.apply(Point(x: probe.at.x + probe.normal.x * t, y: probe.at.y + probe.normal.y * t))
                return image.sample(q.x, q.y)
            }
            var line = Double.infinity
            for t in offsets { line = min(line, at(t)) }
            var paper = -Double.infinity
            for t in beyond { paper = max(paper, at(t)) }
            if line < paper * 0.75 && paper - line > 20 { hits += 1 }
        }
        return probes.isEmpty ? 0 : Double(hits) / Double(probes.count)
    }
}
