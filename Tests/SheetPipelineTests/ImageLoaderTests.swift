import Foundation
import OCRKit
import Testing
@testable import SheetPipeline

@Suite struct ImageLoaderTests {
    /// A small asymmetric gray picture: white, with a black block in the top-left quarter.
    static func picture(width: Int = 64, height: Int = 48) throws -> Image {
        let image = try Image.blank(width: width, height: height)
        try image.fill(PixelRect(x: 0, y: 0, width: width / 4, height: height / 4), color: .black)
        return image
    }

    @Test(arguments: [ImageFormat.png, .jpeg, .tiff, .webp, .gif])
    func everySupportedFormatLoadsAsGray(format: ImageFormat) throws {
        let bytes = try Self.picture().encoded(as: format)
        let loaded = try ImageLoader().decode(bytes)
        #expect(loaded.format == format)
        #expect(loaded.image.depth == 8)
        #expect(loaded.image.width == 64 && loaded.image.height == 48)
        let gray = try loaded.image.grayBuffer()
        #expect(gray[2, 2] < 60)        // inside the block
        #expect(gray[60, 44] > 200)     // paper
    }

    /// Blue and red pens must stay well under the cleaner's ink threshold (60% of the paper) in every
    /// colour format.
    @Test(arguments: [ImageFormat.png, .jpeg, .tiff, .webp])
    func colourInkStaysDark(format: ImageFormat) throws {
        let rgb = try Image.blank(width: 48, height: 40, depth: 32)
        try rgb.fill(PixelRect(x: 0, y: 0, width: 16, height: 40), color: Color(red: 40, green: 60, blue: 200))
        try rgb.fill(PixelRect(x: 16, y: 0, width: 16, height: 40), color: Color(red: 200, green: 30, blue: 30))
        let gray = try ImageLoader().decode(try rgb.encoded(as: format)).image.grayBuffer()
        let paper = Double(gray[42, 20])
        #expect(paper > 240)
        #expect(Double(gray[6, 20]) < paper * 0.45, "blue ink read as \(gray[6, 20])")
        #expect(Double(gray[24, 20]) < paper * 0.45, "red ink read as \(gray[24, 20])")
    }

    /// The DCT scale keeps at least 1,500 pixels on the long side: the page's writing stays as sharp as
    /// the fields are read (2.5 px/pt) on a letter page photographed at 136 dpi or more.
    @Test(arguments: [(1200, 900, 1), (2999, 2000, 1), (3000, 2250, 2), (2250, 5999, 2), (6000, 4500, 4), (4500, 8000, 4), (12000, 5000, 8)])
    func jpegScaleFromTheHeader(width: Int, height: Int, reduction: Int) {
        #expect(ImageLoader().jpegReduction(width: width, height: height) == reduction)
    }

    /// A JPEG 6,000 pixels wide arrives at a quarter of its size, its ink where it was.
    @Test func largeJPEGDecodesAtAQuarter() throws {
        let loaded = try ImageLoader().decode(try Self.picture(width: 6000, height: 400).encoded(as: .jpeg))
        #expect(loaded.reduction == 4)
        #expect(loaded.image.width == 1500 && loaded.image.height == 100)
        let gray = try loaded.image.grayBuffer()
        #expect(gray[100, 10] < 60)      // inside the block (1,500 × 100 source pixels → 375 × 25)
        #expect(gray[1400, 80] > 200)    // paper
    }

    @Test func missingFile() {
        #expect(throws: ImageLoadFailure(path: "/nonexistent/x.png", error: .missing)) { try ImageLoader().load("/nonexistent/x.png") }
    }

    @Test func directoryIsNotReadable() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(throws: ImageLoadFailure(path: folder, error: .notReadable(reason: "it is a directory"))) { try ImageLoader().load(folder) }
    }

    @Test(.enabled(if: getuid() != 0, "root reads files whatever their permissions"))
    func unreadableFile() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/locked.png"
        try Fixtures.write(try Self.picture().encoded(as: .png), to: path)
        chmod(path, 0)
        #expect(throws: ImageLoadFailure(path: path, error: .notReadable(reason: "Permission denied"))) { try ImageLoader().load(path) }
    }

    @Test func zeroBytes() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/empty.jpg"
        try Fixtures.write([], to: path)
        #expect(throws: ImageLoadFailure(path: path, error: .empty)) { try ImageLoader().load(path) }
    }

    @Test(arguments: [ImageFormat.png, .jpeg, .webp])
    func truncatedFiles(format: ImageFormat) throws {
        let full = try Fixtures.filledSheet(try Fixtures.lacrosse(), values: Fixtures.game, dpi: 100).encoded(as: format)
        let cut = Array(full.prefix(full.count * 2 / 3))
        #expect(throws: ImageLoadError.truncated(format)) { try ImageLoader().decode(cut) }
    }

    @Test func textIsNotAnImage() {
        #expect(throws: ImageLoadError.notAnImage) { try ImageLoader().decode(Array("game notes: 12 saves, 3 goals\n".utf8)) }
    }

    /// BMP is sniffed but not read; HEIC and PDF are read (`DocumentPagesTests`).
    @Test func unsupportedFormatsAreNamed() {
        let bmp: [UInt8] = Array("BM".utf8) + [UInt8](repeating: 0, count: 40)
        #expect(throws: ImageLoadError.unsupportedFormat(.bmp)) { try ImageLoader().decode(bmp) }
        #expect(ImageLoadError.unsupportedFormat(.bmp).message == "BMP images are not supported: convert to PNG, JPEG, TIFF or WebP")
        #expect(ImageLoadError.notAnImage.message == "not an image (statsheet reads PNG, JPEG, TIFF, WebP, GIF, HEIC/HEIF and PDF)")
    }

    @Test func oversizedImageIsRefusedFromItsHeader() throws {
        let bytes = try Self.picture(width: 400, height: 300).encoded(as: .png)
        let loader = ImageLoader(maxPixels: 100_000)
        #expect(throws: ImageLoadError.tooLarge(width: 400, height: 300, limit: 100_000)) { try loader.decode(bytes) }
        #expect(ImageLoadError.tooLarge(width: 8000, height: 9000, limit: 60_000_000).message
                == "image is 8000×9000 = 72 megapixels, over the limit of 60 (raise it with --max-megapixels)")
    }

    /// A GIF's size comes from its own bytes, never from decoding it: a tiny file may claim a huge page, in its
    /// logical screen or in a later frame's descriptor.
    @Test func aGIFsSizeIsReadFromItsBytesBeforeAnyDecoding() throws {
        let real = try Self.picture(width: 64, height: 48).encoded(as: .gif)
        let header = try ImageHeader.read(real)
        #expect((header.width, header.height) == (64, 48))
        // GIF89a, a 40,000 × 40,000 screen, no colour table, then the trailer: 14 bytes.
        let hugeScreen: [UInt8] = Array("GIF89a".utf8) + [0x40, 0x9C, 0x40, 0x9C, 0, 0, 0, 0x3B]
        let loader = ImageLoader(maxPixels: 60_000_000)
        #expect(throws: ImageLoadError.tooLarge(width: 40_000, height: 40_000, limit: 60_000_000)) { try loader.decode(hugeScreen) }
        // A 1 × 1 screen whose frame, after a comment extension, is 30,000 × 30,000.
        let hugeFrame: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0]
            + [0x21, 0xFE, 3, 0x61, 0x62, 0x63, 0]                                  // a comment
            + [0x2C, 0, 0, 0, 0, 0x30, 0x75, 0x30, 0x75, 0, 2, 2, 0x4C, 0x01, 0]      // the frame, 2 bytes of LZW
            + [0x3B]
        #expect(throws: ImageLoadError.tooLarge(width: 30_000, height: 30_000, limit: 60_000_000)) { try loader.decode(hugeFrame) }
    }

    @Test func damagedDataAfterAValidHeader() throws {
        var bytes = try Self.picture(width: 200, height: 200).encoded(as: .png)
        // Keep the signature and header chunk, scramble the compressed pixels, keep the IEND trailer.
        for i in 60..<(bytes.count - 12) { bytes[i] = UInt8(truncatingIfNeeded: i &* 37) }
        Self.expectDamagedWithReason(bytes, .png)
    }

    @Test func corruptJPEGDataIsRefusedWithLibjpegsReason() throws {
        var bytes = try Self.picture(width: 256, height: 256).encoded(as: .jpeg)
        // Entropy-coded data with markers that cannot be there: libjpeg warns ("Corrupt JPEG data") and
        // goes on; the loader refuses the page rather than read a guess.
        let start = bytes.count / 2
        for i in start..<(start + 16) { bytes[i] = i % 2 == 0 ? 0xFF : 0xD3 }
        Self.expectDamagedWithReason(bytes, .jpeg)
    }

    /// The decoder's own words become part of the error, instead of a line on stderr.
    static func expectDamagedWithReason(_ bytes: [UInt8], _ format: ImageFormat) {
        do {
            _ = try ImageLoader().decode(bytes)
            Issue.record("damaged \(format.displayName) decoded")
        } catch {
            guard case .damaged(format, let reason?) = error else { Issue.record("\(error)"); return }
            #expect(!reason.isEmpty)
            #expect(error.message.hasPrefix("damaged \(format.displayName): its image data could not be decoded (decoder: "))
        }
    }

    static let oddInputs = Fixtures.testImages.appendingPathComponent("odd-inputs")

    /// A CMYK JPEG as Pillow, Photoshop and print shops write it (Adobe marker, inverted inks) reads as
    /// ink on white: its corner markers black, its paper white, like the same sheet in 16-bit TIFF.
    @Test func cmykJPEGReadsAsInkOnWhite() throws {
        let cmyk = try ImageLoader().load(Self.oddInputs.appendingPathComponent("cmyk.jpg").path).image.grayBuffer()
        let reference = try ImageLoader().load(Self.oddInputs.appendingPathComponent("gray16.tif").path).image.grayBuffer()
        #expect(cmyk.width == reference.width && cmyk.height == reference.height)
        #expect(Self.meanDifference(cmyk, reference) < 4)
        #expect(cmyk.pixels.min()! < 40 && cmyk.pixels.max()! > 230)
    }

    /// 16-bit PNG samples with no gAMA chunk are the scanner's gray levels, not linear light (which
    /// libpng assumes by default, and which turns a mid-gray 128 into 188). The fixture is a 256×8 ramp
    /// whose column x holds x × 257.
    @Test func sixteenBitPNGKeepsItsGrayLevels() throws {
        let ramp = try ImageLoader().load(Self.oddInputs.appendingPathComponent("ramp16.png").path).image.grayBuffer()
        #expect(ramp.width == 256)
        for x in stride(from: 0, to: 256, by: 15) { #expect(abs(Int(ramp[x, 4]) - x) <= 1, "column \(x) read as \(ramp[x, 4])") }
    }

    static func meanDifference(_ a: GrayBuffer, _ b: GrayBuffer) -> Double {
        let total = zip(a.pixels, b.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        return Double(total) / Double(max(1, a.pixels.count))
    }

    @Test func namedPipeFailsWithoutWaitingForAWriter() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = folder + "/fifo.jpg"
        try #require(mkfifo(fifo, 0o644) == 0)
        #expect(throws: ImageLoadFailure(path: fifo, error: .notReadable(reason: "it is a named pipe (FIFO), not a regular file"))) {
            try ImageLoader().load(fifo)
        }
    }
}
