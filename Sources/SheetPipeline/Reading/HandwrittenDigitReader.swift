import DigitNet
import Foundation
import OCRKit
import SheetModel

/// Reads handwritten numbers (counts, digit strings, dates) with the digit network: the field's ink is
/// cleaned of the printed box, cut into characters, each character classified as 0–9 or "not a digit",
/// and the characters' probabilities combined into the field's most probable values.
///
/// The field's confidence is 100 × the probability of the value read; its alternatives are the next
/// most probable values. The network's probabilities are calibrated (a temperature fitted on held-out
/// data), so a confidence of 90 is right about nine times in ten. This is the field read alone: the
/// scanner then weighs it against the sheet's rules (`SheetPosterior`).
public final class HandwrittenDigitReader {
    private let network: DigitNetwork
    public var cleaner = HandwritingCleaner()
    public var segmenter = DigitSegmenter()
    /// Finds a number that looks struck out with a level line, which the network may read as a digit, so
    /// that the space beside its boxes is read too; nil looks there only for marks the network calls no
    /// digit.
    public var strikes: StrikeThrough? = StrikeThrough()
    /// Strokes thinner than these shares of the character's height are thickened before classification:
    /// the network learnt from MNIST, whose strokes are about an eighth of the digit's height, while a
    /// ballpoint line in a 30-point box is a thirtieth. Two widths, not three: the sheets read about as
    /// well without 0.12 between them, and each width is a pass of the network, where three overran the
    /// 1 ms a digit may take (docs/decisions.md).
    public var strokeShares = [0.09, 0.15]
    /// The one width `quick` reads at when checking printed numbers: the middle of the three widths read
    /// before, kept so printed sheets read as they did.
    public var quickStrokeShare = 0.12
    /// The most alternatives a field carries (the value read included).
    public var alternativeCount = 6

    /// What a store's labelled digits teach about its writers, mixed into each character's probabilities;
    /// nil reads with the network alone (`scan --no-adapt`, or a store with no examples).
    public var adaptation: DigitAdaptation?
    /// A date's: its days are weighed by the season after the sheet is read (`SeasonPrior`), which may
    /// prefer a day the ink put well down its list, so more are kept, enumerated from more candidates.
    public var dateAlternativeCount = 24
    public var dateCandidateCount = 64

    /// When set, each field's cleaned ink is written here as `FIELD.hand.png` (for tuning).
    public var debugFolder: String?

    /// The network's name (`DigitNetwork.identity`), which the embeddings it gives are stored with.
    public var networkIdentity: String { network.identity }
    /// How many numbers a character's embedding has.
    public var embeddingWidth: Int { network.embeddingWidth }

    public init(network: DigitNetwork) {
        self.network = network
        debugFolder = ProcessInfo.processInfo.environment["STATSHEET_DEBUG_CELLS"]
    }

    /// A field's reading and the heights of the characters it was read from.
    public struct FieldResult {
        public var reading: FieldReading
        public var glyphHeights: [Int]
        /// The network's embedding of each character the value was read from, in reading order (averaged over
        /// the pen widths): what a store keeps so that a person's correction of the number can teach.
        public var digitEmbeddings: [[Float]] = []
        /// A date's characters' probabilities, what its days are weighed against (`SeasonPrior`); nil for other kinds.
        public var dateInk: DateInk?
        /// The height of the mark each of `dateInk`'s characters was read from.
        var dateInkHeights: [Int] = []
    }

    /// Characters shorter than this share of the sheet's median character height are doubted: a tick
    /// of the pen in an empty box reads as a confident "1" on its own, but is far smaller than what the
    /// same hand wrote elsewhere on the sheet.
    public var smallGlyphShare = 0.6

    /// Reads a sheet's digit fields, then doubts the ones written much smaller than the rest.
    public func read(_ fields: [(field: FieldSpec, cell: FieldCell)]) throws -> [FieldReading] {
        try readResults(fields).map(\.reading)
    }

    /// As `read`, with each field's characters' embeddings.
    ///
    /// - Parameter cleaned: the ink of the first fields, cleaned already (`cleanEach`).
    public func readResults(_ fields: [(field: FieldSpec, cell: FieldCell)], cleaned: [HandwritingCleaner.Ink] = []) throws -> [FieldResult] {
        doubtingSmallMarks(try readEach(fields, cleaned: cleaned))
    }

    /// Each field's ink, cleaned of its printed box: what `readEach` reads, which a sheet read twice (at one pen
    /// width to tell print from hand, then at two) cleans once.
    func cleanEach(_ fields: [(field: FieldSpec, cell: FieldCell)]) throws -> [HandwritingCleaner.Ink] {
        try fields.map { try cleaner.clean($0.field, in: $0.cell) }
    }

    /// Each field read on its own, before its characters are compared with the sheet's (`doubtingSmallMarks`).
    ///
    /// - Parameters:
    ///   - cleaned: the ink of the first fields, cleaned already (`cleanEach`); the others are cleaned here.
    ///   - quick: one pen width (`quickStrokeShare`) instead of `strokeShares`, for print and for telling
    ///     print from hand (`SheetFieldReader`).
    func readEach(_ fields: [(field: FieldSpec, cell: FieldCell)], cleaned: [HandwritingCleaner.Ink] = [], quick: Bool = false) throws -> [FieldResult] {
        let shares = quick ? [quickStrokeShare] : strokeShares
        return try fields.enumerated().map { k, item in
            try read(item.field, item.cell, strokeShares: shares, cleaned: k < cleaned.count ? cleaned[k] : nil)
        }
    }

    /// A sheet's fields read, their characters written much smaller than the sheet's others doubted.
    func doubtingSmallMarks(_ results: [FieldResult]) -> [FieldResult] {
        let heights = results.flatMap(\.glyphHeights).sorted()
        guard heights.count >= 5 else { return results }
        let median = Double(heights[heights.count / 2])
        return results.map { result in
            var result = result
            if let smallest = result.glyphHeights.min(), Double(smallest) < smallGlyphShare * median {
                result.reading.doubt(.smallMark)
            }
            // A date's days are weighed against each character (`SeasonPrior`): there a small mark is a term of
            // its own character, what it reads as at most `readAtMost` of the time and otherwise no digit (a
            // tick), not a cap on the whole date, whose small marks are mostly a dash read as no digit already.
            if var ink = result.dateInk, let most = ReadingDoubt.smallMark.readAtMost {
                for (k, height) in result.dateInkHeights.enumerated() where Double(height) < smallGlyphShare * median {
                    ink.characters[k] = ink.characters[k].map { most * $0 }
                    ink.characters[k][DateInk.noDigit] += 1 - most
                }
                result.dateInk = ink
            }
            return result
        }
    }

    /// The reading of one digit field (kind count, digits or date).
    public func read(_ field: FieldSpec, _ cell: FieldCell) throws -> FieldResult {
        try read(field, cell, strokeShares: strokeShares)
    }

    func read(_ field: FieldSpec, _ cell: FieldCell, strokeShares: [Double], cleaned: HandwritingCleaner.Ink? = nil) throws -> FieldResult {
        let cleaned = try cleaned ?? cleaner.clean(field, in: cell)
        let boxHeight = cleaned.boxes.map(\.height).max() ?? cleaned.image.height
        if let debugFolder {
            _ = FileManager.default.createFile(atPath: "\(debugFolder)/\(field.id).hand.png", contents: Data(try cleaned.image.encoded(as: .png)))
        }
        // Strikes are only looked for where a correction could be written beside the boxes.
        let dividers = zip(cleaned.boxes, cleaned.boxes.dropFirst()).map { ($0.maxX + $1.x) / 2 }
        let (result, unclear, struckHint) = reading(cleaned.components, writingHeight: boxHeight, of: field, strokeShares: strokeShares,
                                                    strikes: cell.beside == nil ? nil : strikes, dividers: dividers)
        guard unclear > 0 || struckHint, let beside = cell.beside,
              let correction = try correction(beside, of: field, writingHeight: boxHeight, strokeShares: strokeShares) else { return result }
        // The number struck out in the boxes and written again beside them: the correction is the
        // keeper's answer, and still a person's to confirm (issue 3: never a confident guess). A level line
        // through the boxes is only a hint (a 4's long crossbar looks the same), so the space is read for
        // it, but nothing is lowered when the space holds no number.
        // Its doubts are the correction's own: the struck-out mark's are no doubts about the value written beside.
        var reading = correction.reading
        reading.doubts.insert(.struckOutCorrection, at: 0)
        return FieldResult(reading: reading, glyphHeights: result.glyphHeights + correction.glyphHeights,
                           digitEmbeddings: correction.digitEmbeddings, dateInk: correction.dateInk, dateInkHeights: correction.dateInkHeights)
    }

    /// The confidence of a field whose boxes held no ink at all, not even a speck (`JudgingPolicy.Readers.inkless`).
    static var inklessConfidence: Double { JudgingPolicy.standard.readers.inkless }

    /// The number written in the space beside a field whose boxes hold a struck-out mark, or nil when that
    /// space holds no clear number: nothing, or a mark that is no digit (such as the end of the strike).
    func correction(_ beside: FieldCell.Beside, of field: FieldSpec, writingHeight: Int, strokeShares: [Double]) throws -> FieldResult? {
        let space = FieldSpec(id: field.id, kind: field.kind, rect: beside.rect, range: field.range)
        let cell = beside.cell
        let cleaned = try cleaner.clean(space, in: cell, printedRows: false)
        // A heavy strike runs out of the boxes into the space: its ends, reaching back past the space's
        // left edge, are no part of the correction (beside a 14 they joined its 1, read as 74).
        let edge = cell.pixels(beside.rect).x
        let written = cleaned.components.filter { $0.bounds.x > edge }
        let (result, unclear, _) = reading(written, writingHeight: writingHeight, of: field, strokeShares: strokeShares, strikes: nil)
        guard unclear == 0, result.reading.value != .empty else { return nil }
        if let debugFolder {
            _ = FileManager.default.createFile(atPath: "\(debugFolder)/\(field.id).beside.png", contents: Data(try cleaned.image.encoded(as: .png)))
        }
        return result
    }

    /// A field's reading from its ink components, how many of its characters were marks that are no
    /// digit (crossed out, scribbled over, unreadable), and whether one of them hints at a strike: `strikes`
    /// (when given) finds it struck through with a level line, or it is a wide mark read whole whose cut
    /// gave a digit and no digit (`digitAndTail`). `dividers` are the x of the lines between comb boxes.
    func reading(_ components: [ComponentMask], writingHeight boxHeight: Int, of field: FieldSpec,
                 strokeShares: [Double], strikes: StrikeThrough?, dividers: [Int] = []) -> (result: FieldResult, unclear: Int, struckHint: Bool) {
        let segmentation = segmenter.segment(components, writingHeight: boxHeight)
        var doubts: [ReadingDoubt] = []
        if !segmentation.stray.isEmpty { doubts.append(.strayMarks(count: segmentation.stray.count)) }
        guard !segmentation.glyphs.isEmpty else {
            // A speck or two leaves little doubt that nothing was written; more ink than that, some.
            let strayInk = Double(segmentation.stray.reduce(0) { $0 + $1.area }) / Double(boxHeight * boxHeight)
            let sure = JudgingPolicy.standard.readers
            let confidence = segmentation.stray.isEmpty ? sure.inkless : strayInk < sure.faintStrayShare ? sure.faintStray : sure.stray
            return (FieldResult(reading: FieldReading(value: .empty, text: "", confidence: confidence, doubts: doubts), glyphHeights: []), 0, false)
        }

        var boxes: [DigitCombination.BoxProbabilities] = []
        var heights: [Int] = []
        var embeddings: [[Float]] = []
        var unclear = 0, lined = false, wideAsOne = 0, digitAndTail = 0, wideAcrossDivider = 0
        for glyph in segmentation.glyphs {
            if !lined, let strikes, strikes.isStruckThrough(glyph) { lined = true }
            let wholeRead = classify(glyph, strokeShares), whole = wholeRead.probabilities
            var chosen = [wholeRead]
            let splits = segmenter.splits(of: glyph)
            for (left, right) in splits {
                let halvesRead = [classify(left, strokeShares), classify(right, strokeShares)]
                let halves = halvesRead.map(\.probabilities)
                if Self.cutIsTwoCharacters(whole: whole, halves: halves) { chosen = halvesRead }
                else if Self.isDigitAndTail(whole: whole, halves: halves) { digitAndTail += 1 }
            }
            if !splits.isEmpty && chosen.count == 1 {
                wideAsOne += 1
                if Self.straddles(glyph.bounds, dividers) { wideAcrossDivider += 1 }
            }
            for (probabilities, embedding) in chosen {
                boxes.append(probabilities)
                heights.append(glyph.bounds.height)
                embeddings.append(embedding)
                // A character-sized mark that is no digit: crossed out, scribbled over, or unreadable.
                if !Self.readsAsDigit(probabilities), Double(glyph.bounds.height) >= 0.4 * Double(boxHeight) {
                    unclear += 1
                }
            }
        }
        let struckHint = lined || digitAndTail > 0
        let candidates = DigitCombination.candidates(boxes, perBox: 3, limit: field.kind == .date ? dateCandidateCount : 8)
        let read = DigitCombination.values(candidates, kind: field.kind, date: PrintedFieldReader.date(fromMMDDYY:))
        let inRange = DigitCombination.withinRange(read, field.kind == .count ? field.allowedRange : nil)
        // When nothing listed lies in the range, the reading stays as the ink has it (and is doubted below).
        // A first choice in range gains what the range took from the others: "12" at 0.55 beside "72" at
        // 0.40 becomes 12 at 0.92, unflagged. A wrong one so lifted breaks a sum, which flags it.
        let values = inRange.values.isEmpty ? read : inRange.values
        let best = candidates.first?.digits ?? ""
        guard let top = values.first else {
            let why: ReadingDoubt = field.kind == .date ? .notADate(text: best) : .noDigits
            return (FieldResult(reading: FieldReading(value: .empty, text: best, confidence: 0, doubts: doubts + [why]),
                                glyphHeights: segmentation.glyphs.map(\.bounds.height)), unclear, struckHint)
        }
        // No sum checks a digit string (a jersey number): it is surer only the surer its probability
        // (`JudgingPolicy.Readers.digitStringPower`). A date's is its ink's probability: the season weighs it
        // next (`SeasonPrior`).
        let probability = top.probability
        let power = JudgingPolicy.standard.readers.digitStringPower
        var reading = FieldReading(value: top.value, text: candidates.first { !$0.digits.isEmpty }?.digits ?? best,
                                   confidence: 100 * (field.kind == .digits ? pow(probability, power) : probability), doubts: doubts)
        if unclear > 0 { reading.doubt(.unreadableMark) }
        // A mark as wide as two digits that the network liked better whole: two digits written touching
        // ("32" read 3 at 98) or one wide digit. On a count its sum tells them apart; on a jersey number,
        // which no sum checks, only a person can. On a date, only a mark across a line between its boxes:
        // a date is read only as six digits, so two read as one leave no date unless another mark is read
        // as a digit too (a box line's remnant, a digit cut in two), and a digit wide in its own box is no
        // pair; real hands write wide 0s, 2s and 5s.
        if field.kind == .digits && wideAsOne > 0 || field.kind == .date && wideAcrossDivider > 0 {
            reading.doubt(.wideMark)
        } else if field.kind == .count && digitAndTail > 0 {
            // Read whole, where its halves were once read and doubted at 40 (`isDigitAndTail`): a sum still
            // tells one digit from two; a count no rule checks keeps the doubt's cap.
            reading.doubt(.wideMark)
        }
        if let range = field.allowedRange, let doubt = Self.rangeDoubt(top.value, read: read, range: range) { reading.doubt(doubt) }
        reading.alternatives = values.prefix(field.kind == .date ? dateAlternativeCount : alternativeCount).map { Alternative(value: $0.value, probability: $0.probability) }
        var result = FieldResult(reading: reading, glyphHeights: segmentation.glyphs.map(\.bounds.height), digitEmbeddings: embeddings)
        if field.kind == .date { (result.dateInk, result.dateInkHeights) = (DateInk(characters: boxes), heights) }
        return (result, unclear, struckHint)
    }

    /// A count read as `value` that its range leaves to a person, with its confidence held under the
    /// flag line and why; nil when the range has no say. Either the value lies outside the range (nothing
    /// listed lay inside), or the range, not the ink, chose it: the network's first choice (`read`, the
    /// ink's values before the range) was a number the range rules out. (Left at its probability given the
    /// range, 90 more values on 525 hand-filled sheets passed unflagged, all right; too few to show that
    /// such values are right 999 times in 1,000.) A sum that pins it may still confirm a value the range
    /// chose, as it confirms any doubtful reading (`SheetPosterior`).
    static func rangeDoubt(_ value: FieldValue, read: [(value: FieldValue, probability: Double)], range: ClosedRange<Int>) -> ReadingDoubt? {
        if case .integer(let n) = value, !range.contains(n) { return .outsideRange(value: n, lower: range.lowerBound, upper: range.upperBound) }
        guard let first = read.first, case .integer(let m) = first.value, !range.contains(m), first.value != value else { return nil }
        return .rangeChose(firstChoice: first.value, probability: first.probability, lower: range.lowerBound, upper: range.upperBound)
    }

    /// Whether a wide mark cut in two (`DigitSegmenter.splits`) is read as its two halves rather than
    /// whole: touching digits, when the halves are, together, likelier than the whole. Not when one half
    /// is a digit and the other no digit: that is one wide digit and its tail (a 2's long base, a 5's
    /// flag), and the tail, kept, was taken for an unreadable mark that held the number at 40. Two halves
    /// that are no digit are still a mark that is no digit.
    static func cutIsTwoCharacters(whole: [Double], halves: [[Double]]) -> Bool {
        guard halves.count == 2, readsAsDigit(halves[0]) == readsAsDigit(halves[1]) else { return false }
        return halvesWin(whole: whole, halves: halves)
    }

    /// A cut `cutIsTwoCharacters` reads whole only because one half is a digit and the other no digit.
    /// Most such marks are a wide digit and its tail, but two digits touching can cut so too ("58" into a
    /// sure 5 and a 8 the cut spoiled), and so can a number struck out with a scribble. So the space beside
    /// the boxes is still read for a correction, and a count so read carries `ReadingDoubt.wideMark`.
    static func isDigitAndTail(whole: [Double], halves: [[Double]]) -> Bool {
        halves.count == 2 && readsAsDigit(halves[0]) != readsAsDigit(halves[1]) && halvesWin(whole: whole, halves: halves)
    }

    static func halvesWin(whole: [Double], halves: [[Double]]) -> Bool {
        (halves[0].max() ?? 0) * (halves[1].max() ?? 0) > (whole.max() ?? 0)
    }

    /// True when a line between two comb boxes runs through the middle of a mark (the part of its width
    /// where `DigitSegmenter.splits` looks for a cut): a mark written across two boxes.
    static func straddles(_ bounds: PixelRect, _ dividers: [Int]) -> Bool {
        let x = Double(bounds.x), w = Double(bounds.width), middle = DigitSegmenter.cutSpan
        return dividers.contains { Double($0) >= x + middle.lowerBound * w && Double($0) <= x + middle.upperBound * w }
    }

    /// True when the network's likeliest class for a character is a digit, not "no digit".
    static func readsAsDigit(_ probabilities: [Double]) -> Bool {
        probabilities.indices.max(by: { probabilities[$0] < probabilities[$1] }) != DigitNetwork.noneClass
    }

    /// The network's eleven probabilities for one character (mixed with what the store's labelled digits
    /// say, when `adaptation` is set) and its embedding.
    ///
    /// The glyph is read at each of `strokeShares` and the probabilities averaged: one pen width is a
    /// guess, and averaging over several tempers the network's certainty where they disagree. Each width
    /// is a pass of the network (`swift run -c release bench digits` times a digit so read).
    func classify(_ glyph: Glyph, _ strokeShares: [Double]) -> (probabilities: [Double], embedding: [Float]) {
        let w = glyph.bounds.width, h = glyph.bounds.height
        let ink = glyph.ink
        let stroke = Self.strokeWidth(ink, width: w, height: h)
        var sum = [Double](repeating: 0, count: DigitNetwork.classes)
        var embedding = [Float](repeating: 0, count: network.embeddingWidth)
        var passes = 0
        for share in strokeShares {
            let radius = Int(((share * Double(max(w, h)) - stroke) / 2).rounded())
            let (thick, width, height) = Self.dilated(ink, width: w, height: h, radius: radius)
            guard let input = DigitNormalizer.normalize(ink: thick, width: width, height: height) else {
                sum[DigitNetwork.noneClass] += 1
                continue
            }
            let out = network.evaluate(input)
            for (i, p) in out.probabilities.enumerated() { sum[i] += Double(p) }
            for i in embedding.indices { embedding[i] += out.embedding[i] }
            passes += 1
        }
        if passes > 1 { embedding = embedding.map { $0 / Float(passes) } }
        let probabilities = sum.map { $0 / Double(strokeShares.count) }
        guard let adaptation, passes > 0 else { return (probabilities, embedding) }
        return (adaptation.adjust(probabilities, embedding: embedding), embedding)
    }

    /// Estimated stroke width of a binary glyph: twice the ink's area over its boundary (a stroke of
    /// width w and length L has area wL and about 2L boundary pixels).
    static func strokeWidth(_ ink: [Float], width w: Int, height h: Int) -> Double {
        var area = 0, boundary = 0
        for y in 0..<h {
            for x in 0..<w where ink[y * w + x] > 0 {
                area += 1
                let edge = x == 0 || y == 0 || x == w - 1 || y == h - 1
                    || ink[y * w + x - 1] == 0 || ink[y * w + x + 1] == 0 || ink[(y - 1) * w + x] == 0 || ink[(y + 1) * w + x] == 0
                if edge { boundary += 1 }
            }
        }
        return 2 * Double(area) / Double(max(1, boundary))
    }

    /// The ink grown by a (2·radius+1)-pixel square, with a margin of `radius`; unchanged when
    /// `radius` < 1. Written by hand rather than with Leptonica's dilation because it works on the
    /// glyph's own float mask, already in Swift memory.
    static func dilated(_ ink: [Float], width w: Int, height h: Int, radius: Int) -> (ink: [Float], width: Int, height: Int) {
        guard radius >= 1 else { return (ink, w, h) }
        let pw = w + 2 * radius, ph = h + 2 * radius
        var out = [Float](repeating: 0, count: pw * ph)
        for y in 0..<h {
            for x in 0..<w where ink[y * w + x] > 0 {
                for dy in 0...(2 * radius) {
                    let row = (y + dy) * pw + x
                    for dx in 0...(2 * radius) { out[row + dx] = 1 }
                }
            }
        }
        return (out, pw, ph)
    }
}
