import Foundation

/// Charts as inline SVG, written here rather than by a script in the page: the file stays one
/// self-contained, script-free document that renders the same in every browser and on paper, and
/// the drawing is plain text a unit test can read.
///
/// Series are told apart by more than hue, so a grayscale print or a colour-blind reader loses
/// nothing: `a` is dark and solid, `b` light and solid, `c` hatched (bars) or dashed (lines).
/// Colours (Okabe–Ito) live in the page's stylesheet, which also switches them for dark mode.
struct Series {
    enum Style: String { case a, b, c }
    var name: String
    var style: Style
    var values: [Double?]
}

/// A chart of values per game (x: the games in date order), as lines or grouped bars.
struct GameChart {
    enum Kind { case lines, bars }
    var id: String
    var title: String
    /// The text alternative: what the chart shows, in a sentence or two.
    var summary: String
    var labels: [String]
    var series: [Series]
    var kind: Kind
    /// A fixed top of the value axis (100 for percentages); nil fits the data.
    var yMax: Double?
    var yTitle: String
    var width: Double = 720
    var height: Double = 230
    var format: (Double) -> String = { Number.decimal($0) }
    /// Said in place of the marks when no game has a value.
    var noData = "nothing recorded"
    /// Where a new season starts: a rule before that game, with the season's name.
    var boundaries: [(index: Int, label: String)] = []

    /// Bars stay readable up to this many games; beyond it counts are drawn as lines.
    static let maxBarGames = 40

    var svg: String {
        let compact = width < 300
        let (left, right, top, bottom) = (compact ? 34.0 : 44.0, 10.0, 14.0, compact ? 22.0 : 30.0)
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let n = max(labels.count, 1)
        let band = plotWidth / Double(n)
        let dataMax = series.flatMap(\.values).compactMap { $0 }.max() ?? 0
        let ticks = Axis.ticks(max: yMax ?? dataMax, count: compact ? 3 : 5)
        let top_ = ticks.last ?? 1
        func x(_ i: Int) -> Double { left + band * (Double(i) + 0.5) }
        func y(_ v: Double) -> Double { top + plotHeight * (1 - min(v, top_) / top_) }

        var out = SVG.open(id: id, width: width, height: height, title: title, summary: summary)
        out += "<g class=\"grid\">"
        for t in ticks {
            out += "<line x1=\"\(SVG.n(left))\" x2=\"\(SVG.n(width - right))\" y1=\"\(SVG.n(y(t)))\" y2=\"\(SVG.n(y(t)))\"/>"
        }
        out += "</g><g class=\"axis\">"
        for t in ticks {
            out += "<text x=\"\(SVG.n(left - 6))\" y=\"\(SVG.n(y(t) + 4))\" text-anchor=\"end\">\(Number.tick(t))</text>"
        }
        let labelY = SVG.n(height - bottom + (compact ? 14 : 18))
        if compact && labels.count > 1, let first = labels.first, let last = labels.last {
            // A small multiple has room for the season's first and last dates only.
            out += "<text x=\"\(SVG.n(left))\" y=\"\(labelY)\" text-anchor=\"start\">\(HTML.escape(first))</text>"
                + "<text x=\"\(SVG.n(width - right))\" y=\"\(labelY)\" text-anchor=\"end\">\(HTML.escape(last))</text>"
        } else {
            let most = max(1, Int(plotWidth / 80))
            let step = Int((Double(labels.count) / Double(most)).rounded(.up))
            for (i, label) in labels.enumerated() where step <= 1 || i % step == 0 {
                out += "<text x=\"\(SVG.n(x(i)))\" y=\"\(labelY)\" text-anchor=\"middle\">\(HTML.escape(label))</text>"
            }
        }
        for boundary in boundaries where boundary.index > 0 && boundary.index < labels.count {
            let bx = left + band * Double(boundary.index)
            out += "<g class=\"season-mark\"><line x1=\"\(SVG.n(bx))\" x2=\"\(SVG.n(bx))\" y1=\"\(SVG.n(top))\" y2=\"\(SVG.n(top + plotHeight))\"/>"
                + (compact ? "" : "<text x=\"\(SVG.n(bx + 3))\" y=\"\(SVG.n(top + 10))\" text-anchor=\"start\">\(HTML.escape(boundary.label))</text>") + "</g>"
        }
        out += "<line class=\"baseline\" x1=\"\(SVG.n(left))\" x2=\"\(SVG.n(width - right))\" y1=\"\(SVG.n(y(0)))\" y2=\"\(SVG.n(y(0)))\"/>"
        // A small multiple's title names its unit; the tick labels need the room.
        if !compact { out += "<text class=\"unit\" x=\"\(SVG.n(left + 4))\" y=\"\(SVG.n(top - 4))\" text-anchor=\"start\">\(HTML.escape(yTitle))</text>" }
        out += "</g>"

        let tooltips = labels.count <= 60
        if !series.contains(where: { $0.values.contains { $0 != nil } }) {
            // Axes with nothing on them would read as zeros: say there is nothing instead.
            return out + "<text class=\"no-data\" x=\"\(SVG.n(left + plotWidth / 2))\" y=\"\(SVG.n(top + plotHeight / 2))\" "
                + "text-anchor=\"middle\">\(HTML.escape(noData))</text></svg>"
        }
        switch kind {
        case .bars:
            // Wide bands (a game or two) keep bars of a reading width rather than filling the plot.
            let group = min(band * 0.8, 34 * Double(max(series.count, 1))), bar = group / Double(max(series.count, 1))
            for (s, serie) in series.enumerated() {
                out += "<g class=\"series s-\(serie.style.rawValue)\">"
                for (i, value) in serie.values.enumerated() {
                    guard let value else { continue }
                    let x0 = x(i) - group / 2 + bar * Double(s)
                    out += "<rect class=\"mark bar\" x=\"\(SVG.n(x0))\" y=\"\(SVG.n(y(value)))\" width=\"\(SVG.n(max(bar - 1, 0.5)))\" "
                        + "height=\"\(SVG.n(max(y(0) - y(value), 0)))\">"
                        + (tooltips ? "<title>\(HTML.escape("\(labels[safe: i] ?? ""): \(serie.name) \(format(value))"))</title>" : "")
                        + "</rect>"
                }
                out += "</g>"
            }
        case .lines:
            for serie in series {
                out += "<g class=\"series s-\(serie.style.rawValue)\">"
                var path = "", pen = false
                for (i, value) in serie.values.enumerated() {
                    guard let value else { pen = false; continue }
                    path += (pen ? " L" : " M") + "\(SVG.n(x(i))) \(SVG.n(y(value)))"
                    pen = true
                }
                if !path.isEmpty { out += "<path class=\"mark line\" d=\"\(path.dropFirst())\"/>" }
                if tooltips {
                    for (i, value) in serie.values.enumerated() {
                        guard let value else { continue }
                        out += SVG.marker(serie.style, x: x(i), y: y(value),
                                          title: "\(labels[safe: i] ?? ""): \(serie.name) \(format(value))")
                    }
                }
                out += "</g>"
            }
        }
        return out + "</svg>"
    }

    /// The chart with its legend and, folded under it, the numbers it draws.
    func figure(table: DataTable) -> String {
        "<figure class=\"chart-figure\" id=\"fig-\(id)\">"
            + "<figcaption>\(HTML.escape(title))</figcaption>" + SVG.legend(series) + "<div class=\"chart-box\">" + svg + "</div>"
            + "<details><summary>The numbers</summary>\(table.html)</details></figure>"
    }
}

/// Horizontal bars, one per row: a few labelled quantities side by side (High School against Club,
/// flags by cause).
struct BarList {
    var id: String
    var title: String
    var summary: String
    var rows: [(label: String, value: Double, text: String)]
    var style: Series.Style = .a
    var width: Double = 340
    var labelWidth: Double = 96
    /// A fixed end of the scale; nil fits the largest value.
    var max: Double?

    var svg: String {
        let rowHeight = 24.0, top = 4.0
        let height = top * 2 + rowHeight * Double(Swift.max(rows.count, 1))
        let scaleEnd = max ?? rows.map(\.value).max() ?? 1
        let barSpace = width - labelWidth - 52
        var out = SVG.open(id: id, width: width, height: height, title: title, summary: summary)
        out += "<g class=\"series s-\(style.rawValue)\">"
        for (i, row) in rows.enumerated() {
            let y = top + rowHeight * Double(i)
            let length = scaleEnd > 0 ? barSpace * Swift.min(row.value, scaleEnd) / scaleEnd : 0
            out += "<text class=\"label\" x=\"\(SVG.n(labelWidth - 6))\" y=\"\(SVG.n(y + 16))\" text-anchor=\"end\">"
                + HTML.escape(Self.shortened(row.label, to: Int(labelWidth / 6.5))) + "<title>\(HTML.escape(row.label))</title></text>"
            out += "<rect class=\"mark bar\" x=\"\(SVG.n(labelWidth))\" y=\"\(SVG.n(y + 4))\" width=\"\(SVG.n(Swift.max(length, 0)))\" height=\"16\"/>"
            out += "<text class=\"value\" x=\"\(SVG.n(labelWidth + length + 5))\" y=\"\(SVG.n(y + 16))\">\(HTML.escape(row.text))</text>"
        }
        return out + "</g></svg>"
    }

    static func shortened(_ text: String, to count: Int) -> String {
        text.count <= count ? text : String(text.prefix(Swift.max(count - 1, 1))) + "…"
    }
}

enum SVG {
    /// An `<svg>` with its text alternative: a title and a description the page names as its label.
    static func open(id: String, width: Double, height: Double, title: String, summary: String) -> String {
        "<svg class=\"chart\" id=\"\(id)\" width=\"\(n(width))\" height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\" role=\"img\" "
            + "aria-labelledby=\"\(id)-title \(id)-desc\"><title id=\"\(id)-title\">\(HTML.escape(title))</title>"
            + "<desc id=\"\(id)-desc\">\(HTML.escape(summary))</desc>"
    }

    /// Coordinates with at most one decimal: the file stays small with a thousand games.
    static func n(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// A point's marker: a circle, square or diamond by style, so points differ in shape as well as colour.
    static func marker(_ style: Series.Style, x: Double, y: Double, title: String) -> String {
        let tip = "<title>\(HTML.escape(title))</title>"
        switch style {
        case .a: return "<circle class=\"mark dot\" cx=\"\(n(x))\" cy=\"\(n(y))\" r=\"3.5\">\(tip)</circle>"
        case .b: return "<rect class=\"mark dot\" x=\"\(n(x - 3))\" y=\"\(n(y - 3))\" width=\"6\" height=\"6\">\(tip)</rect>"
        case .c: return "<path class=\"mark dot\" d=\"M\(n(x)) \(n(y - 4)) L\(n(x + 4)) \(n(y)) L\(n(x)) \(n(y + 4)) L\(n(x - 4)) \(n(y))Z\">\(tip)</path>"
        }
    }

    /// The series' names beside a swatch drawn as the chart draws them.
    static func legend(_ series: [Series]) -> String {
        guard series.count > 1 else { return "" }
        return "<ul class=\"legend\">" + series.map { s in
            "<li><svg class=\"key s-\(s.style.rawValue)\" width=\"26\" height=\"12\" aria-hidden=\"true\">"
                + "<rect class=\"swatch\" x=\"0\" y=\"1\" width=\"26\" height=\"10\"/><line x1=\"0\" x2=\"26\" y1=\"6\" y2=\"6\"/></svg>"
                + HTML.escape(s.name) + "</li>"
        }.joined() + "</ul>"
    }

    /// The hatch pattern style `c` bars are filled with, defined once for the page.
    static let definitions = """
        <svg class="defs" width="0" height="0" aria-hidden="true" focusable="false"><defs>\
        <pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">\
        <rect class="hatch-ground" width="6" height="6"/><line class="hatch-line" x1="0" y1="0" x2="0" y2="6"/></pattern>\
        </defs></svg>
        """
}

enum Axis {
    /// Round tick values from 0 to at least `max`: steps of 1, 2, 2.5 or 5 × a power of ten.
    static func ticks(max: Double, count: Int) -> [Double] {
        guard max > 0, max.isFinite else { return [0, 1] }
        let raw = max / Double(Swift.max(count - 1, 1))
        let power = pow(10, floor(log10(raw)))
        let step = [1, 2, 2.5, 5, 10].map { $0 * power }.first { $0 >= raw } ?? raw
        let n = Int((max / step).rounded(.up))
        return (0...Swift.max(n, 1)).map { Double($0) * step }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
