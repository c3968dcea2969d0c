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

    /// The message after "FILE: ".
    public var message: String {
        switch self {
        case .missing: "no such file"
        case .notReadable(let reason): "cannot be read: \(reason)"
        case .empty: "the file is empty (0 bytes)"
        case .truncated(let format):
            "truncated \(format.displayName): the file ends before its image data does (was the copy or download interrupted?)"
        case .notAnImage: "not an image (statsheet reads PNG, JPEG, TIFF, WebP and GIF)"
        case .unsupportedFormat(let format):
            switch format {
            case .heic: "HEIC/HEIF photos are not supported: export the photo as JPEG (on iPhone: Settings › Camera › Formats › Most Compatible)"
            case .pdf: "PDF is not supported: scan to PNG, TIFF or JPEG, or export the page as an image"
            default: "\(format.displayName) images are not supported: convert to PNG, JPEG, TIFF or WebP"
            }
        case .tooLarge(let w, let h, let limit):
            "image is \(w)×\(h) = \(Self.megapixels(w * h)) megapixels, over the limit of \(Self.megapixels(limit)) (raise it with --max-megapixels)"
        case .damaged(let format, let reason):
            "damaged \(format.displayName): its image data could not be decoded" + (reason.map { " (decoder: \($0))" } ?? "")
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
    /// EXIF orientation (1–8) that was applied, when the file had one other than 1.
    public let exifOrientation: Int?
    /// Decoded at 1/`reduction` of the stored size (libjpeg DCT scaling for large JPEGs).
    public let reduction: Int
}

/// Reads PNG, JPEG, TIFF, WebP and GIF files to 8-bit gray, refusing oversized images from their header
/// before any pixel is decoded and applying JPEG EXIF orientation, which Leptonica ignores.
public struct ImageLoader: Sendable {
    public static let supportedFormats: Set<ImageFormat> = [.png, .jpeg, .tiff, .webp, .gif]

    /// Images with more pixels than this are refused (default 60 megapixels).
    public var maxPixels: Int
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

    public func load(_ path: String) throws(ImageLoadFailure) -> LoadedImage {
        do {
            return try decode(try Self.readFile(path))
        } catch {
            throw ImageLoadFailure(path: path, error: error)
        }
    }

    /// The file at `path` whose contents the caller has already read (with `readFile`, say).
    public func load(_ path: String, contents: [UInt8]) throws(ImageLoadFailure) -> LoadedImage {
        do {
            return try decode(contents)
        } catch {
            throw ImageLoadFailure(path: path, error: error)
        }
    }

    /// Decodes file contents already in memory.
    public func decode(_ bytes: [UInt8]) throws(ImageLoadError) -> LoadedImage {
        guard !bytes.isEmpty else { throw .empty }
        let format = ImageFormat.sniff(bytes)
        guard format != .unknown else { throw .notAnImage }
        guard Self.supportedFormats.contains(format) else { throw .unsupportedFormat(format) }
        let header: ImageHeader
        do {
            header = try ImageHeader.read(bytes)
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
            decoded = try Image.decode(bytes, format: format, jpegReduction: reduction)
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
        return LoadedImage(image: image, format: format, exifOrientation: applied, reduction: reduction)
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
