import Foundation
import SheetModel
import Testing

@Suite struct TerminalTextTests {
    @Test(arguments: [
        ("evil\u{1B}[2J\u{1B}]0;pwned\u{07}\nname.jpg", "evil\\033[2J\\033]0;pwned\\a\\nname.jpg"),
        ("tab\there\r", "tab\\there\\r"),
        ("nul\u{0}del\u{7F}", "nul\\000del\\177"),
        ("c1 csi \u{9B}31m", "c1 csi \\u{9B}31m"),
        ("bidi \u{202E}gpj.exe", "bidi \\u{202E}gpj.exe"),
    ])
    func controlCharactersAreEscaped(raw: String, shown: String) {
        #expect(TerminalText.escaped(raw) == shown)
    }

    @Test func ordinaryTextIsUntouched() {
        for text in ["spaces and accénts é.png", "Zoë O'Brien", "日本語", "a\\b", "✓ 12 saves"] {
            #expect(TerminalText.escaped(text) == text)
        }
    }

    /// C0 controls are escaped by JSON encoders already; DEL, C1 and bidi controls are not.
    @Test func jsonLeavesNoRawControlAndStaysTheSameValue() throws {
        let raw = "a\u{1B}b\u{7F}c\u{9B}d\u{202E}e\nf"
        let data = try JSONEncoder().encode(["file": raw])
        let safe = TerminalText.asciiSafeJSON(String(decoding: data, as: UTF8.self))
        #expect(!safe.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{202E}" })
        #expect(try JSONDecoder().decode([String: String].self, from: Data(safe.utf8)) == ["file": raw])
    }
}
