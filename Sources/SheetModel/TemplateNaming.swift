import Foundation

/// A person's names for a draft template's boxes (`statsheet template name DRAFT --names NAMES`): the second
/// step of making a template from a photo of a blank form. The draft found the boxes and where they are;
/// this says what each one is. Coordinates are never typed by a person: a box keeps its draft rect.
///
/// ```json
/// {"id": "club-tally", "title": "Club tally card", "sport": "lacrosse",
///  "fields": {"box-1": {"id": "athlete", "kind": "text", "names": "athlete"},
///             "box-7+box-8": {"id": "q1.shots", "range": [0, 49]},
///             "box-30": null},
///  "rules": [...], "gameLog": {...}}
/// ```
///
/// See `Templates/README.md`, "Naming a draft's boxes", for the contract.
public struct FieldNames: Sendable, Equatable, Decodable {
    public var id: String?
    public var title: String?
    public var sport: String?
    /// Keyed by one draft box id or several joined by `+` (one field over their union). In file order is not
    /// needed: the named template keeps the draft's order (row by row).
    public var fields: [String: BoxNaming]
    public var rules: [RuleSpec]?
    public var gameLog: GameLogSpec?

    public init(id: String? = nil, title: String? = nil, sport: String? = nil, fields: [String: BoxNaming],
                rules: [RuleSpec]? = nil, gameLog: GameLogSpec? = nil) {
        self.id = id; self.title = title; self.sport = sport; self.fields = fields; self.rules = rules; self.gameLog = gameLog
    }

    /// Decodes a NAMES file; a mistake is one line naming the key at fault, as `template check` reports.
    public static func decode(_ data: Data) throws(TemplateError) -> FieldNames {
        try SheetTemplate.decodeJSON(FieldNames.self, from: data)
    }
}

/// What one entry of `FieldNames.fields` says about its box (or boxes).
public enum BoxNaming: Sendable, Equatable, Decodable {
    /// `null`: not a field someone writes in (a printed heading's box, a logo's frame); left out.
    case drop
    case field(FieldNaming)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        self = c.decodeNil() ? .drop : .field(try c.decode(FieldNaming.self))
    }
}

/// A key of a box's naming: absent keeps the draft's guess, `null` removes it, a value replaces it.
public enum Override<Value: Sendable & Equatable>: Sendable, Equatable {
    case keep, remove, set(Value)

    func applied(to guess: Value?) -> Value? {
        switch self {
        case .keep: guess
        case .remove: nil
        case .set(let value): value
        }
    }
}

/// The field a box becomes: its id, and any of the draft's guesses replaced.
public struct FieldNaming: Sendable, Equatable, Decodable {
    public var id: String
    public var kind: FieldKind?
    public var combs: Override<Int>
    public var label: Override<String>
    public var range: Override<[Int]>
    public var names: Override<NameKind>

    public init(id: String, kind: FieldKind? = nil, combs: Override<Int> = .keep, label: Override<String> = .keep,
                range: Override<[Int]> = .keep, names: Override<NameKind> = .keep) {
        self.id = id; self.kind = kind; self.combs = combs; self.label = label; self.range = range; self.names = names
    }

    enum CodingKeys: String, CodingKey { case id, kind, combs, label, range, names }

    /// Any key of the object, to refuse the ones NAMES does not have.
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        // Strict, unlike a template: a `rect` typed here, or a misspelt `range`, would otherwise be dropped
        // without a word, and the person would believe it taken.
        let all = try decoder.container(keyedBy: AnyKey.self)
        for key in all.allKeys where CodingKeys(stringValue: key.stringValue) == nil {
            let known = "known keys: id, kind, combs, label, range, names"
            throw DecodingError.dataCorruptedError(
                forKey: key, in: all,
                debugDescription: key.stringValue == "rect"
                    ? "a box keeps the rect the draft found; NAMES only names it (\(known))"
                    : "not a key of a box's naming (\(known))")
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func override<T: Decodable & Sendable & Equatable>(_ key: CodingKeys, _: T.Type) throws -> Override<T> {
            guard c.contains(key) else { return .keep }
            return try c.decodeNil(forKey: key) ? .remove : .set(c.decode(T.self, forKey: key))
        }
        id = try c.decode(String.self, forKey: .id)
        kind = try c.decodeIfPresent(FieldKind.self, forKey: .kind)
        combs = try override(.combs, Int.self)
        label = try override(.label, String.self)
        range = try override(.range, [Int].self)
        names = try override(.names, NameKind.self)
    }
}

extension SheetTemplate {
    /// The pattern of the ids `template new` gives the boxes it finds: `box-1`, `box-2`, …
    public static func isDraftFieldID(_ id: String) -> Bool {
        guard id.hasPrefix("box-") else { return false }
        let number = id.dropFirst(4)
        return !number.isEmpty && number.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// The fields still carrying a draft's `box-N` id.
    public var draftFieldIDs: [String] { fields.map(\.id).filter(Self.isDraftFieldID) }

    /// Guidance for a template whose fields still have draft ids, or nil: such a template is valid (it can be
    /// scanned), but its readings and rules would speak of `box-7` rather than `q1.shots`.
    public var draftIDGuidance: String? {
        let ids = draftFieldIDs
        guard !ids.isEmpty else { return nil }
        let shown = ids.count > 8 ? ids.prefix(8).joined(separator: ", ") + ", …" : ids.joined(separator: ", ")
        return "\(ids.count) field\(ids.count == 1 ? " still has a draft id" : "s still have draft ids"): \(shown); "
            + "name \(ids.count == 1 ? "it" : "them") in NAMES (statsheet template name) or drop \(ids.count == 1 ? "it" : "them") with null"
    }

    /// This draft with its boxes named: each box keeps its rect; a named box takes its id and any kind, combs,
    /// label, range and names given; a box named `null` is left out; other boxes stay as they are. A key
    /// `box-3+box-4` makes one field over the union of those boxes, where the first of them stood; a written-in-
    /// digits field made so has one comb per box unless `combs` says otherwise. `rules` and `gameLog` are
    /// copied in, and `id`, `title` and `sport` replace the draft's when given.
    ///
    /// Throws when NAMES speaks of boxes the draft does not have, or of one box twice. The result is not
    /// checked here: `SheetTemplate.problems()` does that, as for any template.
    public func named(by names: FieldNames) throws(TemplateError) -> NamedDraft {
        let known = Set(fields.map(\.id))
        var group: [String: [String]] = [:]  // box id → the boxes of its key, in key order
        var naming: [String: BoxNaming] = [:]  // first box of a key → its naming
        var unknown: [String] = [], twice: [String] = [], empty: [String] = []
        for (key, value) in names.fields.sorted(by: { Self.draftOrder($0.key, $1.key) }) {
            let boxes = key.split(separator: "+", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if boxes.contains(where: \.isEmpty) { empty.append(key); continue }
            unknown += boxes.filter { !known.contains($0) }
            for box in boxes where known.contains(box) {
                if group[box] != nil { twice.append(box) }
                group[box] = boxes
            }
            // The key's boxes in the draft's order, so the merged field stands where the first of them does.
            if let first = fields.map(\.id).first(where: boxes.contains) { naming[first] = value }
        }
        var problems: [String] = []
        if !empty.isEmpty {
            problems.append("fields: \(empty.map { "'\($0)'" }.joined(separator: ", ")): a key is a box id, or box ids joined by '+'")
        }
        if !unknown.isEmpty {
            let list = Array(Set(unknown)).sorted(by: Self.draftOrder)
            problems.append("fields: the draft has no box\(list.count == 1 ? "" : "es") \(list.joined(separator: ", ")) (its boxes: \(Self.span(of: fields.map(\.id))))")
        }
        if !twice.isEmpty {
            problems.append("fields: \(Array(Set(twice)).sorted(by: Self.draftOrder).joined(separator: ", ")) named more than once")
        }
        guard problems.isEmpty else { throw TemplateError(problems) }

        var named = self
        var sources: [String] = []
        named.fields = fields.compactMap { box -> FieldSpec? in
            guard let boxes = group[box.id] else { sources.append(box.id); return box }
            guard let value = naming[box.id] else { return nil }  // a later box of a merged key
            guard case .field(let spec) = value else { return nil }
            sources.append(boxes.joined(separator: "+"))
            let members = fields.filter { boxes.contains($0.id) }
            var field = box
            field.rect = members.dropFirst().reduce(box.rect) { $0.union($1.rect) }
            field.id = spec.id
            if let kind = spec.kind { field.kind = kind }
            // A guess that cannot hold for the kind named is dropped rather than refused: the person said what
            // the box is, the draft only guessed.
            if field.kind == .checkbox { field.combs = nil }
            if members.count > 1 && field.kind.isWrittenInDigits { field.combs = members.count }
            field.combs = spec.combs.applied(to: field.combs)
            field.label = spec.label.applied(to: field.label)
            field.range = spec.range.applied(to: field.range)
            if field.kind != .text { field.names = nil }
            field.names = spec.names.applied(to: field.names)
            return field
        }
        if let id = names.id { named.id = id }
        if let title = names.title { named.title = title }
        if let sport = names.sport { named.sport = sport }
        if let rules = names.rules { named.rules = rules }
        if let gameLog = names.gameLog { named.gameLog = gameLog }
        return NamedDraft(template: named, boxes: sources)
    }

    /// `box-2` before `box-10`: draft ids by their number, anything else after them by its text.
    static func draftOrder(_ a: String, _ b: String) -> Bool {
        func number(_ id: String) -> Int? { isDraftFieldID(id) ? Int(id.dropFirst(4)) : nil }
        switch (number(a), number(b)) {
        case let (x?, y?): return x < y
        case (.some, nil): return true
        case (nil, .some): return false
        case (nil, nil): return a < b
        }
    }

    /// `box-1 … box-31`, or the ids themselves when they are not a draft's.
    private static func span(of ids: [String]) -> String {
        guard let first = ids.first, let last = ids.last else { return "none" }
        return ids.count == 1 ? first : "\(first) … \(last)"
    }
}

/// A draft with its boxes named, and which box each field came from.
public struct NamedDraft: Sendable, Equatable {
    public var template: SheetTemplate
    /// For each of `template.fields`, the draft box it was made from (`box-3`, or `box-3+box-4` merged).
    public var boxes: [String]

    /// The template's problems (`SheetTemplate.problems()`), a field's naming its box too, since the person
    /// fixing them looks at the draft's preview: `fields[4] 'athlete' (box-5): duplicate field id 'athlete'`.
    public func problems() -> [String] {
        template.problems(naming: { index, field in
            let name = SheetTemplate.fieldName(index, field)
            return index < boxes.count && boxes[index] != field.id ? name + " (\(boxes[index]))" : name
        })
    }
}
