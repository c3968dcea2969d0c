/// The value read from a field, in the shape its kind calls for.
/// JSON: an integer for counts, `"YYYY-MM-DD"` for dates, a string for text and digits, a boolean for
/// checkboxes, and null for an empty field.
public enum FieldValue: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    case empty
    case integer(Int)
    case string(String)
    case boolean(Bool)

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .empty }
        else if let b = try? c.decode(Bool.self) { self = .boolean(b) }
        else if let i = try? c.decode(Int.self) { self = .integer(i) }
        else { self = .string(try c.decode(String.self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .empty: try c.encodeNil()
        case .integer(let i): try c.encode(i)
        case .string(let s): try c.encode(s)
        case .boolean(let b): try c.encode(b)
        }
    }

    public var description: String {
        switch self {
        case .empty: "—"
        case .integer(let i): String(i)
        case .string(let s): s
        case .boolean(let b): b ? "☑" : "☐"
        }
    }
}

extension FieldValue {
    /// The number of a count; nil for anything else.
    public var integerValue: Int? { if case .integer(let i) = self { i } else { nil } }

    /// How a note names the value: "empty" for an empty box (its description, "—", reads as a dash).
    public var inNotes: String { self == .empty ? "empty" : description }

    /// What was written, as text: a string trimmed of spaces, or a number's digits; nil when nothing was.
    public var writtenText: String? {
        let text: String? = switch self {
        case .string(let s): s.trimmingCharacters(in: .whitespaces)
        case .integer(let i): String(i)
        default: nil
        }
        return text?.isEmpty == false ? text : nil
    }
}

/// Another reading of a field a recognizer considered, with its probability.
public struct Alternative: Sendable, Equatable, Codable {
    public let value: FieldValue
    public let probability: Double

    public init(value: FieldValue, probability: Double) {
        self.value = value
        self.probability = probability
    }
}

/// What was read from one field, and how sure the reader is.
public struct FieldReading: Sendable, Equatable, Codable {
    public var value: FieldValue
    /// The raw characters recognised, before interpretation ("07" for the count 7).
    public var text: String
    /// 0–100: the probability, in per cent, that the value is right (`SheetPosterior`). Under the review
    /// line the field is flagged.
    public var confidence: Double
    public var flagged: Bool
    /// What made the reader unsure, as data (`ReadingDoubt.words` says it in words).
    public var doubts: [ReadingDoubt]
    /// The recognizer's most probable readings, best first, with probabilities (the value read is the
    /// first). Empty when the recognizer gives no probabilities.
    public var alternatives: [Alternative] = []
    /// The reader's own first choice, when the sheet's rules made another value likelier and that one is
    /// shown: kept so that nothing a person wrote is changed silently. Nil when the value is the ink's.
    public var inkValue: FieldValue?
    /// The reader's own confidence in its first choice, before the rules weighed it; nil when they did not
    /// move it.
    public var inkConfidence: Double?

    /// The probability the recognizer gave the values it listed, together; the rest it left to values it
    /// did not list (a stray mark read as no digit, readings cut from the list).
    public var listedProbability: Double { alternatives.reduce(0) { $0 + $1.probability } }

    /// The ink's own first choice: `inkValue`, or the value shown when the rules kept it.
    public var inkFirstChoice: FieldValue { inkValue ?? value }

    /// The confidence the reader alone gave its first choice.
    public var confidenceAlone: Double { inkConfidence ?? confidence }

    public init(value: FieldValue, text: String, confidence: Double, flagged: Bool = false, doubts: [ReadingDoubt] = []) {
        self.value = value
        self.text = text
        self.confidence = min(100, max(0, confidence))
        self.flagged = flagged
        self.doubts = doubts
    }

    /// The reading's doubts and what the rules did to it, in words, for people (the CLI, the review
    /// screen, JSON's `notes`). Nothing reads them back.
    public var notes: [String] {
        var words: [String] = []
        if let inkValue {
            words.append("the digits alone read \(inkValue.inNotes) (confidence \(Int(confidenceAlone.rounded()))); the sums make \(value.inNotes) likelier")
        }
        words += doubts.map(\.words)
        if inkValue == nil, let alone = inkConfidence, abs(alone - confidence) >= 1 {
            words.append("confidence \(Int(confidence.rounded())) with the sums, \(Int(alone.rounded())) alone")
        }
        return words
    }

    enum CodingKeys: String, CodingKey {
        case value, text, confidence, flagged, notes, doubts, alternatives
        case inkValue = "ink_value", inkConfidence = "ink_confidence"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(value: try c.decodeIfPresent(FieldValue.self, forKey: .value) ?? .empty,
                  text: try c.decode(String.self, forKey: .text),
                  confidence: try c.decode(Double.self, forKey: .confidence),
                  flagged: try c.decode(Bool.self, forKey: .flagged))
        // Output written before doubts were typed has only the sentences: kept as they were written.
        doubts = try c.decodeIfPresent([ReadingDoubt].self, forKey: .doubts)
            ?? (try c.decodeIfPresent([String].self, forKey: .notes) ?? []).map(ReadingDoubt.earlierNote)
        alternatives = try c.decodeIfPresent([Alternative].self, forKey: .alternatives) ?? []
        inkValue = try c.decodeIfPresent(FieldValue.self, forKey: .inkValue)
        inkConfidence = try c.decodeIfPresent(Double.self, forKey: .inkConfidence)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(value, forKey: .value)
        try c.encode(text, forKey: .text)
        try c.encode((confidence * 10).rounded() / 10, forKey: .confidence)
        try c.encode(flagged, forKey: .flagged)
        if !notes.isEmpty { try c.encode(notes, forKey: .notes) }
        if !doubts.isEmpty { try c.encode(doubts, forKey: .doubts) }
        if !alternatives.isEmpty { try c.encode(alternatives, forKey: .alternatives) }
        if inkValue != nil { try c.encode(inkValue, forKey: .inkValue) }
        if let inkConfidence { try c.encode((inkConfidence * 10).rounded() / 10, forKey: .inkConfidence) }
    }
}

/// Where a sheet stands after reading.
public enum SheetStatus: String, Sendable, Codable, Equatable {
    /// Every field read with confidence at or above the threshold.
    case clean
    /// Read, but a person must look at the flagged fields.
    case needsReview = "needs_review"
    /// Not read at all: the file could not be loaded or the sheet could not be aligned.
    case failed
}

/// How the image was matched to its template.
public struct AlignmentReport: Sendable, Equatable, Codable {
    /// 0–1: the share of the template's printed box lines found where the fit puts them.
    public var quality: Double
    /// Clockwise quarter turns the sheet was found in (1 = photographed sideways, 2 = upside down).
    public var quarterTurns: Int
    /// Pixels per point at the page's centre: 300 dpi is 4.17.
    public var scale: Double
    /// The template mark could be read (nil when the sheet was aligned without it).
    public var markRead: Bool

    public init(quality: Double, quarterTurns: Int, scale: Double, markRead: Bool) {
        self.quality = quality; self.quarterTurns = quarterTurns; self.scale = scale; self.markRead = markRead
    }

    /// JSON keys are snake_case like the rest of the scan output.
    enum CodingKeys: String, CodingKey {
        case quality, quarterTurns = "quarter_turns", scale, markRead = "mark_read"
    }
}

/// Everything statsheet learned from one sheet: an image file, or one page of a document.
public struct SheetResult: Sendable, Equatable {
    public var file: String
    /// The page of `file` this sheet is (from 1), or nil when the file is one image.
    public var page: Int?
    public var template: String?
    public var templateVersion: Int?
    public var status: SheetStatus
    public var error: String?
    public var alignment: AlignmentReport?
    /// Field id → reading, in template order (JSON output sorts them by id).
    public var fields: [(id: String, reading: FieldReading)]
    /// The template's rules the readings broke as read (before any suggestion was filled in).
    public var ruleFailures: [RuleFailure] = []
    /// Other readings under which every rule holds (at most one today), for a person to accept or not. On
    /// The posterior shows its value where the rules make it the likeliest, flagged (`SheetPosterior`).
    public var suggestions: [Suggestion] = []
    /// Why there is no suggestion although rules fail, when the search has something to say.
    public var suggestionNote: String?
    /// Milliseconds spent on this sheet.
    public var milliseconds: Double
    /// The confidence under which its fields were flagged (`--min-confidence`); nil when it was not read.
    public var reviewLine: Double?

    public init(file: String, template: String? = nil, templateVersion: Int? = nil, status: SheetStatus,
                error: String? = nil, alignment: AlignmentReport? = nil,
                fields: [(id: String, reading: FieldReading)] = [], milliseconds: Double = 0) {
        self.file = file; self.template = template; self.templateVersion = templateVersion; self.status = status
        self.error = error; self.alignment = alignment; self.fields = fields; self.milliseconds = milliseconds
    }

    public static func failed(file: String, page: Int? = nil, error: String, template: String? = nil, milliseconds: Double = 0) -> SheetResult {
        var result = SheetResult(file: file, template: template, status: .failed, error: error, milliseconds: milliseconds)
        result.page = page
        return result
    }

    public func reading(_ id: String) -> FieldReading? { fields.first { $0.id == id }?.reading }

    /// The file and page, as people and the store name the sheet (`week3.pdf#page=2`).
    public var source: SheetSource { SheetSource(path: file, page: page) }

    public static func == (a: SheetResult, b: SheetResult) -> Bool {
        a.file == b.file && a.page == b.page && a.template == b.template && a.templateVersion == b.templateVersion && a.status == b.status
            && a.error == b.error && a.alignment == b.alignment && a.milliseconds == b.milliseconds && a.reviewLine == b.reviewLine
            && a.fields.map(\.id) == b.fields.map(\.id) && a.fields.map(\.reading) == b.fields.map(\.reading)
            && a.ruleFailures == b.ruleFailures && a.suggestions == b.suggestions && a.suggestionNote == b.suggestionNote
    }
}

extension SheetResult: Codable {
    private struct FieldKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    enum CodingKeys: String, CodingKey {
        case file, page, template, templateVersion = "template_version", status, error, alignment, fields, milliseconds
        case flags, ruleFailures = "rule_failures", suggestions, suggestionNote = "suggestion_note", reviewLine = "review_line"
    }

    /// A flagged field and why, for people and programs that want the review list without walking fields.
    struct Flag: Codable {
        let field: String
        let confidence: Double
        let reasons: [String]
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(file, forKey: .file)
        try c.encodeIfPresent(page, forKey: .page)
        try c.encode(template, forKey: .template)
        try c.encodeIfPresent(templateVersion, forKey: .templateVersion)
        try c.encode(status, forKey: .status)
        try c.encodeIfPresent(error, forKey: .error)
        try c.encodeIfPresent(alignment, forKey: .alignment)
        // Field ids are the keys of one object (JSON consumers look fields up by id).
        var f = c.nestedContainer(keyedBy: FieldKey.self, forKey: .fields)
        for (id, reading) in fields { try f.encode(reading, forKey: FieldKey(stringValue: id)) }
        if status != .failed {
            try c.encode(fields.filter(\.reading.flagged).map {
                Flag(field: $0.id, confidence: ($0.reading.confidence * 10).rounded() / 10,
                     reasons: $0.reading.notes)
            }, forKey: .flags)
            try c.encode(ruleFailures, forKey: .ruleFailures)
            try c.encode(suggestions, forKey: .suggestions)
            try c.encodeIfPresent(suggestionNote, forKey: .suggestionNote)
        }
        try c.encode((milliseconds * 10).rounded() / 10, forKey: .milliseconds)
        try c.encodeIfPresent(reviewLine, forKey: .reviewLine)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let f = try c.nestedContainer(keyedBy: FieldKey.self, forKey: .fields)
        self.init(file: try c.decode(String.self, forKey: .file),
                  template: try c.decodeIfPresent(String.self, forKey: .template),
                  templateVersion: try c.decodeIfPresent(Int.self, forKey: .templateVersion),
                  status: try c.decode(SheetStatus.self, forKey: .status),
                  error: try c.decodeIfPresent(String.self, forKey: .error),
                  alignment: try c.decodeIfPresent(AlignmentReport.self, forKey: .alignment),
                  fields: try f.allKeys.map { ($0.stringValue, try f.decode(FieldReading.self, forKey: $0)) },
                  milliseconds: try c.decodeIfPresent(Double.self, forKey: .milliseconds) ?? 0)
        page = try c.decodeIfPresent(Int.self, forKey: .page)
        ruleFailures = try c.decodeIfPresent([RuleFailure].self, forKey: .ruleFailures) ?? []
        suggestions = try c.decodeIfPresent([Suggestion].self, forKey: .suggestions) ?? []
        suggestionNote = try c.decodeIfPresent(String.self, forKey: .suggestionNote)
        reviewLine = try c.decodeIfPresent(Double.self, forKey: .reviewLine)
    }
}
