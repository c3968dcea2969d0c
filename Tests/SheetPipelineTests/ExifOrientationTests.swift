import OCRKit
import Testing
@testable import SheetPipeline

@Suite struct ExifOrientationTests {
    /// Inserts an APP1/EXIF segment holding only the orientation tag, as a phone would.
    static func withOrientation(_ orientation: UInt16, jpeg: [UInt8], bigEndian: Bool = false) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) -> [UInt8] { bigEndian ? u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF)) : u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) }
        let tiff = (bigEndian ? Array("MM".utf8) : Array("II".utf8)) + u16(42) + u32(8)
            + u16(1) + u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0) + u32(0)
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + jpeg.dropFirst(2)
    }

    /// Where the black block (stored in the top-left corner) must appear once the image is upright.
    @Test(arguments: [(1, "TL"), (2, "TR"), (3, "BR"), (4, "BL"), (5, "TL"), (6, "TR"), (7, "BR"), (8, "BL")])
    func orientationIsApplied(orientation: Int, corner: String) throws {
        let stored = try ImageLoaderTests.picture(width: 80, height: 40).encoded(as: .jpeg)
        let bytes = Self.withOrientation(UInt16(orientation), jpeg: stored)
        #expect(ExifOrientation.read(jpeg: bytes) == orientation)
        let loaded = try ImageLoader().decode(bytes)
        let gray = try loaded.image.grayBuffer()
        let sideways = orientation >= 5
        #expect(gray.width == (sideways ? 40 : 80) && gray.height == (sideways ? 80 : 40))
        let (w, h) = (gray.width, gray.height)
        let probes = ["TL": (3, 3), "TR": (w - 4, 3), "BR": (w - 4, h - 4), "BL": (3, h - 4)]
        for (name, (x, y)) in probes {
            if name == corner { #expect(gray[x, y] < 80, "orientation \(orientation): block should be at \(name)") }
            else { #expect(gray[x, y] > 180, "orientation \(orientation): \(name) should be paper") }
        }
        #expect(loaded.exifOrientation == (orientation == 1 ? nil : orientation))
    }

    @Test func bigEndianExifIsRead() throws {
        let stored = try ImageLoaderTests.picture().encoded(as: .jpeg)
        #expect(ExifOrientation.read(jpeg: Self.withOrientation(6, jpeg: stored, bigEndian: true)) == 6)
    }

    @Test func jpegWithoutExifHasNoOrientation() throws {
        #expect(ExifOrientation.read(jpeg: try ImageLoaderTests.picture().encoded(as: .jpeg)) == nil)
    }
}
