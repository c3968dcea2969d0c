import Foundation
import Testing

/// `scan --watch` and Ctrl-C, through the built binary on a real SQLite store: files that arrive slowly are
/// read once each and never half-written, and an interrupted scan stores whole sheets only.
@Suite(.serialized) struct WatchCLITests {
    /// A `statsheet` process whose standard output is collected as it runs.
    final class Running: @unchecked Sendable {
        let process = Process()
        private let lock = NSLock()
        private var collected = Data()

        init(_ arguments: [String]) throws {
            process.executableURL = CLITests.binary
            process.arguments = arguments
            process.currentDirectoryURL = CLITests.root
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            out.fileHandleForReading.readabilityHandler = { [unowned self] handle in
                let data = handle.availableData
                lock.withLock { collected.append(data) }
            }
            try process.run()
        }

        var output: String { lock.withLock { String(decoding: collected, as: UTF8.self) } }

        /// Waits until `condition` holds of the output, at most `seconds`.
        func wait(upTo seconds: Double, for condition: (String) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if condition(output) { return true }
                Thread.sleep(forTimeInterval: 0.1)
            }
            return condition(output)
        }

        func interruptAndWait() -> Int32 {
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            Thread.sleep(forTimeInterval: 0.2)   // the last output
            return process.terminationStatus
        }
    }

    /// 20 sheets copied into the watched folder slowly, each in chunks with pauses between them (a copier
    /// writing page by page): every one is read once, none read half-written; Ctrl-C ends it with status 0.
    @Test func filesCopiedInSlowlyAreReadOnceEach() throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inbox = folder.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        // The store and the overlay folder inside the watched folder, as a club may keep them: what scan writes
        // there is not a new sheet.
        let db = inbox.appendingPathComponent("store.sqlite").path
        let overlays = inbox.appendingPathComponent("overlays").path
        let samples = try FileManager.default.contentsOfDirectory(atPath: StoreCLITests.samples.path)
            .filter { $0.hasSuffix(".png") || $0.hasSuffix(".jpg") }.sorted().prefix(20)
        #expect(samples.count == 20)

        let scan = try Running(["scan", "--watch", inbox.path, "--db", db, "--overlay", overlays, "--settle", "1", "--jobs", "2"])
        #expect(scan.wait(upTo: 30) { $0.contains("watching") }, "\(scan.output)")
        // Four files at a time, each written in three chunks 0.4 s apart, over about 10 s in all.
        for group in stride(from: 0, to: samples.count, by: 4) {
            let names = Array(samples[group..<min(group + 4, samples.count)])
            let contents = try names.map { try Data(contentsOf: StoreCLITests.samples.appendingPathComponent($0)) }
            let handles = try names.map { name -> FileHandle in
                let path = inbox.appendingPathComponent(name).path
                #expect(FileManager.default.createFile(atPath: path, contents: nil))
                return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            }
            for part in 0..<3 {
                for (handle, data) in zip(handles, contents) {
                    let third = data.count / 3
                    let range = part * third..<(part == 2 ? data.count : (part + 1) * third)
                    // Open, append, close: each chunk is a close-after-write, as `cat >>` or a copier makes.
                    try handle.seekToEnd()
                    handle.write(data.subdata(in: range))
                    try handle.synchronize()
                }
                Thread.sleep(forTimeInterval: 0.4)
            }
            for handle in handles { try handle.close() }
            Thread.sleep(forTimeInterval: 1.2)
        }
        let allRead = scan.wait(upTo: 240) { output in samples.allSatisfy { output.contains($0 + " — ") } }
        #expect(allRead, "\(scan.output)")
        #expect(scan.interruptAndWait() == 0, "\(scan.output)")
        let output = scan.output
        #expect(!output.contains("FAILED"), "\(output)")
        #expect(!output.contains("truncated"), "\(output)")
        #expect(!output.contains("skipped"), "\(output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: overlays).count == 20)
        for name in samples { #expect(output.components(separatedBy: name + " — ").count == 2, "\(name) read more or less than once") }
        #expect(output.contains("20 sheets: 20 read"), "\(output)")
        let counts = try StoreCLITests.counts(db)
        #expect(counts.sheets == 20)
        StoreCLITests.expectWhole(counts)
    }

    /// Ctrl-C in the middle of a batch: the sheets in hand are finished and stored whole, the exit status is
    /// 130, and the same command run again reads the rest, each sheet once.
    @Test func ctrlCStopsABatchWithWholeSheetsThenARerunFinishes() throws {
        let folder = try StoreCLITests.sampleFolder(12)
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("store.sqlite").path
        let scan = try Running(["scan", "--db", db, "--jobs", "1", folder.path])
        #expect(scan.wait(upTo: 120) { $0.contains(" — ") }, "\(scan.output)")
        #expect(scan.interruptAndWait() == 130, "\(scan.output)")
        #expect(scan.output.contains("interrupted"), "\(scan.output)")
        let partial = try StoreCLITests.counts(db)
        #expect(partial.sheets >= 1 && partial.sheets < 12, "\(partial)")
        StoreCLITests.expectWhole(partial)

        let rerun = try CLITests.run(["scan", "--db", db, "--jobs", "2", folder.path])
        #expect(rerun.status == 0, "\(rerun.stdout)")
        #expect(rerun.stdout.contains("\(12 - partial.sheets) read"), "\(rerun.stdout)")
        let counts = try StoreCLITests.counts(db)
        #expect(counts.sheets == 12)
        StoreCLITests.expectWhole(counts)
    }

    @Test func watchTakesOneFolder() throws {
        let r = try CLITests.run(["scan", "--watch", "TestImages/lacrosse-goalie/printed/sheet-001.png"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--watch takes one folder"), "\(r.stderr)")
    }
}
