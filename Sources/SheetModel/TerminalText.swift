/// Text from outside statsheet (file names, text read from a sheet, messages of C libraries) made safe to
/// print on a terminal. A folder shared by others is untrusted input: a file named
/// `evil<ESC>[2J<ESC>]0;pwned<BEL>.jpg` printed raw clears the screen and retitles the terminal.
public enum TerminalText {
    /// `text` with every control character written as an escape, as `ls -b` does (`\n`, `\t`, `\033`),
    /// so that it shows as what it is and takes exactly one line. C1 controls (U+0080–U+009F, which some
    /// terminals obey as escapes) and the bidirectional overrides that reorder what a line seems to say
    /// are written `\u{…}`.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isUnsafe(scalar) else {
                out.append(scalar)
                continue
            }
            let escape: String = switch scalar {
            case "\n": "\\n"
            case "\t": "\\t"
            case "\r": "\\r"
            case "\u{07}": "\\a"
            case "\u{08}": "\\b"
            case "\u{0B}": "\\v"
            case "\u{0C}": "\\f"
            default: scalar.value < 0x80 ? "\\" + octal(scalar.value) : "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
            out.append(contentsOf: escape.unicodeScalars)
        }
        return String(out)
    }

    /// A line of JSON with the characters `escaped` guards against that JSON leaves raw (DEL, C1 controls,
    /// bidirectional overrides) written as `\uXXXX`. JSON encoders already escape C0 controls; outside
    /// strings JSON is ASCII, so every replaced character was inside a string, where `\uXXXX` is valid.
    public static func asciiSafeJSON(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: isUnsafe) else { return json }
        var out = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if isUnsafe(scalar) {
                let hex = String(scalar.value, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        // Left-to-right/right-to-left marks, embeddings, overrides and isolates.
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func octal(_ value: UInt32) -> String {
        let digits = String(value, radix: 8)
        return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
    }
}
