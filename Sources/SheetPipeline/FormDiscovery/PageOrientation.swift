import Foundation
import OCRKit
import SheetModel

/// A printed word found on the straightened page, in the page image's pixels.
struct PageWord {
    let text: String
    let confidence: Double
    let bounds: PixelRect
}

/// Which quarter turn puts a straightened page upright: the one in which Tesseract reads the most text,
/// and reads it most confidently. A blank form's only clue to its orientation is its printed words; its
/// boxes look the same sideways.
struct PageOrientation {
    /// Text is read at about this many pixels on the page's long side (150 dpi on Letter): labels of 8
    /// points and more are readable, and a page costs a quarter of what 300 dpi would.
    var readingSide = 1650
    /// Words read less confidently than this are not counted (gibberish read from sideways text is).
    var minimumConfidence = 60.0

    struct Result {
        /// Clockwise quarter turns that make the page upright.
        let quarterTurns: Int
        /// The words read in that turn, in the turned page's pixels at full resolution.
        let words: [PageWord]
    }

    /// The words of an upright page read at up to `labelSide` pixels on its long side (300 dpi on Letter),
    /// for the fields' labels: at the orientation's resolution "Club" was read "cup". Words read with
    /// `labelConfidence` or more are kept.
    func words(on page: Image, engine: TesseractEngine, labelSide: Int = 3300, labelConfidence: Double = 45) throws -> [PageWord] {
        let factor = min(1, Double(labelSide) / Double(max(page.width, page.height)))
        let image = try page.grayScaled(by: factor)
        let dpi = max(70, Int(Double(max(image.width, image.height)) / 11))
        return try engine.recognize(image, segmentation: .sparseText, dpi: dpi).words.compactMap { w in
            let text = w.text.trimmingCharacters(in: .whitespaces)
            guard w.confidence >= labelConfidence, text.contains(where: { $0.isLetter || $0.isNumber }) else { return nil }
            return PageWord(text: text, confidence: w.confidence,
                            bounds: PixelRect(x: Int(Double(w.bounds.x) / factor), y: Int(Double(w.bounds.y) / factor),
                                              width: Int(Double(w.bounds.width) / factor), height: Int(Double(w.bounds.height) / factor)))
        }
    }

    func orient(_ page: Image, engine: TesseractEngine) throws -> Result {
        let factor = min(1, Double(readingSide) / Double(max(page.width, page.height)))
        let small = try page.grayScaled(by: factor)
        // The page's long side is taken as 11 inches: Tesseract sizes its text expectations by it.
        let dpi = max(70, Int(Double(max(small.width, small.height)) / 11))
        var best: (turn: Int, score: Double, words: [PageWord]) = (0, -1, [])
        for turn in 0..<4 {
            let turned = try small.rotated(quarterTurns: turn)
            let recognition = try engine.recognize(turned, segmentation: .sparseText, dpi: dpi)
            let words = recognition.words.filter { word in
                word.confidence >= minimumConfidence && word.text.filter(\.isLetter).count >= 2
            }
            let score = words.reduce(0.0) { $0 + $1.confidence * Double($1.text.filter(\.isLetter).count) }
            if score > best.score {
                let scaleBack = 1 / factor
                best = (turn, score, words.map { w in
                    PageWord(text: w.text, confidence: w.confidence,
                             bounds: PixelRect(x: Int(Double(w.bounds.x) * scaleBack), y: Int(Double(w.bounds.y) * scaleBack),
                                               width: Int(Double(w.bounds.width) * scaleBack), height: Int(Double(w.bounds.height) * scaleBack)))
                })
            }
        }
        return Result(quarterTurns: best.turn, words: best.words)
    }
}
