import CTesseract

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

    /// Nil when Leptonica cannot parse a header from the bytes.
    public static func read(_ bytes: [UInt8]) -> ImageHeader? {
        _ = LeptonicaMessages.silenced
        let format = ImageFormat.sniff(bytes)
        var iff: Int32 = 0, w: Int32 = 0, h: Int32 = 0, bps: Int32 = 0, spp: Int32 = 0, cmap: Int32 = 0
        let ok = bytes.withUnsafeBufferPointer {
            pixReadHeaderMem($0.baseAddress, $0.count, &iff, &w, &h, &bps, &spp, &cmap)
        }
        guard ok == 0, w > 0, h > 0 else { return nil }
        return ImageHeader(format: format, width: Int(w), height: Int(h), bitsPerSample: Int(bps), samplesPerPixel: Int(spp))
    }
}

extension Image {
    /// Decodes PNG, JPEG, TIFF (first page) or WebP bytes.
    ///
    /// - Parameters:
    ///   - jpegReduction: 1, 2, 4 or 8: libjpeg's DCT scaling decodes a JPEG at a fraction of its size for a
    ///     fraction of the cost.
    ///   - jpegLuminanceOnly: decode a colour JPEG's luminance only, skipping chroma (about a third faster).
    /// - Returns: the image and the number of decoder warnings (libjpeg warns, rather than fails, when the
    ///   data ends early).
    public static func decode(_ bytes: [UInt8], format: ImageFormat, jpegReduction: Int = 1,
                              jpegLuminanceOnly: Bool = false) throws(ImagingError) -> (image: Image, warnings: Int) {
        _ = LeptonicaMessages.silenced
        var warnings: Int32 = 0
        let pix: UnsafeMutablePointer<PIX>? = bytes.withUnsafeBufferPointer { buffer in
            switch format {
            case .png: nil  // decoded below, straight to gray
            case .jpeg: pixReadMemJpeg(buffer.baseAddress, buffer.count, 0, Int32(jpegReduction), &warnings,
                                       jpegLuminanceOnly ? Int32(L_JPEG_READ_LUMINANCE) : 0)
            case .tiff: pixReadMemTiff(buffer.baseAddress, buffer.count, 0)
            case .webp: pixReadMemWebP(buffer.baseAddress, buffer.count)
            default: nil
            }
        }
        if format == .png { return (try decodePNGAsGray(bytes), 0) }
        guard let pix else { throw .decodeFailed(format) }
        return (try Image(taking: pix, operation: "decode"), Int(warnings))
    }

    /// Decodes any PNG (gray, palette, RGB, 16-bit, with or without alpha) straight to 8-bit gray with
    /// libpng's simplified API; transparency is composited onto white paper.
    static func decodePNGAsGray(_ bytes: [UInt8]) throws(ImagingError) -> Image {
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&png) }
        let begun = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&png, $0.baseAddress, $0.count) }
        guard begun != 0, png.width > 0, png.height > 0 else { throw .decodeFailed(.png) }
        png.format = UInt32(PNG_FORMAT_GRAY)
        let width = Int(png.width), height = Int(png.height)
        var gray = [UInt8](repeating: 255, count: width * height)
        var white = png_color(red: 255, green: 255, blue: 255)
        let finished = gray.withUnsafeMutableBytes { png_image_finish_read(&png, &white, $0.baseAddress, Int32(width), nil) }
        guard finished != 0 else { throw .decodeFailed(.png) }
        return try Image(GrayBuffer(width: width, height: height, pixels: gray))
    }

    /// Encodes as PNG, JPEG (quality 90), TIFF (LZW) or WebP.
    public func encoded(as format: ImageFormat) throws(ImagingError) -> [UInt8] {
        let iff: Int32 = switch format {
        case .png: Int32(IFF_PNG)
        case .jpeg: Int32(IFF_JFIF_JPEG)
        case .tiff: Int32(IFF_TIFF_LZW)
        case .webp: Int32(IFF_WEBP)
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
