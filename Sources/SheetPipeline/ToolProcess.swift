import Foundation

/// One run of an outside command-line tool: its exit status, its standard output and what it said on stderr.
///
/// Foundation's `Process` rather than swift-subprocess: the tools here are short runs with no input and one
/// output, which `Process` with files for its output and a kill on timeout covers; adding a package (and its
/// build) for that bought nothing. Output goes to files, not pipes, so a tool that writes megabytes of pixels
/// can never block on a full pipe while this side waits for it to exit.
struct ToolProcess {
    enum Failure: Error, Equatable {
        /// No executable of that name on `PATH`.
        case notFound(String)
        /// Killed after `seconds`.
        case timedOut(String, seconds: Double)
        /// The process could not be started (or its output read back): the operating system's reason.
        case couldNotRun(String, reason: String)
    }

    var status: Int32
    var stdout: Data
    /// What the tool printed to stderr, line by line: kept for the log and for errors, never printed raw.
    var stderr: [String]

    /// Runs `tool` (found on `PATH`) with `arguments`, killing it with SIGKILL when it is still running after
    /// `timeout` seconds. The tool's stdin is /dev/null; the C locale keeps its output parseable.
    static func run(_ tool: String, _ arguments: [String], timeout: Double) throws(Failure) -> ToolProcess {
        guard let executable = find(tool) else { throw .notFound(tool) }
        let folder = NSTemporaryDirectory() + "statsheet-\(tool)-" + UUID().uuidString
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        } catch {
            throw .couldNotRun(tool, reason: "no temporary folder: \(error.localizedDescription)")
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let outPath = folder + "/stdout", errPath = folder + "/stderr"
        guard FileManager.default.createFile(atPath: outPath, contents: nil),
              FileManager.default.createFile(atPath: errPath, contents: nil),
              let out = FileHandle(forWritingAtPath: outPath), let err = FileHandle(forWritingAtPath: errPath)
        else { throw .couldNotRun(tool, reason: "cannot write its output to \(folder)") }
        defer { try? out.close(); try? err.close() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C"
        process.environment = environment
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()
        } catch {
            throw .couldNotRun(tool, reason: error.localizedDescription)
        }
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            // Only while it runs: once reaped, its process id may already be another process's.
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            exited.wait()
            throw .timedOut(tool, seconds: timeout)
        }
        guard let stdout = FileManager.default.contents(atPath: outPath), let stderr = FileManager.default.contents(atPath: errPath) else {
            throw .couldNotRun(tool, reason: "its output could not be read back")
        }
        let lines = String(decoding: stderr, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
        return ToolProcess(status: process.terminationStatus, stdout: stdout, stderr: lines)
    }

    /// The first executable file named `tool` in the directories of `PATH`.
    static func find(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(tool)" }.first { access($0, X_OK) == 0 }
    }
}
