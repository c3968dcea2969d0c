#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The review screen's terminal, written by hand with termios and ANSI escapes: no terminal UI
/// library is in the package mirror, and the screen needs little — raw keys, the alternate screen,
/// the window size, and drawing whole lines.
///
/// Signals (SIGWINCH, SIGINT, SIGTERM, SIGHUP) are turned into bytes on a pipe by a handler that only
/// calls `write` (async-signal-safe); the key loop polls that pipe beside stdin, so the terminal is
/// restored by ordinary code whatever ends the session.
final class Terminal {
    enum Event {
        case keys([UInt8])
        case resized
        /// A signal that ends the session, or stdin closed (the terminal went away): exit with this status.
        case ended(Int32)
    }

    static let enterAlternateScreen = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J"
    static let leaveAlternateScreen = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"

    private var original = termios()
    private var active = false

    /// Raw keys (no echo, no line editing, Ctrl-C as a byte), the alternate screen, no cursor.
    func enter() throws {
        guard tcgetattr(STDIN_FILENO, &original) == 0 else { throw RuntimeError("cannot read the terminal's settings: \(String(cString: strerror(errno)))") }
        var raw = original
        cfmakeraw(&raw)
        // cfmakeraw leaves VMIN 1, VTIME 0 (a read returns as soon as a byte is there) and turns
        // output's newline translation off: every line is sent with "\r\n".
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0 else { throw RuntimeError("cannot put the terminal in raw mode") }
        active = true
        Self.installSignalPipe()
        write(Self.enterAlternateScreen)
    }

    /// Puts back the settings found at `enter` and leaves the alternate screen. Safe to call twice.
    func restore() {
        guard active else { return }
        active = false
        write(Self.leaveAlternateScreen)
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
    }

    /// Columns and rows; 80×24 when the terminal does not say.
    func size() -> (columns: Int, rows: Int) {
        var ws = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 {
            return (Int(ws.ws_col), Int(ws.ws_row))
        }
        return (80, 24)
    }

    /// Draws whole lines from the top-left corner in one write.
    func draw(_ lines: [String]) {
        write("\u{1B}[H" + lines.joined(separator: "\r\n"))
    }

    func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Waits for keys or a signal.
    func next() -> Event {
        while true {
            var fds = [pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: signalPipe.read, events: Int16(POLLIN), revents: 0)]
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                return .ended(1)
            }
            if fds[1].revents & Int16(POLLIN) != 0 {
                var signal: UInt8 = 0
                _ = read(signalPipe.read, &signal, 1)
                switch Int32(signal) {
                case SIGWINCH: return .resized
                default: return .ended(128 + Int32(signal))
                }
            }
            if fds[0].revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 256)
                let n = read(STDIN_FILENO, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                // End of input or a read error: the terminal is gone.
                guard n > 0 else { return .ended(129) }
                return .keys(Array(buffer[0..<n]))
            }
        }
    }

    private static func installSignalPipe() {
        guard signalPipe.read < 0 else { return }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return }
        signalPipe = (fds[0], fds[1])
        for sig in [SIGWINCH, SIGINT, SIGTERM, SIGHUP] {
            signal(sig) { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = Glibc.write(signalPipe.write, &byte, 1)
            }
        }
    }
}

/// The signal handlers' end of the pipe; set once, before any handler is installed.
nonisolated(unsafe) private var signalPipe: (read: Int32, write: Int32) = (-1, -1)
