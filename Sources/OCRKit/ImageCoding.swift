import CDecoders
import CTesseract
import Glibc

/// Image file formats statsheet recognises, by their leading bytes.
public enum ImageFormat: String, Sendable, Equatable, CaseIterable {
    case png, jpeg, tiff, webp, bmp, gif, pnm, jp2, pdf, heic, unknown

    public var displayName: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .tiff: "TIFF"
        case .webp: "WebP"
        case .bmp: "BMP"
        case .gif: "GIF"
        case .pnm: "PNM"
        case .jp2: "JPEG 2000"
        case .pdf: "PDF"
        case .heic: "HEIC/HEIF"
        case .unknown: "unknown"
        }
    }

    /// Sniffs the format from the first bytes. Leptonica's own sniffing is used for the image formats it
    /// knows; PDF and HEIC are checked here because Leptonica cannot read them and users do send them.
    public static func sniff(_ bytes: [UInt8]) -> ImageFormat {
        if bytes.starts(with: Array("%PDF".utf8)) { return .pdf }
        if bytes.count >= 12, Array(bytes[4..<8]) == Array("ftyp".utf8) {
            let brand = String(decoding: bytes[8..<12], as: UTF8.self)
            if ["heic", "heix", "hevc", "heim", "heis", "mif1", "msf1", "avif"].contains(brand) { return .heic }
        }
        guard bytes.count >= 12 else { return .unknown }
        var format: Int32 = 0
        let ok = bytes.withUnsafeBufferPointer { findFileFormatBuffer($0.baseAddress, &format) }
        guard ok == 0 else { return .unknown }
        switch format {
        case Int32(IFF_PNG): return .png
        case Int32(IFF_JFIF_JPEG): return .jpeg
        case Int32(IFF_WEBP): return .webp
        case Int32(IFF_BMP): return .bmp
        case Int32(IFF_GIF): return .gif
        case Int32(IFF_PNM): return .pnm
        case Int32(IFF_JP2): return .jp2
        case Int32(IFF_TIFF)...Int32(IFF_TIFF_ZIP), Int32(IFF_TIFF_JPEG): return .tiff
        default: return .unknown
        }
    }
}

/// What an image file's header says, read without decoding any pixel.
public struct ImageHeader: Sendable, Equatable {
    public let format: ImageFormat
    public let width: Int
    public let height: Int
    public let bitsPerSample: Int
    public let samplesPerPixel: Int

    public var pixelCount: Int { width * height }

    /// Fails with what the decoding library said, when the header cannot be parsed from the bytes.
    ///
    /// - Parameter page: a TIFF's page (0 for the first); other formats have only page 0.
    public static func read(_ bytes: [UInt8], page: Int = 0) throws(ImagingError) -> ImageHeader {
        let format = ImageFormat.sniff(bytes)
        if format == .heic {
            // libheif parses the boxes only; the size is the one after rotation (see `HEIFFile`).
            return try HEIFFile.reading(bytes) { file in file.header }
        }
        if format == .tiff {
            var w: Int32 = 0, h: Int32 = 0, bps: Int32 = 0, spp: Int32 = 0, res: Int32 = 0, cmap: Int32 = 0, iff: Int32 = 0
            let (ok, messages) = DecoderMessages.collecting {
                bytes.withUnsafeBufferPointer { readHeaderMemTiff($0.baseAddress, $0.count, Int32(page), &w, &h, &bps, &spp, &res, &cmap, &iff) }
            }
            guard ok == 0, w > 0, h > 0 else { throw .decodeFailed(format, reason: messages.first) }
            return ImageHeader(format: format, width: Int(w), height: Int(h), bitsPerSample: Int(bps), samplesPerPixel: Int(spp))
        }
        guard page == 0 else { throw .invalidArgument("page \(page + 1) of a \(format.displayName) image") }
        if format == .jpeg {
            // libjpeg itself, so that its warnings about the header are kept rather than printed.
            var w: Int32 = 0, h: Int32 = 0, components: Int32 = 0
            let (ok, messages) = DecoderMessages.collecting {
                bytes.withUnsafeBufferPointer { cdecoders_jpeg_header($0.baseAddress, $0.count, &w, &h, &components) }
            }
            guard ok == 0, w > 0, h > 0 else { throw .decodeFailed(format, reason: messages.first) }
            return ImageHeader(format: format, width: Int(w), height: Int(h), bitsPerSample: 8, samplesPerPixel: Int(components))
        }
        if format == .gif { return try gifHeader(bytes) }
        var iff: Int32 = 0, w: Int32 = 0, h: Int32 = 0, bps: Int32 = 0, spp: Int32 = 0, cmap: Int32 = 0
        let (ok, messages) = DecoderMessages.collecting {
            bytes.withUnsafeBufferPointer { pixReadHeaderMem($0.baseAddress, $0.count, &iff, &w, &h, &bps, &spp, &cmap) }
        }
        guard ok == 0, w > 0, h > 0 else { throw .decodeFailed(format, reason: messages.first) }
        return ImageHeader(format: format, width: Int(w), height: Int(h), bitsPerSample: Int(bps), samplesPerPixel: Int(spp))
    }
}

extension ImageHeader {
    /// A GIF's size from its own bytes: the logical screen, widened to every frame's descriptor. Leptonica
    /// learns a GIF's size only by decoding all of it (giflib slurps every frame), so a small file that
    /// claims 40,000×40,000 would be decoded before the size limit could refuse it.
    static func gifHeader(_ b: [UInt8]) throws(ImagingError) -> ImageHeader {
        func u16(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }
        guard b.count >= 13 else { throw .decodeFailed(.gif, reason: "the GIF header is cut short") }
        var width = u16(6), height = u16(8)
        // Skips a run of data sub-blocks (each a length byte, then that many bytes; a 0 ends them).
        func skipSubBlocks(_ i: inout Int) {
            while i < b.count, b[i] != 0 { i += Int(b[i]) + 1 }
            i += 1
        }
        var i = 13
        if b[10] & 0x80 != 0 { i += 3 << (Int(b[10] & 7) + 1) }   // the global colour table
        walk: while i < b.count {
            switch b[i] {
            case 0x21:   // an extension: its label, then sub-blocks
                i += 2
                skipSubBlocks(&i)
            case 0x2C:   // a frame: left, top, width, height, flags, [local colour table], LZW size, data
                guard i + 10 <= b.count else { break walk }
                width = max(width, u16(i + 1) + u16(i + 5))
                height = max(height, u16(i + 3) + u16(i + 7))
                let flags = b[i + 9]
                i += 10
                if flags & 0x80 != 0 { i += 3 << (Int(flags & 7) + 1) }
                i += 1
                skipSubBlocks(&i)
            default:     // the trailer, or bytes that are no block: the decoder says what is wrong with them
                break walk
            }
        }
        guard width > 0, height > 0 else { throw .decodeFailed(.gif, reason: "the GIF header gives no size") }
        return ImageHeader(format: .gif, width: width, height: height, bitsPerSample: 8, samplesPerPixel: 1)
    }
}

extension HEIFFile {
    var header: ImageHeader {
        ImageHeader(format: .heic, width: width, height: height, bitsPerSample: lumaBits ?? 8, samplesPerPixel: 1)
    }
}

extension ImageFormat {
    /// How many pages a TIFF holds, counted from its directories without decoding any pixel; 1 for the other
    /// formats (a HEIF file's primary image is its picture).
    ///
    /// Leptonica's `tiffGetCount` over an `fmemopen` stream rather than libtiff's `TIFFClientOpen` by hand:
    /// it is the reader `pixReadMemTiff` pages through, so the count and the pages cannot disagree, and
    /// libtiff (4.5) stops at a directory chain that loops back on itself.
    public static func pageCount(_ bytes: [UInt8], format: ImageFormat) throws(ImagingError) -> Int {
        guard format == .tiff else { return 1 }
        var count: Int32 = 0
        let (ok, messages) = DecoderMessages.collecting { () -> Bool in
            bytes.withUnsafeBytes { raw -> Bool in
                // Read only ("r"): the buffer is never written through the stream.
                guard let stream = fmemopen(UnsafeMutableRawPointer(mutating: raw.baseAddress), raw.count, "r") else { return false }
                defer { fclose(stream) }
                return tiffGetCount(stream, &count) == 0
            }
        }
        guard ok, count > 0 else { throw .decodeFailed(.tiff, reason: messages.first) }
        return Int(count)
    }
}

/// A decoded image and what its decoder said on the way.
public struct DecodedImage {
    public let image: Image
    /// Data the decoder lost: libjpeg's warnings (data that ended early or that it skipped as corrupt) and
    /// libtiff's errors (strips it could not read, which Leptonica fills in). A page with any is not read.
    public let warnings: Int
    /// What the decoding libraries would have printed to stderr (kept for the log, never printed raw).
    public let messages: [String]
}

extension Image {
    /// Decodes PNG, JPEG, TIFF (any page), WebP, GIF, PNM or HEIC/HEIF (the primary image, upright) bytes.
    ///
    /// - Parameters:
    ///   - jpegReduction: 1, 2, 4 or 8: libjpeg's DCT scaling decodes a JPEG at a fraction of its size for a
    ///     fraction of the cost. JPEGs always arrive as 8-bit gray (luminance, or CMYK inks on white).
    ///   - page: a TIFF's page, 0 for the first (`ImageFormat.pageCount` says how many there are).
    public static func decode(_ bytes: [UInt8], format: ImageFormat, jpegReduction: Int = 1, page: Int = 0) throws(ImagingError) -> DecodedImage {
        guard page == 0 || format == .tiff else { throw .invalidArgument("page \(page + 1) of a \(format.displayName) image") }
        switch format {
        case .png: return DecodedImage(image: try decodePNGAsGray(bytes), warnings: 0, messages: [])
        case .jpeg: return try decodeJPEGAsGray(bytes, reduction: jpegReduction)
        case .heic:
            let image = try HEIFFile.reading(bytes) { file throws(ImagingError) in try file.decodeGray() }
            return DecodedImage(image: image, warnings: 0, messages: [])
        case .tiff, .webp, .gif, .pnm: break
        default: throw .decodeFailed(format, reason: "not a format statsheet decodes")
        }
        let ((pix, dataErrors), messages) = DecoderMessages.collecting {
            let pix = bytes.withUnsafeBufferPointer { buffer -> UnsafeMutablePointer<PIX>? in
                switch format {
                case .tiff: pixReadMemTiff(buffer.baseAddress, buffer.count, Int32(page))
                case .webp: pixReadMemWebP(buffer.baseAddress, buffer.count)
                case .pnm: pixReadMemPnm(buffer.baseAddress, buffer.count)
                default: pixReadMemGif(buffer.baseAddress, buffer.count)
                }
            }
            return (pix, Int(cdecoders_data_errors()))
        }
        guard let pix else { throw .decodeFailed(format, reason: messages.first) }
        return DecodedImage(image: try Image(taking: pix, operation: "decode"), warnings: dataErrors, messages: messages)
    }

    /// libjpeg directly rather than through Leptonica: its messages are kept instead of printed, and
    /// CMYK and YCCK JPEGs (which Leptonica cannot decode to gray) arrive as ink on white.
    static func decodeJPEGAsGray(_ bytes: [UInt8], reduction: Int) throws(ImagingError) -> DecodedImage {
        var pixels: UnsafeMutablePointer<UInt8>?
        var w: Int32 = 0, h: Int32 = 0, warnings: Int32 = 0
        let (status, messages) = DecoderMessages.collecting {
            bytes.withUnsafeBufferPointer {
                cdecoders_jpeg_decode_gray($0.baseAddress, $0.count, Int32(reduction), &pixels, &w, &h, &warnings)
            }
        }
        guard status == 0, let pixels else { throw .decodeFailed(.jpeg, reason: messages.first) }
        defer { free(pixels) }
        let gray = GrayBuffer(width: Int(w), height: Int(h), pixels: Array(UnsafeBufferPointer(start: pixels, count: Int(w) * Int(h))))
        return DecodedImage(image: try Image(gray), warnings: Int(warnings), messages: messages)
    }

    /// Decodes any PNG (gray, palette, RGB, 16-bit, with or without alpha) straight to 8-bit gray with
    /// libpng's simplified API; transparency is composited onto white paper.
    static func decodePNGAsGray(_ bytes: [UInt8]) throws(ImagingError) -> Image {
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&png) }
        let begun = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&png, $0.baseAddress, $0.count) }
        guard begun != 0, png.width > 0, png.height > 0 else { throw .decodeFailed(.png, reason: pngMessage(png)) }
        png.format = UInt32(PNG_FORMAT_GRAY)
        // Without this, libpng takes 16-bit samples with no gAMA chunk for linear light and brightens
        // them into sRGB: a scanner's 16-bit gray page came out nearly white, its markers lost.
        png.flags |= UInt32(PNG_IMAGE_FLAG_16BIT_sRGB)
        let width = Int(png.width), height = Int(png.height)
        var gray = [UInt8](repeating: 255, count: width * height)
        var white = png_color(red: 255, green: 255, blue: 255)
        let finished = gray.withUnsafeMutableBytes { png_image_finish_read(&png, &white, $0.baseAddress, Int32(width), nil) }
        guard finished != 0 else { throw .decodeFailed(.png, reason: pngMessage(png)) }
        return try Image(GrayBuffer(width: width, height: height, pixels: gray))
    }

    private static func pngMessage(_ png: png_image) -> String? {
        var message = png.message
        let text = withUnsafeBytes(of: &message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return text.isEmpty ? nil : text
    }

    /// Encodes as PNG, JPEG (quality 90), TIFF (LZW), WebP or GIF.
    public func encoded(as format: ImageFormat) throws(ImagingError) -> [UInt8] {
        let iff: Int32 = switch format {
        case .png: Int32(IFF_PNG)
        case .jpeg: Int32(IFF_JFIF_JPEG)
        case .tiff: Int32(IFF_TIFF_LZW)
        case .webp: Int32(IFF_WEBP)
        case .gif: Int32(IFF_GIF)
        default: throw .encodeFailed("images as \(format.displayName)")
        }
        var data: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = format == .jpeg
            ? pixWriteMemJpeg(&data, &size, pix, 90, 0)
            : pixWriteMem(&data, &size, pix, iff)
        guard status == 0, let data else { throw .encodeFailed(format.displayName) }
        defer { lept_free(data) }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// A one-page PDF whose page size is the image size at `dpi`.
    public func pdfData(dpi: Int, title: String) throws(ImagingError) -> [UInt8] {
        var data: UnsafeMutablePointer<UInt8>?
        var size = 0
        guard pixWriteMemPdf(&data, &size, pix, Int32(dpi), title) == 0, let data else { throw .encodeFailed("PDF") }
        defer { lept_free(data) }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }
}
