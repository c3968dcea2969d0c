import Foundation
import DigitNet
import OCRKit
import SheetModel
@testable import SheetPipeline
import Testing

/// A solid rectangle of ink.
private func bar(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> ComponentMask {
    ComponentMask(bounds: PixelRect(x: x, y: y, width: w, height: h), bits: Array(repeating: true, count: w * h))
}

/// Segmentation on hand-made component masks: what becomes one character, what is a stray mark.
@Suite struct DigitSegmenterTests {

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

/// The level-line strike hint on hand-made masks (40 pixels high, 5-pixel strokes): a line through the
/// ink whose two ends run free past it, against digits' own level strokes.
@Suite struct StrikeThroughTests {
    let detector = StrikeThrough()

    @Test func aLineThroughAStrokeAndPastItsBothSidesIsAStrike() {
        #expect(detector.isStruckThrough(Glyph([bar(12, 0, 5, 40), bar(0, 18, 30, 5)])))
        // Two lines, as some keepers strike: each column of their ends holds two thin strokes.
        #expect(detector.isStruckThrough(Glyph([bar(12, 0, 5, 40), bar(0, 11, 30, 4), bar(0, 25, 30, 4)])))
        // A hand's line climbs a little.
        let climbing = (0..<30).map { x in bar(x, 20 - x / 6, 1, 5) }
        #expect(detector.isStruckThrough(Glyph([bar(12, 0, 5, 40)] + climbing)))
    }

    @Test func aDigitsOwnLevelStrokesAreNoStrike() {
        // A 4's crossbar starting at its left stroke: that end is not free.
        #expect(!detector.isStruckThrough(Glyph([bar(0, 0, 5, 26), bar(20, 0, 5, 40), bar(0, 22, 30, 5)])))
        // A 7's bar and a 2's base: ink on one side of the line only.
        #expect(!detector.isStruckThrough(Glyph([bar(0, 0, 30, 5), bar(12, 0, 5, 40)])))
        #expect(!detector.isStruckThrough(Glyph([bar(12, 0, 5, 40), bar(0, 35, 30, 5)])))
        // A line that stops short of one side (the stroke is the widest ink, not the line).
        #expect(!detector.isStruckThrough(Glyph([bar(0, 0, 5, 40), bar(25, 0, 5, 40), bar(0, 18, 24, 5)])))
        // A dash alone: nothing crosses it.
        #expect(!detector.isStruckThrough(Glyph([bar(0, 18, 30, 5)])))
    }

    @Test func theEndsMustRunPastTheInkByATenthOfTheWidth() {
        // A 40-pixel-wide glyph whose line runs 3 pixels past its strokes each side: under a tenth (4).
        let wide = Glyph([bar(3, 0, 5, 40), bar(32, 0, 5, 40), bar(0, 18, 40, 5)])
        #expect(!detector.isStruckThrough(wide))
        var loose = detector
        loose.minOverhangShare = 0
        #expect(loose.isStruckThrough(wide))
        // And 3 pixels at least, however narrow the glyph.
        #expect(!loose.isStruckThrough(Glyph([bar(2, 0, 5, 40), bar(0, 18, 9, 5)])))
    }
}

/// The handwriting reader on cells of a rendered sheet: values, confidence and alternatives, and the
/// cases that must be flagged rather than guessed.
@Suite struct HandwrittenDigitReaderTests {
    let dpi = 200
    var scale: Double { Double(dpi) / 72 }

    func cell(_ field: FieldSpec, of page: Image, beside: Rect? = nil) throws -> FieldCell {
        let h = Homography([scale, 0, 0, 0, scale, 0, 0, 0])
        return FieldCell(field: field, from: try page.grayBuffer(), through: h, beside: beside)
    }

    func px(_ v: Double) -> Int { Int((v * scale).rounded()) }

    /// The lacrosse sheet filled with `Fixtures.game`, but for `changes` (`.empty`: left for a test to
    /// write in).
    func sheet(_ changes: [String: FieldValue]) throws -> (SheetTemplate, Image) {
        let template = try Fixtures.lacrosse()
        let values = Fixtures.game.merging(changes) { $1 }
        return (template, try Fixtures.filledSheet(template, values: values, dpi: dpi))
    }

    @Test func readsEveryNumberWithACalibratedConfidenceAndAlternatives() throws {
        let template = try Fixtures.lacrosse()
        let page = try Fixtures.filledSheet(template, values: Fixtures.game, dpi: dpi)
        let reader = HandwrittenDigitReader(network: try DigitNetwork.bundled())
        for field in template.fields where [.count, .date].contains(field.kind) {
            let reading = try reader.read(field, try cell(field, of: page)).reading
            #expect(reading.value == Fixtures.game[field.id] ?? .empty, "\(field.id)")
            // A box left empty holds no ink: as sure as the reader gets, and the network never asked.
            guard reading.value != .empty else {
                #expect(reading.alternatives.isEmpty && reading.notes.isEmpty && reading.confidence == HandwrittenDigitReader.inklessConfidence)
                continue
            }
            // Confidence is the probability of the value read, the first alternative.
            let first = try #require(reading.alternatives.first, "\(field.id)")
            #expect(first.value == reading.value)
            // The reader keeps what it measured: its doubts are the judge's to weigh (`cappedConfidence`).
            #expect(abs(reading.confidence - 100 * first.probability) < 1e-9, "\(field.id)")
            #expect(reading.alternatives.map(\.probability) == reading.alternatives.map(\.probability).sorted(by: >))
            #expect(reading.alternatives.map(\.probability).reduce(0, +) <= 1 + 1e-9)
        }
    }

    @Test func aCrossedOutDigitIsFlaggedNotGuessed() throws {
        let (template, page) = try sheet(["q2.clears": .empty])
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
        // What the judge weighs: the reader's confidence less what its doubts say the value does not keep.
        #expect(reading.cappedConfidence() < 70, "read \(reading.value) at \(reading.cappedConfidence())")
    }

    @Test func aNumberWrittenAcrossTheDividerAndAStrayDotAreReadRight() throws {
        let (template, page) = try sheet(["q3.shots": .empty, "ot.saves": .empty])
        let font = try BitmapFont(size: Int(20.0 * Double(dpi) / 300))
        let across = try #require(template.fields.first { $0.id == "q3.shots" })
        // "16" written as one number over the divider: the 1 close left of it, the 6 close right, neither
        // centred in its box. (A stroke lying on the line itself: `aOneWrittenOnTheDividerIsKeptNotErasedWithIt`.)
        let divider = across.boxes[0].maxX, baseline = px(across.rect.maxY - across.rect.height * 0.25)
        page.drawText("1", x: px(divider - 3.5) - font.width(of: "1"), baseline: baseline, font: font)
        page.drawText("6", x: px(divider + 3.5), baseline: baseline, font: font)
        // A pen dot in an empty box.
        let empty = try #require(template.fields.first { $0.id == "ot.saves" })
        try page.fill(PixelRect(x: px(empty.boxes[1].center.x), y: px(empty.boxes[1].center.y), width: 4, height: 4), color: .black)
        let reader = HandwrittenDigitReader(network: try DigitNetwork.bundled())
        let sixteen = try reader.read(across, try cell(across, of: page)).reading
        #expect(sixteen.value == .integer(16))
        #expect(sixteen.cappedConfidence() >= 70)
        let dot = try reader.read(empty, try cell(empty, of: page)).reading
        #expect(dot.value == .empty)
        #expect(dot.cappedConfidence() >= 70)
        // Not an empty box with no ink in it: the reader leaves more to other values than an inkless one.
        #expect(dot.cappedConfidence() < HandwrittenDigitReader.inklessConfidence, "\(dot.confidence) \(dot.notes)")
    }

    /// A mark as wide as two digits that the network likes better whole (here a 0 drawn half again as
    /// wide as it is tall, as "32" written touching can read 3) is held under the line on a number no sum
    /// checks (a jersey number), however sure the network is of its one digit. A count in the same boxes
    /// keeps its confidence: its sum tells one digit from two.
    @Test func aMarkAsWideAsTwoDigitsReadAsOneIsDoubtedWhereNoSumChecks() throws {
        let (template, page) = try sheet(["q2.clears": .empty])
        let count = try #require(template.fields.first { $0.id == "q2.clears" })
        let jersey = FieldSpec(id: "p01.num", kind: .digits, rect: count.rect, combs: count.combs)
        let box = count.boxes[1]
        let h = px(box.height * 0.5), w = h * 3 / 2
        let x0 = px(box.center.x) - w / 2, y0 = px(box.center.y) - h / 2
        for (a, b) in [((x0, y0), (x0 + w, y0)), ((x0 + w, y0), (x0 + w, y0 + h)), ((x0 + w, y0 + h), (x0, y0 + h)), ((x0, y0 + h), (x0, y0))] {
            page.drawLine(from: a, to: b, width: 3, color: .black)
        }
        let reader = HandwrittenDigitReader(network: try DigitNetwork.bundled())
        let asCount = try reader.read(count, try cell(count, of: page)).reading
        let asJersey = try reader.read(jersey, try cell(jersey, of: page)).reading
        #expect(asCount.value == .integer(0) && asCount.cappedConfidence() > 60 && asCount.notes.isEmpty, "\(asCount)")
        #expect(asJersey.value == .string("0") && asJersey.cappedConfidence() <= 60, "\(asJersey)")
        #expect(asJersey.notes == ["a mark as wide as two digits read as one"])
    }

    /// A wide mark cut in two is read as two characters only when the halves are alike: two digits
    /// likelier together than the whole, or two marks that are no digit. A digit beside no digit is one
    /// wide digit and its tail, however sure the network is of each half.
    @Test func aWideMarkIsCutInTwoOnlyIntoTwoDigitsOrTwoNonDigits() {
        func reading(_ cls: Int, _ p: Double) -> [Double] {
            var probabilities = [Double](repeating: (1 - p) / 10, count: DigitNetwork.classes)
            probabilities[cls] = p
            return probabilities
        }
        let none = DigitNetwork.noneClass
        // A 2 with a long base: the left half a sure 2, the right half surely no digit.
        #expect(!HandwrittenDigitReader.cutIsTwoCharacters(whole: reading(2, 0.97), halves: [reading(2, 0.99), reading(none, 0.99)]))
        #expect(!HandwrittenDigitReader.cutIsTwoCharacters(whole: reading(5, 0.9), halves: [reading(none, 0.99), reading(5, 0.99)]))
        // "32" written touching: cut when the two digits are likelier together than the whole...
        #expect(HandwrittenDigitReader.cutIsTwoCharacters(whole: reading(3, 0.9), halves: [reading(3, 0.99), reading(2, 0.98)]))
        // ...and read whole when they are not (3103's jersey: 3 at 0.9997 and 2 at 0.47 against 3 at 0.99).
        #expect(!HandwrittenDigitReader.cutIsTwoCharacters(whole: reading(3, 0.99), halves: [reading(3, 0.9997), reading(2, 0.47)]))
        // A scribble the network finds no digit in, either way.
        #expect(HandwrittenDigitReader.cutIsTwoCharacters(whole: reading(0, 0.4), halves: [reading(none, 0.9), reading(none, 0.8)]))
        // The cuts read whole only for being a digit and no digit are told apart (they may be "58" touching,
        // or struck out): not a cut the whole beats, nor one read as two.
        #expect(HandwrittenDigitReader.isDigitAndTail(whole: reading(2, 0.97), halves: [reading(2, 0.99), reading(none, 0.99)]))
        #expect(!HandwrittenDigitReader.isDigitAndTail(whole: reading(2, 0.999), halves: [reading(2, 0.99), reading(none, 0.99)]))
        #expect(!HandwrittenDigitReader.isDigitAndTail(whole: reading(3, 0.9), halves: [reading(3, 0.99), reading(2, 0.98)]))
    }

    /// A mark straddles a line between comb boxes when the line runs through its middle (30–70% of its
    /// width), not when a digit wide in its own box overruns the line at its edge.
    @Test func aMarkAcrossTheLineBetweenTwoBoxesStraddlesIt() {
        let mark = PixelRect(x: 100, y: 0, width: 60, height: 40)
        #expect(HandwrittenDigitReader.straddles(mark, [130]))
        #expect(HandwrittenDigitReader.straddles(mark, [50, 120]))
        #expect(!HandwrittenDigitReader.straddles(mark, [105]))
        #expect(!HandwrittenDigitReader.straddles(mark, [155, 200]))
        #expect(!HandwrittenDigitReader.straddles(mark, []))
    }

    @Test func aOneWrittenAlongTheDividerStaysWithItsNumber() throws {
        let (template, page) = try sheet(["q3.shots": .integer(0)])
        let field = try #require(template.field("q3.shots"))
        // A 0 in the right box (Fixtures writes a one-digit number there), and the 1 of "10": a felt-pen
        // stem against the divider over most of the field's height, so that most ink runs across the
        // divider are line and stem together. (The divider is the two boxes' 1-point edges side by side;
        // the stem overlaps its left one by a pixel.)
        let lineLeft = px(field.boxes[0].maxX) - px(1), stem = 6
        try page.fill(PixelRect(x: lineLeft - stem + 1, y: px(field.rect.y + field.rect.height * 0.12), width: stem,
                                height: px(field.rect.height * 0.76)), color: .black)
        let reader = HandwrittenDigitReader(network: try DigitNetwork.bundled())
        let fieldCell = try cell(field, of: page)
        // Cleaning keeps the stem: a component from left of the divider, most of the field's height tall.
        let ink = try reader.cleaner.clean(field, in: fieldCell)
        let dividerInCrop = ink.boxes[0].maxX
        #expect(ink.components.contains { $0.bounds.x <= dividerInCrop - stem && Double($0.bounds.height) > 0.6 * Double(ink.boxes[0].height) })
        #expect(try reader.read(field, fieldCell).reading.value == .integer(10))
    }

    @Test func aOneWrittenOnTheDividerIsKeptNotErasedWithIt() throws {
        let (template, page) = try sheet(["q3.shots": .integer(0)])
        let field = try #require(template.field("q3.shots"))
        // The divider as printed, across it at mid-height.
        let gray = try page.grayBuffer()
        let row = px(field.rect.y + field.rect.height / 2), centre = px(field.boxes[0].maxX)
        let dark = (centre - 8...centre + 8).filter { gray.pixels[row * gray.width + $0] < 128 }
        let left = try #require(dark.min()), right = try #require(dark.max())
        // The 1 of "10" drawn right over it, a pixel wider each side: no wider than the line plus the
        // margin erasing allows, so that a width rule alone would erase it.
        try page.fill(PixelRect(x: left - 1, y: px(field.rect.y + field.rect.height * 0.3), width: right - left + 3,
                                height: px(field.rect.height * 0.5)), color: .black)
        let reader = HandwrittenDigitReader(network: try DigitNetwork.bundled())
        let fieldCell = try cell(field, of: page)
        // The premise: across the divider, the stem is ink no wider than erasing allows, and at least
        // two pixels wider than the field's other sides.
        let cleaner = reader.cleaner
        let sides = cleaner.traceSides(of: field, in: fieldCell, ink: cleaner.inkMask(of: fieldCell))
        let middle = sides[1].runs.count / 2 + sides[1].runs.count / 10
        let stemWidth = try #require(sides[1].width(middle))
        #expect(stemWidth <= sides[1].limit)
        #expect(stemWidth >= max(sides[0].width(middle) ?? 0, sides[2].width(middle) ?? 0) + 2)
        let ink = try reader.cleaner.clean(field, in: fieldCell)
        let dividerInCrop = ink.boxes[0].maxX
        #expect(ink.components.contains {
            $0.bounds.x < dividerInCrop && $0.bounds.maxX > dividerInCrop && Double($0.bounds.height) > 0.4 * Double(ink.boxes[0].height)
        })
        #expect(try reader.read(field, fieldCell).reading.value == .integer(10))
    }

    /// Where a side of the box is widened by a stroke lying on it, and where only by the print or camera.
    @Test func onlyASideWidenedBeyondTheOthersAndInsideTheFieldHoldsAStroke() {
        let cleaner = HandwritingCleaner()
        // 100 points along, the field from 5 to 95; lines 3 pixels wide.
        func side(_ widths: (Int) -> Int) -> HandwritingCleaner.LineTrace {
            HandwritingCleaner.LineTrace(vertical: true, first: 0, start: 5, end: 95,
                                         runs: (0..<100).map { i in (low: 50, high: 50 + widths(i) - 1) },
                                         thickness: 3, limit: 5)
        }
        let plain = side { _ in 3 }
        // A stroke 5 wide from 30 to 65: kept there, and only there.
        let stroke = side { (30...65).contains($0) ? 5 : 3 }
        #expect(cleaner.strokesAlong(stroke, others: [plain, plain]) == Set(30...65))
        // Every side 5 wide from 30 to 65 (a blurred band of the photo): the print, erased.
        #expect(cleaner.strokesAlong(stroke, others: [stroke, plain]).isEmpty)
        // Widened only by one pixel over the others (a crisp line drifting across the pixel grid).
        #expect(cleaner.strokesAlong(side { (30...65).contains($0) ? 4 : 3 }, others: [plain]).isEmpty)
        // Too short a stretch: 15 points, under a quarter of the field's 90.
        #expect(cleaner.strokesAlong(side { (30...44).contains($0) ? 5 : 3 }, others: [plain]).isEmpty)
        // Widened from above the field's top down to its middle: not wholly inside the field.
        #expect(cleaner.strokesAlong(side { $0 < 50 ? 5 : 3 }, others: [plain]).isEmpty)
        // Gaps of three points are bridged; a gap of four splits the stroke into two too short.
        #expect(cleaner.strokesAlong(side { (30...50).contains($0) || (54...70).contains($0) ? 5 : 3 }, others: [plain]) == Set(30...70))
        #expect(cleaner.strokesAlong(side { (30...50).contains($0) || (55...70).contains($0) ? 5 : 3 }, others: [plain]).isEmpty)
        // With no other side to compare, nothing is kept.
        #expect(cleaner.strokesAlong(stroke, others: []).isEmpty)
    }

    @Test func aNumberItsRangeRulesOutIsReadInsideItAndFlaggedNeverConfidentlyChanged() throws {
        let (template, page) = try sheet(["q2.shots": .integer(72), "total.shots": .integer(72)])
        let quarter = try #require(template.field("q2.shots")), total = try #require(template.field("total.shots"))
        #expect(quarter.allowedRange == 0...49 && total.allowedRange == 0...99)
        let reader = HandwrittenDigitReader(network: try DigitNetwork.bundled())
        // A game's total may be 72: read as written.
        let inTotal = try reader.read(total, try cell(total, of: page)).reading
        #expect(inTotal.value == .integer(72))
        #expect(inTotal.cappedConfidence() >= 70)
        // No quarter has 72 shots: the likeliest value the range allows, for a person to confirm, told
        // what the digits alone said; every alternative lies in the range.
        let inQuarter = try reader.read(quarter, try cell(quarter, of: page)).reading
        guard case .integer(let n) = inQuarter.value else { Issue.record("read \(inQuarter.value)"); return }
        #expect((0...49).contains(n))
        #expect(inQuarter.cappedConfidence() < 70)
        #expect(inQuarter.notes.contains { $0.hasPrefix("72, the digits' first choice (confidence") && $0.hasSuffix("is outside 0–49") })
        #expect(inQuarter.alternatives.allSatisfy { if case .integer(let v) = $0.value { (0...49).contains(v) } else { true } })
    }
}

extension HandwrittenDigitReaderTests {
    @Test func aValueTheRangeChoseIsFlaggedHoweverLikelyTheRangeMakesIt() throws {
        // "72" at 0.6 and "12" at 0.38: given that a quarter holds at most 49, 12 is 95% likely. Still the
        // network's first choice was 72, so a person confirms it.
        let read: [(value: FieldValue, probability: Double)] = [(.integer(72), 0.6), (.integer(12), 0.38)]
        let doubt = try #require(HandwrittenDigitReader.rangeDoubt(.integer(12), read: read, range: 0...49))
        #expect(doubt == .rangeChose(firstChoice: .integer(72), probability: 0.6, lower: 0, upper: 49) && doubt.readAtMost == 0.4)
        #expect(doubt.words == "72, the digits' first choice (confidence 60), is outside 0–49")
        // The ink's own first choice in range: the range has no say.
        #expect(HandwrittenDigitReader.rangeDoubt(.integer(12), read: read, range: 0...99) == nil)
        // Nothing listed in range: the value stays as read, doubted.
        let outside = try #require(HandwrittenDigitReader.rangeDoubt(.integer(72), read: read, range: 0...9))
        #expect(outside.readAtMost == 0.4)
        #expect(outside.words == "72 is outside 0–9")
    }
}

extension HandwrittenDigitReaderTests {
    /// The reader gives a date its ink's probability and the ink's other days; the season weighs them after
    /// (`SeasonPrior`), so a clear date reads the same whatever the day of the scan.
    @Test func aClearlyWrittenDateIsReadAtItsInksProbabilityWithItsOtherDays() throws {
        let template = try Fixtures.lacrosse()
        let page = try Fixtures.filledSheet(template, values: Fixtures.game, dpi: dpi)
        let field = try #require(template.fields.first { $0.kind == .date })
        let reader = HandwrittenDigitReader(network: try DigitNetwork.bundled())
        let reading = try reader.read(field, try cell(field, of: page)).reading
        #expect(reading.value == Fixtures.game[field.id])
        #expect(reading.confidence >= 70)
        #expect(reading.notes.isEmpty)
        let first = try #require(reading.alternatives.first)
        #expect(first.value == reading.value && abs(reading.confidence - 100 * first.probability) < 1e-9, "not cubed")
        #expect(reading.alternatives.count > 1 && reading.alternatives.count <= reader.dateAlternativeCount)
        #expect(reading.alternatives.allSatisfy { if case .string(let iso) = $0.value { RuleEvaluator.parseDate(iso) != nil } else { false } })
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

    @Test func aRemnantOfTheDividerBetweenTwoDigitsJoinsOnlyTheNearerOne() {
        // A phone photo's "10" with the 1 against the divider: erasing the divider left a small remnant
        // 5 px from the 1 and touching the 0 (measured on a generated sheet), which once made one glyph.
        let one = bar(71, 34, 9, 43), remnant = bar(85, 57, 7, 10), zero = bar(86, 36, 27, 44)
        let s = DigitSegmenter().segment([one, remnant, zero], writingHeight: 85)
        #expect(s.glyphs.map(\.bounds.x) == [71, 85])
        #expect(s.glyphs.map(\.components.count) == [1, 2])
        #expect(s.stray.isEmpty)
    }
}

/// A number struck out in its boxes and written again in the space beside them, as keepers correct.
extension HandwrittenDigitReaderTests {
    /// The lacrosse sheet with "6" in `total.clears`'s right box; struck through with an X when `struck`,
    /// and "16" written in the space beside the field when `writtenBeside`. With `levelStrikes`, the 6 is
    /// struck out as some keepers do, with level strokes running past the field into the space. With
    /// `lineThrough`, it is struck with one level line inside its box, running past the digit both sides.
    func correctedSheet(struck: Bool, writtenBeside: Bool, levelStrikes: Bool = false, lineThrough: Bool = false) throws -> (FieldSpec, FieldCell) {
        let (template, page) = try sheet(["total.clears": .integer(6)])
        let field = try #require(template.field("total.clears"))
        let space = try #require(template.spaceBeside(field))
        let font = try BitmapFont(size: Int(20.0 * Double(dpi) / 300))
        if struck {
            // As keepers strike: the X reaches over the box's right edge into the space beside it.
            var x = field.boxes[1].insetBy(5, 5)
            x.width += 12
            page.drawLine(from: (px(x.x), px(x.y)), to: (px(x.maxX), px(x.maxY)), width: 3, color: .black)
            page.drawLine(from: (px(x.maxX), px(x.y)), to: (px(x.x), px(x.maxY)), width: 3, color: .black)
        }
        if levelStrikes {
            let box = field.boxes[1]
            for share in [0.3, 0.5, 0.7] {
                let y = px(box.y + box.height * share)
                page.drawLine(from: (px(box.x + 2), y), to: (px(field.rect.maxX + 3), y), width: 4, color: .black)
            }
        }
        if lineThrough {
            let box = field.boxes[1], y = px(box.y + box.height * 0.5)
            page.drawLine(from: (px(box.x + 2), y), to: (px(box.maxX - 2), y), width: 3, color: .black)
        }
        if writtenBeside {
            page.drawText("16", x: px(space.x + 4), baseline: px(field.rect.maxY - field.rect.height * 0.25), font: font)
        }
        return (field, try cell(field, of: page, beside: space))
    }

    @Test func aNumberStruckOutAndWrittenBesideItsBoxesIsReadFromBesideThemAndFlagged() throws {
        let reader = HandwrittenDigitReader(network: try DigitNetwork.bundled())
        let (field, corrected) = try correctedSheet(struck: true, writtenBeside: true)
        let reading = try reader.read(field, corrected).reading
        #expect(reading.value == .integer(16))
        #expect(reading.cappedConfidence() < 70)
        #expect(reading.notes.contains("struck out in the boxes; read the number written beside them"))
        #expect(reading.alternatives.first?.value == .integer(16))
    }

    @Test func theEndsOfAStrikeRunningIntoTheSpaceAreNoPartOfTheCorrection() throws {
        let reader = HandwrittenDigitReader(network: try DigitNetwork.bundled())
        let (field, corrected) = try correctedSheet(struck: false, writtenBeside: true, levelStrikes: true)
        let reading = try reader.read(field, corrected).reading
        #expect(reading.value == .integer(16))
        #expect(reading.notes.contains("struck out in the boxes; read the number written beside them"))
    }

    @Test func aNumberStruckWithOneLevelLineIsReadFromBesideItsBoxes() throws {
        let reader = HandwrittenDigitReader(network: try DigitNetwork.bundled())
        let (field, corrected) = try correctedSheet(struck: false, writtenBeside: true, lineThrough: true)
        let reading = try reader.read(field, corrected).reading
        #expect(reading.value == .integer(16))
        #expect(reading.cappedConfidence() < 70)
        #expect(reading.notes.contains("struck out in the boxes; read the number written beside them"))
        // The network alone takes the struck 6 for a digit, and the boxes' reading stands.
        reader.strikes = nil
        let unhinted = try reader.read(field, corrected).reading
        #expect(unhinted.value != .integer(16), "read \(unhinted.value) at \(unhinted.confidence)")
        // The line is only a hint: with nothing written beside, the boxes' reading is not lowered by it.
        let (_, alone) = try correctedSheet(struck: false, writtenBeside: false, lineThrough: true)
        let withoutHint = try reader.read(field, alone).reading
        reader.strikes = StrikeThrough()
        let withHint = try reader.read(field, alone).reading
        #expect(withHint.value == withoutHint.value && withHint.cappedConfidence() == withoutHint.cappedConfidence() && withHint.doubts == withoutHint.doubts)
    }

    @Test func theReviewPictureShowsTheNumberWrittenBesideTheBoxes() throws {
        let (template, page) = try sheet(["total.clears": .integer(6)])
        let field = try #require(template.field("total.clears"))
        let space = try #require(template.spaceBeside(field))
        let font = try BitmapFont(size: Int(20.0 * Double(dpi) / 300))
        page.drawText("16", x: px(space.x + 4), baseline: px(field.rect.maxY - field.rect.height * 0.25), font: font)
        let h = Homography([scale, 0, 0, 0, scale, 0, 0, 0])
        // At 1 pixel a point: the field, the space, and the 4-point margin around both.
        func picture(beside: Rect?) throws -> GrayBuffer {
            let cell = FieldCell(field: field, from: try page.grayBuffer(), through: h, beside: beside)
            let png = try #require(cell.reviewSnapshotPNG(of: field))
            return try #require(CellSnapshots.decode(png))
        }
        let wide = try picture(beside: space), alone = try picture(beside: nil)
        #expect(abs(wide.width - Int(field.rect.width + space.width + 8)) <= 1)
        #expect(abs(alone.width - Int(field.rect.width + 8)) <= 1)
        // The ink of "16" lies right of the field's own picture.
        let besideColumns = (alone.width..<wide.width)
        let dark = (0..<wide.height).reduce(0) { sum, y in sum + besideColumns.filter { wide.pixels[y * wide.width + $0] < 128 }.count }
        #expect(dark > 20)
    }

    @Test func theSpaceBesideIsReadOnlyForANumberStruckOut() throws {
        let reader = HandwrittenDigitReader(network: try DigitNetwork.bundled())
        // Nothing struck: what lies beside the boxes is not the field's (a note, a neighbour's overrun).
        let (field, unstruck) = try correctedSheet(struck: false, writtenBeside: true)
        let boxes = try reader.read(field, unstruck).reading
        #expect(boxes.value == .integer(6))
        #expect(boxes.cappedConfidence() >= 70)
        // Struck with nothing beside: the reading stays the boxes' own, flagged, and the strike's strokes
        // over the right box's edge are not taken for a number written beside it.
        let (_, struckAlone) = try correctedSheet(struck: true, writtenBeside: false)
        let alone = try reader.read(field, struckAlone).reading
        #expect(alone.cappedConfidence() < 70)
        #expect(!alone.notes.contains("struck out in the boxes; read the number written beside them"))
    }
}
