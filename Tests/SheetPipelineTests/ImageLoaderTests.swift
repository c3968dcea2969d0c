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

    @Test(arguments: [ImageFormat.png, .jpeg, .tiff, .webp])
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

    static let unsupported: [([UInt8], ImageFormat)] = {
        let zeros = [UInt8](repeating: 0, count: 40)
        let gif: [UInt8] = Array("GIF89a".utf8) + zeros
        let heic: [UInt8] = [0, 0, 0, 24] + Array("ftypheic".utf8) + zeros
        let pdf: [UInt8] = Array("%PDF-1.7\n".utf8) + zeros
        let bmp: [UInt8] = Array("BM".utf8) + zeros
        return [(gif, .gif), (heic, .heic), (pdf, .pdf), (bmp, .bmp)]
    }()

    @Test(arguments: ImageLoaderTests.unsupported)
    func unsupportedFormatsAreNamed(bytes: [UInt8], format: ImageFormat) {
        #expect(throws: ImageLoadError.unsupportedFormat(format)) { try ImageLoader().decode(bytes) }
    }

    @Test func unsupportedMessagesSayWhatToDo() {
        #expect(ImageLoadError.unsupportedFormat(.heic).message.contains("export the photo as JPEG"))
        #expect(ImageLoadError.unsupportedFormat(.pdf).message.contains("PDF is not supported"))
    }

    @Test func oversizedImageIsRefusedFromItsHeader() throws {
        let bytes = try Self.picture(width: 400, height: 300).encoded(as: .png)
        let loader = ImageLoader(maxPixels: 100_000)
        #expect(throws: ImageLoadError.tooLarge(width: 400, height: 300, limit: 100_000)) { try loader.decode(bytes) }
        #expect(ImageLoadError.tooLarge(width: 8000, height: 9000, limit: 60_000_000).message
                == "image is 8000×9000 = 72 megapixels, over the limit of 60 (raise it with --max-megapixels)")
    }

    @Test func damagedDataAfterAValidHeader() throws {
        var bytes = try Self.picture(width: 200, height: 200).encoded(as: .png)
        // Keep the signature and header chunk, scramble the compressed pixels, keep the IEND trailer.
        for i in 60..<(bytes.count - 12) { bytes[i] = UInt8(truncatingIfNeeded: i &* 37) }
        #expect(throws: ImageLoadError.damaged(.png)) { try ImageLoader().decode(bytes) }
    }
}
