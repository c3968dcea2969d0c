import OCRKit

/// Reads the EXIF orientation tag of a JPEG and turns the image upright. Phones store portrait photos
/// sideways with this tag; Leptonica decodes the pixels as stored and ignores it.
///
/// Written by hand rather than through libexif: one tag is needed, the format of that tag is fixed by
/// the TIFF/EXIF specifications, and a second C dependency would cost more than these lines.
public enum ExifOrientation {
    /// The orientation value (1–8), or nil when the JPEG has none or it cannot be parsed.
    public static func read(jpeg bytes: [UInt8]) -> Int? {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            if marker == 0xD9 || marker == 0xDA { return nil }  // end of image or start of scan: no EXIF before pixels
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2, offset + 2 + length <= bytes.count else { return nil }
            let start = offset + 4
            if marker == 0xE1, length >= 8, Array(bytes[start..<(start + 6)]) == [0x45, 0x78, 0x69, 0x66, 0, 0] {
                return orientation(inTIFF: Array(bytes[(start + 6)..<(offset + 2 + length)]))
            }
            offset += 2 + length
        }
        return nil
    }

    /// Finds tag 0x0112 in IFD0 of the TIFF structure inside the EXIF segment.
    static func orientation(inTIFF tiff: [UInt8]) -> Int? {
        guard tiff.count >= 8 else { return nil }
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at + 2 <= tiff.count else { return nil }
            return little ? Int(tiff[at]) | Int(tiff[at + 1]) << 8 : Int(tiff[at]) << 8 | Int(tiff[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for i in 0..<count {
            let entry = ifd + 2 + i * 12
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112 {
                guard u16(entry + 2) == 3, let value = u16(entry + 8), (1...8).contains(value) else { return nil }
                return value
            }
        }
        return nil
    }

    /// Turns an image stored with `orientation` upright.
    public static func apply(_ orientation: Int, to image: Image) throws(ImagingError) -> Image {
        switch orientation {
        case 2: try image.flippedLeftRight()
        case 3: try image.rotated(quarterTurns: 2)
        case 4: try image.flippedTopBottom()
        case 5: try image.rotated(quarterTurns: 1).flippedLeftRight()   // transpose
        case 6: try image.rotated(quarterTurns: 1)
        case 7: try image.rotated(quarterTurns: 1).flippedTopBottom()   // transverse
        case 8: try image.rotated(quarterTurns: 3)
        default: image
        }
    }
}
