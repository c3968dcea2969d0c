import Foundation

/// Headless Chromium (Debian's `chromium`) for the tests that open the HTML report in a real browser.
/// Without it they are disabled with that reason, unless `STATSHEET_REQUIRE_CHROMIUM=1` (set by `.ci/run`)
/// or `CI=true`: then they run and fail, so CI cannot pass without drawing the report.
enum Chromium {
    static let environment = ProcessInfo.processInfo.environment
    static let path: String? = ([environment["STATSHEET_CHROMIUM"]].compactMap { $0 } + ["/usr/bin/chromium", "/usr/bin/chromium-browser"])
        .first { FileManager.default.isExecutableFile(atPath: $0) }
    static let required = environment["STATSHEET_REQUIRE_CHROMIUM"] == "1" || environment["CI"] == "true"
    static let enabled = path != nil || required
    static let disabledReason = "no chromium: `apt-get install --no-install-recommends chromium` to test the HTML report in a browser"

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Flags for a quiet, isolated browser: its own profile (tests run at once), none of Chromium's own
    /// background requests, and every host name unresolvable, so a page that tried to reach the network
    /// could not, and its attempt shows in the net log.
    static func arguments(profile: URL) -> [String] {
        ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--disable-default-apps", "--disable-extensions", "--hide-scrollbars", "--force-device-scale-factor=1",
         "--user-data-dir=\(profile.path)", "--host-resolver-rules=MAP * ~NOTFOUND"]
    }

    /// Runs Chromium on `page` with `extra` flags; returns what it wrote to stdout and stderr.
    @discardableResult
    static func run(_ page: URL, _ extra: [String], timeout: TimeInterval = 120) throws -> (stdout: String, stderr: String) {
        guard let path else { throw Failure(description: disabledReason) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("statsheet-chromium-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("stdout"), err = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments(profile: folder.appendingPathComponent("profile")) + extra + [page.absoluteString]
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw Failure(description: "chromium did not finish \(page.lastPathComponent) in \(Int(timeout)) s")
        }
        let stdout = try String(contentsOf: out, encoding: .utf8), stderr = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw Failure(description: "chromium exited with \(process.terminationStatus): \(stderr.suffix(2000))")
        }
        return (stdout, stderr)
    }

    /// The page's DOM after it rendered.
    static func dumpDOM(_ page: URL, width: Int = 1280, height: Int = 2000, netLog: URL? = nil) throws -> (dom: String, console: String) {
        let result = try run(page, ["--window-size=\(width),\(height)", "--enable-logging=stderr", "--v=0", "--dump-dom"]
                                + (netLog.map { ["--log-net-log=\($0.path)"] } ?? []))
        return (result.stdout, result.stderr)
    }

    static func screenshot(_ page: URL, to png: URL, width: Int, height: Int) throws {
        try run(page, ["--window-size=\(width),\(height)", "--screenshot=\(png.path)"])
        guard FileManager.default.fileExists(atPath: png.path) else { throw Failure(description: "chromium wrote no screenshot") }
    }

    /// The requests a page made to anything but a file: those of its frame (the net log keys them by the
    /// page's `file://` site), not the browser's own.
    static func pageRequests(netLog: URL) throws -> [String] {
        let log = try JSONSerialization.jsonObject(with: Data(contentsOf: netLog)) as? [String: Any]
        let constants = log?["constants"] as? [String: Any]
        let types = constants?["logEventTypes"] as? [String: Int] ?? [:]
        guard let start = types["URL_REQUEST_START_JOB"] else { throw Failure(description: "the net log names no URL_REQUEST_START_JOB") }
        return (log?["events"] as? [[String: Any]] ?? []).compactMap { event in
            guard event["type"] as? Int == start, let params = event["params"] as? [String: Any], let url = params["url"] as? String,
                  (params["network_isolation_key"] as? String ?? "").contains("file://"), !url.hasPrefix("file:") else { return nil }
            return url
        }
    }
}
