import Foundation
import DigitNet
import Logging
import OCRKit
import SheetModel

/// Settings for reading sheets.
public struct ScanOptions: Sendable {
    /// Fields read with less confidence than this are flagged for review.
    public var minConfidence: Double = ReviewLine.standard
    public var loader = ImageLoader()
    /// Folder for annotated copies of each sheet, or nil.
    public var overlayFolder: String?
    /// Whether numbers are read as handwriting, print, or decided per sheet.
    public var writing: Writing = .auto
    /// Keep a small PNG of each field's cell (`ScannedSheet.cellImages`), for the review screen.
    public var keepCellImages = false
    /// The day of the scan: a date after it breaks a sheet's not-future rule, and a handwritten date long
    /// before it is unlikely (`SeasonPrior`).
    public var today: Date
    /// The games the store already holds, by athlete: a handwritten date is weighed against its athlete's
    /// season (`SeasonPrior`). Empty: the two years before `today`.
    public var gameDates = SeasonGames()
    /// Weights for the digit network (a `digits-cnn.bin` with its `.json` beside it) instead of the
    /// shipped ones, or nil: how a retrained network is measured on the same sheets before it is committed.
    public var digitNetwork: String?
    /// What the readers' confidences are worth for fields no rule weighs; nil for the shipped tables
    /// (`ReaderCalibration.shipped()`), `.identity` to keep the readers' own (how the tables are fitted).
    public var calibration: ReaderCalibration?
    /// The chance the paper itself breaks a rule, in place of the model's (`SheetPosterior.slip`): how it is fitted.
    public var ruleSlip: Double?
    /// The club's names (its roster, its opponents, the names of sheets approved before): handwritten names are
    /// read against those of their field's kind (`NameReadingModel`). Empty: names are read as written.
    public var knownNames: [KnownName] = []
    /// Handwritten digits the store has labelled (`SheetStore.digitExamples`: a person's first, then those its
    /// balanced sheets vouch for, each most recent first): the digit reader mixes their votes into the
    /// network's (`DigitAdaptation`). Empty reads with the network alone; examples made by another network
    /// than the one reading are left out.
    public var digitExamples: [DigitExample] = []

    public init(minConfidence: Double = ReviewLine.standard, loader: ImageLoader = ImageLoader(), overlayFolder: String? = nil,
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
    private let calibration: ReaderCalibration
    /// The club's names, which the judge weighs handwritten names and a box score's players against; nil when
    /// none are known.
    private let names: NameReadingModel?
    private let detector = MarkerDetector()
    private let logger: Logger

    public init(library: TemplateLibrary, requested: SheetTemplate? = nil, options: ScanOptions = ScanOptions(),
                recognizer: any FieldRecognizer, logger: Logger = Logger(label: "statsheet.scan")) throws {
        self.library = library
        self.requested = requested
        self.options = options
        self.recognizer = recognizer
        self.calibration = try options.calibration ?? ReaderCalibration.shipped()
        self.names = options.knownNames.isEmpty ? nil : NameReadingModel(knownNames: options.knownNames)
        self.logger = logger
    }

    /// A scanner with its own Tesseract engine and digit network, reading numbers as `options.writing` says.
    public convenience init(library: TemplateLibrary, requested: SheetTemplate? = nil, options: ScanOptions = ScanOptions()) throws {
        let network = if let path = options.digitNetwork { try DigitNetwork(contentsOf: URL(fileURLWithPath: path)) }
                      else { try DigitNetwork.bundled() }
        let handwritten = HandwrittenDigitReader(network: network)
        let examples = options.digitExamples.filter { $0.network == network.identity }
        if !examples.isEmpty {
            // A balanced sheet's label is worth `balancedShare` where a person's is worth `personShare`.
            let balancedSay = DigitAdaptation.balancedShare / DigitAdaptation.personShare
            handwritten.adaptation = DigitAdaptation(labelled: examples.map { (digit: $0.digit, embedding: $0.embedding, say: $0.source == .person ? 1 : balancedSay) },
                                                     width: network.embeddingWidth)
        }
        let reader = SheetFieldReader(printed: PrintedFieldReader(engine: try TesseractEngine()),
                                      handwritten: handwritten, writing: options.writing)
        try self.init(library: library, requested: requested, options: options, recognizer: reader)
    }

    public func scan(_ path: String) -> SheetResult { scanSheet(SheetSource(path: path)).result }

    /// The result, and (when `options.keepCellImages`) each field's cell as a small PNG.
    ///
    /// - Parameters:
    ///   - source: the file, and the page of it to read when it is a document.
    ///   - contents: the file's bytes when the caller has read them already (to hash them).
    public func scanSheet(_ source: SheetSource, contents: [UInt8]? = nil) -> ScannedSheet {
        var images: [String: [UInt8]] = [:]
        var writing: Writing?
        var clock = StageClock()
        var asRead: [(id: String, reading: FieldReading)] = []
        var digits = ScannedSheet.Digits()
        do throws(SheetFailure) {
            var result = try scan(source, contents: contents, cellImages: &images, writing: &writing, asRead: &asRead, digits: &digits, clock: &clock)
            result.page = source.page
            return ScannedSheet(result: result, cellImages: images, writing: writing, asRead: asRead, digits: digits, stages: clock.stages)
        } catch {
            var scanned = ScannedSheet(failure: error, file: source.path, page: source.page,
                                       template: error.stage == .load ? nil : requested?.id, milliseconds: clock.elapsed)
            scanned.stages = clock.stages
            return scanned
        }
    }

    /// The sheet in a file that is one image.
    public func scanSheet(_ path: String, contents: [UInt8]? = nil) -> ScannedSheet {
        scanSheet(SheetSource(path: path), contents: contents)
    }

    private func scan(_ source: SheetSource, contents: [UInt8]?, cellImages: inout [String: [UInt8]], writing: inout Writing?,
                      asRead: inout [(id: String, reading: FieldReading)], digits: inout ScannedSheet.Digits,
                      clock: inout StageClock) throws(SheetFailure) -> SheetResult {
        let path = source.path
        let loaded: LoadedImage
        do throws(ImageLoadFailure) {
            let bytes: [UInt8]
            if let contents { bytes = contents } else {
                do { bytes = try ImageLoader.readFile(path) } catch { throw ImageLoadFailure(path: path, error: error) }
            }
            loaded = try options.loader.load(path, contents: bytes, page: source.page)
            clock.mark("load")
        } catch {
            throw .load(error.error)
        }
        do {
            let aligned = try align(loaded, &clock)
            let read = try read(aligned, &clock, cellImages: &cellImages)
            writing = read.evidence.writing
            digits = read.digits
            let judgement = judge(read)
            asRead = judgement.weighedAlone
            clock.mark("judge")
            var result = report(judgement, read: read, file: path, alignment: aligned.fit.report)
            logger.debug("stage times for \(path): \(clock.stages.map { "\($0.name) \(Int($0.milliseconds.rounded())) ms" }.joined(separator: ", "))")
            if let folder = options.overlayFolder {
                do {
                    try OverlayWriter(folder: folder).write(result, page: source.page, image: loaded.image, aligned: aligned.fit)
                } catch {
                    logger.warning("could not write overlay for \(path): \(error)")
                }
            }
            result.milliseconds = clock.elapsed
            logger.debug("read \(path) in \(Int(result.milliseconds)) ms, status \(result.status.rawValue)")
            return result
        } catch {
            throw SheetFailure(error)
        }
    }

    /// A sheet aligned to its template.
    struct Aligned {
        let gray: GrayBuffer
        let fit: AlignedSheet
        var template: SheetTemplate { fit.template }
    }

    /// Stage "align": the corner markers found and the sheet fitted to its template. Our own sheets are
    /// identified by their mark, never by fit. A sheet without readable markers is fitted by its printed
    /// lines to the templates of paper printed elsewhere (`LandmarkAligner`), when the library has some or one
    /// is requested; when that fails too, the refusal gives both reasons where markers were found.
    private func align(_ loaded: LoadedImage, _ clock: inout StageClock) throws -> Aligned {
        let gray = try loaded.image.grayBuffer()
        clock.mark("copy")
        let landmarks = LandmarkAligner(library: library, requested: requested)
        if let requested, !requested.hasMarkers {
            let fit = try landmarks.align(loaded.image, gray: gray)
            clock.mark("align")
            return Aligned(gray: gray, fit: fit)
        }
        let byLines = requested == nil && !landmarks.candidates.isEmpty
        let quads: [MarkerQuad]
        do {
            quads = try detector.detect(in: loaded.image)
            clock.mark("markers")
        } catch {
            guard byLines else { throw error }
            clock.mark("markers")
            let byItsLines = Result { () throws(AlignmentError) in try landmarks.align(loaded.image, gray: gray) }
            clock.mark("align")
            switch byItsLines {
            case .success(let fit): return Aligned(gray: gray, fit: fit)
            case .failure(let lines): throw error == .noMarkers ? lines : .neitherMarkersNorLines(markers: error, lines: lines)
            }
        }
        let fit: AlignedSheet
        do {
            fit = try SheetAligner(library: library, requested: requested).align(gray, candidates: quads)
        } catch {
            // Square blobs on a club's form (a logo, filled boxes) can pass for markers: its lines decide.
            guard byLines, error.allowsAFormPrintedElsewhere else { throw error }
            do { fit = try landmarks.align(loaded.image, gray: gray) } catch let lines { throw AlignmentError.neitherMarkersNorLines(markers: error, lines: lines) }
        }
        clock.mark("align")
        return Aligned(gray: gray, fit: fit)
    }

    /// A sheet's fields as the readers gave them, before anything weighed them.
    struct Read {
        let template: SheetTemplate
        let evidence: SheetEvidence
        let digits: ScannedSheet.Digits
    }

    /// Stage "read": each field's cell cut through the fit and read, by the reader its writing needs.
    private func read(_ aligned: Aligned, _ clock: inout StageClock, cellImages: inout [String: [UInt8]]) throws -> Read {
        let template = aligned.template
        let cells = template.fields.map { field in
            (field, FieldCell(field: field, from: aligned.gray, through: aligned.fit.mapping, beside: template.spaceBeside(field)))
        }
        clock.mark("cells")
        if options.keepCellImages {
            for (field, cell) in cells { cellImages[field.id] = cell.reviewSnapshotPNG(of: field) }
            clock.mark("snapshots")
        }
        let recognized = try recognizer.recognize(cells)
        clock.mark("read")
        let misplaced = Set(template.fields.indices.filter { aligned.fit.misplacedFields.contains(template.fields[$0].id) })
        let evidence = SheetEvidence(readings: recognized.readings, writing: recognized.writing, characters: recognized.characters,
                                     dateInk: recognized.dateInk, misplaced: misplaced)
        var digits = ScannedSheet.Digits(network: recognized.digitNetwork)
        for (i, embeddings) in recognized.digitEmbeddings where template.fields.indices.contains(i) {
            digits.embeddings[template.fields[i].id] = embeddings
        }
        return Read(template: template, evidence: evidence, digits: digits)
    }

    /// Stage "judge": the numbers the rules tie together weighed by the one model of doubt, and every field
    /// flagged by the one line (`SheetJudge`).
    private func judge(_ read: Read) -> SheetJudgement {
        var policy = JudgingPolicy.standard.withReviewLine(options.minConfidence)
        if let slip = options.ruleSlip { policy.sums.slip = slip }
        var judge = SheetJudge(template: read.template, policy: policy, today: options.today)
        judge.calibration = calibration
        judge.names = names
        judge.games = options.gameDates
        return judge.judge(read.evidence)
    }

    /// The sheet's result: its judged fields, the rules its ink breaks, its status and its suggestion.
    private func report(_ judgement: SheetJudgement, read: Read, file: String, alignment: AlignmentReport) -> SheetResult {
        var result = SheetResult(file: file, template: read.template.id, templateVersion: read.template.version,
                                 status: judgement.needsReview ? .needsReview : .clean, alignment: alignment, fields: judgement.fields)
        result.reviewLine = options.minConfidence
        result.ruleFailures = judgement.inkFailures
        switch judgement.outcome {
        case .suggestion(let suggestion): result.suggestions = [suggestion]
        case .partial(let suggestion, let beyondRepair):
            result.suggestions = [suggestion]
            result.suggestionNote = "no plausible combination of the readings satisfies \(beyondRepair.joined(separator: ", ")): the sheet itself may be inconsistent there; the suggestion mends what it can"
        case .inconsistent:
            result.suggestionNote = "no plausible combination of the readings satisfies the rules: the sheet itself may be inconsistent"
        case .consistent, .noAlternatives: break
        }
        return result
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
    /// Each field as its reader gave it, before the rules weighed it (`eval --fit-calibration`).
    public var asRead: [(id: String, reading: FieldReading)] = []
    /// The digit network's embedding of each character of each handwritten number, for the store to keep.
    public var digits = Digits()

    public struct Digits: Sendable, Equatable {
        /// The network that made them (`DigitNetwork.identity`); nil when no digit was read by hand.
        public var network: String?
        /// Field id → one embedding per character, in reading order.
        public var embeddings: [String: [[Float]]] = [:]
        public init(network: String? = nil, embeddings: [String: [[Float]]] = [:]) { self.network = network; self.embeddings = embeddings }
    }
    /// The time each stage took, in order (`bench sheets`).
    public var stages: [StageTime] = []
    /// Why the sheet was not read; nil when it was.
    public var failure: SheetFailure?
}

extension ScannedSheet {
    /// A sheet that failed before it was read: why, and its result, whose `error` is the failure in words.
    public init(failure: SheetFailure, file: String, page: Int? = nil, template: String? = nil, milliseconds: Double = 0) {
        self.init(result: .failed(file: file, page: page, error: failure.message, template: template, milliseconds: milliseconds), cellImages: [:])
        self.failure = failure
    }
}
