import Dispatch
import Foundation
import Glibc

/// Ctrl-C (SIGINT) as a request to stop: the first one runs `stop` once and lets the command finish what
/// it holds; a second one ends the process at once (exit status 130, as a shell reports a killed job).
///
/// The handler is a dispatch source, not a C signal handler, so `stop` may take locks and write to pipes.
final class Interrupt: @unchecked Sendable {
    private let source: DispatchSourceSignal
    private let presses = LockedCounter()

    /// Whether Ctrl-C was pressed.
    var happened: Bool { presses.count > 0 }

    init(stop: @escaping @Sendable () -> Void) {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        // The handler holds the counter, not `self`: a signal handled while the command is ending still counts.
        source.setEventHandler { [presses] in
            if presses.increment() == 0 {
                FileHandle.standardError.write(Data("\nstopping after the sheets in hand (Ctrl-C again to stop at once)\n".utf8))
                stop()
            } else {
                // At once, as promised: no exit handlers, which could wait on the workers. What was printed is
                // flushed first; the store's transactions keep it whole.
                fflush(nil)
                _exit(130)
            }
        }
        source.resume()
    }

    deinit {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
