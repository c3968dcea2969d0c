import CTesseract

/// Library-wide facts about the Leptonica build in use.
public enum Leptonica {
    /// For example "leptonica-1.82.0".
    public static var version: String { takeString(getLeptonicaVersion()) ?? "unknown" }
    /// The codec libraries Leptonica was built with, e.g. "libjpeg 6b … : libwebp 1.2.4".
    public static var imageLibraries: String { takeString(getImagelibVersions()) ?? "unknown" }

    /// Copies and frees a string that Leptonica allocated for the caller.
    static func takeString(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        defer { lept_free(pointer) }
        return String(cString: pointer)
    }
}
