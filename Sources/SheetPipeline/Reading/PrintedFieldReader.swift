import Foundation
import OCRKit
import SheetModel

/// Reads printed fields with Tesseract: counts, digits and dates through a digit whitelist, text as a
/// line, checkboxes by ink. Confidence is the weakest character's, lowered when the characters do not
/// sit one per marked box.
///
/// All of a sheet's digit fields are stacked into one image, one field per line, and read in a single
/// Tesseract call: each call has a fixed cost of a few milliseconds, which for 25 small fields was most
/// of a sheet's time. Fields whose line reading does not fit their boxes get a second opinion box by box.
public final class PrintedFieldReader: FieldRecognizer {
    private let engine: TesseractEngine
    public let cleaner: CellCleaner
    /// A comb box with at least this share of ink holds a character.
    public var boxInkThreshold = 0.012
    /// White space around each field image: Tesseract reads characters touching an edge badly.
    public var padding = 10
    /// Pixels per point at which digits are handed to Tesseract. Cells are cleaned at a finer scale,
    /// then shrunk: on rendered sheets, digits 22–28 pixels tall (1.125 px/pt) were all read, while at
    /// 2.5 px/pt Tesseract's line mode dropped some lone digits.
    public var digitScale = 1.125
    /// The same for text fields. Chosen on 277 generated sheets: 1.5 and 1.6 read every name right;
    /// 1.8 and larger misread "fi" as "fl" or "h" with confidence 85–91, 1.4 and smaller lost letters.
    public var textScale = 1.5
    /// Line readings below this confidence are checked box by box.
    public var secondOpinionBelow = 90.0

    /// When set, every cleaned field image is written here as `FIELD.png` (for tuning the cleaner), and each text
    /// field's characters with their candidates as `FIELD.characters.json` (for measuring the name model's rates).
    public var debugFolder: String?

    public init(engine: TesseractEngine, cleaner: CellCleaner = CellCleaner()) {
        self.engine = engine
        self.cleaner = cleaner
        debugFolder = ProcessInfo.processInfo.environment["STATSHEET_DEBUG_CELLS"]
    }

    /// A reader on the same Tesseract engine (so, the same thread) whose cleaner counts as ink anything
    /// darker than `inkRatio` of the paper.
    public func seeing(inkRatio: Double) -> PrintedFieldReader {
        var cleaner = self.cleaner
        cleaner.inkRatio = inkRatio
        let reader = PrintedFieldReader(engine: engine, cleaner: cleaner)
        reader.debugFolder = debugFolder
        return reader
    }

    public func recognize(_ fields: [(field: FieldSpec, cell: FieldCell)]) throws -> RecognizedFields {
        RecognizedFields(readings: try read(fields), writing: .print)
    }

    public func read(_ fields: [(field: FieldSpec, cell: FieldCell)]) throws -> [FieldReading] {
        try readWithCharacters(fields).readings
    }

    /// The readings, and for each text field read (by its index in `fields`) its characters with their
    /// candidates: what a name is weighed from against the known names (`NameReadingModel`).
    public func readWithCharacters(_ fields: [(field: FieldSpec, cell: FieldCell)]) throws
        -> (readings: [FieldReading], characters: [Int: [ReadCharacter]]) {
        var readings = try settled(readNumbersByLine(fields))
        var characters: [Int: [ReadCharacter]] = [:]
        for (index, (field, cell)) in fields.enumerated() {
            switch field.kind {
            case .checkbox: readings[index] = try readCheckbox(field, cell)
            case .text:
                let (reading, read) = try readText(field, cell)
                readings[index] = reading
                if !read.isEmpty { characters[index] = read }
            case .count, .digits, .date: break
            }
        }
        return (readings.map { $0! }, characters)
    }

    /// A sheet's digit fields read from their lines, stacked into one Tesseract call. A field whose line
    /// reading does not fit its boxes, or fits with doubt, waits for a second opinion box by box (a call per
    /// box, the costly part), which `settled` gives: a sheet that proves handwritten never needs it.
    struct NumbersByLine {
        /// One per field given; nil for a field not written in digits, or one waiting for its second opinion.
        var readings: [FieldReading?]
        /// The fields waiting, with their line readings.
        var waiting: [(item: PendingDigits, line: DigitRead)]
    }

    /// The digit fields among `fields` read from their lines (`NumbersByLine`).
    func readNumbersByLine(_ fields: [(field: FieldSpec, cell: FieldCell)]) throws -> NumbersByLine {
        var numbers = try cleanNumbers(fields)
        return try readByLine(numbers.inked, into: &numbers.readings)
    }

    /// A sheet's digit fields cleaned: the empty ones read (empty boxes need no Tesseract call), the others
    /// waiting for Tesseract.
    struct CleanedNumbers {
        /// One per field given; set for the empty fields only, until some are read (`readByLine`).
        var readings: [FieldReading?]
        /// The fields with ink in a box, in the order given.
        var inked: [PendingDigits]
    }

    /// The digit fields among `fields` cleaned (`CleanedNumbers`), or only those whose index `include` admits
    /// (the others are left unread, nil).
    func cleanNumbers(_ fields: [(field: FieldSpec, cell: FieldCell)], where include: (Int) -> Bool = { _ in true }) throws -> CleanedNumbers {
        var numbers = CleanedNumbers(readings: [FieldReading?](repeating: nil, count: fields.count), inked: [])
        for (index, (field, cell)) in fields.enumerated() where field.kind.isWrittenInDigits && include(index) {
            switch try cleanNumber(index, field, cell) {
            case .empty(let reading): numbers.readings[index] = reading
            case .inked(let item): numbers.inked.append(item)
            }
        }
        return numbers
    }

    /// A digit field cleaned: read as empty when no box holds ink, else waiting for Tesseract.
    enum CleanedNumber {
        case empty(FieldReading)
        case inked(PendingDigits)
    }

    /// One digit field (`index` in the caller's list) cleaned (`CleanedNumber`).
    func cleanNumber(_ index: Int, _ field: FieldSpec, _ cell: FieldCell) throws -> CleanedNumber {
        let cleaned = try cleaner.clean(field, in: cell)
        try writeDebug(field, cell, cleaned)
        let inked = cleaned.inkPerBox.map { $0 >= boxInkThreshold }
        guard inked.contains(true) else {
            // Confident in emptiness only when the boxes are really clean, not merely under the threshold.
            let faint = cleaned.inkPerBox.max() ?? 0
            let clean = faint < boxInkThreshold / 3
            let sure = JudgingPolicy.standard.readers
            return .empty(FieldReading(value: .empty, text: "", confidence: clean ? sure.inkless : sure.stray, doubts: clean ? [] : [.faintMarksInEmptyField]))
        }
        let image = try cleaned.ink.grayScaled(by: digitScale / cell.scale)
        return .inked(PendingDigits(index: index, field: field, cell: cell, cleaned: cleaned, inked: inked, image: image))
    }

    /// `items` read from their lines in one stacked call. Their readings are set in `readings` (at each item's
    /// index), except those waiting for a second opinion; the result holds the same readings and the waiting.
    func readByLine(_ items: [PendingDigits], into readings: inout [FieldReading?]) throws -> NumbersByLine {
        var waiting: [(item: PendingDigits, line: DigitRead)] = []
        for (item, line) in zip(items, try readStacked(items)) {
            if wantsSecondOpinion(item, line) {
                waiting.append((item, line))
            } else {
                readings[item.index] = try interpret(item, read: line)
            }
        }
        return NumbersByLine(readings: readings, waiting: waiting)
    }

    /// Every digit field's reading, the waiting ones given their second opinions.
    func settled(_ numbers: NumbersByLine) throws -> [FieldReading?] {
        var readings = numbers.readings
        for (item, line) in numbers.waiting {
            readings[item.index] = try interpret(item, read: secondOpinion(item, lineRead: line))
        }
        return readings
    }

    // MARK: - Checkboxes and text

    private func readCheckbox(_ field: FieldSpec, _ cell: FieldCell) throws -> FieldReading {
        let ink = try cleaner.checkboxInk(field, in: cell)
        // Empty boxes measure ~0, ticks 0.15+, crosses 0.3+, filled boxes ~1. In between is doubt.
        let sure = JudgingPolicy.standard.readers
        let checked = ink >= sure.checkboxTicked
        let margin = min(1, abs(ink - sure.checkboxTicked) / sure.checkboxSureBeyond)
        let confidence = sure.checkboxLeast + sure.checkboxSpread * margin
        let doubts: [ReadingDoubt] = margin < sure.checkboxDoubtedWithin ? [.faintCheckmark(inkedPercent: Int((ink * 100).rounded()))] : []
        return FieldReading(value: .boolean(checked), text: checked ? "x" : "", confidence: confidence, doubts: doubts)
    }

    private func readText(_ field: FieldSpec, _ cell: FieldCell) throws -> (FieldReading, [ReadCharacter]) {
        let cleaned = try cleaner.clean(field, in: cell)
        try writeDebug(field, cell, cleaned)
        guard cleaned.totalInk >= 0.003 else { return (FieldReading(value: .empty, text: "", confidence: JudgingPolicy.standard.readers.inkless), []) }
        // Tesseract's LSTM steps across the whole width it is given: the line's blank end, a half of most
        // name cells, cost as much as its letters. Cut to the ink's columns, the line keeps its height.
        var ink = cleaned.ink
        if let bounds = ink.foregroundBounds {
            ink = try ink.cropped(to: PixelRect(x: bounds.x, y: 0, width: bounds.width, height: ink.height))
        }
        let image = try ink.grayScaled(by: textScale / cell.scale).padded(by: padding)
        let recognition = try engine.recognize(image, segmentation: .singleLine, dpi: Int(textScale * 72))
        let text = recognition.text.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else {
            return (FieldReading(value: .empty, text: "", confidence: 0, doubts: [.noTextRead]), [])
        }
        let characters = recognition.symbols.filter { !$0.text.isEmpty }.map(Self.character)
        if let debugFolder {
            // What Tools/name-rates.py measures the name model's rates from.
            let json = try JSONEncoder().encode(characters)
            _ = FileManager.default.createFile(atPath: "\(debugFolder)/\(field.id).characters.json", contents: json)
        }
        return (textReading(text, recognition), characters)
    }

    /// A character read, with the LSTM's candidates for it (the character alone when it listed none).
    static func character(_ symbol: RecognizedSymbol) -> ReadCharacter {
        let scores = symbol.alternatives.isEmpty ? [(text: symbol.text, score: symbol.confidence)]
                                                 : symbol.alternatives.map { (text: $0.text, score: $0.confidence) }
        return ReadCharacter(scores: scores, startsWord: symbol.startsWord)
    }

    private func textReading(_ text: String, _ recognition: Recognition) -> FieldReading {
        let confidence = recognition.words.map(\.confidence).min() ?? 0
        let unlikely = text.filter { !Self.writtenInText($0) }
        guard unlikely.isEmpty else {
            // Tesseract can be sure of a character nobody writes in a name ("€merson Kelly" at 74):
            // such a reading is doubted, whatever its confidence.
            var reading = FieldReading(value: .string(text), text: text, confidence: confidence)
            reading.doubt(.unlikelyCharacters(String(Set(unlikely).sorted())))
            return reading
        }
        return FieldReading(value: .string(text), text: text, confidence: confidence)
    }

    /// Characters people write in a name, a team or a note: letters (any script), digits, spaces and
    /// the punctuation of names and schools ("O'Neil", "St. Mary's", "A&M", "Smith-Jones", "#12").
    static func writtenInText(_ c: Character) -> Bool {
        c.isLetter || c.isNumber || c == " " || "'’.-&/(),#".contains(c)
    }

    // MARK: - Digits

    /// A digit field with ink, waiting for recognition.
    struct PendingDigits {
        let index: Int
        let field: FieldSpec
        let cell: FieldCell
        let cleaned: CleanedField
        let inked: [Bool]
        /// The cleaned ink shrunk to `digitScale`, anti-aliased.
        let image: Image
    }

    /// Digits read from a field, and whether they sit one per marked box.
    struct DigitRead {
        var text: String
        var confidence: Double
        var fitsBoxes: Bool
        var doubts: [ReadingDoubt] = []
    }

    /// Reads every pending field in one Tesseract call: the fields are stacked one under another with a
    /// blank line's height between them, read as a block, and each recognised digit goes back to the
    /// field whose band it falls in.
    private func readStacked(_ items: [PendingDigits]) throws -> [DigitRead] {
        guard !items.isEmpty else { return [] }
        let gap = max(padding, items.map(\.image.height).max()!)
        let width = items.map(\.image.width).max()! + 2 * padding
        var tops: [Int] = []
        var y = padding
        for item in items {
            tops.append(y)
            y += item.image.height + gap
        }
        let canvas = try Image.blank(width: width, height: y - gap + padding)
        for (item, top) in zip(items, tops) { try canvas.paste(item.image, x: padding, y: top) }
        let symbols = try recognizeDigits(canvas)
        return zip(items, tops).map { item, top in
            let band = (top - gap / 2)..<(top + item.image.height + gap / 2)
            let mine = symbols.filter { band.contains($0.bounds.y + $0.bounds.height / 2) }
            return fit(mine, to: item, originX: padding)
        }
    }

    /// Digits Tesseract finds in `image` (a block of one or more lines at `digitScale`).
    private func recognizeDigits(_ image: Image) throws -> [RecognizedSymbol] {
        try engine.recognize(image, segmentation: .singleBlock, allowedCharacters: "0123456789", dpi: Int(digitScale * 72))
            .symbols.filter { !$0.text.isEmpty && $0.text.allSatisfy(\.isNumber) }
    }

    /// Sorts symbols left to right, and checks that each marked box got exactly one and no clean box any.
    private func fit(_ symbols: [RecognizedSymbol], to item: PendingDigits, originX: Int) -> DigitRead {
        let ordered = symbols.sorted { $0.bounds.x < $1.bounds.x }
        var fits = !ordered.isEmpty
        if item.field.boxes.count > 1 {
            let back = item.cell.scale / digitScale
            var perBox = [Int](repeating: 0, count: item.cleaned.boxes.count)
            for symbol in ordered {
                // Back from the shrunk image to the cleaned cell's pixels.
                let cx = Int((Double(symbol.bounds.x + symbol.bounds.width / 2 - originX) * back).rounded())
                if let i = item.cleaned.boxes.firstIndex(where: { cx >= $0.x - 2 && cx < $0.maxX + 2 }) { perBox[i] += 1 }
            }
            fits = fits && zip(perBox, item.inked).allSatisfy { count, ink in ink ? count == 1 : count == 0 }
        }
        return DigitRead(text: ordered.map(\.text).joined(), confidence: ordered.map(Self.confidence).min() ?? 0, fitsBoxes: fits)
    }

    /// Reads each marked comb box on its own (as a block: Tesseract's single-character mode reads lone
    /// digits worse).
    private func readBoxes(_ item: PendingDigits) throws -> DigitRead {
        var text = "", confidence = 100.0, fits = true
        for (box, hasInk) in zip(item.cleaned.boxes, item.inked) where hasInk {
            let image = try item.cleaned.ink.cropped(to: box).grayScaled(by: digitScale / item.cell.scale).padded(by: padding)
            let symbols = try recognizeDigits(image)
            if symbols.count != 1 { fits = false }
            text += symbols.map(\.text).joined()
            confidence = min(confidence, symbols.map(Self.confidence).min() ?? 0)
        }
        return DigitRead(text: text, confidence: confidence, fitsBoxes: fits)
    }

    /// A digit's confidence: Tesseract's own, but never more than its lead over the runner-up allows
    /// (`JudgingPolicy.Readers.printedLeadBase`, with the measurement).
    static func confidence(_ symbol: RecognizedSymbol) -> Double {
        guard let margin = symbol.margin else { return symbol.confidence }
        return min(symbol.confidence, JudgingPolicy.standard.readers.printedLeadBase + margin)
    }

    /// Tesseract sometimes drops a lone digit or reads a "1" twice: when the line does not fit the boxes, or
    /// fits with doubt, each marked box is read on its own as a second opinion.
    private func wantsSecondOpinion(_ item: PendingDigits, _ line: DigitRead) -> Bool {
        item.field.boxes.count > 1 && (!line.fitsBoxes || line.confidence < secondOpinionBelow)
    }

    /// The line reading weighed against the boxes read one by one.
    private func secondOpinion(_ item: PendingDigits, lineRead: DigitRead) throws -> DigitRead {
        var read = lineRead
        let perBox = try readBoxes(item)
        if perBox.fitsBoxes {
            if read.fitsBoxes && read.text == perBox.text {
                read.confidence = max(read.confidence, perBox.confidence)
            } else if read.fitsBoxes {
                read = perBox
                read.doubts.append(.lineAndBoxesDisagree)
            } else {
                read = perBox
            }
        }
        return read
    }

    /// Turns the digits read (from the line, or after a second opinion) into a value.
    private func interpret(_ item: PendingDigits, read: DigitRead) throws -> FieldReading {
        let field = item.field
        var read = read
        let marked = item.inked.filter { $0 }.count
        if !read.fitsBoxes {
            read.doubts.append(.digitsInMarkedBoxes(digits: read.text.count, boxes: marked))
        }
        let text = read.text
        var reading = FieldReading(value: .empty, text: text, confidence: read.confidence, doubts: read.doubts)
        if text.isEmpty {
            return FieldReading(value: .empty, text: "", confidence: 0, doubts: [.noDigits])
        }
        switch field.kind {
        case .date:
            guard text.count == 6, item.inked.allSatisfy({ $0 }), let date = Self.date(fromMMDDYY: text) else {
                reading.doubt(.notADate(text: text))
                return reading
            }
            reading.value = .string(date)
            return reading
        case .digits:
            reading.value = .string(text)
            return reading
        default:
            guard let value = Int(text) else {
                reading.confidence = 0
                reading.doubts.append(.notANumber(text: text))
                return reading
            }
            reading.value = .integer(value)
            if let range = field.allowedRange, !range.contains(value) {
                reading.doubt(.outsideRange(value: value, lower: range.lowerBound, upper: range.upperBound))
            }
            return reading
        }
    }

    /// "041125" → "2025-04-11", or nil when no such day exists. Two-digit years are 2000–2099.
    static func date(fromMMDDYY text: String) -> String? {
        let digits = text.compactMap(\.wholeNumberValue)
        guard digits.count == 6 else { return nil }
        let month = digits[0] * 10 + digits[1], day = digits[2] * 10 + digits[3], year = 2000 + digits[4] * 10 + digits[5]
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        return "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private func writeDebug(_ field: FieldSpec, _ cell: FieldCell, _ cleaned: CleanedField) throws {
        guard let debugFolder else { return }
        _ = FileManager.default.createFile(atPath: "\(debugFolder)/\(field.id).png", contents: Data(try cleaned.ink.encoded(as: .png)))
        _ = FileManager.default.createFile(atPath: "\(debugFolder)/\(field.id).gray.png", contents: Data(try Image(cell.image).encoded(as: .png)))
    }
}
