@testable import ReviewUI
import SheetModel
import Testing

@Suite struct KeyDecoderTests {
    @Test func arrowsEnterBackspaceAndCharacters() {
        let bytes: [UInt8] = [0x1B, 0x5B, 0x41, 0x1B, 0x4F, 0x42, 0x1B, 0x5B, 0x31, 0x3B, 0x32, 0x43, 0x0D, 0x0A, 0x7F, 0x6A] + Array("é".utf8)
        #expect(KeyDecoder.keys(bytes) == [.up, .down, .right, .enter, .backspace, .character("j"), .character("é")])
    }

    @Test func loneEscapeAndControlKeys() {
        #expect(KeyDecoder.keys([0x1B]) == [.escape])
        #expect(KeyDecoder.keys([0x03, 0x04, 0x09, 0x0D]) == [.interrupt, .endOfInput, .tab, .enter])
        // An unknown sequence (F5) is dropped whole, not typed as "[15~".
        #expect(KeyDecoder.keys(Array("\u{1B}[15~q".utf8)) == [.character("q")])
    }
}

@Suite struct CanvasTests {
    /// A note is wrapped at spaces, never cut: every word reaches the screen, and no line is wider than asked.
    @Test func aLongNoteIsWrappedWhole() {
        let note = ReadingDoubt.noPlayerVouches(knownPlayers: 0, player: nil).words
        let lines = ReviewScreen.wrapped(note, width: 30)
        #expect(lines.count > 1 && lines.allSatisfy { $0.count <= 30 }, "\(lines)")
        #expect(lines.joined(separator: " ") == note)
        #expect(ReviewScreen.wrapped("abcdefghij klm", width: 4) == ["abcd", "efgh", "ij", "klm"])
        #expect(ReviewScreen.wrapped("", width: 4) == [""])
    }

    @Test func textIsCutAtTheEdgeAndStylesBecomeSGR() {
        var canvas = Canvas(width: 6, height: 2)
        canvas.put("abcdefgh", row: 0)
        canvas.put("xy", row: 1, column: 2, style: .bold)
        #expect(canvas.lines(color: false) == ["abcdef", "  xy  "])
        #expect(canvas.lines(color: true)[1] == "  \u{1B}[0;1mxy\u{1B}[0m  ")
    }

    /// A file name or read text holding terminal controls is drawn escaped, never sent to the terminal.
    @Test func controlCharactersAreDrawnEscaped() {
        var canvas = Canvas(width: 24, height: 1)
        canvas.put("file  a\u{1B}[2J\u{07}b\nc", row: 0)
        #expect(canvas.lines(color: false) == ["file  a\\033[2J\\ab c     "])
        #expect(!canvas.lines(color: true)[0].contains("\u{1B}[2J"))
    }

    @Test func halfBlocksUseTwentyFourBitGrayAndPlainUsesTheRamp() {
        // A 2×4 image: top rows black, bottom rows white.
        let image = CellPixels(width: 2, height: 4, pixels: [0, 0, 0, 0, 255, 255, 255, 255])
        var colored = Canvas(width: 2, height: 2)
        HalfBlocks.draw(image, into: &colored, row: 0, column: 0, columns: 2, rows: 2, color: true)
        #expect(colored[0, 0].0 == "▀")
        #expect(colored[0, 0].1.foreground == .gray(0) && colored[0, 0].1.background == .gray(0))
        #expect(colored[1, 1].1.foreground == .gray(255))
        #expect(colored.lines(color: true)[0].contains("\u{1B}[0;38;2;0;0;0;48;2;0;0;0m▀"))
        var plain = Canvas(width: 2, height: 2)
        HalfBlocks.draw(image, into: &plain, row: 0, column: 0, columns: 2, rows: 2, color: false)
        #expect(plain.lines(color: false) == ["@@", "  "])
        #expect(!plain.lines(color: false).joined().contains("\u{1B}"))
    }

    @Test func fittingKeepsTheAspectRatio() {
        let wide = CellPixels(width: 72, height: 42, pixels: Array(repeating: 128, count: 72 * 42))
        let size = wide.fittingSize(columns: 38, rows: 15)
        #expect(size.width == 38)
        #expect(abs(Double(size.height) - 38.0 * 42 / 72) <= 1)
        #expect(wide.fitted(width: size.width, height: size.height).pixels.count == size.width * size.height)
    }

    @Test func mapRanksMergeCloseValuesAndFitTheLimit() {
        #expect(ReviewScreen.ranks([10, 12, 50, 90], tolerance: 8, limit: 10) == [0, 0, 1, 2])
        #expect(ReviewScreen.ranks([0, 100, 200, 300], tolerance: 8, limit: 2) == [0, 0, 1, 1])
    }
}
