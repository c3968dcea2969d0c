#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Runs the built binary on a real pseudo-terminal (openpty): the tests type keys into the master
/// side and read what the program draws. Unlike util-linux `script`, it can set the window size and
/// signal the program itself.
final class PseudoTerminal: @unchecked Sendable {
    let process = Process()
    private let master: Int32
    private let lock = NSLock()
    private var received: [UInt8] = []
    private var reader: Thread?

    init(_ arguments: [String], environment extra: [String: String] = [:], columns: UInt16 = 80, rows: UInt16 = 24) throws {
        var master: Int32 = -1, slave: Int32 = -1
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &size) == 0 else { throw POSIXError(.ENOTTY) }
        self.master = master
        var environment = ["PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "OMP_THREAD_LIMIT": "1", "LANG": "C.UTF-8"]
        environment.merge(extra) { _, new in new }
        process.executableURL = CLITests.binary
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = CLITests.root
        let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        close(slave)
        let thread = Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(self.master, &buffer, buffer.count)
                if n <= 0 { return }  // EIO once the program has exited and the slave is closed
                lock.lock()
                received.append(contentsOf: buffer[0..<n])
                lock.unlock()
            }
        }
        thread.start()
        reader = thread
    }

    deinit {
        if process.isRunning { process.terminate() }
        close(master)
    }

    /// Everything the program wrote, escapes included.
    var raw: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: received, as: UTF8.self)
    }

    /// What was written after `mark`, escapes included.
    func raw(after mark: Int) -> String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: received[min(mark, received.count)...], as: UTF8.self)
    }

    /// Bytes received so far: a mark to look for text drawn after it.
    var mark: Int {
        lock.lock()
        defer { lock.unlock() }
        return received.count
    }

    /// What was drawn after `mark`, with escape sequences removed.
    func text(after mark: Int = 0) -> String {
        lock.lock()
        let bytes = Array(received[min(mark, received.count)...])
        lock.unlock()
        return Self.stripped(String(decoding: bytes, as: UTF8.self))
    }

    static func stripped(_ s: String) -> String {
        s.replacingOccurrences(of: "\u{1B}\\[[0-9;?]*[A-Za-z]", with: "", options: .regularExpression)
    }

    /// Waits until `text` is drawn after `mark`; false after `timeout` seconds.
    @discardableResult
    func waitFor(_ text: String, after mark: Int = 0, timeout: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if self.text(after: mark).contains(text) { return true }
            usleep(20_000)
        }
        return false
    }

    /// Types `keys` and waits for `expect` to be drawn in answer.
    @discardableResult
    func type(_ keys: String, expect: String, timeout: Double = 20) -> Bool {
        let before = mark
        send(keys)
        return waitFor(expect, after: before, timeout: timeout)
    }

    func send(_ keys: String) {
        var bytes = Array(keys.utf8)
        _ = write(master, &bytes, bytes.count)
    }

    func resize(columns: UInt16, rows: UInt16) {
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        // The pty is not the program's controlling terminal, so the kernel does not signal it.
        kill(process.processIdentifier, SIGWINCH)
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// The exit status, or nil if the program is still running after `timeout` seconds.
    func waitForExit(timeout: Double = 20) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { return nil }
        reader.map { _ in usleep(50_000) }  // let the reader drain the last bytes
        return process.terminationStatus
    }
}
