import Foundation
import OCRKit
import SheetModel

/// Reads printed fields with Tesseract: counts, digits and dates through a digit whitelist one line at
/// a time, text as a line, checkboxes by ink. Confidence is the weakest character's, lowered when the
/// characters do not fit the boxes they were written in.
public final class PrintedFieldReader: FieldRecognizer {
    private let engine: TesseractEngine
    public let cleaner = CellCleaner()
    /// A comb box with at least this share of ink holds a character.
    public var boxInkThreshold = 0.012
    /// Padding around the ink image: Tesseract reads characters touching the image edge badly.
    public var padding = 10
    /// Pixels per point at which digits are handed to Tesseract. Cells are cleaned at a finer scale,
    /// then shrunk: measured on rendered sheets, digits 22–28 pixels tall (1.125 px/pt) were all read,
    /// while at 2.5 px/pt Tesseract's line mode dropped some lone digits.
    public var digitScale = 1.125
    /// The same for text fields, whose letters are smaller than the digits in comb boxes.
    public var textScale = 1.8

    /// When set, every cleaned field image is written here as `FIELD.png` (for tuning the cleaner).
    public var debugFolder: String?

    public init(engine: TesseractEngine) {
        self.engine = engine
        debugFolder = ProcessInfo.processInfo.environment["STATSHEET_DEBUG_CELLS"]
    }

    public func read(_ field: FieldSpec, in cell: FieldCell) throws -> FieldReading {
        switch field.kind {
        case .checkbox: return try readCheckbox(field, cell)
        case .text: return try readText(field, cell)
        case .count, .digits, .date: return try readDigits(field, cell)
        }
    }

    private func readCheckbox(_ field: FieldSpec, _ cell: FieldCell) throws -> FieldReading {
        let ink = try cleaner.checkboxInk(field, in: cell)
        // Empty boxes measure ~0, ticks 0.15+, crosses 0.3+, filled boxes ~1. In between is doubt.
        let checked = ink >= 0.07
        let margin = min(1, abs(ink - 0.07) / 0.05)
        let confidence = 50 + 49 * margin
        var notes: [String] = []
        if margin < 0.4 { notes.append("faint mark: \(Int((ink * 100).rounded()))% of the box inked") }
        return FieldReading(value: .boolean(checked), text: checked ? "x" : "", confidence: confidence, notes: notes)
    }

    private func readText(_ field: FieldSpec, _ cell: FieldCell) throws -> FieldReading {
        let cleaned = try cleaner.clean(field, in: cell)
        guard cleaned.totalInk >= 0.003 else { return FieldReading(value: .empty, text: "", confidence: 97) }
        let recognition = try engine.recognize(try ocrImage(cleaned.ink, cell: cell, scale: textScale), segmentation: .singleLine,
                                               dpi: Int(textScale * 72))
        let text = recognition.text.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else {
            return FieldReading(value: .empty, text: "", confidence: 0, notes: ["ink in the field, but no text was read"])
        }
        let confidence = recognition.words.map(\.confidence).min() ?? 0
        return FieldReading(value: .string(text), text: text, confidence: confidence)
    }

    private func readDigits(_ field: FieldSpec, _ cell: FieldCell) throws -> FieldReading {
        let cleaned = try cleaner.clean(field, in: cell)
        if let debugFolder {
            FileManager.default.createFile(atPath: "\(debugFolder)/\(field.id).png", contents: Data(try cleaned.ink.encoded(as: .png)))
            FileManager.default.createFile(atPath: "\(debugFolder)/\(field.id).gray.png", contents: Data(try Image(cell.image).encoded(as: .png)))
        }
        let inked = cleaned.inkPerBox.map { $0 >= boxInkThreshold }
        guard inked.contains(true) else {
            // Confident in emptiness only when the boxes are really clean, not merely under the threshold.
            let faint = cleaned.inkPerBox.max() ?? 0
            return FieldReading(value: .empty, text: "", confidence: faint < boxInkThreshold / 3 ? 97 : 60,
                                notes: faint < boxInkThreshold / 3 ? [] : ["faint marks in an empty-looking field"])
        }
        var read = try readLine(cleaned, inked: inked, boxed: field.boxes.count > 1, cell: cell)
        // Tesseract's line reader sometimes drops a lone digit or reads a "1" twice. When the line does
        // not fit the boxes, or fits with doubt, each marked box is read on its own as a second opinion.
        if field.boxes.count > 1 && (!read.fitsBoxes || read.confidence < 90) {
            let perBox = try readBoxes(cleaned, inked: inked, cell: cell)
            if perBox.fitsBoxes {
                if read.fitsBoxes && read.text == perBox.text {
                    read.confidence = max(read.confidence, perBox.confidence)
                } else if read.fitsBoxes {
                    read = perBox
                    read.confidence = min(read.confidence, 50)
                    read.notes.append("the line and the single boxes read differently")
                } else {
                    read = perBox
                }
            }
        }
        if !read.fitsBoxes {
            read.confidence = min(read.confidence, 25)
            read.notes.append("read \(read.text.count) digit\(read.text.count == 1 ? "" : "s") in \(inked.filter { $0 }.count) marked box\(inked.filter { $0 }.count == 1 ? "" : "es")")
        }
        let text = read.text
        var confidence = read.confidence
        var notes = read.notes
        if text.isEmpty {
            return FieldReading(value: .empty, text: "", confidence: 0, notes: ["ink in the boxes, but no digit was read"])
        }

        switch field.kind {
        case .date:
            guard text.count == 6, inked.allSatisfy({ $0 }), let date = Self.date(fromMMDDYY: text) else {
                return FieldReading(value: .empty, text: text, confidence: min(confidence, 20),
                                    notes: notes + ["'\(text)' is not a date written MM DD YY"])
            }
            return FieldReading(value: .string(date), text: text, confidence: confidence, notes: notes)
        case .digits:
            return FieldReading(value: .string(text), text: text, confidence: confidence, notes: notes)
        default:
            guard let value = Int(text) else {
                return FieldReading(value: .empty, text: text, confidence: 0, notes: notes + ["'\(text)' is not a number"])
            }
            if let range = field.allowedRange, !range.contains(value) {
                confidence = min(confidence, 40)
                notes.append("\(value) is outside \(range.lowerBound)–\(range.upperBound)")
            }
            return FieldReading(value: .integer(value), text: text, confidence: confidence, notes: notes)
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

    /// The cleaned ink as Tesseract should see it: shrunk to `scale` pixels per point, padded.
    private func ocrImage(_ ink: Image, cell: FieldCell, scale: Double) throws -> Image {
        try ink.grayScaled(by: scale / cell.scale).padded(by: padding)
    }

    /// Digits read from a field, and whether they sit one per marked box.
    struct DigitRead {
        var text: String
        var confidence: Double
        var fitsBoxes: Bool
        var notes: [String] = []
    }

    /// Reads the whole field as one line of digits.
    private func readLine(_ cleaned: CleanedField, inked: [Bool], boxed: Bool, cell: FieldCell) throws -> DigitRead {
        let recognition = try engine.recognize(try ocrImage(cleaned.ink, cell: cell, scale: digitScale), segmentation: .singleLine,
                                               allowedCharacters: "0123456789", dpi: Int(digitScale * 72))
        let back = cell.scale / digitScale
        let symbols = recognition.symbols.filter { !$0.text.isEmpty && $0.text.allSatisfy(\.isNumber) }
        var fits = !symbols.isEmpty
        if boxed {
            var perBox = [Int](repeating: 0, count: cleaned.boxes.count)
            for symbol in symbols {
                // Back from the shrunk, padded image to the cleaned cell's pixels.
                let cx = Int((Double(symbol.bounds.x + symbol.bounds.width / 2 - padding) * back).rounded())
                if let i = cleaned.boxes.firstIndex(where: { cx >= $0.x - 2 && cx < $0.maxX + 2 }) { perBox[i] += 1 }
            }
            fits = fits && zip(perBox, inked).allSatisfy { count, ink in ink ? count == 1 : count == 0 }
        }
        return DigitRead(text: symbols.map(\.text).joined(), confidence: symbols.map(\.confidence).min() ?? 0, fitsBoxes: fits)
    }

    /// Reads each marked comb box on its own (as a block: Tesseract's single-character mode reads
    /// lone digits worse).
    private func readBoxes(_ cleaned: CleanedField, inked: [Bool], cell: FieldCell) throws -> DigitRead {
        var text = "", confidence = 100.0, fits = true
        for (box, hasInk) in zip(cleaned.boxes, inked) where hasInk {
            let image = try ocrImage(try cleaned.ink.cropped(to: box), cell: cell, scale: digitScale)
            let symbols = try engine.recognize(image, segmentation: .singleBlock, allowedCharacters: "0123456789",
                                               dpi: Int(digitScale * 72))
                .symbols.filter { !$0.text.isEmpty && $0.text.allSatisfy(\.isNumber) }
            if symbols.count != 1 { fits = false }
            text += symbols.map(\.text).joined()
            confidence = min(confidence, symbols.map(\.confidence).min() ?? 0)
        }
        return DigitRead(text: text, confidence: confidence, fitsBoxes: fits)
    }
}
