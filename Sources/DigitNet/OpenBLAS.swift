#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// OpenBLAS's two products the network needs, opened when the first network is made rather than linked.
///
/// Why not linked: OpenBLAS chooses its kernels once, as the library loads, from the CPU's model number, and
/// a linked library loads before `main` runs. The 0.3.21 that Debian 12 ships does not know CPUs newer than
/// itself (this machine's Xeon, with AVX-512) and falls back to its SSE3 kernels, which made a printed sheet's
/// read stage about a fifth slower (`bench sheets`). Its own setting, `OPENBLAS_CORETYPE`, has to be in the
/// environment before the library loads; opened here, it can be set first, from the CPU's features
/// (`kernelFor(flags:)`). A user's own `OPENBLAS_CORETYPE` is left as it is.
///
/// The C enums of `cblas.h` are passed as their `int` values: row-major 101, no transpose 111.
enum OpenBLAS {
    typealias Sgemm = @convention(c) (Int32, Int32, Int32, Int32, Int32, Int32, Float, UnsafePointer<Float>?, Int32,
                                      UnsafePointer<Float>?, Int32, Float, UnsafeMutablePointer<Float>?, Int32) -> Void
    typealias Sgemv = @convention(c) (Int32, Int32, Int32, Int32, Float, UnsafePointer<Float>?, Int32,
                                      UnsafePointer<Float>?, Int32, Float, UnsafeMutablePointer<Float>?, Int32) -> Void
    typealias SetThreads = @convention(c) (Int32) -> Void
    typealias CoreName = @convention(c) () -> UnsafeMutablePointer<CChar>?

    static let rowMajor: Int32 = 101
    static let noTranspose: Int32 = 111

    struct Functions: @unchecked Sendable {
        let sgemm: Sgemm
        let sgemv: Sgemv
        /// The kernel set OpenBLAS chose ("SkylakeX", "Haswell", "Prescott"…), for `bench`.
        let kernel: String
    }

    /// Opened once per process; nil, with the reason, when the library or one of its symbols is missing.
    static let loaded: Result<Functions, DigitNetworkError> = open()

    /// The products, or the reason the network cannot run.
    static func functions() throws(DigitNetworkError) -> Functions { try loaded.get() }

    private static let libraryNames = ["libopenblas.so.0", "libopenblas.so", "libopenblas.dylib"]

    private static func open() -> Result<Functions, DigitNetworkError> {
        if getenv("OPENBLAS_CORETYPE") == nil, let kernel = kernelFor(flags: cpuFlags()) {
            setenv("OPENBLAS_CORETYPE", kernel, 0)
        }
        // Lazy binding: OpenBLAS holds every kernel set's functions, and resolving them all at once, against the
        // long list of libraries a Swift process has loaded, cost a one-sheet run ~10 ms.
        guard let handle = libraryNames.lazy.compactMap({ dlopen($0, RTLD_LAZY | RTLD_LOCAL) }).first else {
            return .failure(.noBLAS("none of \(libraryNames.joined(separator: ", ")) could be opened (install libopenblas0)"))
        }
        func symbol<T>(_ name: String, as type: T.Type) -> T? {
            dlsym(handle, name).map { unsafeBitCast($0, to: type) }
        }
        guard let sgemm = symbol("cblas_sgemm", as: Sgemm.self), let sgemv = symbol("cblas_sgemv", as: Sgemv.self) else {
            return .failure(.noBLAS("the OpenBLAS library found has no cblas_sgemm or cblas_sgemv"))
        }
        // Each call is one small product: OpenBLAS's own threads would only add overhead, and statsheet runs
        // one network per worker.
        symbol("openblas_set_num_threads", as: SetThreads.self)?(1)
        let kernel = symbol("openblas_get_corename", as: CoreName.self)?().map { String(cString: $0) } ?? "unknown"
        return .success(Functions(sgemm: sgemm, sgemv: sgemv, kernel: kernel))
    }

    /// The kernel set for a CPU with these feature flags (`/proc/cpuinfo`'s names): AVX-512's foundation and
    /// the subsets OpenBLAS's SkylakeX kernels use, else AVX2 with FMA (its Haswell kernels), else nil, leaving
    /// the choice to OpenBLAS. A CPU OpenBLAS knows gets the same kernels for these products either way.
    static func kernelFor(flags: Set<Substring>) -> String? {
        if ["avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"].allSatisfy(flags.contains) { return "SkylakeX" }
        if ["avx2", "fma"].allSatisfy(flags.contains) { return "Haswell" }
        return nil
    }

    /// The feature flags of the first processor in `/proc/cpuinfo` (Linux); empty elsewhere, which leaves
    /// OpenBLAS to choose.
    static func cpuFlags() -> Set<Substring> {
        guard let file = fopen("/proc/cpuinfo", "r") else { return [] }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            let text = String(cString: line)
            guard text.hasPrefix("flags") else { continue }
            guard let colon = text.firstIndex(of: ":") else { return [] }
            return Set(text[text.index(after: colon)...].split(whereSeparator: \.isWhitespace))
        }
        return []
    }
}
