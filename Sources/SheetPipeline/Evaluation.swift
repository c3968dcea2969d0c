import Foundation
import SheetModel

/// The known right answers for one test image, stored beside it as `NAME.truth.json`.
public struct GroundTruth: Sendable, Decodable {
    public let template: String
    public let fields: [String: FieldValue]
    /// Fields the reader must flag whatever it reads (a crossed-out digit with its correction beside
    /// it): the generator's `expect_flag`.
    public let expectFlag: [String]
    /// Who filled the sheet in, when the generator says (`Tools/make_test_sheets.py`'s `writer.kind`:
    /// `sklearn` for scikit-learn's held-out digits, `font` for a handwriting font): the writers differ
    /// more than the sheets do, so `eval` reports each kind's numbers apart.
    public let writer: String?

    enum CodingKeys: String, CodingKey { case template, fields, generator }
    enum GeneratorKeys: String, CodingKey { case expectFlag = "expect_flag", writer }
    enum WriterKeys: String, CodingKey { case kind }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        template = try c.decode(String.self, forKey: .template)
        fields = try c.decode([String: FieldValue].self, forKey: .fields)
        let generator = try? c.nestedContainer(keyedBy: GeneratorKeys.self, forKey: .generator)
        expectFlag = (try? generator?.decodeIfPresent([String].self, forKey: .expectFlag)) ?? []
        let writer = try? generator?.nestedContainer(keyedBy: WriterKeys.self, forKey: .writer)
        self.writer = try? writer?.decodeIfPresent(String.self, forKey: .kind)
    }

    /// `sheet-007.jpg` → `sheet-007.truth.json`.
    public static func path(forImage image: String) -> String {
        ((image as NSString).deletingPathExtension) + ".truth.json"
    }

    /// The images in `paths` (folders searched as `ImageFiles.expand` does) that have a truth file beside them.
    public static func images(in paths: [String]) -> [String] {
        ImageFiles.expand(paths).files.filter { FileManager.default.fileExists(atPath: path(forImage: $0)) }
    }

    public static func load(_ path: String) throws -> GroundTruth {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        return try JSONDecoder().decode(GroundTruth.self, from: data)
    }
}

/// Accuracy of readings against ground truth, in the terms users care about: how many fields are right,
/// how many are flagged, and how many are wrong without a flag (the failure that matters most).
/// Written as JSON by `eval --json`; never read back, so it is only Encodable.
public struct EvaluationReport: Sendable, Encodable {
    public struct Miss: Sendable, Codable, Equatable {
        public let file: String
        public let field: String
        public let expected: FieldValue
        public let read: FieldValue
        public let confidence: Double
        public let flagged: Bool
    }

    public struct Tally: Sendable, Encodable, Equatable {
        public var fields = 0
        public var right = 0
        public var flagged = 0
        /// Right among the fields not flagged.
        public var rightUnflagged = 0
        /// Wrong and not flagged.
        public var silentErrors = 0

        public var accuracy: Double { fields > 0 ? Double(right) / Double(fields) : 0 }
        public var flagRate: Double { fields > 0 ? Double(flagged) / Double(fields) : 0 }
        public var silentErrorRate: Double { fields > 0 ? Double(silentErrors) / Double(fields) : 0 }
        public var accuracyWhenConfident: Double {
            let confident = fields - flagged
            return confident > 0 ? Double(rightUnflagged) / Double(confident) : 0
        }

        enum CodingKeys: String, CodingKey {
            case fields, right, flagged, rightUnflagged, silentErrors
            case accuracy, flagRate, silentErrorRate, accuracyWhenConfident
        }

        public init() {}

        /// The counts and the rates derived from them, so JSON readers need not recompute them.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(fields, forKey: .fields)
            try c.encode(right, forKey: .right)
            try c.encode(flagged, forKey: .flagged)
            try c.encode(rightUnflagged, forKey: .rightUnflagged)
            try c.encode(silentErrors, forKey: .silentErrors)
            try c.encode(accuracy, forKey: .accuracy)
            try c.encode(flagRate, forKey: .flagRate)
            try c.encode(silentErrorRate, forKey: .silentErrorRate)
            try c.encode(accuracyWhenConfident, forKey: .accuracyWhenConfident)
        }

        mutating func add(right isRight: Bool, flagged isFlagged: Bool) {
            fields += 1
            if isRight { right += 1 }
            if isFlagged { flagged += 1 } else if isRight { rightUnflagged += 1 } else { silentErrors += 1 }
        }
    }

    /// One row of the calibration table: readings whose confidence fell in [low, low + 10).
    public struct Bucket: Sendable, Codable, Equatable {
        public let low: Int
        public var fields = 0
        public var right = 0
        public var accuracy: Double { fields > 0 ? Double(right) / Double(fields) : 0 }
    }

    public var sheets = 0
    public var failedSheets: [String: String] = [:]
    /// Counts, digits and dates.
    public var numeric = Tally()
    public var text = Tally()
    /// The text fields that hold one of the club's names (a template field's `names`), all kinds together and
    /// by kind (`athlete`, `opponent`, …): what reading names against the known names (issue 42) is measured by.
    public var names = Tally()
    public var namesByKind: [String: Tally] = [:]
    public var checkboxes = Tally()
    /// Sheets read (not failed), and of those the ones a person need not open: clean, or with no name field
    /// flagged, or with neither a name nor a date flagged.
    public struct SheetTally: Sendable, Encodable, Equatable {
        public var read = 0
        public var clean = 0
        public var namesUnflagged = 0
        public var namesAndDatesUnflagged = 0
    }
    public var sheetsRead = SheetTally()
    public var calibration: [Bucket] = (0..<10).map { Bucket(low: $0 * 10) }
    /// The review line: numeric fields read with less confidence are flagged.
    public let minConfidence: Double
    /// Numeric fields read with confidence at or over `minConfidence`, flagged or not: what a confidence
    /// over the line is worth (issue 3 asks 99.5% right). Not `numeric.accuracyWhenConfident`, which is
    /// the share right of the fields not flagged.
    public var overTheLine = Tally()
    /// The numeric fields' mean squared gap between confidence (as a probability) and being right (1 or 0):
    /// the Brier score, lower for confidences that mean what they say. What `eval --rule-slip` is fitted by.
    public var brierScore: Double { numeric.fields > 0 ? brierSum / Double(numeric.fields) : 0 }
    public private(set) var brierSum = 0.0
    /// Numeric fields as they would read with each sheet's top suggestion taken, flags as they are: what
    /// a person reviewing a sheet would find right in front of them if the likeliest readings under which
    /// every rule holds were all filled in for them. `scan` fills in only the changes to numbers two sums
    /// read (`SheetPosterior`); this counts the others taken too.
    public var withTopSuggestion = Tally()
    /// Per field id, every kind.
    public var perField: [String: Tally] = [:]
    /// Numeric fields per kind of writer (`GroundTruth.writer`), for sheets whose truth names one.
    public var numericByWriter: [String: Tally] = [:]
    /// Digits written (rows) against digits read (columns), over numeric fields whose reading has as
    /// many digits as the truth; the others are counted in `lengthMismatches`.
    public var confusion: [[Int]] = Array(repeating: Array(repeating: 0, count: 10), count: 10)
    public var lengthMismatches = 0
    /// Flagged numeric fields by the cause of their flag (`FieldReading.flagCause`, by its raw value), and
    /// `sheetFailed` for the fields of sheets that could not be read. What a flag rate is made of: a
    /// misread digit flags every number of the rules it breaks, and those are mostly right.
    public var flagCauses: [String: Tally] = [:]
    public static let sheetFailed = "sheet_failed"
    /// Fields the truth says must be flagged (crossed-out digits), and how many of them were not.
    public var mustFlag = 0
    public var mustFlagMissed: [String] = []
    /// Sheets whose rules failed with exactly one numeric field misread, and how the validator's top
    /// suggestion fared on them: the measure of issue 4's "top suggestion equals the paper".
    public struct SuggestionTally: Sendable, Encodable, Equatable {
        public var sheetsWithOneMisread = 0
        public var suggested = 0
        public var topSuggestionRight = 0
        /// Of all sheets that broke a rule, those whose top suggestion restored every numeric field.
        public var ruleFailureSheets = 0
        public var ruleFailureSheetsRestored = 0
    }
    public var suggestions = SuggestionTally()
    public var misses: [Miss] = []
    public var milliseconds: [Double] = [] {
        didSet { medianMilliseconds = Self.median(milliseconds) }
    }
    /// Median time per sheet (stored, so that the JSON report carries it).
    public private(set) var medianMilliseconds: Double = 0

    public init(minConfidence: Double = ReviewLine.standard) {
        self.minConfidence = minConfidence
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// Adds one sheet's result. A sheet that failed counts every numeric field as wrong and flagged:
    /// nothing was stored from it, and a person must look at it.
    public mutating func add(_ result: SheetResult, truth: GroundTruth, template: SheetTemplate) {
        sheets += 1
        milliseconds.append(result.milliseconds)
        var numericMisses = 0, numericMissesWithSuggestion = 0
        if result.status == .failed { failedSheets[result.file] = result.error ?? "failed" } else { tallySheet(result, template: template) }
        for field in template.fields {
            let expected = truth.fields[field.id] ?? .empty
            let reading = result.reading(field.id) ?? FieldReading(value: .empty, text: "", confidence: 0, flagged: true)
            let right = Self.matches(reading.value, expected, kind: field.kind)
            perField[field.id, default: Tally()].add(right: right, flagged: reading.flagged)
            if truth.expectFlag.contains(field.id), result.status != .failed {
                mustFlag += 1
                if !reading.flagged { mustFlagMissed.append("\(result.file) \(field.id)") }
            }
            // The top suggestion's change to this field, if any: its `from` is what was read (a value filled in
            // from it counts as read for the digits and the suggestion tally), its `to` what taking it gives.
            let change = result.suggestions.first?.changes.first { $0.field == field.id }
            let asRead = change?.from ?? reading.value
            switch field.kind {
            case .count, .digits, .date:
                if result.status != .failed {
                    addDigits(written: Self.digits(expected), read: Self.digits(asRead))
                    // The suggestion tally compares the top suggestion with the sheet as read.
                    if !Self.matches(asRead, expected, kind: field.kind) { numericMisses += 1 }
                }
                numeric.add(right: right, flagged: reading.flagged)
                if let writer = truth.writer { numericByWriter[writer, default: Tally()].add(right: right, flagged: reading.flagged) }
                if result.status == .failed {
                    flagCauses[Self.sheetFailed, default: Tally()].add(right: right, flagged: true)
                } else if let cause = reading.flagCause(line: minConfidence) {
                    flagCauses[cause.rawValue, default: Tally()].add(right: right, flagged: true)
                }
                let suggested = change?.to ?? reading.value
                let rightWithSuggestion = Self.matches(suggested, expected, kind: field.kind)
                withTopSuggestion.add(right: rightWithSuggestion, flagged: reading.flagged)
                if !rightWithSuggestion { numericMissesWithSuggestion += 1 }
                let b = min(9, max(0, Int(reading.confidence) / 10))
                calibration[b].fields += 1
                if right { calibration[b].right += 1 }
                if reading.confidence >= minConfidence { overTheLine.add(right: right, flagged: reading.flagged) }
                brierSum += pow(reading.confidence / 100 - (right ? 1 : 0), 2)
            case .text:
                text.add(right: right, flagged: reading.flagged)
                if let kind = field.names {
                    names.add(right: right, flagged: reading.flagged)
                    namesByKind[kind.rawValue, default: Tally()].add(right: right, flagged: reading.flagged)
                }
            case .checkbox: checkboxes.add(right: right, flagged: reading.flagged)
            }
            if !right && result.status != .failed {
                misses.append(Miss(file: result.file, field: field.id, expected: expected, read: reading.value,
                                   confidence: reading.confidence, flagged: reading.flagged))
            }
        }
        tallySuggestion(result, numericMisses: numericMisses, numericMissesWithSuggestion: numericMissesWithSuggestion)
    }

    /// One sheet's readings as its readers gave them (`ScannedSheet.asRead`, read with `ReaderCalibration.identity`),
    /// each against the truth, for `ReaderCalibration.fit`. Every count counts, weighed by rules or not: the
    /// reader of a box score's opponent score is the reader of its other counts, and they are many.
    public static func calibrationSamples(_ scanned: ScannedSheet, truth: GroundTruth, template: SheetTemplate) -> [ReaderCalibration.Sample] {
        guard let writing = scanned.writing, scanned.result.status != .failed else { return [] }
        let kinds = Dictionary(uniqueKeysWithValues: template.fields.map { ($0.id, $0.kind) })
        return scanned.asRead.compactMap { id, reading in
            guard let kind = kinds[id], ReaderCalibration.maps(kind, writing: writing, weighedByRules: false) else { return nil }
            let right = matches(reading.value, truth.fields[id] ?? .empty, kind: kind)
            return ReaderCalibration.Sample(key: ReaderCalibration.key(writing: writing, kind: kind, empty: reading.value == .empty),
                                            confidence: reading.confidence, right: right)
        }
    }

    private mutating func tallySheet(_ result: SheetResult, template: SheetTemplate) {
        let flagged = Set(result.fields.filter(\.reading.flagged).map(\.id))
        let nameFields = template.fields.filter { $0.names != nil }.map(\.id)
        let dateFields = template.fields.filter { $0.kind == .date }.map(\.id)
        sheetsRead.read += 1
        if result.status == .clean { sheetsRead.clean += 1 }
        if flagged.isDisjoint(with: nameFields) {
            sheetsRead.namesUnflagged += 1
            if flagged.isDisjoint(with: dateFields) { sheetsRead.namesAndDatesUnflagged += 1 }
        }
    }

    /// `numericMissesWithSuggestion`: the numeric fields still wrong with the top suggestion taken.
    private mutating func tallySuggestion(_ result: SheetResult, numericMisses: Int, numericMissesWithSuggestion: Int) {
        guard result.status != .failed, !result.ruleFailures.isEmpty else { return }
        let restored = !result.suggestions.isEmpty && numericMissesWithSuggestion == 0
        suggestions.ruleFailureSheets += 1
        if restored { suggestions.ruleFailureSheetsRestored += 1 }
        guard numericMisses == 1 else { return }
        suggestions.sheetsWithOneMisread += 1
        if !result.suggestions.isEmpty { suggestions.suggested += 1 }
        if restored { suggestions.topSuggestionRight += 1 }
    }

    private mutating func addDigits(written: String, read: String) {
        guard written.count == read.count else {
            lengthMismatches += 1
            return
        }
        for (w, r) in zip(written, read) {
            if let w = w.wholeNumberValue, let r = r.wholeNumberValue { confusion[w][r] += 1 }
        }
    }

    /// A numeric value's digits as written on the sheet: counts without leading zeros, dates MMDDYY.
    public static func digits(_ value: FieldValue) -> String {
        switch value {
        case .integer(let n): return String(n)
        case .string(let s):
            let parts = s.split(separator: "-")
            if parts.count == 3, parts[0].count == 4 { return String(parts[1] + parts[2] + parts[0].suffix(2)) }
            return s
        default: return ""
        }
    }

    /// Text compares without case and surrounding space; everything else exactly.
    static func matches(_ read: FieldValue, _ expected: FieldValue, kind: FieldKind) -> Bool {
        if kind == .text, case .string(let a) = read, case .string(let b) = expected {
            return a.trimmingCharacters(in: .whitespaces).lowercased() == b.trimmingCharacters(in: .whitespaces).lowercased()
        }
        if kind == .checkbox, expected == .empty { return read == .boolean(false) }
        return read == expected
    }
}
