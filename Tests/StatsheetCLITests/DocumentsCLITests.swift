import CTesseract
import Foundation
import Testing

/// PDFs and multi-page TIFFs through the built binary into a real SQLite store: a sheet per page, named
/// `FILE#page=N` everywhere, stored once each whatever is rerun or killed, and bad documents refused one line each.
@Suite(.serialized) struct DocumentsCLITests {
    static let printed = CLITests.root.appendingPathComponent("TestImages/lacrosse-goalie/printed")

    /// The printed samples stored as JPEG, in order.
    static func jpegs() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(atPath: printed.path).filter { $0.hasSuffix(".jpg") }.sorted()
            .map { printed.appendingPathComponent($0) }
    }

    /// A PDF whose pages are `jpegs` as they are (a copier's or a scanner app's PDF: one JPEG a page, the page the
    /// photo's size at `dpi`). Written by hand because it is the file under test: each JPEG is embedded unchanged.
    static func pdf(of jpegs: [URL], dpi: Double = 150) throws -> Data {
        var objects: [Data] = [Data("<< /Type /Catalog /Pages 2 0 R >>".utf8), Data()]
        var kids: [String] = []
        for url in jpegs {
            let jpeg = try Data(contentsOf: url)
            let header = try #require(JPEGSize(jpeg))
            let (w, h) = (Double(header.width) * 72 / dpi, Double(header.height) * 72 / dpi)
            let page = objects.count + 1
            kids.append("\(page) 0 R")
            objects.append(Data("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(w) \(h)] /Resources << /XObject << /Im0 \(page + 2) 0 R >> >> /Contents \(page + 1) 0 R >>".utf8))
            let content = "q \(w) 0 0 \(h) 0 0 cm /Im0 Do Q"
            objects.append(Data("<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream".utf8))
            var image = Data("<< /Type /XObject /Subtype /Image /Width \(header.width) /Height \(header.height) /ColorSpace /\(header.components == 1 ? "DeviceGray" : "DeviceRGB") /BitsPerComponent 8 /Filter /DCTDecode /Length \(jpeg.count) >>\nstream\n".utf8)
            image.append(jpeg)
            image.append(Data("\nendstream".utf8))
            objects.append(image)
        }
        objects[1] = Data("<< /Type /Pages /Kids [\(kids.joined(separator: " "))] /Count \(jpegs.count) >>".utf8)
        var out = Data("%PDF-1.4\n".utf8)
        var offsets: [Int] = []
        for (i, object) in objects.enumerated() {
            offsets.append(out.count)
            out.append(Data("\(i + 1) 0 obj\n".utf8))
            out.append(object)
            out.append(Data("\nendobj\n".utf8))
        }
        let xref = out.count
        var tail = "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { tail += String(format: "%010d 00000 n \n", offset) }
        tail += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        out.append(Data(tail.utf8))
        return out
    }

    /// Width, height and components from a JPEG's start-of-frame marker.
    static func JPEGSize(_ d: Data) -> (width: Int, height: Int, components: Int)? {
        let b = [UInt8](d)
        var i = 2
        while i + 9 < b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1], length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            if (0xC0...0xC3).contains(marker) {
                return (Int(b[i + 7]) << 8 | Int(b[i + 8]), Int(b[i + 5]) << 8 | Int(b[i + 6]), Int(b[i + 9]))
            }
            i += 2 + length
        }
        return nil
    }

    /// A TIFF of the images' pages, written by Leptonica page after page (as a scanner's feeder writes one).
    static func tiff(of images: [URL], to path: String) throws {
        for (i, url) in images.enumerated() {
            var pix: UnsafeMutablePointer<PIX>? = try #require(pixRead(url.path))
            defer { pixDestroy(&pix) }
            var gray: UnsafeMutablePointer<PIX>? = try #require(pixConvertTo8(pix, 0))
            defer { pixDestroy(&gray) }
            try #require(pixWriteTiff(path, gray, Int32(IFF_TIFF_LZW), i == 0 ? "w" : "a") == 0)
        }
    }

    /// The truth of each page's numbers, from its image's truth file.
    static func truth(_ image: URL) throws -> [String: Any] {
        let url = image.deletingPathExtension().appendingPathExtension("truth.json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        return try #require(object["fields"] as? [String: Any])
    }

    static func sheets(_ json: String) throws -> [[String: Any]] {
        try json.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    /// A 3-page PDF and a 3-page TIFF: six sheets, each page named and read as its image says; a rerun stores
    /// nothing; `sheets` and `review --apply` name a page by `#page=N`, and a hash alone cannot pick one page.
    @Test func documentsAreASheetAPageStoredOnce() throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let images = try Self.jpegs()
        let inbox = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        try Self.pdf(of: Array(images[0..<3])).write(to: inbox.appendingPathComponent("copier.pdf"))
        try Self.tiff(of: Array(images[3..<6]), to: inbox.appendingPathComponent("feeder.tif").path)
        let db = folder.appendingPathComponent("store.sqlite").path

        let first = try CLITests.run(["scan", inbox.path, "--db", db, "--json", "--today", "2026-11-23"])
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        #expect(first.stderr.isEmpty, "\(first.stderr)")
        let read = try Self.sheets(first.stdout)
        #expect(read.count == 6)
        var numbers = 0, wrongUnflagged = 0, right = 0
        for sheet in read {
            let file = try #require(sheet["file"] as? String), page = try #require(sheet["page"] as? Int)
            let image = images[(file.hasSuffix("copier.pdf") ? 0 : 3) + page - 1]
            let truth = try Self.truth(image)
            let fields = try #require(sheet["fields"] as? [String: [String: Any]])
            for (id, expected) in truth where expected is Int {
                numbers += 1
                let reading = fields[id] ?? [:]
                let ok = (reading["value"] as? Int) == (expected as? Int)
                right += ok ? 1 : 0
                if !ok && reading["flagged"] as? Bool != true { wrongUnflagged += 1 }
            }
        }
        #expect(numbers > 100)
        #expect(wrongUnflagged == 0)
        #expect(Double(right) >= 0.98 * Double(numbers), "\(right) of \(numbers)")
        #expect(Set(read.map { "\(($0["file"] as? NSString)?.lastPathComponent ?? "")#\($0["page"] ?? "")" })
                == ["copier.pdf#1", "copier.pdf#2", "copier.pdf#3", "feeder.tif#1", "feeder.tif#2", "feeder.tif#3"])

        let again = try CLITests.run(["scan", inbox.path, "--db", db, "--today", "2026-11-23"])
        #expect(again.stdout.contains("2 files, 6 sheets: 0 read"), "\(again.stdout)")
        #expect(again.stdout.contains("copier.pdf#page=2: already in the store"), "\(again.stdout)")
        #expect(try StoreCLITests.counts(db).sheets == 6)

        let listed = try CLITests.run(["sheets", "--db", db])
        #expect(listed.stdout.contains("feeder.tif#page=3"), "\(listed.stdout)")

        // A correction names the page; the file's hash alone names three sheets, and is refused.
        let page2 = inbox.appendingPathComponent("copier.pdf").path + "#page=2"
        let corrections = folder.appendingPathComponent("c.json")
        try Data(#"[{"sheet": "\#(page2)", "field": "q1.clears", "value": 9}]"#.utf8).write(to: corrections)
        let applied = try CLITests.run(["review", "--apply", corrections.path, "--db", db, "--reviewer", "test"])
        #expect(applied.status == 0, "\(applied.stdout)\(applied.stderr)")
        let stored = try Self.sheets(try CLITests.run(["sheets", "--db", db, "--json"]).stdout)
        let sha = try #require(stored.first { ($0["path"] as? String)?.hasSuffix("copier.pdf") == true }?["sha256"] as? String)
        try Data(#"[{"sheet": "\#(sha)", "field": "q1.clears", "value": 9}]"#.utf8).write(to: corrections)
        let ambiguous = try CLITests.run(["review", "--apply", corrections.path, "--db", db, "--reviewer", "test"])
        #expect(ambiguous.status != 0, "\(ambiguous.stdout)")
    }

    /// `kill -9` while a 40-page PDF is read, then the same command: 40 sheets, each stored once and whole.
    @Test func killedInTheMiddleOfALongPDFThenRerunStoresEveryPageOnce() throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let images = try Self.jpegs()
        let pages = (0..<40).map { images[$0 % images.count] }
        try Self.pdf(of: pages).write(to: folder.appendingPathComponent("season.pdf"))
        let db = folder.appendingPathComponent("store.sqlite").path
        let scan = StoreCLITests.process(["scan", folder.path, "--db", db, "--jobs", "2"])
        try scan.run()
        // Killed once some pages are stored and others are not.
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline, (try? StoreCLITests.counts(db).sheets) ?? 0 < 3 { Thread.sleep(forTimeInterval: 0.1) }
        kill(scan.processIdentifier, SIGKILL)
        scan.waitUntilExit()
        let partial = try StoreCLITests.counts(db)
        #expect(partial.sheets >= 3 && partial.sheets < 40, "\(partial)")

        let rerun = try CLITests.run(["scan", folder.path, "--db", db, "--jobs", "2"])
        #expect(rerun.status == 0, "\(rerun.stdout)")
        let counts = try StoreCLITests.counts(db)
        #expect(counts.sheets == 40)
        #expect(counts.readings == 40 * StoreCLITests.fieldsPerSheet)
        #expect(counts.gameLogs == 40)
        #expect(counts.stats == 40 * 24)
    }

    /// Two 10-page PDFs then an image, read by two workers that open both PDFs at once: every page is read,
    /// and shown in file then page order. Pages of the later PDF queued ahead of the earlier one's would fill
    /// every waiting slot with results that cannot be shown yet, and the batch would never end.
    @Test func twoLongDocumentsOpenedAtOnceAreShownInOrderAndEnd() throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let images = try Self.jpegs()
        let pages = (0..<10).map { images[$0 % images.count] }
        try Self.pdf(of: pages).write(to: folder.appendingPathComponent("a.pdf"))
        try Self.pdf(of: pages.reversed()).write(to: folder.appendingPathComponent("b.pdf"))
        try FileManager.default.copyItem(at: images[0], to: folder.appendingPathComponent("c.jpg"))
        // Three rounds: which worker opens its PDF first is up to the scheduler.
        for _ in 0..<3 {
            let scan = Process()
            scan.executableURL = CLITests.binary
            scan.arguments = ["scan", folder.path, "--dry-run", "--json", "--jobs", "2", "--today", "2026-11-23"]
            let out = FileManager.default.temporaryDirectory.appendingPathComponent("statsheet-order-\(UUID().uuidString).json")
            #expect(FileManager.default.createFile(atPath: out.path, contents: nil))
            defer { try? FileManager.default.removeItem(at: out) }
            scan.standardOutput = try FileHandle(forWritingTo: out)
            scan.standardError = FileHandle.nullDevice
            try scan.run()
            let deadline = Date().addingTimeInterval(120)
            while scan.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
            let ended = !scan.isRunning
            if !ended { scan.terminate() }
            scan.waitUntilExit()
            try #require(ended, "the scan of two PDFs did not end")
            let shown = try Self.sheets(String(decoding: try Data(contentsOf: out), as: UTF8.self)).map { sheet in
                let name = URL(fileURLWithPath: sheet["file"] as? String ?? "").lastPathComponent
                return "\(name)#\(sheet["page"] as? Int ?? 0)"
            }
            #expect(shown == (1...10).map { "a.pdf#\($0)" } + (1...10).map { "b.pdf#\($0)" } + ["c.jpg#0"], "\(shown)")
        }
    }

    /// Each bad document fails with its own line and the batch goes on, with nothing on stderr: damaged, cut
    /// short, no pages, a /Count of 100,000, and a page that is no sheet (the other pages are read).
    @Test func badDocumentsFailOneLineEachAndTheBatchGoesOn() throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let images = try Self.jpegs()
        let good = try Self.pdf(of: Array(images[0..<2]))
        try good.write(to: folder.appendingPathComponent("a-good.pdf"))
        try good.prefix(good.count / 2).write(to: folder.appendingPathComponent("b-cut.pdf"))
        try Data("%PDF-1.4\nthis is not a PDF at all\n".utf8).write(to: folder.appendingPathComponent("c-damaged.pdf"))
        let empty = "%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n"
        try Data(empty.utf8).write(to: folder.appendingPathComponent("d-empty.pdf"))
        try Data(empty.replacingOccurrences(of: "/Count 0", with: "/Count 100000").utf8).write(to: folder.appendingPathComponent("e-claims.pdf"))
        // A page that is no sheet (blank paper) between two sheets.
        var blank: UnsafeMutablePointer<PIX>? = try #require(pixCreate(1275, 1650, 8))
        pixSetAll(blank)
        let blankPath = folder.appendingPathComponent("blank.jpg").path
        try #require(pixWriteJpeg(blankPath, blank, 75, 0) == 0)
        pixDestroy(&blank)
        try Self.pdf(of: [images[2], URL(fileURLWithPath: blankPath), images[3]]).write(to: folder.appendingPathComponent("f-mixed.pdf"))
        try FileManager.default.removeItem(atPath: blankPath)

        let db = folder.appendingPathComponent("store.sqlite").path
        let started = Date()
        let r = try CLITests.run(["scan", folder.path, "--db", db])
        #expect(Date().timeIntervalSince(started) < 300)
        #expect(r.status == 1)
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        for name in ["b-cut.pdf", "c-damaged.pdf", "d-empty.pdf", "e-claims.pdf"] {
            #expect(lines.filter { $0.contains(name) && $0.contains("FAILED") }.count == 1, "\(name): \(r.stdout)")
        }
        #expect(lines.contains { $0.contains("f-mixed.pdf#page=2: FAILED") }, "\(r.stdout)")
        for page in ["a-good.pdf#page=1", "a-good.pdf#page=2", "f-mixed.pdf#page=1", "f-mixed.pdf#page=3"] {
            #expect(lines.contains { $0.contains(page + " — lacrosse-goalie") }, "\(page): \(r.stdout)")
        }
        let failed = try CLITests.run(["sheets", "--db", db, "--status", "failed"])
        #expect(failed.stdout.contains("f-mixed.pdf#page=2: FAILED"), "\(failed.stdout)")
    }
}
