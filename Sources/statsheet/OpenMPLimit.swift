import Foundation

enum OpenMPLimit {
    static let variable = "OMP_THREAD_LIMIT"

    /// Replaces this process by itself with `OMP_THREAD_LIMIT=1` when the variable is unset. If the
    /// exec fails the program simply goes on: slower, but correct.
    static func reexecWithSingleThreadIfNeeded() {
        guard getenv(variable) == nil else { return }
        setenv(variable, "1", 1)
        let args = CommandLine.arguments.map { strdup($0) } + [nil]
        _ = args.withUnsafeBufferPointer { execv("/proc/self/exe", $0.baseAddress!) }
    }

    /// What `doctor` reports.
    static var current: String? { ProcessInfo.processInfo.environment[variable] }
}
