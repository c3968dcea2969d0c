import Foundation
import SheetModel
import SheetStore

/// `statsheet review --apply FILE.json`: corrections in bulk, with the review screen's validation and
/// audit trail. The file is a JSON list of `{"sheet": 12 | "<sha256>" | "<path>", "field": "q2.saves",
/// "value": 7, "note": "…"}`. Every entry is checked before anything is written: one bad entry and
/// nothing is applied.
public struct BulkCorrections {
    public struct Entry: Sendable, Equatable {
        public var sheet: SheetSummary
        public var field: String
        public var from: FieldValue
        public var value: FieldValue
        public var note: String?
    }

    public struct Invalid: Error, Equatable, Sendable, CustomStringConvertible {
        public let problems: [String]
        public var description: String { problems.joined(separator: "\n") }
    }

    private let store: any SheetStore

    public init(store: any SheetStore) { self.store = store }

    /// Checks every entry of the file's contents against the store; all problems at once.
    public func validate(_ data: Data) async throws -> [Entry] {
        let list: [RawEntry]
        do {
            list = try JSONDecoder().decode([RawEntry].self, from: data)
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw Invalid(problems: ["the file must hold a JSON list of {\"sheet\", \"field\", \"value\", \"note\"} objects"])
        } catch {
            throw Invalid(problems: ["not JSON: \(error.localizedDescription)"])
        }
        if list.isEmpty { throw Invalid(problems: ["the list is empty: nothing to apply"]) }

        let sheets = try await store.sheets(status: nil)
        var reviews: [Int64: SheetReview] = [:]
        var entries: [Entry] = []
        var problems: [String] = []
        for (i, raw) in list.enumerated() {
            let at = "entry \(i + 1)"
            if let problem = raw.problems.first { problems.append("\(at): \(problem)"); continue }
            guard let reference = raw.sheet, let field = raw.field, let typed = raw.value else { continue }
            guard let sheet = Self.find(reference, in: sheets) else { problems.append("\(at): no stored sheet \(reference)"); continue }
            let review: SheetReview
            if let known = reviews[sheet.id] { review = known } else { review = try await store.sheetReview(sheetID: sheet.id); reviews[sheet.id] = review }
            if let decision = review.decision {
                problems.append("\(at): sheet \(sheet.id) was already \(decision.kind.rawValue) by \(decision.reviewer); it is not changed any more")
                continue
            }
            guard let current = review.fields.first(where: { $0.field == field }) else {
                problems.append("\(at): sheet \(sheet.id) has no field '\(field)'"); continue
            }
            switch Self.value(typed, kind: current.stored.kind) {
            case .failure(let error): problems.append("\(at): \(field): \(error.message)")
            case .success(let value): entries.append(Entry(sheet: sheet, field: field, from: current.value, value: value, note: raw.note))
            }
        }
        if !problems.isEmpty { throw Invalid(problems: problems) }
        return entries
    }

    /// Writes the validated entries, each as one correction by `reviewer`.
    public func apply(_ entries: [Entry], reviewer: String, at time: Date) async throws {
        for entry in entries {
            _ = try await store.addCorrection(NewCorrection(sheetID: entry.sheet.id, field: entry.field, newValue: entry.value,
                                                            reviewer: reviewer, at: time, note: entry.note))
        }
    }

    static func find(_ reference: SheetReference, in sheets: [SheetSummary]) -> SheetSummary? {
        switch reference {
        case .id(let id): return sheets.first { $0.id == id }
        case .text(let text):
            // A hash names a sheet only when its file is one sheet; a document's page is `HASH#page=N` or `PATH#page=N`.
            let (name, page) = SheetReference.splitPage(text)
            let byHash = sheets.filter { $0.sha256 == name.lowercased() }
            if !byHash.isEmpty { return byHash.count == 1 && page == nil ? byHash[0] : byHash.first { $0.page == page } }
            let absolute = URL(fileURLWithPath: name).standardizedFileURL.path
            return sheets.first { ($0.path == name || $0.path == absolute) && $0.page == page }
        }
    }

    /// A JSON value as the field's kind wants it: text is parsed as typed on the review screen, a
    /// number is a count (or the digits of a digits/text field).
    static func value(_ json: FieldValue, kind: FieldKind) -> Result<FieldValue, FieldValueError> {
        var value = json
        switch json {
        case .string(let text): return kind.value(parsing: text)
        case .integer(let n) where kind != .count: value = .string(String(n))
        default: break
        }
        return kind.accepts(value) ? .success(value) : .failure(FieldValueError("\(json) is not a value for a \(kind.rawValue) field"))
    }
}

public enum SheetReference: Sendable, Equatable, CustomStringConvertible {
    case id(Int64)
    /// A sha256 or a path, with `#page=N` for a page of a document.
    case text(String)

    /// `scans/week3.pdf#page=2` → (`scans/week3.pdf`, 2); text without a page fragment is all name.
    static func splitPage(_ text: String) -> (name: String, page: Int?) {
        guard let mark = text.range(of: "#page=", options: .backwards), let page = Int(text[mark.upperBound...]), page > 0 else {
            return (text, nil)
        }
        return (String(text[..<mark.lowerBound]), page)
    }
    public var description: String {
        switch self {
        case .id(let id): "\(id)"
        case .text(let text): "'\(text)'"
        }
    }
}

/// One entry as written in the file, decoded leniently so that every problem can be reported.
struct RawEntry: Decodable {
    var sheet: SheetReference?
    var field: String?
    var value: FieldValue?
    var note: String?
    var problems: [String] = []

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        guard let c = try? decoder.container(keyedBy: Key.self) else { problems.append("not an object"); return }
        let unknown = c.allKeys.map(\.stringValue).filter { !["sheet", "field", "value", "note"].contains($0) }
        if !unknown.isEmpty { problems.append("unknown key\(unknown.count == 1 ? "" : "s") \(unknown.sorted().joined(separator: ", "))") }
        let sheetKey = Key(stringValue: "sheet"), valueKey = Key(stringValue: "value"), noteKey = Key(stringValue: "note")
        if let id = try? c.decode(Int64.self, forKey: sheetKey) { sheet = .id(id) }
        else if let text = try? c.decode(String.self, forKey: sheetKey), !text.isEmpty { sheet = .text(text) }
        else { problems.append("no \"sheet\" (an id, a sha256 or a path)") }
        field = try? c.decode(String.self, forKey: Key(stringValue: "field"))
        if field == nil { problems.append("no \"field\" (a field id such as q2.saves)") }
        if !c.contains(valueKey) { problems.append("no \"value\" (null empties the field)") }
        else if (try? c.decodeNil(forKey: valueKey)) == true { value = .empty }
        else if let v = try? c.decode(FieldValue.self, forKey: valueKey) { value = v }
        else { problems.append("\"value\" must be a whole number, text, true/false or null") }
        if c.contains(noteKey), (try? c.decodeNil(forKey: noteKey)) != true {
            note = try? c.decode(String.self, forKey: noteKey)
            if note == nil { problems.append("\"note\" must be text") }
        }
    }
}
