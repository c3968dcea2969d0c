import DigitNet
import OCRKit
import SheetModel
import SheetPipeline
import Testing

/// Segmentation on hand-made component masks: what becomes one character, what is a stray mark.
@Suite struct DigitSegmenterTests {
    /// A solid rectangle of ink.
    func bar(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> ComponentMask {
        ComponentMask(bounds: PixelRect(x: x, y: y, width: w, height: h), bits: Array(repeating: true, count: w * h))
    }

    @Test func separateStrokesAreSeparateDigits() {
        let s = DigitSegmenter().segment([bar(10, 10, 6, 50), bar(50, 12, 20, 48)], writingHeight: 80)
        #expect(s.glyphs.count == 2)
        #expect(s.glyphs.map(\.bounds.x) == [10, 50])
        #expect(s.stray.isEmpty)
    }

    @Test func piecesOverOneAnotherAreOneDigit() {
        // A 5 written in two strokes: the flag on top is a separate component over the body.
        let body = bar(20, 30, 24, 35), flag = bar(22, 10, 26, 5)
        let s = DigitSegmenter().segment([body, flag], writingHeight: 80)
        #expect(s.glyphs.count == 1)
        #expect(s.glyphs.first?.components.count == 2)
        #expect(s.glyphs.first?.bounds == PixelRect(x: 20, y: 10, width: 28, height: 55))
    }

    @Test func aSmallMarkAwayFromTheDigitsIsStray() {
        let s = DigitSegmenter().segment([bar(10, 10, 6, 50), bar(70, 60, 4, 4)], writingHeight: 80)
        #expect(s.glyphs.count == 1)
        #expect(s.stray.count == 1)
        #expect(s.stray.first?.bounds.x == 70)
    }

    @Test func anEmptyBoxWithASpeckHasNoGlyph() {
        let s = DigitSegmenter().segment([bar(40, 40, 5, 3)], writingHeight: 80)
        #expect(s.glyphs.isEmpty)
        #expect(s.stray.count == 1)
    }

    @Test func aWideGlyphIsOfferedACutAtItsThinnestColumn() throws {
        // Two 20×40 blocks joined by a 2-pixel bridge at columns 20–23: two touching digits.
        var bits = [Bool](repeating: false, count: 44 * 40)
        for y in 0..<40 { for x in 0..<44 where x < 20 || x >= 24 || (y >= 19 && y < 21) { bits[y * 44 + x] = true } }
        let joined = Glyph([ComponentMask(bounds: PixelRect(x: 5, y: 5, width: 44, height: 40), bits: bits)])
        let cuts = DigitSegmenter().splits(of: joined)
        let (left, right) = try #require(cuts.first)
        #expect(left.bounds.x == 5)
        #expect((20...24).contains(left.bounds.width))
        #expect(right.bounds.maxX == 49)
        #expect(left.area + right.area == joined.area)
        // A glyph taller than wide is one digit: no cut.
        #expect(DigitSegmenter().splits(of: Glyph([bar(0, 0, 30, 50)])).isEmpty)
    }
}

/// The handwriting reader on cells of a rendered sheet: values, confidence and alternatives, and the
/// cases that must be flagged rather than guessed.
@Suite struct HandwrittenDigitReaderTests {
    let dpi = 200
    var scale: Double { Double(dpi) / 72 }

    func cell(_ field: FieldSpec, of page: Image) throws -> FieldCell {
        let h = Homography([scale, 0, 0, 0, scale, 0, 0, 0])
        return FieldCell(field: field, from: try page.grayBuffer(), through: h)
    }

    func px(_ v: Double) -> Int { Int((v * scale).rounded()) }

    @Test func readsEveryNumberWithACalibratedConfidenceAndAlternatives() throws {
        let template = try Fixtures.lacrosse()
        let page = try Fixtures.filledSheet(template, values: Fixtures.game, dpi: dpi)
        let reader = HandwrittenDigitReader(network: try DigitNetwork.bundled())
        for field in template.fields where [.count, .date].contains(field.kind) {
            let reading = try reader.read(field, try cell(field, of: page)).reading
            #expect(reading.value == Fixtures.game[field.id] ?? .empty, "\(field.id)")
            guard reading.value != .empty else { continue }
            // Confidence is the probability of the value read, the first alternative.
            let first = try #require(reading.alternatives.first, "\(field.id)")
            #expect(first.value == reading.value)
            #expect(abs(reading.confidence - 100 * first.probability) < 1e-9 || reading.confidence < 100 * first.probability)
            #expect(reading.alternatives.map(\.probability) == reading.alternatives.map(\.probability).sorted(by: >))
            #expect(reading.alternatives.map(\.probability).reduce(0, +) <= 1 + 1e-9)
        }
    }

    @Test func aCrossedOutDigitIsFlaggedNotGuessed() throws {
        let template = try Fixtures.lacrosse()
        var values = Fixtures.game
        values["q2.clears"] = .empty
        let page = try Fixtures.filledSheet(template, values: values, dpi: dpi)
        let field = try #require(template.fields.first { $0.id == "q2.clears" })
        // A digit written in the left box, struck through with a heavy X, and the correction beside it.
        let font = try BitmapFont(size: Int(20.0 * Double(dpi) / 300))
        let left = field.boxes[0], right = field.boxes[1]
        page.drawText("7", x: px(left.center.x) - font.width(of: "7") / 2, baseline: px(left.maxY - left.height * 0.25), font: font)
        page.drawText("4", x: px(right.center.x) - font.width(of: "4") / 2, baseline: px(right.maxY - right.height * 0.25), font: font)
        let x = left.insetBy(6, 6)
        page.drawLine(from: (px(x.x), px(x.y)), to: (px(x.maxX), px(x.maxY)), width: 4, color: .black)
        page.drawLine(from: (px(x.maxX), px(x.y)), to: (px(x.x), px(x.maxY)), width: 4, color: .black)
        let reading = try HandwrittenDigitReader(network: try DigitNetwork.bundled()).read(field, try cell(field, of: page)).reading
        #expect(reading.confidence < 70, "read \(reading.value) at \(reading.confidence)")
    }

    @Test func aNumberWrittenAcrossTheDividerAndAStrayDotAreReadRight() throws {
        let template = try Fixtures.lacrosse()
        var values = Fixtures.game
        values["q3.shots"] = .empty
        values["ot.saves"] = .empty
        let page = try Fixtures.filledSheet(template, values: values, dpi: dpi)
        let font = try BitmapFont(size: Int(20.0 * Double(dpi) / 300))
        let across = try #require(template.fields.first { $0.id == "q3.shots" })
        // "16" written as one number over the divider: the 1 close left of it, the 6 close right, neither
        // centred in its box. (Strokes lying on the printed line itself are lost with the line.)
        let divider = across.boxes[0].maxX, baseline = px(across.rect.maxY - across.rect.height * 0.25)
        page.drawText("1", x: px(divider - 3.5) - font.width(of: "1"), baseline: baseline, font: font)
        page.drawText("6", x: px(divider + 3.5), baseline: baseline, font: font)
        // A pen dot in an empty box.
        let empty = try #require(template.fields.first { $0.id == "ot.saves" })
        try page.fill(PixelRect(x: px(empty.boxes[1].center.x), y: px(empty.boxes[1].center.y), width: 4, height: 4), color: .black)
        let reader = HandwrittenDigitReader(network: try DigitNetwork.bundled())
        let sixteen = try reader.read(across, try cell(across, of: page)).reading
        #expect(sixteen.value == .integer(16))
        #expect(sixteen.confidence >= 70)
        let dot = try reader.read(empty, try cell(empty, of: page)).reading
        #expect(dot.value == .empty)
        #expect(dot.confidence >= 70)
    }
}

extension DigitSegmenterTests {
    @Test func aDigitBrokenIntoSmallPiecesStaysADigit() {
        // A thin 7 that thresholding broke into three small pieces, each under the stray size.
        let pieces = [bar(20, 20, 18, 4), bar(30, 26, 6, 15), bar(26, 43, 6, 15)]
        let s = DigitSegmenter().segment(pieces, writingHeight: 80)
        #expect(s.glyphs.count == 1)
        #expect(s.glyphs.first?.components.count == 3)
        #expect(s.stray.isEmpty)
    }
}
