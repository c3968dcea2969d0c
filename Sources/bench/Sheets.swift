import Foundation
import SheetPipeline
import SheetStore
import SheetModel

/// `bench sheets DIR...`: whole sheets read as `statsheet scan --jobs 1` reads them (one scanner, its
/// engine started once), each sheet once per round; prints the median of each stage over every sheet
/// and round, in wall-clock and in the reading thread's CPU milliseconds. On a machine busy with other
/// work the CPU column moves much less than the wall one; pin the process (`taskset -c 1`) either way.
func benchSheets(_ arguments: [String]) throws {
    var rounds = 3, writing = Writing.auto, paths: [String] = []
    var rest = arguments[...]
    while let argument = rest.popFirst() {
        switch argument {
        case "--rounds": rounds = rest.popFirst().flatMap { Int($0) }.map { max(1, $0) } ?? rounds
        case "--writing": writing = rest.popFirst().flatMap { Writing(rawValue: $0) } ?? writing
        default: paths.append(argument)
        }
    }
    let files = ImageFiles.expand(paths).files
    guard !files.isEmpty else { return print("no image files in \(paths.joined(separator: " "))") }
    let library = try TemplateLibrary.load(folders: TemplateLibrary.defaultFolders())
    var start = DispatchTime.now().uptimeNanoseconds
    let scanner = try SheetScanner(library: library, options: ScanOptions(writing: writing))
    let startUp = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6

    var wall: [String: [Double]] = [:], cpu: [String: [Double]] = [:], order: [String] = []
    func add(_ name: String, _ ms: Double, _ cpuMs: Double) {
        if wall[name] == nil { order.append(name) }
        wall[name, default: []].append(ms)
        cpu[name, default: []].append(cpuMs)
    }
    var failed = 0
    for _ in 0..<rounds {
        for file in files {
            // As `ScanBatch` does: the file read once, its bytes hashed (the store's identity) and decoded.
            start = DispatchTime.now().uptimeNanoseconds
            let cpuStart = threadCPU()
            let contents = try? ImageLoader.readFile(file)
            let digest = contents.map { SheetDigest.hex(of: $0) }
            let hashed = (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6, threadCPU() - cpuStart)
            let sheet = scanner.scanSheet(file, contents: contents)
            if digest == nil || sheet.result.status == .failed { failed += 1 }
            add("read+hash", hashed.0, hashed.1)
            for stage in sheet.stages { add(stage.name, stage.milliseconds, stage.cpuMilliseconds) }
            add("whole sheet", hashed.0 + sheet.stages.reduce(0) { $0 + $1.milliseconds },
                hashed.1 + sheet.stages.reduce(0) { $0 + $1.cpuMilliseconds })
        }
    }
    print("\(files.count) sheets × \(rounds) rounds, writing \(writing.rawValue)\(failed > 0 ? ", \(failed / rounds) failed" : ""); engine start-up \(Int(startUp.rounded())) ms")
    print("stage".padding(toLength: 14, withPad: " ", startingAt: 0) + "  wall ms  cpu ms   (medians; a stage only some sheets reach counts those)")
    for name in order.filter({ $0 != "whole sheet" }) + ["whole sheet"] {
        print(name.padding(toLength: 14, withPad: " ", startingAt: 0)
              + String(format: "  %7.1f  %6.1f", middle(wall[name]!), middle(cpu[name]!)))
    }
}

private func middle(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// The calling thread's CPU time in milliseconds.
private func threadCPU() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
}
