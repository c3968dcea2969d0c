/// How a sheet's numbers were written: by hand, or printed (typed into the boxes by a computer). Its raw value
/// names it in calibration tables (`hand.count`) and on the command line.
public enum Writing: String, Sendable, CaseIterable, Codable {
    /// Decide per sheet from how Tesseract fares on its numbers.
    case auto
    case print
    case hand
}
