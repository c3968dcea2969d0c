/// Where a sheet came from: a file, and which of its pages when the file holds pages (a PDF, a TIFF of
/// several pages). One sheet is one page; a photo or a one-page image file has no page number.
public struct SheetSource: Hashable, Sendable, Codable, CustomStringConvertible {
    public var path: String
    /// 1 for the first page of a document; nil for a file that is one image.
    public var page: Int?

    public init(path: String, page: Int? = nil) {
        self.path = path
        self.page = page
    }

    /// How people and the views name it: `scans/week3.pdf#page=3` (the PDF open-parameters fragment, which
    /// PDF viewers open at that page), or the path alone.
    public var description: String { page.map { "\(path)#page=\($0)" } ?? path }
}

/// A sheet's identity in the store: the SHA-256 of its file's bytes and its page (nil for a one-image file),
/// so the same page is stored once whatever its file is called, and a rerun of a document stores no page twice.
public struct SheetKey: Hashable, Sendable {
    public var sha256: String
    public var page: Int?

    public init(sha256: String, page: Int? = nil) {
        self.sha256 = sha256
        self.page = page
    }
}
