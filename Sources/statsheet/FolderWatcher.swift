import Foundation
import Glibc
import SheetPipeline

/// Watches a folder (and the folders inside it) for files that arrive, through the kernel's file
/// notifications (inotify), and hands each one on once it is complete.
///
/// A file is complete when it has been quiet for `settle`: no write, close or rename under its name for that
/// long. A writer that closes the file once (a copy, a camera app) is seen at its `IN_CLOSE_WRITE`; one that
/// appends in several opens (a copier writing page by page, `cat >>`) closes it several times, so the close
/// alone cannot say it is done: the quiet time does. A file renamed or moved in (`IN_MOVED_TO`) arrives
/// complete and is handed on after the same quiet time, once. Hidden files and a browser's or a copier's
/// partial names (`.part`, `.crdownload`, `.tmp`, `~`) are never handed on: their final name arrives later.
///
/// A handed-on path is not handed on again unless it is written again (a file replaced under the same
/// name is a new file: the store tells its content apart by its hash); nor is a file that was there when the
/// watch began (`arrivals(known:)`), unless it changes. The kernel drops events when its queue overflows
/// (thousands of files at once): then the whole folder is listed again, and what is new or changed is taken.
/// Paths under `ignoring` (scan's own store and overlay folder, when they are inside the watched folder) are
/// never handed on: each sheet stored would otherwise arrive as a new file.
final class FolderWatcher: @unchecked Sendable {
    enum WatchError: Error, CustomStringConvertible {
        case cannotWatch(String, reason: String)
        var description: String {
            switch self {
            case .cannotWatch(let path, let reason): "cannot watch \(path): \(reason)"
            }
        }
    }

    enum Arrival: Sendable {
        /// A complete file, new or changed since it was last handed on.
        case file(String)
        /// A folder that appeared inside the watched one but cannot be watched (the system's limit on
        /// watches, say): files put there later are not seen.
        case notWatched(WatchError)
    }

    let root: String
    let settle: TimeInterval
    /// Absolute paths never handed on, nor anything under them.
    private let ignoring: [String]
    /// Each file handed on (or there at the start), by its size and modification time.
    private var known: [String: FileSignature] = [:]
    /// Folders inside the watched one that could not be watched, not yet reported.
    private var unwatched: [WatchError] = []
    private let fd: Int32
    /// A pipe whose write end `stop()` writes to, waking the `poll` at once.
    private let wake: (read: Int32, write: Int32)
    /// Watch descriptor → the folder it watches.
    private var folders: [Int32: String] = [:]
    /// Paths written or moved in, with when they last changed.
    private var pending: [String: Date] = [:]

    init(root: String, settle: TimeInterval = 2, ignoring: [String] = []) throws {
        self.root = (root as NSString).standardizingPath
        self.settle = settle
        self.ignoring = ignoring.map(Self.absolute)
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { throw WatchError.cannotWatch(root, reason: String(cString: strerror(errno))) }
        var ends: [Int32] = [0, 0]
        // Glibc's module does not export pipe2: the flags are set after.
        guard pipe(&ends) == 0 else {
            close(fd)
            throw WatchError.cannotWatch(root, reason: String(cString: strerror(errno)))
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        wake = (ends[0], ends[1])
        if let error = addFolder(self.root) { throw error }
        unwatched = []
    }

    deinit {
        close(fd)
        close(wake.read)
        close(wake.write)
    }

    /// Watches `folder` and every folder inside it (a new subfolder is watched when it appears). Returns why
    /// `folder` itself cannot be watched; a folder inside it that cannot be is kept in `unwatched`, to be said.
    private func addFolder(_ folder: String) -> WatchError? {
        guard !isIgnored(folder) else { return nil }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_MODIFY | IN_DELETE_SELF | IN_ONLYDIR)
        let wd = inotify_add_watch(fd, folder, mask)
        guard wd >= 0 else { return WatchError.cannotWatch(folder, reason: String(cString: strerror(errno))) }
        folders[wd] = folder
        let inside = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        for name in inside {
            let path = (folder as NSString).appendingPathComponent(name)
            var info = stat()
            if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, let error = addFolder(path) {
                unwatched.append(error)
            }
        }
        return nil
    }

    private func isIgnored(_ path: String) -> Bool {
        let path = Self.absolute(path)
        return ignoring.contains { path == $0 || path.hasPrefix($0 + "/") }
    }

    private static func absolute(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }

    /// Ends `arrivals` after the wait in progress.
    func stop() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    /// Each complete file that arrives, in the order they become complete, until `stop()`. The watching runs
    /// on its own thread, blocked in `poll` between events (no busy loop).
    ///
    /// - Parameter known: the files already there, listed after this watcher was made (so that none
    ///   arriving in between is missed): they are handed on only if they change.
    func arrivals(known files: [String]) -> AsyncStream<Arrival> {
        for file in files { known[file] = FileSignature(file) }
        let (stream, continuation) = AsyncStream<Arrival>.makeStream()
        let thread = Thread { [self] in
            watch { continuation.yield($0) }
            continuation.finish()
        }
        thread.start()
        return stream
    }

    private func watch(_ arrived: (Arrival) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            // Wait for an event, or until the earliest pending file has been quiet for `settle`.
            let timeout: Int32 = pending.values.min().map { Int32(max(0, min(60_000, ($0.timeIntervalSinceNow + settle) * 1000)).rounded(.up)) } ?? -1
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            let n = poll(&fds, 2, timeout)
            if n < 0 && errno != EINTR { return }
            if fds[1].revents != 0 { return }
            if fds[0].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count > 0 { handle(buffer, count: count) }
            }
            for error in unwatched { arrived(.notWatched(error)) }
            unwatched = []
            let now = Date()
            let ready = pending.filter { now.timeIntervalSince($0.value) >= settle }.map(\.key).sorted()
            for path in ready {
                pending[path] = nil
                // Gone again (moved on, deleted) or no longer a file: nothing to read. Unchanged since it was
                // handed on (touched, or listed again after an overflow): nothing new to read.
                guard let signature = FileSignature(path), known[path] != signature else { continue }
                known[path] = signature
                arrived(.file(path))
            }
        }
    }

    /// The kernel dropped events: every file under the folder may be new. Those `known` and unchanged are
    /// dropped when they settle.
    private func rescan() {
        if let error = addFolder(root) { unwatched.append(error) }
        for file in ImageFiles.expand([root]).files where !isIgnored(file) { pending[file] = Date() }
    }

    /// Walks the `inotify_event` records in `buffer` (each a fixed header, then a NUL-padded name).
    private func handle(_ buffer: [UInt8], count: Int) {
        let header = MemoryLayout<inotify_event>.size
        var offset = 0
        while offset + header <= count {
            let (wd, mask, nameLength) = buffer.withUnsafeBytes { raw -> (Int32, UInt32, Int) in
                let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                return (event.wd, event.mask, Int(event.len))
            }
            let nameBytes = buffer[(offset + header)..<min(count, offset + header + nameLength)].prefix { $0 != 0 }
            offset += header + nameLength
            let name = String(decoding: nameBytes, as: UTF8.self)
            if mask & UInt32(IN_Q_OVERFLOW) != 0 { rescan(); continue }
            guard let folder = folders[wd] else { continue }
            if mask & UInt32(IN_DELETE_SELF) != 0 { folders[wd] = nil; continue }
            guard !name.isEmpty else { continue }
            let path = (folder as NSString).appendingPathComponent(name)
            guard !isIgnored(path) else { continue }
            if mask & UInt32(IN_ISDIR) != 0 {
                // A folder made or moved in: watch it, and take what is already inside (a folder moved in
                // arrives full; files copied into a new one may land before its watch).
                if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                    if let error = addFolder(path) { unwatched.append(error) }
                    for file in ImageFiles.expand([path]).files where !isIgnored(file) { pending[file] = Date() }
                }
                continue
            }
            guard Self.mayBeFinal(name) else { continue }
            if mask & UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MODIFY | IN_CREATE) != 0 { pending[path] = Date() }
        }
    }

    /// Whether a file of this name may be a finished file: not hidden, and not a partial download or copy.
    static func mayBeFinal(_ name: String) -> Bool {
        guard !name.hasPrefix("."), !name.hasSuffix("~") else { return false }
        let ext = (name as NSString).pathExtension.lowercased()
        return !["part", "crdownload", "tmp", "partial", "download"].contains(ext)
    }
}

/// What tells a file changed without reading it: its size and modification time.
struct FileSignature: Equatable {
    let size: Int64
    let modified: timespec

    /// Nil when `path` is not a regular file (gone, a folder, a link).
    init?(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        size = Int64(info.st_size)
        modified = info.st_mtim
    }

    static func == (a: FileSignature, b: FileSignature) -> Bool {
        a.size == b.size && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
    }
}
