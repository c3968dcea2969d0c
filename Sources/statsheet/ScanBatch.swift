import Foundation
import SheetModel
import SheetPipeline
import SheetStore

/// Reads files on `jobs` worker threads, each with its own `SheetScanner` (and so its own Tesseract engine:
/// engines are not thread-safe), and hands the results to one consumer as an async stream.
///
/// A file is one sheet, or one sheet a page when it is a document (a PDF, a TIFF of several pages): the
/// worker that opens a document reads its first page and queues the others at the head of the queue, so
/// both workers read one long PDF. Files are added while the batch runs (`add`), which is how `scan
/// --watch` feeds it; `finishAdding` ends it once the workers are done. Each event names its `Unit` (the
/// file's index, the page) so the consumer can show results in the order of the files. At most `4 × jobs`
/// results wait unconsumed, so memory stays flat however many files and pages there are. Sheets whose
/// key is known (`skip`, and every sheet `remember`ed since) are hashed but not read.
final class ScanBatch: @unchecked Sendable {
    /// One sheet of the batch: a file (its index in the order added), and its page in a document.
    struct Unit: Sendable, Hashable, Comparable {
        let file: Int
        /// The page, from 1; nil for a file that is one image, or a document that could not be opened.
        let page: Int?
        /// How many pages the file has; nil when it is one image.
        let pages: Int?

        /// Whether this is the file's last sheet: after it, the next file's results may be shown.
        var isLastOfFile: Bool { page == nil || page == pages }

        static func < (a: Unit, b: Unit) -> Bool { (a.file, a.page ?? 0) < (b.file, b.page ?? 0) }
        func hash(into hasher: inout Hasher) { hasher.combine(file); hasher.combine(page) }
        static func == (a: Unit, b: Unit) -> Bool { a.file == b.file && a.page == b.page }
    }

    enum Event: Sendable {
        /// Read now (clean, needs review or failed), with its cell snapshots when the scanner keeps them.
        /// `sha256` is nil when the file could not be read at all.
        case read(Unit, ScannedSheet, sha256: String?)
        /// Its content (and page) is already in the store.
        case alreadyStored(Unit, source: SheetSource, sha256: String, StoredSheetState)
        /// A worker could not start (no Tesseract engine, say): the batch cannot go on.
        case workerFailed(String)
    }

    let jobs: Int
    let loader: ImageLoader
    let makeScanner: @Sendable () throws -> SheetScanner
    private let queue = WorkQueue()
    private let slots: DispatchSemaphore
    private let lock = NSLock()
    private var skip: [SheetKey: StoredSheetState]
    private var added = 0

    init(jobs: Int, loader: ImageLoader, skip: [SheetKey: StoredSheetState],
         makeScanner: @escaping @Sendable () throws -> SheetScanner) {
        self.jobs = max(1, jobs)
        self.loader = loader
        self.skip = skip
        self.makeScanner = makeScanner
        slots = DispatchSemaphore(value: 4 * self.jobs)
    }

    /// Queues files to read, after those added before.
    func add(_ paths: [String]) {
        let first = lock.withLock {
            defer { added += paths.count }
            return added
        }
        for (i, path) in paths.enumerated() { queue.push(.file(first + i, path)) }
    }

    /// No more files will be added: the stream ends when the queued ones are read.
    func finishAdding() { queue.close() }

    /// Stops taking new work: each worker finishes the sheet in hand, and the stream ends.
    func stop() { queue.cancel() }

    /// A sheet stored while the batch runs, so another file of the same content is not read again.
    func remember(_ key: SheetKey, _ state: StoredSheetState) { lock.withLock { skip[key] = state } }

    private func stored(_ key: SheetKey) -> StoredSheetState? { lock.withLock { skip[key] } }

    /// Starts the workers. The consumer must call `consumed()` once per event it has finished with.
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
        // Made at the first sheet that needs reading: a rescan of stored sheets starts no OCR engine.
        var scanner: SheetScanner?
        while true {
            slots.wait()
            guard let item = queue.pop() else {
                slots.signal()
                return
            }
            let (unit, path, contents): (Unit, String, FileContents?)
            switch item {
            case .file(let index, let file):
                // Read once: the same bytes are hashed (the sheet's identity in the store) and decoded. A file
                // that cannot be read has no digest; the scanner says why it cannot be read.
                let whole = try? ImageLoader.readFile(file)
                let sha256 = whole.map { SheetDigest.hex(of: $0) }
                let pages: Int?
                do throws(ImageLoadFailure) {
                    if let whole { pages = try loader.pageCount(path: file, contents: whole) } else { pages = nil }
                } catch {
                    queue.opened()
                    continuation.yield(.read(Unit(file: index, page: nil, pages: nil),
                                             ScannedSheet(failure: .load(error.error), file: file),
                                             sha256: sha256))
                    continue
                }
                let bytes = FileContents(whole, sha256: sha256)
                if let pages, pages > 1 {
                    queue.pushPages((2...pages).map { .page(Unit(file: index, page: $0, pages: pages), file, bytes) }, ofFile: index)
                }
                queue.opened()
                (unit, path, contents) = (Unit(file: index, page: pages == nil ? nil : 1, pages: pages), file, bytes)
            case .page(let pageUnit, let file, let bytes):
                (unit, path, contents) = (pageUnit, file, bytes)
            }
            let source = SheetSource(path: path, page: unit.page)
            if let sha = contents?.sha256, let state = stored(SheetKey(sha256: sha, page: unit.page)) {
                continuation.yield(.alreadyStored(unit, source: source, sha256: sha, state))
                continue
            }
            if scanner == nil {
                do {
                    scanner = try makeScanner()
                } catch {
                    continuation.yield(.workerFailed("cannot start a reader: \(error)"))
                    slots.signal()
                    queue.cancel()
                    return
                }
            }
            continuation.yield(.read(unit, scanner!.scanSheet(source, contents: contents?.bytes), sha256: contents?.sha256))
        }
    }
}

/// A file's bytes and their hash, shared by the units of its pages and freed with the last of them.
final class FileContents: Sendable {
    let bytes: [UInt8]?
    let sha256: String?

    init(_ whole: [UInt8]?, sha256: String?) {
        self.sha256 = sha256
        // Poppler's tools read a PDF from its path, and the loader looks only at its first bytes (to know it is a
        // PDF): keeping the rest while its pages are read would grow with the file, for nothing. Its pages are
        // counted, and a damaged or cut file refused, on the whole bytes before this.
        if let whole, whole.starts(with: Array("%PDF".utf8)) {
            bytes = Array(whole.prefix(4096))
        } else {
            bytes = whole
        }
    }
}

/// The batch's work, in file order: files as added, and a document's later pages ahead of the next file.
final class WorkQueue: @unchecked Sendable {
    enum Item {
        case file(Int, String)
        case page(ScanBatch.Unit, String, FileContents)

        var file: Int {
            switch self {
            case .file(let index, _): index
            case .page(let unit, _, _): unit.file
            }
        }
    }

    private let condition = NSCondition()
    private var items: [Item] = []
    private var head = 0
    private var closed = false
    private var cancelled = false
    /// Files taken but not yet opened: each may still queue its later pages, so the queue is not done.
    private var opening = 0

    func push(_ item: Item) {
        condition.withLock {
            items.append(item)
            condition.signal()
        }
    }

    /// Queues a document's later pages ahead of every later file's work, but behind an earlier document's
    /// pages: two workers may open two documents at once, and results are shown in file order, so pages of
    /// a later file read first would fill the waiting slots while the earlier file's are never read.
    func pushPages(_ pages: [Item], ofFile file: Int) {
        condition.withLock {
            let at = items[head...].firstIndex { $0.file > file } ?? items.count
            items.insert(contentsOf: pages, at: at)
            condition.broadcast()
        }
    }

    /// The next item, waiting for one while more may come; nil once closed and empty, or cancelled. A file
    /// taken must be followed by `opened()` once its pages (if any) are queued.
    func pop() -> Item? {
        condition.withLock {
            while !cancelled && head == items.count && (!closed || opening > 0) { condition.wait() }
            guard !cancelled, head < items.count else { return nil }
            if case .file = items[head] { opening += 1 }
            defer {
                head += 1
                // Drop what was taken now and then, so a long watch holds no history.
                if head > 1024 { items.removeFirst(head); head = 0 }
            }
            return items[head]
        }
    }

    /// A file taken from the queue has queued its later pages, or has none.
    func opened() { condition.withLock { opening -= 1; condition.broadcast() } }

    func close() { condition.withLock { closed = true; condition.broadcast() } }
    func cancel() { condition.withLock { cancelled = true; condition.broadcast() } }
}

/// A counter shared by threads: `increment()` returns the value before adding one.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    var count: Int { lock.withLock { value } }

    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value - 1
    }
}
