import SheetModel

/// A screen as a grid of characters, each with its own style, drawn by the review screen and turned
/// into lines with ANSI escapes (or none, with colour off). Hand-written: no terminal UI library is in
/// the package mirror, and the screen needs only SGR colours and cursor homing.
public struct Canvas: Sendable, Equatable {
    public struct RGB: Sendable, Equatable, Hashable {
        public var r: UInt8, g: UInt8, b: UInt8
        public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) { self.r = r; self.g = g; self.b = b }
        public static func gray(_ v: UInt8) -> RGB { RGB(v, v, v) }
    }

    public struct Style: Sendable, Equatable, Hashable {
        public var foreground: RGB?
        public var background: RGB?
        public var bold = false
        public var reverse = false
        public init(foreground: RGB? = nil, background: RGB? = nil, bold: Bool = false, reverse: Bool = false) {
            self.foreground = foreground; self.background = background; self.bold = bold; self.reverse = reverse
        }
        public static let plain = Style()
        public static let bold = Style(bold: true)
        public static let reverse = Style(reverse: true)
        public static let warning = Style(foreground: RGB(230, 120, 60), bold: true)
        public static let good = Style(foreground: RGB(90, 190, 90))
        public static let dim = Style(foreground: RGB(140, 140, 140))
    }

    public let width: Int
    public let height: Int
    private var characters: [Character]
    private var styles: [Style]

    public init(width: Int, height: Int) {
        self.width = max(1, width)
        self.height = max(1, height)
        characters = Array(repeating: " ", count: self.width * self.height)
        styles = Array(repeating: .plain, count: self.width * self.height)
    }

    /// Writes `text` at (`row`, `column`), cut at `limit` columns (default: the right edge). Each
    /// character is taken as one column wide: the screen uses no wide characters.
    public mutating func put(_ text: String, row: Int, column: Int = 0, style: Style = .plain, limit: Int? = nil) {
        guard row >= 0, row < height, column < width else { return }
        let end = min(width, column + (limit ?? width))
        var x = column
        // Control characters in a file name or a read text would move the cursor: shown escaped.
        for c in TerminalText.escaped(String(text.map { $0 == "\n" || $0 == "\t" ? " " : $0 })) where x < end {
            if x >= 0 { self[row, x] = (c, style) }
            x += 1
        }
    }

    /// Gives `style` to a run of cells without changing their characters.
    public mutating func style(row: Int, column: Int, count: Int, _ style: Style) {
        guard row >= 0, row < height else { return }
        for x in max(0, column)..<min(width, column + count) { styles[row * width + x] = style }
    }

    public subscript(row: Int, column: Int) -> (Character, Style) {
        get { (characters[row * width + column], styles[row * width + column]) }
        set {
            characters[row * width + column] = newValue.0
            styles[row * width + column] = newValue.1
        }
    }

    /// The visible text of one row, without styles.
    public func text(row: Int) -> String { String(characters[(row * width)..<((row + 1) * width)]) }

    /// Each row as a string: with `color`, SGR escapes where the style changes and a reset at the end;
    /// without, the bare characters (for `NO_COLOR` and dumb terminals).
    public func lines(color: Bool) -> [String] {
        (0..<height).map { row in
            guard color else { return text(row: row) }
            var line = ""
            line.reserveCapacity(width * 4)
            var current = Style.plain
            for x in 0..<width {
                let (c, style) = self[row, x]
                if style != current {
                    line += Self.sgr(style)
                    current = style
                }
                line.append(c)
            }
            if current != .plain { line += "\u{1B}[0m" }
            return line
        }
    }

    /// One SGR sequence setting exactly `style` (reset first, so nothing leaks from the previous cell).
    static func sgr(_ style: Style) -> String {
        var codes = ["0"]
        if style.bold { codes.append("1") }
        if style.reverse { codes.append("7") }
        if let f = style.foreground { codes.append("38;2;\(f.r);\(f.g);\(f.b)") }
        if let b = style.background { codes.append("48;2;\(b.r);\(b.g);\(b.b)") }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }
}
