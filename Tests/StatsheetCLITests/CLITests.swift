import Foundation
import Testing

/// Runs the built `statsheet` binary as a user would and checks what it prints and how it exits.
@Suite struct CLITests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The binary SwiftPM built beside this test bundle.
    static var binary: URL {
        let candidates = [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()]
            + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        for dir in candidates {
            let url = dir.appendingPathComponent("statsheet")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return root.appendingPathComponent(".build/debug/statsheet")
    }

    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static func run(_ arguments: [String], in directory: URL = root, environment: [String: String] = [:]) throws -> Run {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                   stderr: String(decoding: stderr, as: UTF8.self))
    }

    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("statsheet-cli-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func helpListsEveryCommand() throws {
        let r = try Self.run(["--help"])
        #expect(r.status == 0)
        for command in ["scan", "games", "report", "sheets", "names", "eval", "template", "doctor"] { #expect(r.stdout.contains(command), "\(command) missing from help") }
        let scan = try Self.run(["scan", "--help"])
        for option in ["--template", "--json", "--overlay", "--min-confidence", "--max-megapixels", "--db", "--jobs", "--dry-run",
                       "--reread", "--review-all", "--no-adapt", "--athlete", "--opponent", "--context"] {
            #expect(scan.stdout.contains(option), "\(option) missing from scan help")
        }
        let eval = try Self.run(["eval", "--help"])
        #expect(eval.stdout.contains("--db <path|url>"), "--db missing from eval help")
    }

    @Test func templateListAndShow() throws {
        let list = try Self.run(["template", "list"])
        #expect(list.status == 0)
        for id in ["lacrosse-goalie", "hockey-goalie", "soccer-keeper", "basketball-box"] { #expect(list.stdout.contains("\(id)  v1")) }
        let show = try Self.run(["template", "show", "lacrosse-goalie"])
        #expect(show.stdout.contains("total.clears"))
        #expect(show.stdout.contains("combs 2"))
        let unknown = try Self.run(["template", "show", "cricket"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("unknown template 'cricket'; known: basketball-box, hockey-goalie, lacrosse-goalie, soccer-keeper"))
    }

    @Test func renderWritesPNGAndPDF() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent("blank.png").path, pdf = folder.appendingPathComponent("blank.pdf").path
        #expect(try Self.run(["template", "render", "lacrosse-goalie", "--out", png, "--dpi", "100"]).status == 0)
        #expect(try Self.run(["template", "render", "lacrosse-goalie", "--out", pdf]).status == 0)
        let pngBytes = try Data(contentsOf: URL(fileURLWithPath: png))
        #expect(pngBytes.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        // 612×792 points at 100 dpi: 850×1100 pixels, stored big-endian in the IHDR chunk.
        #expect(Array(pngBytes[16..<24]) == [0, 0, 0x03, 0x52, 0, 0, 0x04, 0x4C])
        #expect(try Data(contentsOf: URL(fileURLWithPath: pdf)).prefix(4) == Data("%PDF".utf8))
        let bad = try Self.run(["template", "render", "lacrosse-goalie", "--out", folder.appendingPathComponent("x.gif").path])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--out must end in .png or .pdf"))
    }

    /// One bad file never stops the batch; each gets its own line; the exit status reports the failure.
    @Test func scanReportsEachBadFileAndReadsTheRest() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = Self.root.appendingPathComponent("TestImages/lacrosse-goalie/clean-300dpi/sheet-001.png").path
        let empty = folder.appendingPathComponent("empty.jpg").path
        let text = folder.appendingPathComponent("notes.png").path
        let blank = folder.appendingPathComponent("blank.png").path
        FileManager.default.createFile(atPath: empty, contents: Data())
        FileManager.default.createFile(atPath: text, contents: Data("12 saves".utf8))
        _ = try Self.run(["template", "render", "lacrosse-goalie", "--out", blank, "--dpi", "100"])
        let pngData = try Data(contentsOf: URL(fileURLWithPath: good))
        let truncated = folder.appendingPathComponent("cut.png").path
        FileManager.default.createFile(atPath: truncated, contents: pngData.prefix(pngData.count / 2))
        let missing = folder.appendingPathComponent("missing.png").path

        let r = try Self.run(["scan", "--dry-run", "--json", good, empty, text, truncated, missing, blank])
        #expect(r.status == 1)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 6)
        let objects = try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        func error(_ i: Int) -> String { objects[i]["error"] as? String ?? "" }
        #expect(objects[0]["status"] as? String == "clean" || objects[0]["status"] as? String == "needs_review")
        #expect(objects[0]["template"] as? String == "lacrosse-goalie")
        let fields = try #require(objects[0]["fields"] as? [String: [String: Any]])
        #expect(fields.count == 31)
        #expect(fields["q1.shots"]?["confidence"] is Double)
        #expect(error(1) == "the file is empty (0 bytes)")
        #expect(error(2).hasPrefix("not an image"))
        #expect(error(3).hasPrefix("truncated PNG"))
        #expect(error(4) == "no such file")
        // An unfilled sheet aligns and reads as empty fields (required-field rules come with validation).
        let blankFields = try #require(objects[5]["fields"] as? [String: [String: Any]])
        #expect(blankFields["q1.shots"]?["value"] is NSNull)
        for i in 1...4 { #expect(objects[i]["status"] as? String == "failed") }
    }

    @Test func tableOutputShowsTheGridAndSummary() throws {
        let good = Self.root.appendingPathComponent("TestImages/lacrosse-goalie/clean-300dpi/sheet-002.png").path
        let r = try Self.run(["scan", "--dry-run", good])
        #expect(r.status == 0)
        #expect(r.stdout.contains("shots"))
        #expect(r.stdout.contains("total"))
        #expect(r.stdout.contains("1 sheet: "))
    }

    @Test func overlayIsWritten() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = Self.root.appendingPathComponent("TestImages/lacrosse-goalie/clean-300dpi/sheet-003.png").path
        let r = try Self.run(["scan", "--dry-run", good, "--overlay", folder.path])
        #expect(r.status == 0)
        let overlay = folder.appendingPathComponent("sheet-003.overlay.jpg")
        #expect(try Data(contentsOf: overlay).prefix(2) == Data([0xFF, 0xD8]))
    }

    @Test func doctorPassesHere() throws {
        let r = try Self.run(["doctor"])
        #expect(r.status == 0, "\(r.stdout)")
        #expect(r.stdout.contains("Tesseract 5"))
        #expect(r.stdout.contains("OpenMP: one thread per Tesseract engine"))
        #expect(r.stdout.contains("eng"))
        #expect(r.stdout.contains("HEIC/HEIF photos: libheif 1.") && r.stdout.contains("with an HEVC decoder"), "\(r.stdout)")
        #expect(r.stdout.contains("PDF documents: Poppler "), "\(r.stdout)")
    }

    /// Without Poppler's tools on PATH, doctor names the package that brings them and fails.
    @Test func doctorSaysWhenPDFCannotBeRead() throws {
        let r = try Self.run(["doctor"], environment: ["PATH": "/nonexistent"])
        let text = r.stdout
        #expect(r.status == 1)
        #expect(text.contains("PDF documents cannot be read") && text.contains("apt-get install poppler-utils"), "\(text)")
    }

    @Test func evalReportsAccuracyOnTheCleanSheets() throws {
        let r = try Self.run(["eval", "TestImages/lacrosse-goalie/clean-300dpi", "--require-accuracy", "99.5", "--max-silent-errors", "0"])
        #expect(r.status == 0, "\(r.stdout)")
        #expect(r.stdout.contains("5 sheets, 0 failed"))
        // What a confidence over the review line is worth, flagged or not: on clean print, all right.
        let confident = r.stdout.split(separator: "\n").first { $0.contains("confidence 70 or more: ") }
        #expect(confident?.hasSuffix(" fields, 100.00% right") == true, "\(r.stdout)")
    }

    /// `eval --names`: the names read against a roster, counted apart (by kind) with the sheets no name flags.
    @Test func evalWithANamesFileCountsNamesAndSheets() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let set = Self.root.appendingPathComponent("TestImages/lacrosse-goalie/handwritten-phone")
        // Names Tesseract misreads alone ("Emerson Felly", "Qree Patel", "Morqan Davis").
        for sheet in ["sheet-012", "sheet-016", "sheet-020"] {
            for suffix in [".jpg", ".truth.json"] {
                try FileManager.default.copyItem(at: set.appendingPathComponent(sheet + suffix), to: folder.appendingPathComponent(sheet + suffix))
            }
        }
        let roster = folder.appendingPathComponent("roster.csv")
        try Data("kind,name\nathlete,Emerson Kelly\nathlete,Morgan Davis\nathlete,Drew Patel\nathlete,Sam Okafor\nopponent,Pine Ridge\nopponent,Eastside LC\nopponent,Lincoln High\n".utf8)
            .write(to: roster)
        func report(_ extra: [String]) throws -> [String: Any] {
            let r = try Self.run(["eval", folder.path, "--writing", "hand", "--today", "2026-11-22", "--json"] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            return try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        }
        let known = try report(["--names", roster.path])
        let names = try #require(known["names"] as? [String: Any])
        #expect(names["fields"] as? Int == 6 && names["right"] as? Int == 6 && names["flagged"] as? Int == 0, "\(names)")
        #expect((known["names_by_kind"] as? [String: [String: Any]])?["athlete"]?["right"] as? Int == 3)
        let sheets = try #require(known["sheets_read"] as? [String: Any])
        #expect(sheets["read"] as? Int == 3 && sheets["names_unflagged"] as? Int == 3, "\(sheets)")
        // The same names from a store: read, and nothing written to it.
        let db = folder.appendingPathComponent("club.sqlite").path
        #expect(try Self.run(["names", "import", "--db", db, roster.path]).status == 0)
        let before = try Self.run(["names", "list", "--db", db, "--format", "csv"]).stdout
        let stored = try #require(try report(["--db", db])["names"] as? [String: Any])
        #expect(stored["right"] as? Int == 6 && stored["flagged"] as? Int == 0, "\(stored)")
        #expect(try Self.run(["names", "list", "--db", db, "--format", "csv"]).stdout == before)
        #expect(try Self.run(["sheets", "--db", db, "--json"]).stdout.isEmpty, "no sheet stored")
        // Without the names, the three athletes are flagged and none is replaced.
        let alone = try #require(try report([])["names"] as? [String: Any])
        #expect((alone["flagged"] as? Int ?? 0) >= 3 && alone["silent_errors"] as? Int == 0, "\(alone)")
        #expect(try Self.run(["eval", folder.path, "--names", folder.appendingPathComponent("none.csv").path]).status != 0)
    }

    @Test func evalJSONCarriesRatesInSnakeCase() throws {
        let r = try Self.run(["eval", "TestImages/lacrosse-goalie/clean-300dpi-jpeg", "--json"])
        #expect(r.status == 0)
        let object = try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let numeric = try #require(object["numeric"] as? [String: Any])
        #expect(numeric["fields"] as? Int == 75)
        #expect(numeric["accuracy"] as? Double == 1)
        #expect(numeric["silent_errors"] as? Int == 0)
        let overTheLine = try #require(object["over_the_line"] as? [String: Any])
        #expect((overTheLine["fields"] as? Int ?? 0) > 0 && overTheLine["accuracy"] as? Double == 1)
        #expect(object["min_confidence"] as? Double == 70)
        #expect((object["with_top_suggestion"] as? [String: Any])?["fields"] as? Int == 75)
        #expect(object["sheets"] as? Int == 3)
        #expect((object["median_milliseconds"] as? Double ?? 0) > 0)
    }

    /// `eval --digit-network` reads with the weights given, not the shipped ones: a copy whose last
    /// layer favours "not a digit" reads the hand-filled hockey sheets far worse, and a cut-off file is
    /// refused with its size.
    @Test func evalReadsDigitsWithTheNetworkGiven() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = Self.root.appendingPathComponent("Sources/DigitNet/Model")
        var weights = try Data(contentsOf: model.appendingPathComponent("digits-cnn.bin"))
        let metadata = try Data(contentsOf: model.appendingPathComponent("digits-cnn.json"))
        // The file ends with the output layer's eleven biases; the last is the "none" class's.
        let noneBias = weights.count - 4
        weights.replaceSubrange(noneBias..<weights.count, with: withUnsafeBytes(of: Float(1000).bitPattern.littleEndian, Array.init))
        try weights.write(to: folder.appendingPathComponent("digits-cnn.bin"))
        try metadata.write(to: folder.appendingPathComponent("digits-cnn.json"))
        try weights.prefix(1000).write(to: folder.appendingPathComponent("cut.bin"))
        try metadata.write(to: folder.appendingPathComponent("cut.json"))

        func accuracy(_ extra: [String]) throws -> Double {
            let r = try Self.run(["eval", "TestImages/hockey-goalie/handwritten-phone", "--writing", "hand", "--json"] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            let object = try #require(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let numeric = try #require(object["numeric"] as? [String: Any])
            // The committed sheets' truth names their writers: each kind's numbers add up to the whole.
            let byWriter = try #require(object["numeric_by_writer"] as? [String: [String: Any]])
            #expect(Set(byWriter.keys) == ["font", "sklearn"])
            #expect(byWriter.values.compactMap { $0["fields"] as? Int }.reduce(0, +) == numeric["fields"] as? Int)
            return try #require(numeric["accuracy"] as? Double)
        }
        let shipped = try accuracy([])
        let noDigits = try accuracy(["--digit-network", folder.appendingPathComponent("digits-cnn.bin").path])
        #expect(shipped > 0.9)
        #expect(noDigits < 0.5)

        let cut = try Self.run(["eval", "TestImages/hockey-goalie/handwritten-phone", "--digit-network", folder.appendingPathComponent("cut.bin").path])
        #expect(cut.status != 0)
        #expect(cut.stderr.contains("digit network weights have 1000 bytes, expected \(weights.count)"), "\(cut.stderr)")
    }

    @Test func usageMistakesNameTheFlag() throws {
        let r = try Self.run(["scan", "x.png", "--min-confidence", "120"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--min-confidence must be 0–100"))
    }
}
