import CTesseract
import Glibc

/// How Tesseract should split the image it is given.
public enum PageSegmentation: Sendable {
    /// One line of text (PSM 7): a count, a date, a name.
    case singleLine
    /// A uniform block of text (PSM 6).
    case singleBlock
    /// As much text as can be found, in no particular order (PSM 11): the labels scattered over a form.
    case sparseText

    var mode: TessPageSegMode {
        switch self {
        case .singleLine: PSM_SINGLE_LINE
        case .singleBlock: PSM_SINGLE_BLOCK
        case .sparseText: PSM_SPARSE_TEXT
        }
    }
}

/// One recognised character: its text, Tesseract's confidence (0–100) and where it is in the image.
public struct RecognizedSymbol: Sendable, Equatable {
    public let text: String
    public let confidence: Double
    public let bounds: PixelRect
    /// The LSTM's candidates for this character, best first, with their scores (0–100). Empty unless
    /// the engine was created with `alternatives: true`.
    public var alternatives: [SymbolChoice] = []
    /// Whether this character begins a word: where a line's words part (names are read as characters,
    /// and "Oak Hill" is not "OakHill").
    public var startsWord = false

    public init(text: String, confidence: Double, bounds: PixelRect, alternatives: [SymbolChoice] = [], startsWord: Bool = false) {
        self.text = text; self.confidence = confidence; self.bounds = bounds; self.alternatives = alternatives
        self.startsWord = startsWord
    }

    /// How far the best candidate is ahead of the next one (its whole score when it has no rival).
    public var margin: Double? {
        guard let best = alternatives.first else { return nil }
        return best.confidence - (alternatives.dropFirst().first?.confidence ?? 0)
    }
}

/// One candidate reading of a character.
public struct SymbolChoice: Sendable, Equatable {
    public let text: String
    public let confidence: Double

    public init(text: String, confidence: Double) { self.text = text; self.confidence = confidence }
}

/// One recognised word.
public struct RecognizedWord: Sendable, Equatable {
    public let text: String
    public let confidence: Double
    public let bounds: PixelRect
}

/// What one recognition call produced.
public struct Recognition: Sendable, Equatable {
    public let symbols: [RecognizedSymbol]
    public let words: [RecognizedWord]
    public var text: String { words.map(\.text).joined(separator: " ") }
}

/// One Tesseract engine (LSTM). Create one per worker thread and reuse it for every cell of every sheet:
/// initialisation costs about 0.1 s and 15 MB, recognition of a small cell a few milliseconds.
///
/// Not `Sendable`: Tesseract's `TessBaseAPI` must not be used from two threads at once.
public final class TesseractEngine {
    private let handle: OpaquePointer
    public let language: String

    /// - Parameters:
    ///   - dataPath: a tessdata folder, or nil for the one the library was built with.
    ///   - useDictionary: whether the language's word lists guide recognition. They cost time on every
    ///     line and help only with dictionary words, which names and numbers are not.
    ///   - alternatives: whether each symbol carries the LSTM's other candidates (`lstm_choice_mode` 2).
    ///     A confident-looking "9" whose runner-up "0" is close behind is not a confident reading.
    public init(language: String = "eng", dataPath: String? = nil, useDictionary: Bool = false,
                alternatives: Bool = true) throws(TesseractError) {
        _ = DecoderMessages.silenced
        guard let handle = TessBaseAPICreate() else { throw .initFailed(language: language, dataPath: dataPath) }
        // Init-only settings. debug_file must be set here: Tesseract otherwise prints its own lines on
        // stderr (including for the failure we report ourselves below).
        var settings = ["debug_file": "/dev/null"]
        if !useDictionary { settings["load_system_dawg"] = "0"; settings["load_freq_dawg"] = "0" }
        let names = Array(settings.keys), values = names.map { settings[$0]! }
        let status = withCStringArray(names) { cNames in
            withCStringArray(values) { cValues in
                TessBaseAPIInit4(handle, dataPath, language, OEM_LSTM_ONLY, nil, 0, cNames, cValues, names.count, 0)
            }
        }
        guard status == 0 else {
            TessBaseAPIEnd(handle)
            TessBaseAPIDelete(handle)
            throw .initFailed(language: language, dataPath: dataPath)
        }
        self.handle = handle
        self.language = language
        // No inverted-text second pass on weak cells: sheets are dark ink on light paper.
        try setVariable("tessedit_do_invert", "0")
        if alternatives { try setVariable("lstm_choice_mode", "2") }
    }

    deinit {
        TessBaseAPIEnd(handle)
        TessBaseAPIDelete(handle)
    }

    /// The Tesseract library version, e.g. "5.3.0".
    public static var version: String { String(cString: TessVersion()) }

    /// The tessdata folder this engine loaded its model from.
    public var dataPath: String { String(cString: TessBaseAPIGetDatapath(handle)) }

    /// Languages whose models are in the tessdata folder.
    public var availableLanguages: [String] {
        guard let vector = TessBaseAPIGetAvailableLanguagesAsVector(handle) else { return [] }
        defer { TessDeleteTextArray(vector) }
        var result: [String] = []
        var i = 0
        while let item = vector[i] { result.append(String(cString: item)); i += 1 }
        return result
    }

    public func setVariable(_ name: String, _ value: String) throws(TesseractError) {
        guard TessBaseAPISetVariable(handle, name, value) != 0 else { throw .variableRejected(name: name) }
    }

    /// Recognises `image` (or `region` of it). `allowedCharacters` restricts the output alphabet (an
    /// empty string or nil allows everything); with the LSTM engine it filters rather than guides.
    public func recognize(_ image: Image, region: PixelRect? = nil, segmentation: PageSegmentation,
                          allowedCharacters: String? = nil, dpi: Int = 300) throws(TesseractError) -> Recognition {
        OpenMPThreads.oneOnThisThread()
        try setVariable("tessedit_char_whitelist", allowedCharacters ?? "")
        TessBaseAPISetPageSegMode(handle, segmentation.mode)
        image.withPix { TessBaseAPISetImage2(handle, $0) }
        TessBaseAPISetSourceResolution(handle, Int32(dpi))
        if let region {
            TessBaseAPISetRectangle(handle, Int32(region.x), Int32(region.y), Int32(region.width), Int32(region.height))
        }
        guard TessBaseAPIRecognize(handle, nil) == 0 else { throw .recognitionFailed }
        guard let iterator = TessBaseAPIGetIterator(handle) else { return Recognition(symbols: [], words: []) }
        defer { TessResultIteratorDelete(iterator) }
        return Recognition(symbols: collect(iterator, level: RIL_SYMBOL).map {
                               RecognizedSymbol(text: $0.text, confidence: $0.confidence, bounds: $0.bounds, alternatives: $0.choices,
                                                startsWord: $0.startsWord)
                           },
                           words: collectFromStart(level: RIL_WORD).map { RecognizedWord(text: $0.text, confidence: $0.confidence, bounds: $0.bounds) })
    }

    private typealias Collected = (text: String, confidence: Double, bounds: PixelRect, choices: [SymbolChoice], startsWord: Bool)

    private func collectFromStart(level: TessPageIteratorLevel) -> [Collected] {
        guard let iterator = TessBaseAPIGetIterator(handle) else { return [] }
        defer { TessResultIteratorDelete(iterator) }
        return collect(iterator, level: level)
    }

    private func collect(_ iterator: OpaquePointer, level: TessPageIteratorLevel) -> [Collected] {
        var items: [Collected] = []
        repeat {
            guard let cText = TessResultIteratorGetUTF8Text(iterator, level) else { continue }
            let text = String(cString: cText)
            TessDeleteText(cText)
            let confidence = Double(TessResultIteratorConfidence(iterator, level))
            var l: Int32 = 0, t: Int32 = 0, r: Int32 = 0, b: Int32 = 0
            let page = TessResultIteratorGetPageIteratorConst(iterator)
            _ = TessPageIteratorBoundingBox(page, level, &l, &t, &r, &b)
            let choices = level == RIL_SYMBOL ? Self.choices(iterator) : []
            let startsWord = level == RIL_SYMBOL && TessPageIteratorIsAtBeginningOf(page, RIL_WORD) != 0
            items.append((text, confidence, PixelRect(x: Int(l), y: Int(t), width: Int(r - l), height: Int(b - t)), choices, startsWord))
        } while TessResultIteratorNext(iterator, level) != 0
        return items
    }
}

extension TesseractEngine {
    /// The candidates of the symbol the iterator is on, best first.
    fileprivate static func choices(_ iterator: OpaquePointer) -> [SymbolChoice] {
        guard let choice = TessResultIteratorGetChoiceIterator(iterator) else { return [] }
        defer { TessChoiceIteratorDelete(choice) }
        var result: [SymbolChoice] = []
        repeat {
            guard let text = TessChoiceIteratorGetUTF8Text(choice) else { continue }
            result.append(SymbolChoice(text: String(cString: text), confidence: Double(TessChoiceIteratorConfidence(choice))))
        } while TessChoiceIteratorNext(choice) != 0
        return result.sorted { $0.confidence > $1.confidence }
    }
}

/// Tesseract's OpenMP threads make small-cell OCR several times slower (2–6 ms a cell on one thread, 11–80 ms
/// on several), and statsheet's parallelism is one engine per worker thread. `OMP_THREAD_LIMIT=1` would do,
/// but libgomp reads it only when it is loaded, before any Swift code runs: setting it meant starting the
/// process a second time (about 35 ms of CPU, as much as the first start). Instead the thread that runs a
/// recognition sets its own max-active-levels to 0, which makes every parallel region it starts inactive:
/// run by that thread alone. The setting belongs to the thread (the ICV of its implicit task, created on
/// first use), so it is made before each recognition; it is one store.
///
/// Looked up at run time rather than linked: a Tesseract built without OpenMP brings no libgomp, and then
/// there is nothing to limit.
public enum OpenMPThreads {
    private typealias Setter = @convention(c) (Int32) -> Void
    nonisolated(unsafe) private static let setMaxActiveLevels: Setter? = {
        // A null handle is RTLD_DEFAULT: the libraries the process has loaded (libgomp, through libtesseract).
        guard let symbol = dlsym(nil, "omp_set_max_active_levels") else { return nil }
        return unsafeBitCast(symbol, to: Setter.self)
    }()

    /// Whether Tesseract's OpenMP runtime is loaded, and so limited on each reading thread (`doctor`).
    public static var limited: Bool { setMaxActiveLevels != nil }

    /// Runs the calling thread's OpenMP parallel regions on the calling thread only.
    public static func oneOnThisThread() { setMaxActiveLevels?(0) }
}

/// Lends a NULL-free array of C strings for the duration of `body`.
private func withCStringArray<R>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> R) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    defer { pointers.forEach { free($0) } }
    return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
}
