import Foundation
import OCRKit
import Testing

/// A folder of odd and broken inputs (issue 38), scanned as a new user would: every file gets exactly
/// one line with its own outcome, nothing hangs, and nothing but statsheet writes to stderr.
/// `Tools/make_odd_folder.py` makes the full folder of every kind; this one is the part a test can make
/// without Python, plus three fixtures only an outside encoder writes (CMYK JPEG, 16-bit PNG and TIFF).
@Suite struct OddInputsTests {
    /// What a file must come to: read (clean or needs review), or failed with an error starting so.
    enum Outcome: Equatable, CustomStringConvertible {
        case read
        case failed(String)
        var description: String { if case .failed(let why) = self { "failed: \(why)" } else { "read" } }
    }

    static let fixtures = CLITests.root.appendingPathComponent("TestImages/odd-inputs")
    static let evilName = "evil\u{1B}[2J\u{1B}]0;pwned\u{07}\nname.png"

    /// Builds the folder; returns each file's expected outcome by name.
    static func makeFolder(_ folder: URL) throws -> [String: Outcome] {
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        func write(_ name: String, _ bytes: [UInt8]) { _ = FileManager.default.createFile(atPath: path(name), contents: Data(bytes)) }
        var expected: [String: Outcome] = [:]

        let blank = folder.appendingPathComponent("blank-sheet.png")
        let render = try CLITests.run(["template", "render", "lacrosse-goalie", "--out", blank.path, "--dpi", "100"])
        try #require(render.status == 0, "\(render.stderr)")
        let png = [UInt8](try Data(contentsOf: blank))
        let sheet = try Image.decode(png, format: .png).image
        expected["blank-sheet.png"] = .read
        for (name, format) in [("sheet.jpg", ImageFormat.jpeg), ("sheet.tif", .tiff), ("sheet.webp", .webp), ("sheet.gif", .gif)] {
            write(name, try sheet.encoded(as: format))
            expected[name] = .read
        }
        for name in ["UPPER.PNG", "spaces and accénts é.png", "png-named.jpg", evilName] {
            write(name, png)
            expected[name] = .read
        }
        for name in ["cmyk.jpg", "gray16.png", "gray16.tif"] {
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent(name), to: folder.appendingPathComponent(name))
            expected[name] = .read
        }

        write("empty.jpg", [])
        expected["empty.jpg"] = .failed("the file is empty")
        write("notes.png", Array("game notes: 12 saves\n".utf8))
        expected["notes.png"] = .failed("not an image")
        write("scan.pdf.png", Array("%PDF-1.4\n%%EOF\n".utf8))
        expected["scan.pdf.png"] = .failed("damaged PDF: its image data could not be decoded (decoder: ")
        // Poppler's tools run as processes: their words end up in the file's line, never on stderr.
        write("no-pages.pdf", Array("%PDF-1.4\n1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj\n2 0 obj <</Type/Pages/Kids[]/Count 0>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n".utf8))
        expected["no-pages.pdf"] = .failed("the PDF has no pages")
        let scanned = try sheet.pdfData(dpi: 100, title: "sheet")
        write("cut.pdf", Array(scanned.prefix(scanned.count / 2)))
        expected["cut.pdf"] = .failed("truncated PDF")
        var generator = SeededBytes(seed: 38)
        write("random.jpg", (0..<5000).map { _ in generator.next() })
        expected["random.jpg"] = .failed("not an image")
        write("truncated.png", Array(png.prefix(png.count / 2)))
        expected["truncated.png"] = .failed("truncated PNG")
        var damaged = png
        let idat = try #require(Self.find(Array("IDAT".utf8), in: damaged))
        damaged[idat + 100] ^= 0xFF
        write("bad-crc.png", damaged)
        expected["bad-crc.png"] = .failed("damaged PNG: its image data could not be decoded (decoder:")
        // A JPEG whose frame header claims 60,000 × 60,000 pixels.
        var huge = try sheet.encoded(as: .jpeg)
        let frame = try #require(Self.find([0xFF, 0xC0], in: huge))
        for offset in [5, 7] { huge[frame + offset] = 0xEA; huge[frame + offset + 1] = 0x60 }
        write("huge-header.jpg", huge)
        expected["huge-header.jpg"] = .failed("image is 60000×60000")
        write("one-pixel.png", try Image.blank(width: 1, height: 1).encoded(as: .png))
        expected["one-pixel.png"] = .failed("no alignment markers")
        write("white-page.png", try Image.blank(width: 850, height: 1100).encoded(as: .png))
        expected["white-page.png"] = .failed("no alignment markers")

        try #require(mkfifo(path("fifo.jpg"), 0o644) == 0)
        expected["fifo.jpg"] = .failed("cannot be read: it is a named pipe (FIFO), not a regular file")
        try FileManager.default.createSymbolicLink(atPath: path("loop.jpg"), withDestinationPath: "loop.jpg")
        expected["loop.jpg"] = .failed("cannot be read: Too many levels of symbolic links")
        // Walked into, never read as a file; what it holds is.
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("folder.jpg"), withIntermediateDirectories: false)
        write("folder.jpg/inside.png", png)
        expected["folder.jpg/inside.png"] = .read
        write("notes.txt", Array("bring spare sheets\n".utf8))
        return expected
    }

    static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        return (0...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    @Test func everyFileGetsOneLineWithItsOutcome() throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let expected = try Self.makeFolder(folder)

        let run = try Self.run(["scan", "--dry-run", "--json", "--jobs", "2", folder.path], within: 60)
        #expect(!run.timedOut, "the scan did not finish within 60 s")
        #expect(run.status == 1, "some files fail")
        #expect(run.stderr.isEmpty, "stderr: \(run.stderr)")
        var seen: [String: Outcome] = [:]
        for line in run.stdout.split(separator: "\n") {
            let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let file = try #require(object["file"] as? String)
            let name = String(file.dropFirst(folder.path.count + 1))
            #expect(seen[name] == nil, "two lines for \(name)")
            let status = object["status"] as? String
            seen[name] = status == "failed" ? .failed(object["error"] as? String ?? "") : .read
            // JSON carries control characters escaped; the line itself holds none.
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        }
        #expect(Set(seen.keys) == Set(expected.keys))
        for (name, want) in expected.sorted(by: { $0.key < $1.key }) {
            let got = seen[name]
            switch want {
            case .read: #expect(got == .read, "\(name): \(got.map(\.description) ?? "no line")")
            case .failed(let prefix):
                #expect(got?.description.hasPrefix("failed: " + prefix) == true, "\(name): \(got.map(\.description) ?? "no line")")
            }
        }
    }

    /// File names and errors print with their control characters escaped; the summary counts what the
    /// folder walk left out.
    @Test func tablesEscapeNamesAndCountSkippedFiles() throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent(Self.evilName)
        let render = try CLITests.run(["template", "render", "lacrosse-goalie", "--out", png.path, "--dpi", "100"])
        try #require(render.status == 0, "\(render.stderr)")
        _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("notes.txt").path, contents: Data("x".utf8))
        _ = FileManager.default.createFile(atPath: folder.appendingPathComponent("scan.doc").path, contents: Data("%PDF".utf8))

        let run = try Self.run(["scan", "--dry-run", folder.path], within: 60)
        #expect(run.stderr.isEmpty, "stderr: \(run.stderr)")
        #expect(!run.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        #expect(run.stdout.contains("evil\\033[2J\\033]0;pwned\\a\\nname.png"))
        #expect(run.stdout.contains("2 files skipped as not images by their extension: 1 .doc, 1 .txt"))
    }

    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
        let timedOut: Bool
    }

    /// Runs the binary, killing it after `seconds`: a hang fails the test instead of stopping the suite.
    static func run(_ arguments: [String], within seconds: Double) throws -> Run {
        let process = Process()
        process.executableURL = CLITests.binary
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = LockedData(), errData = LockedData()
        let readers = DispatchGroup()
        for (pipe, sink) in [(out, outData), (err, errData)] {
            DispatchQueue.global().async(group: readers) { sink.set(pipe.fileHandleForReading.readDataToEndOfFile()) }
        }
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        let timedOut = process.isRunning
        if timedOut { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        readers.wait()
        return Run(status: process.terminationStatus, stdout: String(decoding: outData.get(), as: UTF8.self),
                   stderr: String(decoding: errData.get(), as: UTF8.self), timedOut: timedOut)
    }
}

/// Pipe contents handed from a reading thread to the test.
final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func set(_ value: Data) { lock.lock(); data = value; lock.unlock() }
    func get() -> Data { lock.lock(); defer { lock.unlock() }; return data }
}

/// A fixed stream of bytes (xorshift64), so the "random" file is the same on every run.
struct SeededBytes {
    private var state: UInt64
    init(seed: UInt64) { state = seed | 1 }
    mutating func next() -> UInt8 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return UInt8(truncatingIfNeeded: state >> 24)
    }
}
