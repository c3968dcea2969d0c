import Foundation
import SheetModel
import SheetPipeline
import SheetStore

/// Reads a list of files on `jobs` worker threads, each with its own `SheetScanner` (and so its own
/// Tesseract engine: engines are not thread-safe), and hands the results to one consumer as an
/// async stream. Each event carries its file's index so the consumer can show results in the order
/// of the files. At most `4 × jobs` results wait unconsumed, so memory stays flat however many files
/// there are. Files whose content hash is in `skip` are hashed but not read.
final class ScanBatch: Sendable {
    enum Event: Sendable {
        /// Read now (clean, needs review or failed), with its cell snapshots when the scanner keeps them.
        /// `sha256` is nil when the file could not be read at all.
        case read(Int, ScannedSheet, sha256: String?)
        /// Its content is already in the store.
        case alreadyStored(Int, path: String, sha256: String, StoredSheetState)
        /// A worker could not start (no Tesseract engine, say): the batch cannot go on.
        case workerFailed(String)
    }

    let files: [String]
    let jobs: Int
    let skip: [String: StoredSheetState]
    let makeScanner: @Sendable () throws -> SheetScanner
    private let next = LockedCounter()
    private let slots: DispatchSemaphore

    init(files: [String], jobs: Int, skip: [String: StoredSheetState], makeScanner: @escaping @Sendable () throws -> SheetScanner) {
        self.files = files
        self.jobs = max(1, min(jobs, files.count))
        self.skip = skip
        self.makeScanner = makeScanner
        slots = DispatchSemaphore(value: 4 * self.jobs)
    }

    /// Starts the workers. The consumer must call `consumed()` once per file it has finished with.
    func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream()
        let finished = LockedCounter()
        for _ in 0..<jobs {
            let thread = Thread { [self] in
                self.work(continuation)
                if finished.increment() == self.jobs - 1 { continuation.finish() }
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        return stream
    }

    func consumed() { slots.signal() }

    private func work(_ continuation: AsyncStream<Event>.Continuation) {
        // Made at the first file that needs reading: a rescan of stored sheets starts no OCR engine.
        var scanner: SheetScanner?
        while true {
            slots.wait()
            let index = next.increment()
            guard index < files.count else {
                slots.signal()
                return
            }
            let path = files[index]
            // Read once: the same bytes are hashed (the sheet's identity in the store) and decoded. A file
            // that cannot be read has no digest; the scanner says why it cannot be read.
            let contents = try? ImageLoader.readFile(path)
            let sha = contents.map { SheetDigest.hex(of: $0) }
            if let sha, let state = skip[sha] {
                continuation.yield(.alreadyStored(index, path: path, sha256: sha, state))
            } else {
                if scanner == nil {
                    do {
                        scanner = try makeScanner()
                    } catch {
                        continuation.yield(.workerFailed("cannot start a reader: \(error)"))
                        slots.signal()
                        return
                    }
                }
                continuation.yield(.read(index, scanner!.scanSheet(path, contents: contents), sha256: sha))
            }
        }
    }
}

/// A counter shared by threads: `increment()` returns the value before adding one.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value - 1
    }
}
