import Foundation
import Logging
import OCRKit
import SheetModel

/// Why an input file could not be turned into an image. Each case is its own line for the user.
public enum ImageLoadError: Error, Equatable, Sendable {
    case missing
    case notReadable(reason: String)
    case empty
    case truncated(ImageFormat)
    case notAnImage
    case unsupportedFormat(ImageFormat)
    case tooLarge(width: Int, height: Int, limit: Int)
    /// `reason`: what the decoding library said, when it said something.
    case damaged(ImageFormat, reason: String? = nil)
    /// A PDF that needs a password to open.
    case encrypted
    /// A PDF with no page to read; `reason`: what Poppler said about its page count, when it said something.
    case noPages(reason: String?)
    /// A document of more pages than `ImageLoader.maxPages`.
    case tooManyPages(count: Int, limit: Int)
    /// One page of a document that would render larger than `ImageLoader.maxPixels` (the other pages still read).
    case pageTooLarge(page: Int, width: Int, height: Int, dpi: Int, limit: Int)
    /// A page asked of a file that does not have it.
    case noSuchPage(page: Int, pages: Int)
    /// A document of several pages asked for as one image (`page: nil`): which page was not said.
    case pageNotChosen(pages: Int)
    /// An outside tool (one of poppler-utils') is not installed.
    case toolMissing(String)
    /// An outside tool ran longer than `ImageLoader.toolTimeout` and was killed.
    case toolTimedOut(String, seconds: Int)
    /// An outside tool could not be run; `reason`: the operating system's.
    case toolFailed(String, reason: String)

    /// The message after "FILE: ".
    public var message: String {
        switch self {
        case .missing: "no such file"
        case .notReadable(let reason): "cannot be read: \(reason)"
        case .empty: "the file is empty (0 bytes)"
        case .truncated(let format):
            "truncated \(format.displayName): the file ends before its image data does (was the copy or download interrupted?)"
        case .notAnImage: "not an image (statsheet reads PNG, JPEG, TIFF, WebP, GIF, HEIC/HEIF and PDF)"
        case .unsupportedFormat(let format):
            "\(format.displayName) images are not supported: convert to PNG, JPEG, TIFF or WebP"
        case .tooLarge(let w, let h, let limit):
            "image is \(w)×\(h) = \(Self.megapixels(w * h)) megapixels, over the limit of \(Self.megapixels(limit)) (raise it with --max-megapixels)"
        case .damaged(let format, let reason):
            "damaged \(format.displayName): its image data could not be decoded" + (reason.map { " (decoder: \($0))" } ?? "")
        case .encrypted: "encrypted PDF: it needs a password to open (save an unlocked copy and read that)"
        case .noPages(let reason): "the PDF has no pages" + (reason.map { " (pdfinfo: \($0))" } ?? "")
        case .tooManyPages(let count, let limit): "the document has \(count) pages, over the limit of \(limit)"
        case .pageTooLarge(let page, let w, let h, let dpi, let limit):
            "page \(page) would be \(w)×\(h) = \(Self.megapixels(w * h)) megapixels at \(dpi) dpi, over the limit of \(Self.megapixels(limit)) (raise it with --max-megapixels)"
        case .noSuchPage(let page, let pages): "there is no page \(page): the file has \(pages) page\(pages == 1 ? "" : "s")"
        case .pageNotChosen(let pages): "a document of \(pages) pages: each page is read on its own (pages 1–\(pages))"
        case .toolMissing(let tool): "reading PDF needs poppler-utils, which is not installed (no \(tool) found): sudo apt-get install poppler-utils"
        case .toolTimedOut(let tool, let seconds): "\(tool) ran over \(seconds) s on this file and was stopped"
        case .toolFailed(let tool, let reason): "\(tool) could not be run: \(reason)"
        }
    }

    private static func megapixels(_ pixels: Int) -> String {
        let mp = Double(pixels) / 1_000_000
        return mp == mp.rounded() ? String(Int(mp)) : String(format: "%.1f", mp)
    }
}

/// A failure to load a particular file.
public struct ImageLoadFailure: Error, Equatable, Sendable, CustomStringConvertible {
    public let path: String
    public let error: ImageLoadError
    public var description: String { "\(path): \(error.message)" }
}

/// An input image ready for alignment: 8-bit gray, upright as the camera meant it.
public struct LoadedImage {
    public let image: Image
    public let format: ImageFormat
    /// EXIF orientation (1–8) that was applied, when the file had one other than 1. (A HEIC photo's
    /// orientation is its `irot`/`imir`, which libheif applies: never reported here.)
    public let exifOrientation: Int?
    /// Decoded at 1/`reduction` of the stored size (libjpeg DCT scaling for large JPEGs).
    public let reduction: Int
    /// The page of a document (a PDF, a TIFF of several pages) this image is, 1 for the first; nil for a
    /// one-image file.
    public let page: Int?
    /// The resolution a PDF page was rendered at; nil for images, which arrive at their own.
    public let renderedDPI: Int?

    init(image: Image, format: ImageFormat, exifOrientation: Int? = nil, reduction: Int = 1, page: Int? = nil, renderedDPI: Int? = nil) {
        self.image = image
        self.format = format
        self.exifOrientation = exifOrientation
        self.reduction = reduction
        self.page = page
        self.renderedDPI = renderedDPI
    }
}

/// Reads PNG, JPEG, TIFF (every page), WebP, GIF and HEIC/HEIF files and PDF pages to 8-bit gray, refusing
/// oversized images from their header before any pixel is decoded and applying JPEG EXIF orientation, which
/// Leptonica ignores. One page is decoded at a time.
public struct ImageLoader: Sendable {
    public static let supportedFormats: Set<ImageFormat> = [.png, .jpeg, .tiff, .webp, .gif, .heic, .pdf]

    /// Images (and rendered PDF pages) with more pixels than this are refused (default 60 megapixels).
    public var maxPixels: Int
    /// Documents of more pages than this are refused whole (default 500): a PDF's page count is what it
    /// claims, and each page is a render.
    public var maxPages = 500
    /// Seconds each of Poppler's tools may run on one file (or page) before it is killed.
    public var toolTimeout: Double = 60
    /// The resolution a PDF page drawn as text and lines is rendered at. Fields are read at 2.5 px/pt
    /// (180 dpi, `FieldCell.standardScale`); 200 dpi leaves the marker detector a little more.
    public var vectorDPI = 200
    /// A scanned PDF page (one image covering it) is rendered at its image's own resolution, kept inside this
    /// range: a 72-dpi fax still gets pixels enough to read, a 1,200-dpi scan no more than it needs.
    public var scanDPI: ClosedRange<Int> = 150...400
    /// JPEGs are decoded at the smallest of libjpeg's DCT scales (1/2, 1/4, 1/8) that keeps at least this
    /// many pixels on the long side, chosen from the header: a 300-dpi letter page at half size still
    /// arrives at 150 dpi, for about a third of the decoding time; a photo 6,000 pixels long or more, at a
    /// quarter. Fields are read at 2.5 pixels a point (`FieldCell.standardScale`) whatever the decoded size.
    public var jpegLongSide: Int

    public init(maxPixels: Int = 60_000_000, jpegLongSide: Int = 1500) {
        self.maxPixels = maxPixels
        self.jpegLongSide = jpegLongSide
    }

    /// 1, 2, 4 or 8: the DCT scale at which a JPEG of this size is decoded.
    public func jpegReduction(width: Int, height: Int) -> Int {
        [8, 4, 2].first { max(width, height) >= jpegLongSide * $0 } ?? 1
    }

    /// Reads and decodes the file at `path` (its only page, or page 1 of a one-page document).
    public func load(_ path: String) throws(ImageLoadFailure) -> LoadedImage {
        do {
            return try decode(try Self.readFile(path), page: nil, path: path)
        } catch {
            throw ImageLoadFailure(path: path, error: error)
        }
    }

    /// The file at `path` whose contents the caller has already read (with `readFile`, say).
    ///
    /// - Parameter page: 1... for a page of a document (`pageCount` says how many); nil for a one-image file.
    ///   A PDF is rendered from `path` by Poppler's tools, which read the file themselves.
    public func load(_ path: String, contents: [UInt8], page: Int? = nil) throws(ImageLoadFailure) -> LoadedImage {
        do {
            return try decode(contents, page: page, path: path)
        } catch {
            throw ImageLoadFailure(path: path, error: error)
        }
    }

    /// How many pages the file holds: nil for a file that is one image (PNG, JPEG, WebP, GIF, HEIC/HEIF, a TIFF
    /// of one page); N for a document of pages 1...N (any PDF, even of one page; a TIFF of two pages or more).
    /// Nothing is decoded; a document over `maxPages` is refused here.
    public func pageCount(path: String, contents: [UInt8]) throws(ImageLoadFailure) -> Int? {
        do {
            return try pages(contents, path: path)
        } catch {
            throw ImageLoadFailure(path: path, error: error)
        }
    }

    /// `pageCount` of contents in memory; a PDF's are handed to Poppler's tools from `path`, or from a
    /// temporary copy when there is no path.
    public func pages(_ bytes: [UInt8], path: String? = nil) throws(ImageLoadError) -> Int? {
        let format = try Self.format(bytes)
        switch format {
        case .pdf:
            let count: Int
            do {
                count = try withPDF(bytes, path: path) { pdf throws(ImageLoadError) in try pdf.pageCount() }
            } catch ImageLoadError.damaged(.pdf, _) where Self.endsEarly(bytes, .pdf) {
                // Only here are the bytes surely the whole file: a page is decoded from its first bytes alone
                // (`FileContents`), whose end says nothing of the file's.
                throw .truncated(.pdf)
            }
            guard count <= maxPages else { throw .tooManyPages(count: count, limit: maxPages) }
            return count
        case .tiff:
            let count = try tiffPageCount(bytes)
            guard count <= maxPages else { throw .tooManyPages(count: count, limit: maxPages) }
            return count > 1 ? count : nil
        default:
            return nil
        }
    }

    /// Decodes file contents already in memory: the file's one image, or `page` (1...) of a document.
    public func decode(_ bytes: [UInt8], page: Int? = nil, path: String? = nil) throws(ImageLoadError) -> LoadedImage {
        let format = try Self.format(bytes)
        if format == .pdf {
            return try withPDF(bytes, path: path) { pdf throws(ImageLoadError) in try renderPDF(pdf, page: page) }
        }
        // A TIFF's pages are counted every time: `page: nil` on a TIFF of several pages is refused, never read
        // as its first page alone.
        let pages = format == .tiff ? try tiffPageCount(bytes) : 1
        let index = try Self.pageIndex(page, of: pages)
        let header: ImageHeader
        do {
            header = try ImageHeader.read(bytes, page: index)
        } catch {
            throw Self.failure(error, bytes, format)
        }
        guard header.pixelCount <= maxPixels else {
            throw .tooLarge(width: header.width, height: header.height, limit: maxPixels)
        }
        let reduction = format == .jpeg ? jpegReduction(width: header.width, height: header.height) : 1
        let decoded: DecodedImage
        do {
            // JPEG: luminance only. Ink of common pen colours stays well under 60% of the paper's
            // brightness in luminance too (dark blue ≈ 20%), and chroma costs a third of the decoding.
            decoded = try Image.decode(bytes, format: format, jpegReduction: reduction, page: index)
        } catch {
            throw Self.failure(error, bytes, format)
        }
        for message in decoded.messages {
            Self.logger.debug("decoder message", metadata: ["format": "\(format.displayName)", "message": "\(TerminalText.escaped(message))"])
        }
        // Data the decoder lost (libjpeg's warnings, libtiff's errors) is filled in with gray or black: never
        // read such a page. Every libjpeg warning counts, as it did through Leptonica: a harmless one (bytes
        // before a marker) refuses a readable photo, which a person sees, never a misread.
        if decoded.warnings > 0 {
            throw Self.failure(.decodeFailed(format, reason: decoded.messages.first), bytes, format)
        }
        var image: Image
        do {
            image = try decoded.image.toGray()
        } catch {
            throw .damaged(format)
        }
        var applied: Int?
        if format == .jpeg, let orientation = ExifOrientation.read(jpeg: bytes), orientation != 1 {
            do {
                image = try ExifOrientation.apply(orientation, to: image)
                applied = orientation
            } catch {
                throw .damaged(format)
            }
        }
        return LoadedImage(image: image, format: format, exifOrientation: applied, reduction: reduction, page: pages > 1 ? index + 1 : nil)
    }

    /// The format of non-empty contents statsheet reads.
    private static func format(_ bytes: [UInt8]) throws(ImageLoadError) -> ImageFormat {
        guard !bytes.isEmpty else { throw .empty }
        let format = ImageFormat.sniff(bytes)
        guard format != .unknown else { throw .notAnImage }
        guard supportedFormats.contains(format) else { throw .unsupportedFormat(format) }
        return format
    }

    /// The 0-based page to decode: `page` (1...) of a document of `pages`; nil for the only page there is.
    private static func pageIndex(_ page: Int?, of pages: Int) throws(ImageLoadError) -> Int {
        guard let page else {
            guard pages == 1 else { throw .pageNotChosen(pages: pages) }
            return 0
        }
        guard (1...pages).contains(page) else { throw .noSuchPage(page: page, pages: pages) }
        return page - 1
    }

    private func tiffPageCount(_ bytes: [UInt8]) throws(ImageLoadError) -> Int {
        do {
            return try ImageFormat.pageCount(bytes, format: .tiff)
        } catch {
            throw Self.failure(error, bytes, .tiff)
        }
    }

    /// Runs `body` on the PDF at `path`, or on a temporary copy of `bytes` when there is no path.
    private func withPDF<R>(_ bytes: [UInt8], path: String?, _ body: (PDFPages) throws(ImageLoadError) -> R) throws(ImageLoadError) -> R {
        if let path { return try body(PDFPages(path: path, timeout: toolTimeout)) }
        let copy = NSTemporaryDirectory() + "statsheet-" + UUID().uuidString + ".pdf"
        guard FileManager.default.createFile(atPath: copy, contents: Data(bytes)) else {
            throw ImageLoadError.notReadable(reason: "no temporary copy could be written for Poppler's tools")
        }
        defer { try? FileManager.default.removeItem(atPath: copy) }
        return try body(PDFPages(path: copy, timeout: toolTimeout))
    }

    /// One page of a PDF, rendered at the resolution its content needs (`vectorDPI`, or a scan's own within
    /// `scanDPI`, reduced as a JPEG of that size would be), refused from its size before it is rendered when it would be over `maxPixels`.
    private func renderPDF(_ pdf: PDFPages, page: Int?) throws(ImageLoadError) -> LoadedImage {
        let pages = try pdf.pageCount()
        guard pages <= maxPages else { throw .tooManyPages(count: pages, limit: maxPages) }
        let number = try Self.pageIndex(page, of: pages) + 1
        let box = try pdf.box(page: number)
        var dpi = vectorDPI
        if let scanned = try pdf.scanResolution(page: number, box: box) {
            // A scanned page is the image inside it: rendered at the scale a JPEG of those pixels is decoded at
            // (`jpegReduction`), so a photo wrapped in a PDF reads as the photo does, and a big one costs as little.
            let own = min(max(Int(scanned.rounded()), scanDPI.lowerBound), scanDPI.upperBound)
            let full = box.pixels(dpi: own)
            dpi = max(1, own / jpegReduction(width: full.width, height: full.height))
        }
        let size = box.pixels(dpi: dpi)
        guard size.width * size.height <= maxPixels else {
            throw .pageTooLarge(page: number, width: size.width, height: size.height, dpi: dpi, limit: maxPixels)
        }
        let (pgm, messages) = try pdf.render(page: number, dpi: dpi)
        for message in messages {
            Self.logger.debug("pdftoppm message", metadata: ["page": "\(number)", "message": "\(TerminalText.escaped(message))"])
        }
        do {
            // Poppler's rounding may differ from ours by a pixel; the rendered header is checked again.
            let header = try ImageHeader.read(pgm)
            guard header.pixelCount <= maxPixels else {
                throw ImageLoadError.pageTooLarge(page: number, width: header.width, height: header.height, dpi: dpi, limit: maxPixels)
            }
            let image = try Image.decode(pgm, format: .pnm).image.toGray()
            return LoadedImage(image: image, format: .pdf, page: number, renderedDPI: dpi)
        } catch let error as ImageLoadError {
            throw error
        } catch {
            throw .damaged(.pdf, reason: "pdftoppm's page \(number) could not be decoded (\(error))")
        }
    }

    /// Truncated when the bytes stop before the format's end; otherwise damaged, with the decoder's reason.
    private static func failure(_ error: ImagingError, _ bytes: [UInt8], _ format: ImageFormat) -> ImageLoadError {
        if endsEarly(bytes, format) { return .truncated(format) }
        guard case .decodeFailed(_, let reason) = error else { return .damaged(format) }
        return .damaged(format, reason: reason)
    }

    private static func openFailure(_ code: Int32) -> ImageLoadError {
        code == ENOENT || code == ENOTDIR ? .missing : .notReadable(reason: String(cString: strerror(code)))
    }

    private static func requireRegular(_ info: stat) throws(ImageLoadError) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw .notReadable(reason: "it is a directory")
        case S_IFIFO: throw .notReadable(reason: "it is a named pipe (FIFO), not a regular file")
        case S_IFSOCK: throw .notReadable(reason: "it is a socket, not a regular file")
        case S_IFCHR, S_IFBLK: throw .notReadable(reason: "it is a device, not a regular file")
        default: throw .notReadable(reason: "it is not a regular file")
        }
    }

    private static let logger = Logger(label: "statsheet.load")

    /// Whether the file stops before its format's end marker.
    static func endsEarly(_ bytes: [UInt8], _ format: ImageFormat) -> Bool {
        switch format {
        case .png:
            // The last chunk of every PNG is IEND: length (4), "IEND", CRC (4).
            return bytes.count < 12 || Array(bytes[(bytes.count - 8)..<(bytes.count - 4)]) != Array("IEND".utf8)
        case .jpeg:
            // End-of-image marker FF D9, allowing a little padding after it.
            let tail = bytes.suffix(64)
            return !zip(tail, tail.dropFirst()).contains { $0 == 0xFF && $1 == 0xD9 }
        case .webp:
            // RIFF's size field counts everything after the first 8 bytes.
            guard bytes.count >= 8 else { return true }
            let size = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
            return bytes.count < size + 8
        case .heic:
            // Top-level boxes: a 32-bit big-endian size (1: a 64-bit one follows the type; 0: to the end) and a
            // type. A last box that claims more bytes than are left was cut.
            func be(_ at: Int, _ n: Int) -> Int { bytes[at..<(at + n)].reduce(0) { $0 << 8 | Int($1) } }
            var i = 0
            while i + 8 <= bytes.count {
                var size = be(i, 4)
                if size == 1 {
                    guard i + 16 <= bytes.count else { return true }
                    size = be(i + 8, 8)
                }
                guard size >= 8 else { return false }
                i += size
            }
            return i > bytes.count
        case .pdf:
            // "%%EOF" ends every PDF (and each incremental update); allow trailing bytes after it.
            return !String(decoding: bytes.suffix(1024), as: UTF8.self).contains("%%EOF")
        default:
            return false
        }
    }

    /// Reads the whole file, turning each operating-system failure into its own error.
    ///
    /// The type is checked before the file is opened, and it is opened without blocking: `open` on a
    /// named pipe waits for a writer, which hung a whole scan on one `fifo.jpg`.
    public static func readFile(_ path: String) throws(ImageLoadError) -> [UInt8] {
        var info = stat()
        guard stat(path, &info) == 0 else { throw Self.openFailure(errno) }
        try Self.requireRegular(info)
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw Self.openFailure(errno) }
        defer { close(fd) }
        // Again on what was opened: the entry may have been replaced since.
        guard fstat(fd, &info) == 0 else { throw .notReadable(reason: String(cString: strerror(errno))) }
        try Self.requireRegular(info)
        let size = Int(info.st_size)
        guard size > 0 else { throw .empty }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, size - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .notReadable(reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            done += n
        }
        return done == size ? bytes : Array(bytes[0..<done])
    }
}
