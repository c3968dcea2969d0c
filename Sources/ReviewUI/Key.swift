/// A key the review screen understands.
public enum Key: Sendable, Equatable {
    case up, down, left, right, enter, escape, backspace, tab
    /// Ctrl-C typed in raw mode (no SIGINT is raised then): quit at once, like the signal.
    case interrupt
    /// Ctrl-D: end of input.
    case endOfInput
    case character(Character)
}

/// Turns the bytes a terminal sends in raw mode into keys: arrows as `ESC [ A` or `ESC O A`, Enter as
/// CR or LF, Backspace as DEL or BS; an ESC with nothing after it in the same read is the Esc key.
/// Unknown escape sequences are dropped whole.
public enum KeyDecoder {
    public static func keys(_ bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            switch b {
            case 0x1B:
                guard i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "[") || bytes[i + 1] == UInt8(ascii: "O") else {
                    keys.append(.escape); i += 1; continue
                }
                // CSI/SS3: parameters, then one final byte in 0x40–0x7E.
                var j = i + 2
                while j < bytes.count, !(0x40...0x7E).contains(bytes[j]) { j += 1 }
                guard j < bytes.count else { i = bytes.count; continue }
                switch bytes[j] {
                case UInt8(ascii: "A"): keys.append(.up)
                case UInt8(ascii: "B"): keys.append(.down)
                case UInt8(ascii: "C"): keys.append(.right)
                case UInt8(ascii: "D"): keys.append(.left)
                default: break
                }
                i = j + 1
            case 0x0D, 0x0A:
                keys.append(.enter)
                // CR LF from a pasted line is one Enter.
                i += (b == 0x0D && i + 1 < bytes.count && bytes[i + 1] == 0x0A) ? 2 : 1
            case 0x7F, 0x08: keys.append(.backspace); i += 1
            case 0x09: keys.append(.tab); i += 1
            case 0x03: keys.append(.interrupt); i += 1
            case 0x04: keys.append(.endOfInput); i += 1
            case 0x00..<0x20: i += 1
            default:
                // One UTF-8 character: its length from the lead byte.
                let length = b < 0xC0 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4
                let end = min(bytes.count, i + length)
                if let c = String(decoding: bytes[i..<end], as: UTF8.self).first { keys.append(.character(c)) }
                i = end
            }
        }
        return keys
    }
}
