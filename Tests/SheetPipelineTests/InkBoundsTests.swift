import OCRKit
import Testing

/// `Image.foregroundBounds`: the columns a text line is cut to before Tesseract reads it (`PrintedFieldReader`).
@Suite struct InkBoundsTests {
    @Test func theBoundsHoldEveryInkedPixelAndNoMore() throws {
        var gray = GrayBuffer(width: 100, height: 40)
        for y in 10..<30 { for x in 30..<50 { gray.pixels[y * 100 + x] = 0 } }
        gray.pixels[35 * 100 + 80] = 0   // a lone dot further right and lower
        let ink = try Image(gray).thresholded(below: 128)
        #expect(ink.foregroundBounds == PixelRect(x: 30, y: 10, width: 51, height: 26))
    }

    @Test func blankPaperHasNoBounds() throws {
        #expect(try Image(GrayBuffer(width: 60, height: 20)).thresholded(below: 128).foregroundBounds == nil)
    }
}
