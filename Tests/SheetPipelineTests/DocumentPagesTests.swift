import CHeif
import CTesseract
import Foundation
import OCRKit
import Testing
@testable import SheetPipeline

/// HEIC photos, TIFFs of several pages and PDFs, each made at test time by a real encoder (heif-enc and
/// libheif's encoder, Leptonica's TIFF and PDF writers, qpdf) or written by hand where the file is the point
/// (a PDF that lies about its pages).
@Suite struct DocumentPagesTests {
    // MARK: HEIC/HEIF

    /// Runs a command-line tool to completion; its output is kept from the test's own.
    static func runTool(_ tool: String, _ arguments: [String]) throws {
        let run = try ToolProcess.run(tool, arguments, timeout: 120)
        guard run.status == 0 else { throw FixtureError("\(tool) \(arguments): \(run.stderr.joined(separator: "\n"))") }
    }

    static let heifEnc = ToolProcess.find("heif-enc")

    @Test(.enabled(if: heifEnc != nil, "heif-enc (libheif-examples) makes the HEIC files"))
    func aHEICPhotoLoadsAsGray() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Fixtures.write(try ImageLoaderTests.picture(width: 320, height: 240).encoded(as: .png), to: folder + "/in.png")
        try Self.runTool("heif-enc", ["-q", "90", folder + "/in.png", "-o", folder + "/photo.heic"])
        let bytes = try ImageLoader.readFile(folder + "/photo.heic")
        #expect(ImageFormat.sniff(bytes) == .heic)
        #expect(try ImageLoader().pageCount(path: folder + "/photo.heic", contents: bytes) == nil)
        let header = try ImageHeader.read(bytes)
        #expect((header.width, header.height, header.bitsPerSample) == (320, 240, 8))
        let loaded = try ImageLoader().load(folder + "/photo.heic", contents: bytes)
        #expect(loaded.format == .heic && loaded.image.depth == 8 && loaded.page == nil)
        let gray = try loaded.image.grayBuffer()
        #expect((gray.width, gray.height) == (320, 240))
        #expect(gray[10, 10] < 60 && gray[300, 200] > 200)
        // Refused from the boxes alone, before any pixel is decoded.
        #expect(throws: ImageLoadError.tooLarge(width: 320, height: 240, limit: 50_000)) { try ImageLoader(maxPixels: 50_000).decode(bytes) }
    }

    /// A 10-bit HEIC (as an iPhone's HDR photos are) from a 16-bit PNG ramp whose column x holds x × 257:
    /// the gray levels survive the trip to 8 bits.
    @Test(.enabled(if: heifEnc != nil, "heif-enc (libheif-examples) makes the HEIC files"))
    func tenBitHEICKeepsItsGrayLevels() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let ramp = ImageLoaderTests.oddInputs.appendingPathComponent("ramp16.png").path
        try Self.runTool("heif-enc", ["-b", "10", "-q", "95", ramp, "-o", folder + "/ramp.heic"])
        let bytes = try ImageLoader.readFile(folder + "/ramp.heic")
        #expect(try ImageHeader.read(bytes).bitsPerSample == 10)
        let gray = try ImageLoader().decode(bytes).image.grayBuffer()
        #expect((gray.width, gray.height) == (256, 8))
        for x in stride(from: 8, to: 248, by: 16) { #expect(abs(Int(gray[x, 4]) - x) <= 6, "column \(x) read as \(gray[x, 4])") }
    }

    /// Writes `picture` as HEIC through libheif's encoder, with `irot`/`imir` boxes for the EXIF-numbered
    /// `orientation` (heif-enc 1.15 has no option for them).
    static func heic(_ picture: GrayBuffer, orientation: Int, to path: String) throws {
        func check(_ error: heif_error) throws {
            guard error.code == heif_error_Ok else { throw FixtureError(String(cString: error.message)) }
        }
        let context = heif_context_alloc()
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder))
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, 90))
        _ = heif_encoder_set_parameter(encoder, "x265:log-level", "none")   // keeps x265's banner off the test output
        var image: OpaquePointer?
        try check(heif_image_create(Int32(picture.width), Int32(picture.height), heif_colorspace_YCbCr, heif_chroma_420, &image))
        defer { heif_image_release(image) }
        let chroma = ((picture.width + 1) / 2, (picture.height + 1) / 2)
        for (channel, w, h) in [(heif_channel_Y, picture.width, picture.height), (heif_channel_Cb, chroma.0, chroma.1), (heif_channel_Cr, chroma.0, chroma.1)] {
            try check(heif_image_add_plane(image, channel, Int32(w), Int32(h), 8))
            var stride: Int32 = 0
            let plane = try #require(heif_image_get_plane(image, channel, &stride))
            for y in 0..<h {
                for x in 0..<w { plane[y * Int(stride) + x] = channel == heif_channel_Y ? picture[x, y] : 128 }
            }
        }
        let options = try #require(heif_encoding_options_alloc())
        defer { heif_encoding_options_free(options) }
        options.pointee.image_orientation = heif_orientation(rawValue: UInt32(orientation))
        try check(heif_context_encode_image(context, image, encoder, options, nil))
        try check(heif_context_write_to_file(context, path))
    }

    /// Stored 80 × 40 with a block in its top-left corner; upright once, by its `irot`/`imir`, wherever EXIF
    /// orientation `orientation` would put it (the same table as `ExifOrientationTests`).
    @Test(arguments: [(1, "TL"), (2, "TR"), (3, "BR"), (4, "BL"), (5, "TL"), (6, "TR"), (7, "BR"), (8, "BL")])
    func aRotatedHEICArrivesUpright(orientation: Int, corner: String) throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let stored = try ImageLoaderTests.picture(width: 80, height: 40).grayBuffer()
        try Self.heic(stored, orientation: orientation, to: folder + "/turned.heic")
        let bytes = try ImageLoader.readFile(folder + "/turned.heic")
        let sideways = orientation >= 5
        let header = try ImageHeader.read(bytes)
        #expect((header.width, header.height) == (sideways ? (40, 80) : (80, 40)))
        let loaded = try ImageLoader().decode(bytes)
        #expect(loaded.exifOrientation == nil)
        let gray = try loaded.image.grayBuffer()
        #expect((gray.width, gray.height) == (header.width, header.height))
        let (w, h) = (gray.width, gray.height)
        for (name, (x, y)) in ["TL": (3, 3), "TR": (w - 4, 3), "BR": (w - 4, h - 4), "BL": (3, h - 4)] {
            if name == corner { #expect(gray[x, y] < 80, "orientation \(orientation): block should be at \(name)") }
            else { #expect(gray[x, y] > 180, "orientation \(orientation): \(name) should be paper") }
        }
    }

    @Test func aCutHEICIsTruncatedAndGarbageIsDamaged() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.heic(try ImageLoaderTests.picture(width: 320, height: 240).grayBuffer(), orientation: 1, to: folder + "/x.heic")
        let bytes = try ImageLoader.readFile(folder + "/x.heic")
        #expect(throws: ImageLoadError.truncated(.heic)) { try ImageLoader().decode(Array(bytes.prefix(bytes.count / 2))) }
        let garbage: [UInt8] = [0, 0, 0, 24] + Array("ftypheic".utf8) + [UInt8](repeating: 0, count: 12)
        let error = #expect(throws: ImageLoadError.self) { try ImageLoader().decode(garbage) }
        guard case .damaged(.heic, let reason?) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(!reason.isEmpty)
    }

    // MARK: TIFF of several pages

    /// Three pages of different sizes, each with its block somewhere else.
    static func threePageTIFF() throws -> [UInt8] {
        let pixa = try #require(pixaCreate(3))
        var owned: UnsafeMutablePointer<PIXA>? = pixa
        defer { pixaDestroy(&owned) }
        for page in 0..<3 {
            let pix = try #require(pixCreate(Int32(200 + 40 * page), 300, 8))
            pixSetAll(pix)
            let box = boxCreate(Int32(20 + 60 * page), 20, 30, 30)
            pixClearInRect(pix, box)
            var b = box
            boxDestroy(&b)
            pixaAddPix(pixa, pix, Int32(L_INSERT))
        }
        var data: UnsafeMutablePointer<UInt8>?
        var size = 0
        try #require(pixaWriteMemMultipageTiff(&data, &size, pixa) == 0)
        let bytes = try #require(data)
        defer { lept_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }

    @Test func everyPageOfATIFFIsCountedAndRead() throws {
        let bytes = try Self.threePageTIFF()
        let loader = ImageLoader()
        #expect(try loader.pages(bytes) == 3)
        for page in 1...3 {
            let loaded = try loader.decode(bytes, page: page)
            #expect(loaded.page == page)
            let gray = try loaded.image.grayBuffer()
            #expect((gray.width, gray.height) == (200 + 40 * (page - 1), 300))
            for block in 0..<3 {
                let x = 35 + 60 * block
                if block == page - 1 { #expect(gray[x, 35] < 60, "page \(page)") } else { #expect(gray[x, 35] > 200, "page \(page)") }
            }
        }
        #expect(throws: ImageLoadError.pageNotChosen(pages: 3)) { try loader.decode(bytes) }
        #expect(throws: ImageLoadError.noSuchPage(page: 4, pages: 3)) { try loader.decode(bytes, page: 4) }
        #expect(throws: ImageLoadError.tooManyPages(count: 3, limit: 2)) { try ImageLoader(maxPixels: 60_000_000).with(maxPages: 2).pages(bytes) }
        // A page too large is refused alone, from its own header.
        #expect(throws: ImageLoadError.tooLarge(width: 280, height: 300, limit: 80_000)) { try ImageLoader(maxPixels: 80_000).decode(bytes, page: 3) }
        #expect(try ImageLoader(maxPixels: 80_000).decode(bytes, page: 1).image.width == 200)
    }

    @Test func aOnePageTIFFIsOneImage() throws {
        let bytes = try ImageLoaderTests.picture().encoded(as: .tiff)
        #expect(try ImageLoader().pages(bytes) == nil)
        #expect(try ImageLoader().decode(bytes).page == nil)
        #expect(try ImageLoader().decode(bytes, page: 1).image.width == 64)
    }

    // MARK: PDF

    /// A PDF written by hand: `pages` are content streams (drawn in points) on pages of `size` points.
    static func pdf(pages: [(size: (Double, Double), content: String)], claimedCount: Int? = nil, pageEntries: String = "") -> [UInt8] {
        var objects: [String] = ["<< /Type /Catalog /Pages 2 0 R >>", ""]
        var kids: [String] = []
        for page in pages {
            let pageNumber = objects.count + 1
            kids.append("\(pageNumber) 0 R")
            objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(page.size.0) \(page.size.1)] \(pageEntries)/Contents \(pageNumber + 1) 0 R >>")
            objects.append("<< /Length \(page.content.utf8.count) >>\nstream\n\(page.content)\nendstream")
        }
        objects[1] = "<< /Type /Pages /Kids [\(kids.joined(separator: " "))] /Count \(claimedCount ?? pages.count) >>"
        var out = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (i, object) in objects.enumerated() {
            offsets.append(out.utf8.count)
            out += "\(i + 1) 0 obj\n\(object)\nendobj\n"
        }
        let xref = out.utf8.count
        out += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { out += String(format: "%010d 00000 n \n", offset) }
        out += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return Array(out.utf8)
    }

    /// A letter page drawn with one black rectangle, 1 inch from the left and top, 2 × 1 inches.
    static let vectorPage = (size: (612.0, 792.0), content: "0 g 72 648 144 72 re f")

    /// Pages of `inches` scanned at `dpi`, each with its block somewhere else, as Leptonica writes them.
    static func scannedPDF(pages: Int, dpi: Int, inches: (Double, Double)) throws -> [UInt8] {
        let pixa = try #require(pixaCreate(Int32(pages)))
        var owned: UnsafeMutablePointer<PIXA>? = pixa
        defer { pixaDestroy(&owned) }
        for page in 0..<pages {
            let pix = try #require(pixCreate(Int32(inches.0 * Double(dpi)), Int32(inches.1 * Double(dpi)), 8))
            pixSetAll(pix)
            pixSetResolution(pix, Int32(dpi), Int32(dpi))
            var box = boxCreate(Int32(dpi / 4 + page * dpi), Int32(dpi / 4), Int32(dpi / 2), Int32(dpi / 2))
            pixClearInRect(pix, box)
            boxDestroy(&box)
            pixaAddPix(pixa, pix, Int32(L_INSERT))
        }
        var data: UnsafeMutablePointer<UInt8>?
        var size = 0
        try #require(pixaConvertToPdfData(pixa, Int32(dpi), 1, Int32(L_FLATE_ENCODE), 0, "scan", &data, &size) == 0)
        let bytes = try #require(data)
        defer { lept_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }

    static func write(_ bytes: [UInt8], named name: String, in folder: String) throws -> String {
        let path = folder + "/" + name
        try Fixtures.write(bytes, to: path)
        return path
    }

    /// A vector page is rendered at `vectorDPI` (200): a letter page 1,700 × 2,200, its rectangle where it was drawn.
    @Test func aVectorPageRendersAtTheReadersResolution() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = Self.pdf(pages: [Self.vectorPage])
        let path = try Self.write(bytes, named: "vector.pdf", in: folder)
        #expect(try ImageLoader().pageCount(path: path, contents: bytes) == 1)
        let loaded = try ImageLoader().load(path, contents: bytes, page: 1)
        #expect(loaded.format == .pdf && loaded.page == 1 && loaded.renderedDPI == 200)
        let gray = try loaded.image.grayBuffer()
        #expect((gray.width, gray.height) == (1700, 2200))
        #expect(gray[300, 300] < 40 && gray[100, 100] > 230 && gray[700, 300] > 230)
        // A one-page PDF read as one image is that page.
        #expect(try ImageLoader().load(path, contents: bytes).page == 1)
    }

    /// Each page of a three-page scan is its own image, rendered at the scan's own 250 dpi.
    @Test func aScannedPDFsPagesReadAtTheirOwnResolution() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = try Self.scannedPDF(pages: 3, dpi: 250, inches: (4, 3))
        let path = try Self.write(bytes, named: "scan.pdf", in: folder)
        let loader = ImageLoader()
        #expect(try loader.pageCount(path: path, contents: bytes) == 3)
        for page in 1...3 {
            let loaded = try loader.load(path, contents: bytes, page: page)
            #expect(loaded.renderedDPI == 250 && loaded.page == page)
            let gray = try loaded.image.grayBuffer()
            #expect((gray.width, gray.height) == (1000, 750))
            for block in 0..<3 {
                let x = 125 + 250 * block
                if block == page - 1 { #expect(gray[x, 125] < 60, "page \(page)") } else { #expect(gray[x, 125] > 200, "page \(page)") }
            }
        }
        #expect(throws: ImageLoadFailure(path: path, error: .pageNotChosen(pages: 3))) { try loader.load(path, contents: bytes) }
        #expect(throws: ImageLoadFailure(path: path, error: .noSuchPage(page: 4, pages: 3))) { try loader.load(path, contents: bytes, page: 4) }
        // A scan's resolution is kept inside 150...400 dpi.
        let fax = try Self.scannedPDF(pages: 1, dpi: 72, inches: (4, 3))
        #expect(try loader.decode(fax, page: 1).renderedDPI == 150)
    }

    /// The sheet `statsheet template render --out sheet.pdf` writes (a 300-dpi page image) comes back a letter page
    /// at 150 dpi: the scale a 300-dpi letter JPEG is decoded at (`jpegReduction`), so a page reads as its image does.
    @Test func aRenderedTemplatePDFLoadsAsItsImageWould() throws {
        let bytes = try SheetRenderer(template: try Fixtures.lacrosse(), dpi: 300).encoded(pdf: true)
        let loader = ImageLoader()
        let loaded = try loader.decode(bytes, page: 1)
        #expect(loader.jpegReduction(width: 2550, height: 3300) == 2)
        #expect(loaded.renderedDPI == 150)
        #expect((loaded.image.width, loaded.image.height) == (1275, 1650))
    }

    /// A page a viewer shows turned (`/Rotate 90`) arrives turned: landscape, its rectangle at the top right.
    @Test func aRotatedPageArrivesAsAViewerShowsIt() throws {
        let loaded = try ImageLoader().decode(Self.pdf(pages: [Self.vectorPage], pageEntries: "/Rotate 90 "), page: 1)
        let gray = try loaded.image.grayBuffer()
        #expect((gray.width, gray.height) == (2200, 1700))
        #expect(gray[1900, 300] < 40 && gray[300, 300] > 230)
    }

    /// A page that would render over the pixel limit is refused before it is rendered; the next page reads.
    @Test func aHugePageIsRefusedAlone() throws {
        let bytes = Self.pdf(pages: [(size: (14400, 14400), content: "0 g 0 0 72 72 re f"), Self.vectorPage])
        let loader = ImageLoader()
        #expect(try loader.pages(bytes) == 2)
        #expect(throws: ImageLoadError.pageTooLarge(page: 1, width: 40_000, height: 40_000, dpi: 200, limit: 60_000_000)) {
            try loader.decode(bytes, page: 1)
        }
        #expect(try loader.decode(bytes, page: 2).image.width == 1700)
        #expect(ImageLoadError.pageTooLarge(page: 1, width: 40_000, height: 40_000, dpi: 200, limit: 60_000_000).message
                == "page 1 would be 40000×40000 = 1600 megapixels at 200 dpi, over the limit of 60 (raise it with --max-megapixels)")
    }

    @Test func tooManyPagesAreRefusedFromTheCount() throws {
        let bytes = Self.pdf(pages: Array(repeating: (size: (72.0, 72.0), content: "0 g 0 0 9 9 re f"), count: 501))
        #expect(throws: ImageLoadError.tooManyPages(count: 501, limit: 500)) { try ImageLoader().pages(bytes) }
        #expect(throws: ImageLoadError.tooManyPages(count: 501, limit: 500)) { try ImageLoader().decode(bytes, page: 1) }
    }

    /// Poppler counts a PDF's pages from its objects: no pages, or a `/Count` of 100,000 over one page object,
    /// is a PDF with no page to read, with Poppler's reason.
    @Test func aPDFWithoutPagesOrLyingAboutThemIsRefused() throws {
        #expect(throws: ImageLoadError.noPages(reason: "Syntax Error: Invalid page count 0")) { try ImageLoader().pages(Self.pdf(pages: [])) }
        let error = #expect(throws: ImageLoadError.self) { try ImageLoader().pages(Self.pdf(pages: [Self.vectorPage], claimedCount: 100_000)) }
        guard case .noPages(let reason?) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(reason.contains("100000"))
    }

    @Test func aCutPDFIsTruncatedAndGarbageIsDamaged() throws {
        let scan = try Self.scannedPDF(pages: 2, dpi: 150, inches: (4, 3))
        #expect(throws: ImageLoadError.truncated(.pdf)) { try ImageLoader().pages(Array(scan.prefix(scan.count / 3))) }
        let garbage = Array("%PDF-1.4\nthis is not a PDF body\n%%EOF\n".utf8)
        let error = #expect(throws: ImageLoadError.self) { try ImageLoader().pages(garbage) }
        guard case .damaged(.pdf, let reason?) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(!reason.isEmpty)
    }

    static let qpdf = ToolProcess.find("qpdf")

    /// A PDF locked with a user password is refused as encrypted; one with only an owner password (it opens
    /// for anyone, with editing restricted) reads.
    @Test(.enabled(if: qpdf != nil, "qpdf (Debian package qpdf) encrypts the test PDF"))
    func anEncryptedPDFIsRefused() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plain = try Self.write(Self.pdf(pages: [Self.vectorPage]), named: "plain.pdf", in: folder)
        for (name, user) in [("locked.pdf", "secret"), ("owner-only.pdf", "")] {
            let run = try ToolProcess.run("qpdf", ["--encrypt", user, "owner", "256", "--", plain, folder + "/" + name], timeout: 60)
            try #require(run.status == 0 || run.status == 3, "\(run.stderr)")   // 3: done, with warnings
        }
        let locked = try ImageLoader.readFile(folder + "/locked.pdf")
        #expect(throws: ImageLoadFailure(path: folder + "/locked.pdf", error: .encrypted)) {
            try ImageLoader().pageCount(path: folder + "/locked.pdf", contents: locked)
        }
        #expect(try ImageLoader().decode(try ImageLoader.readFile(folder + "/owner-only.pdf"), page: 1).image.width == 1700)
    }

    // MARK: The tools' processes

    @Test func aToolThatHangsIsKilled() throws {
        #expect(throws: ToolProcess.Failure.timedOut("sleep", seconds: 0.2)) { try ToolProcess.run("sleep", ["30"], timeout: 0.2) }
    }

    @Test func aMissingToolIsNamed() throws {
        #expect(throws: ToolProcess.Failure.notFound("pdfinfo-not-installed")) { try ToolProcess.run("pdfinfo-not-installed", [], timeout: 5) }
        #expect(ImageLoadError.toolMissing("pdfinfo").message
                == "reading PDF needs poppler-utils, which is not installed (no pdfinfo found): sudo apt-get install poppler-utils")
    }
}

extension ImageLoader {
    func with(maxPages: Int) -> ImageLoader {
        var copy = self
        copy.maxPages = maxPages
        return copy
    }
}

/// What resolution a sheet's PDF page needs: the filled sheet printed as a 300-dpi page image, rendered at
/// `dpi` (as a page of text and lines is, at `vectorDPI`), reads back every value.
@Suite struct PDFSheetResolutionTests {
    @Test(arguments: [100, 150, 200])
    func aFilledSheetsPDFPageReadsBack(dpi: Int) throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sheet = try Fixtures.filledSheet(try Fixtures.lacrosse(), values: Fixtures.game, dpi: 300)
        let path = folder + "/sheet.pdf"
        try Fixtures.write(try sheet.pdfData(dpi: 300, title: "sheet"), to: path)
        var loader = ImageLoader()
        loader.scanDPI = dpi...dpi
        let scanner = try SheetScanner(library: try Fixtures.library(), options: ScanOptions(loader: loader, today: Fixtures.scanDay))
        let result = scanner.scan(path)
        #expect(result.status != .failed, "\(result.error ?? "")")
        let wrong = Fixtures.game.filter { result.reading($0.key)?.value != $0.value }
        #expect(wrong.isEmpty, "at \(dpi) dpi, wrong: \(wrong.keys.sorted())")
    }
}
