import Foundation

/// How long one stage of reading a sheet took: wall-clock time, and the CPU time of the thread that read
/// it, which other work on the machine changes far less (`bench sheets` reports both).
public struct StageTime: Sendable, Equatable {
    public let name: String
    public let milliseconds: Double
    public let cpuMilliseconds: Double
}

/// Times the stages of one sheet's reading, each from the end of the one before.
struct StageClock {
    private let start = DispatchTime.now().uptimeNanoseconds
    private let cpuStart = StageClock.threadCPU()
    private var wallMark = 0.0, cpuMark = 0.0
    private(set) var stages: [StageTime] = []

    /// Milliseconds since the clock was made.
    var elapsed: Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 }

    mutating func mark(_ name: String) {
        let wall = elapsed, cpu = Self.threadCPU() - cpuStart
        stages.append(StageTime(name: name, milliseconds: wall - wallMark, cpuMilliseconds: cpu - cpuMark))
        wallMark = wall
        cpuMark = cpu
    }

    /// The calling thread's CPU time in milliseconds.
    static func threadCPU() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
    }
}
