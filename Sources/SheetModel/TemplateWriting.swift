import Foundation

extension SheetTemplate {
    /// The template as a file a person reads and edits, written the same way every time: the top-level keys in
    /// the order `Templates/README.md` lists them, one field, landmark, label or rule per line with its keys in
    /// the README's order (`id` first; JSONEncoder's own order is a hash's on Linux, and its pretty printing
    /// spreads a rect over six lines), the game log indented. Decoding it gives this template back.
    public func formattedJSON() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func json<T: Encodable>(_ value: T) throws -> String { String(decoding: try encoder.encode(value), as: UTF8.self) }
        /// `{"a": 1, "b": 2}` in the order given, absent values left out.
        func object(_ pairs: [(String, String?)]) throws -> String {
            "{" + (try pairs.compactMap { key, value in try value.map { "\(try json(key)): \($0)" } }).joined(separator: ", ") + "}"
        }
        func list(_ lines: [String]) -> String {
            lines.isEmpty ? "[]" : "[\n" + lines.map { "    " + $0 }.joined(separator: ",\n") + "\n  ]"
        }

        var entries: [(String, String?)] = [
            ("format", try json(format)), ("id", try json(id)), ("version", try json(version)), ("title", try json(title)),
            ("sport", try sport.map(json)),
            ("page", try object([("width", try json(page.width)), ("height", try json(page.height))])),
            ("printedElsewhere", try printedElsewhere.map(json)),
            ("landmarks", try landmarks.map { list(try $0.map { try object([("from", try json($0.from)), ("to", try json($0.to))]) }) }),
        ]
        entries.append(("fields", list(try fields.map { f in
            try object([("id", try json(f.id)), ("kind", try json(f.kind)), ("rect", try json(f.rect)), ("combs", try f.combs.map(json)),
                        ("label", try f.label.map(json)), ("range", try f.range.map(json)), ("names", try f.names.map(json))])
        })))
        entries.append(("labels", try labels.map { list(try $0.map { l in
            try object([("text", try json(l.text)), ("at", try json(l.at)), ("size", try l.size.map(json))])
        }) }))
        entries.append(("rules", try rules.map { list(try $0.map { r in
            try object([("id", try json(r.id)), ("check", try json(r.check)), ("message", try json(r.message)),
                        ("severity", try r.severity.map(json))])
        }) }))
        if let gameLog {
            let pretty = JSONEncoder()
            pretty.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let text = String(decoding: try pretty.encode(gameLog), as: UTF8.self)
            entries.append(("gameLog", text.split(separator: "\n").joined(separator: "\n  ")))
        }
        let body = try entries.compactMap { key, value in try value.map { "  \(try json(key)): \($0)" } }.joined(separator: ",\n")
        return Data(("{\n" + body + "\n}\n").utf8)
    }
}
