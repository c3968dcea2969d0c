import Foundation
import DigitNet
import Logging
import OCRKit
import SheetModel

/// Settings for reading sheets.
public struct ScanOptions: Sendable {
    /// Fields read with less confidence than this are flagged for review.
    public var minConfidence: Double = 70
    public var loader = ImageLoader()
    /// Folder for annotated copies of each sheet, or nil.
    public var overlayFolder: String?
    /// Whether numbers are read as handwriting, print, or decided per sheet.
    public var writing: Writing = .auto
    /// Keep a small PNG of each field's cell (`ScannedSheet.cellImages`), for the review screen.
    public var keepCellImages = false
    /// The day of the scan: a date after it breaks a sheet's not-future rule, and a handwritten date long
    /// before it is doubted (`GameDateWindow`).
    public var today: Date
    /// Weights for the digit network (a `digits-cnn.bin` with its `.json` beside it) instead of the
    /// shipped ones, or nil: how a retrained network is measured on the same sheets before it is committed.
    public var digitNetwork: String?

    public init(minConfidence: Double = 70, loader: ImageLoader = ImageLoader(), overlayFolder: String? = nil,
                writing: Writing = .auto, today: Date = Date()) {
        self.minConfidence = minConfidence
        self.loader = loader
        self.overlayFolder = overlayFolder
        self.writing = writing
        self.today = today
    }
}

/// Turns one image file into a `SheetResult`: load → find markers → align to the template → read
/// every field → flag. Never throws: whatever goes wrong with a file becomes a `failed` result whose
/// error names the file, so a batch always goes on.
///
/// One scanner per worker thread: it owns its recognizer (and so its Tesseract engine).
public final class SheetScanner {
    public let library: TemplateLibrary
    public let requested: SheetTemplate?
    public let options: ScanOptions
    private let recognizer: any FieldRecognizer
    private let detector = MarkerDetector()
    /// Each template's rules, parsed the first time a sheet of it is read.
    private var parsedRules: [String: ParsedRules] = [:]
    private let logger: Logger

    public init(library: TemplateLibrary, requested: SheetTemplate? = nil, options: ScanOptions = ScanOptions(),
                recognizer: any FieldRecognizer, logger: Logger = Logger(label: "statsheet.scan")) {
        self.library = library
        self.requested = requested
        self.options = options
        self.recognizer = recognizer
        self.logger = logger
    }

    /// A scanner with its own Tesseract engine and digit network, reading numbers as `options.writing` says.
    public convenience init(library: TemplateLibrary, requested: SheetTemplate? = nil, options: ScanOptions = ScanOptions()) throws {
        let network = if let path = options.digitNetwork { try DigitNetwork(contentsOf: URL(fileURLWithPath: path)) }
                      else { try DigitNetwork.bundled() }
        let handwritten = HandwrittenDigitReader(network: network)
        handwritten.gameDates.today = options.today
        let reader = SheetFieldReader(printed: PrintedFieldReader(engine: try TesseractEngine()),
                                      handwritten: handwritten, writing: options.writing)
        self.init(library: library, requested: requested, options: options, recognizer: reader)
    }

    public func scan(_ path: String) -> SheetResult { scanSheet(path).result }

    /// The result, and (when `options.keepCellImages`) each field's cell as a small PNG.
    ///
    /// - Parameter contents: the file's bytes when the caller has read them already (to hash them).
    public func scanSheet(_ path: String, contents: [UInt8]? = nil) -> ScannedSheet {
        var images: [String: [UInt8]] = [:]
        var writing: Writing?
        var clock = StageClock()
        let result = scan(path, contents: contents, cellImages: &images, writing: &writing, clock: &clock)
        return ScannedSheet(result: result, cellImages: images, writing: writing, stages: clock.stages)
    }

    private func scan(_ path: String, contents: [UInt8]?, cellImages: inout [String: [UInt8]], writing: inout Writing?,
                      clock: inout StageClock) -> SheetResult {
        func elapsed() -> Double { clock.elapsed }
        func stage(_ name: String) { clock.mark(name) }

        let loaded: LoadedImage
        do {
            loaded = if let contents { try options.loader.load(path, contents: contents) } else { try options.loader.load(path) }
            stage("load")
        } catch {
            return .failed(file: path, error: error.error.message, milliseconds: elapsed())
        }
        do {
            let gray = try loaded.image.grayBuffer()
            stage("copy")
            let quads = try detector.detect(in: loaded.image)
            stage("markers")
            let aligned = try SheetAligner(library: library, requested: requested).align(gray, candidates: quads)
            stage("align")
            let template = aligned.template
            let cells = template.fields.map {
                ($0, FieldCell(field: $0, from: gray, through: aligned.homography, beside: template.spaceBeside($0)))
            }
            stage("cells")
            if options.keepCellImages {
                for (field, cell) in cells { cellImages[field.id] = cell.reviewSnapshotPNG(of: field) }
                stage("snapshots")
            }
            let key = "\(template.id)@\(template.version)"
            let rules = parsedRules[key] ?? ParsedRules(template)
            parsedRules[key] = rules
            let recognized = try recognizer.recognize(cells)
            stage("read")
            writing = recognized.writing
            let read = zip(template.fields, recognized.readings).map { (id: $0.id, reading: $1) }
            let search = SuggestionSearch(template: template, rules: rules, today: options.today)
            let corroboration = SumCorroboration(search: search, minConfidence: options.minConfidence)
            // A handwritten count whose value no rule weighs (a box score's opponent score) has only the
            // reader's confidence, like a jersey number, and is doubted like one.
            let uncheckedCounts = recognized.writing == .hand ? Set(template.fields.filter { $0.kind == .count && !rules.valuesChecked.contains($0.id) }.map(\.id)) : []
            let weighed = corroboration.corroborate(read).map { field in
                var reading = field.reading
                if uncheckedCounts.contains(field.id) { SheetFieldReader.handUncheckedCount.apply(to: &reading) }
                return (id: field.id, reading: reading)
            }
            var fields = weighed.map { field in
                var reading = field.reading
                Self.flagUnderTheLine(&reading, line: options.minConfidence)
                return (id: field.id, reading: reading)
            }
            stage("weigh")
            let values = Dictionary(uniqueKeysWithValues: fields.map { ($0.id, $0.reading.value) })
            let failures = RuleCheck(template: template, rules: rules, values: values, today: options.today).failures()
            // The likeliest readings under which every rule holds, for a person to accept or not. The search
            // weighs each reading by the reader's own confidence, not the one with the sums, which is lowered
            // for every number of a broken rule.
            var outcome: SuggestionOutcome?
            if !failures.isEmpty {
                let ownConfidence = fields.enumerated().map { i, field in
                    var reading = field.reading
                    reading.confidence = read[i].reading.confidence
                    return (id: field.id, reading: reading)
                }
                outcome = search.search(ownConfidence)
            }
            let suggestion = outcome?.suggestion
            let beyondRepair = if case .partial(_, let rules) = outcome { rules } else { [String]() }
            BrokenRuleFlags(search: search, rules: rules, line: options.minConfidence, today: options.today)
                .apply(to: &fields, read: read.map(\.reading), weighed: weighed.map(\.reading), failures: failures,
                       suggestion: suggestion, fillIn: recognized.writing == .hand, beyondRepair: beyondRepair)
            // Clean only when nothing is flagged and every rule holds. A value read from the sums is flagged
            // (SumCorroboration), so a sheet whose numbers the sums chose still goes past a person.
            let status: SheetStatus = fields.contains { $0.reading.flagged } || !failures.isEmpty ? .needsReview : .clean
            stage("check")
            logger.debug("stage times for \(path): \(clock.stages.map { "\($0.name) \(Int($0.milliseconds.rounded())) ms" }.joined(separator: ", "))")
            var result = SheetResult(file: path, template: template.id, templateVersion: template.version, status: status,
                                     alignment: aligned.report, fields: fields)
            // The rules the sheet as read breaks, before any value was filled in: what the ink says.
            result.ruleFailures = failures
            switch outcome {
            case .suggestion(let suggestion): result.suggestions = [suggestion]
            case .partial(let suggestion, let beyondRepair):
                result.suggestions = [suggestion]
                result.suggestionNote = "no plausible combination of the readings' alternatives, nor one field's repair, satisfies \(beyondRepair.joined(separator: ", ")): the sheet itself may be inconsistent there; the suggestion mends what it can"
            case .inconsistent:
                result.suggestionNote = "no plausible combination of the readings' alternatives, nor one field's repair, satisfies the rules: the sheet itself may be inconsistent"
            case .consistent, .noAlternatives, nil: break
            }
            if let folder = options.overlayFolder {
                do {
                    try OverlayWriter(folder: folder).write(result, image: loaded.image, aligned: aligned)
                } catch {
                    logger.warning("could not write overlay for \(path): \(error)")
                }
            }
            result.milliseconds = elapsed()
            logger.debug("read \(path) in \(Int(result.milliseconds)) ms, status \(status.rawValue)")
            return result
        } catch let error as AlignmentError {
            return .failed(file: path, error: error.message, template: requested?.id, milliseconds: elapsed())
        } catch {
            return .failed(file: path, error: "\(error)", template: requested?.id, milliseconds: elapsed())
        }
    }
}

extension SheetScanner {
    /// Flags a reading under the review line, saying so first — unless it is flagged already: then it
    /// carries its reason (a rule the sums mended on one sum, a number no rule checks), which also put it
    /// under the line, and "confidence 69 is under 70" would stand before it as if the ink were unclear.
    static func flagUnderTheLine(_ reading: inout FieldReading, line: Double) {
        guard reading.confidence < line else { return }
        if !reading.flagged {
            reading.notes.insert("confidence \(Int(reading.confidence.rounded())) is under \(Int(line))", at: 0)
        }
        reading.flagged = true
    }
}

/// A sheet as read, with the cell snapshots the review screen shows.
public struct ScannedSheet: Sendable {
    public var result: SheetResult
    /// Field id → grayscale PNG of its cell (empty unless `ScanOptions.keepCellImages`).
    public var cellImages: [String: [UInt8]]
    /// How its numbers were written, as the recognizer judged; nil when the sheet failed before its
    /// fields were read.
    public var writing: Writing?
    /// The time each stage took, in order (`bench sheets`).
    public var stages: [StageTime] = []
}
