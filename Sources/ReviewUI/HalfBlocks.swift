/// Draws a cell image into a canvas: with colour, each character is two pixels — the upper half
/// block `▀` in the top pixel's gray as foreground over the bottom pixel's as background (24-bit SGR);
/// without, one character per two pixels from a shade ramp, darkest ink densest.
public enum HalfBlocks {
    /// Light to dark: paper is a space, ink is `@`.
    public static let ramp: [Character] = [" ", ".", ":", "-", "=", "+", "*", "#", "%", "@"]

    /// Draws `image` scaled to fit `columns × rows` at (`row`, `column`), centred horizontally.
    public static func draw(_ image: CellPixels, into canvas: inout Canvas, row: Int, column: Int, columns: Int, rows: Int, color: Bool) {
        guard columns > 0, rows > 0 else { return }
        let size = image.fittingSize(columns: columns, rows: rows)
        let fitted = image.fitted(width: size.width, height: size.height + size.height % 2)
        let left = column + (columns - fitted.width) / 2
        for r in 0..<(fitted.height / 2) {
            for x in 0..<fitted.width {
                let top = fitted.pixels[(2 * r) * fitted.width + x]
                let bottom = fitted.pixels[(2 * r + 1) * fitted.width + x]
                if color {
                    canvas[row + r, left + x] = ("▀", Canvas.Style(foreground: .gray(top), background: .gray(bottom)))
                } else {
                    let ink = 255 - (Int(top) + Int(bottom)) / 2
                    canvas[row + r, left + x] = (ramp[min(ramp.count - 1, ink * ramp.count / 256)], .plain)
                }
            }
        }
    }
}
