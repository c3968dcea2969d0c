import CHeif

/// A HEIC/HEIF file opened by libheif: its boxes parsed, its primary image found, no pixel decoded.
///
/// Orientation: libheif applies the file's `irot`/`imir` (and `clap`) transformations while decoding, and
/// reports the size after them; EXIF orientation inside a HEIF file is not read. By the HEIF and MIAF
/// specifications the transformation boxes are what a reader must apply, and an iPhone writes both an
/// `irot` and an EXIF orientation that repeats it: applying the EXIF tag as well would turn the photo twice.
struct HEIFFile: ~Copyable {
    private let context: OpaquePointer
    private let handle: OpaquePointer

    /// Parses the file's boxes from `bytes`, which must outlive this value (libheif reads them in place).
    init(_ bytes: UnsafeRawBufferPointer) throws(ImagingError) {
        guard let context = heif_context_alloc() else { throw .operationFailed("heif_context_alloc") }
        // Freed here when opening fails: `deinit` runs only for a value that was fully made.
        do throws(ImagingError) {
            try Self.check(heif_context_read_from_memory_without_copy(context, bytes.baseAddress, bytes.count, nil))
            var handle: OpaquePointer?
            try Self.check(heif_context_get_primary_image_handle(context, &handle))
            guard let handle else { throw ImagingError.decodeFailed(.heic, reason: "no primary image") }
            self.context = context
            self.handle = handle
        } catch {
            heif_context_free(context)
            throw error
        }
    }

    /// Opens `bytes` for the time of `body`.
    static func reading<R>(_ bytes: [UInt8], _ body: (borrowing HEIFFile) throws(ImagingError) -> R) throws(ImagingError) -> R {
        let result = bytes.withUnsafeBytes { raw -> Result<R, ImagingError> in
            do throws(ImagingError) {
                let file = try HEIFFile(raw)
                return .success(try body(file))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    deinit {
        heif_image_handle_release(handle)
        heif_context_free(context)
    }

    /// The size the image has once its transformations are applied, as `decodeGray` returns it.
    var width: Int { Int(heif_image_handle_get_width(handle)) }
    var height: Int { Int(heif_image_handle_get_height(handle)) }
    /// 8 for most photos, 10 for an iPhone's HDR ones; nil when the file does not say.
    var lumaBits: Int? {
        let bits = Int(heif_image_handle_get_luma_bits_per_pixel(handle))
        return bits > 0 ? bits : nil
    }

    /// The primary image, upright, as 8-bit gray: the luma plane of a YCbCr or monochrome image (what cameras
    /// write), luminance for an image coded as RGB. Decoded in its own colour space, since libheif 1.15 cannot
    /// convert 4:2:0 YCbCr to monochrome; samples deeper than 8 bits (an iPhone's 10-bit HDR) are shifted down.
    func decodeGray() throws(ImagingError) -> Image {
        guard let options = heif_decoding_options_alloc() else { throw .operationFailed("heif_decoding_options_alloc") }
        defer { heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = 1
        // Data libheif finds it cannot read is an error, as a JPEG's warnings are. (libde265 1.0.11 reports no
        // damage inside the HEVC stream: 64 scrambled bytes there decode without a word, as a blurred patch.)
        options.pointee.strict_decoding = 1
        let native = try decode(heif_colorspace_undefined, heif_chroma_undefined, options)
        defer { heif_image_release(native) }
        let space = heif_image_get_colorspace(native)
        if space == heif_colorspace_YCbCr || space == heif_colorspace_monochrome {
            return try Self.gray(native, channel: heif_channel_Y, samples: 1)
        }
        let rgb = try decode(heif_colorspace_RGB, heif_chroma_interleaved_RGB, options)
        defer { heif_image_release(rgb) }
        return try Self.gray(rgb, channel: heif_channel_interleaved, samples: 3)
    }

    private func decode(_ space: heif_colorspace, _ chroma: heif_chroma, _ options: UnsafeMutablePointer<heif_decoding_options>) throws(ImagingError) -> OpaquePointer {
        var decoded: OpaquePointer?
        try Self.check(heif_decode_image(handle, &decoded, space, chroma, options))
        guard let decoded else { throw .decodeFailed(.heic, reason: "libheif returned no image") }
        return decoded
    }

    /// One plane as 8-bit gray: its samples as they are (`samples` 1), or interleaved RGB as luminance
    /// (`samples` 3, the same weights as the JPEG and PNG decoders).
    private static func gray(_ image: OpaquePointer, channel: heif_channel, samples: Int) throws(ImagingError) -> Image {
        let w = Int(heif_image_get_width(image, channel))
        let h = Int(heif_image_get_height(image, channel))
        let bits = Int(heif_image_get_bits_per_pixel_range(image, channel))
        var stride: Int32 = 0
        guard w > 0, h > 0, (1...16).contains(bits), let plane = heif_image_get_plane_readonly(image, channel, &stride) else {
            throw .decodeFailed(.heic, reason: "libheif returned no image plane")
        }
        var pixels = [UInt8](repeating: 255, count: w * h)
        if bits <= 8 && samples == 1 {
            pixels.withUnsafeMutableBytes { out in
                for y in 0..<h { (out.baseAddress! + y * w).copyMemory(from: plane + y * Int(stride), byteCount: w) }
            }
            return try Image(GrayBuffer(width: w, height: h, pixels: pixels))
        }
        for y in 0..<h {
            let row = UnsafeRawPointer(plane + y * Int(stride))
            for x in 0..<w {
                // libheif keeps samples deeper than 8 bits in 16-bit words of the machine's byte order.
                func sample(_ k: Int) -> Int {
                    bits <= 8 ? Int(row.load(fromByteOffset: x * samples + k, as: UInt8.self))
                        : Int(row.loadUnaligned(fromByteOffset: 2 * (x * samples + k), as: UInt16.self)) >> (bits - 8)
                }
                let value = samples == 1 ? sample(0) : (299 * sample(0) + 587 * sample(1) + 114 * sample(2) + 500) / 1000
                pixels[y * w + x] = UInt8(min(max(value, 0), 255))
            }
        }
        return try Image(GrayBuffer(width: w, height: h, pixels: pixels))
    }

    /// The one place libheif's error structs become typed errors, carrying libheif's own message.
    static func check(_ error: heif_error) throws(ImagingError) {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? ""
        throw .decodeFailed(.heic, reason: message.isEmpty ? "libheif error \(error.code.rawValue)" : message)
    }
}

/// The HEIC/HEIF decoder statsheet was linked with, for `statsheet doctor`.
public enum HEIFSupport {
    /// libheif's version, and whether it has an HEVC decoder (without one, HEIC photos cannot be read).
    public static var description: String {
        let version = String(cString: heif_get_version())
        return "libheif \(version)" + (heif_have_decoder_for_format(heif_compression_HEVC) != 0 ? " with an HEVC decoder" : ", NO HEVC decoder")
    }

    public static var decodesHEVC: Bool { heif_have_decoder_for_format(heif_compression_HEVC) != 0 }
}
