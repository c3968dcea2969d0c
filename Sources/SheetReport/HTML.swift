import Foundation
import SheetModel

/// Text into HTML. Everything the store holds (names, opponents, paths, reviewers' notes) goes through
/// `escape` before it is written, in element text and attribute values alike: a name like
/// `<img src=x onerror=alert(1)>` must show as those characters, never become markup.
enum HTML {
    /// Control and bidirectional-override characters are first written as the terminal commands write them
    /// (`TerminalText.escaped`), so a name cannot reorder what the page seems to say.
    static func escape(_ text: String) -> String {
        let text = TerminalText.escaped(text)
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// An id for an element from a name: letters and digits kept, the rest dashes, made unique by `index`.
    static func id(_ prefix: String, _ name: String, _ index: Int) -> String {
        let slug = String(name.lowercased().unicodeScalars.map { ("a"..."z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "-" })
            .split(separator: "-").joined(separator: "-")
        return "\(prefix)-\(index)" + (slug.isEmpty ? "" : "-" + slug.prefix(40))
    }
}

/// How numbers read on the page: one decimal for percentages and averages, a dash for nothing.
enum Number {
    static func percent(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "—" }
    static func decimal(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "—" }
    /// An axis tick: whole numbers without decimals.
    static func tick(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value) }
    static func count(_ value: Int?) -> String { value.map(String.init) ?? "—" }
    static func plural(_ n: Int, _ word: String, _ plural: String? = nil) -> String { "\(n) " + (n == 1 ? word : plural ?? word + "s") }
}

/// A table of numbers: the text behind a chart, or a list of games. `key`s become `data-col`
/// attributes so a reader (or a test in a browser) can find a column without parsing its title.
struct DataTable {
    struct Column {
        var key: String
        var title: String
        var numeric: Bool
        init(_ key: String, _ title: String, numeric: Bool = false) { self.key = key; self.title = title; self.numeric = numeric }
    }

    /// `data-table` value, so the page's tables can be told apart.
    var kind: String
    var caption: String
    var columns: [Column]
    /// Each row's `data-row` value (e.g. the game log id) and its cells' text.
    var rows: [(id: String?, cells: [String])]
    /// Extra attributes of each row, by row index (`data-ctx`, `data-season`, `class`): what the page's filters select.
    var rowAttributes: [Int: [(String, String)]] = [:]
    /// Cells marked as resting on few shots, by row and column index.
    var fewCells: Set<[Int]> = []
    /// Said instead of an empty table.
    var empty = "Nothing to show."

    /// Under this many shots a save % is marked: one shot more or less moves it by 10 points or more.
    static let fewShots = 10

    var html: String {
        guard !rows.isEmpty else { return "<p class=\"empty\">\(HTML.escape(empty))</p>" }
        var out = "<div class=\"table-wrap\"><table class=\"data\" data-table=\"\(HTML.escape(kind))\"><caption>\(HTML.escape(caption))</caption><thead><tr>"
        for c in columns { out += "<th scope=\"col\" data-col=\"\(c.key)\"\(c.numeric ? " class=\"num\"" : "")>\(HTML.escape(c.title))</th>" }
        out += "</tr></thead><tbody>"
        for (r, row) in rows.enumerated() {
            let attributes = (row.id.map { [("data-row", $0)] } ?? []) + (rowAttributes[r] ?? [])
            out += "<tr" + attributes.map { " \($0.0)=\"\(HTML.escape($0.1))\"" }.joined() + ">"
            for (i, (c, cell)) in zip(columns, row.cells).enumerated() {
                let few = fewCells.contains([r, i])
                let classes = (c.numeric ? ["num"] : []) + (few ? ["few"] : [])
                out += "<td data-col=\"\(c.key)\"" + (classes.isEmpty ? "" : " class=\"\(classes.joined(separator: " "))\"")
                    + (few ? " title=\"fewer than \(DataTable.fewShots) shots\"" : "") + ">\(HTML.escape(cell))</td>"
            }
            out += "</tr>"
        }
        return out + "</tbody></table></div>"
    }
}
