import ArgumentParser
import Foundation
import ReviewUI
import SheetModel
import SheetPipeline
import SheetStore

/// `statsheet review`: settle flagged fields in the terminal with each cell's image on screen, or
/// apply corrections from a file (`--apply`).
struct Review: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Review the sheets that need it: see each flagged cell, correct, approve or reject.",
        discussion: """
            Walks the queue of sheets waiting for review, oldest first, showing the current field's cell image \
            (24-bit colour half-blocks; a plain shade ramp with NO_COLOR or TERM=dumb), its reading, confidence, \
            alternatives and any suggestion, and the rules that fail. Every change is saved when made, with the \
            original reading, the reviewer, the time and a note; quitting at any moment loses nothing. Press ? \
            for the keys. Needs a terminal on stdin. --apply FILE.json corrects in bulk instead: a JSON list of \
            {"sheet": id, sha256 or path, "field": "q2.saves", "value": 7, "note": "…"}; nothing is applied \
            unless every entry is valid.
            """)

    @OptionGroup var templates: TemplateOptions
    @OptionGroup var store: StoreOptions
    @Option(help: ArgumentHelp("Recorded as the reviewer of every change (default: the login name).", valueName: "name"))
    var reviewer: String?
    @Option(help: ArgumentHelp("Apply the corrections in this JSON file instead of opening the screen.", valueName: "file"))
    var apply: String?

    func validate() throws {
        if let reviewer, reviewer.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--reviewer must not be empty") }
    }

    func run() async throws {
        let name = reviewer ?? Self.loginName()
        if let apply {
            try await applyFile(apply, reviewer: name)
            return
        }
        guard isatty(STDIN_FILENO) == 1 else {
            throw RuntimeError("review is interactive and stdin is not a terminal; run it in a terminal, or correct in bulk with --apply FILE.json")
        }
        guard isatty(STDOUT_FILENO) == 1 else {
            throw RuntimeError("review draws on the terminal and stdout is not one; run it without redirecting its output")
        }
        let sheetStore = try await store.openExisting()
        let library = try templates.library()
        let session = ReviewSession(store: sheetStore, reviewer: name, images: StoredCellImages(store: sheetStore, library: library),
                                    templates: { id, version in library.template(id: id).flatMap { $0.version == version ? $0 : nil } })
        try await session.start()
        let status = try await ReviewLoop(session: session, color: Self.colorWanted()).run()
        if status != 0 { throw ExitCode(status) }
    }

    private func applyFile(_ path: String, reviewer: String) async throws {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw RuntimeError("cannot read \(path): \(error.localizedDescription)")
        }
        let sheetStore = try await store.openExisting()
        let bulk = BulkCorrections(store: sheetStore)
        let entries: [BulkCorrections.Entry]
        do {
            entries = try await bulk.validate(data)
        } catch let invalid as BulkCorrections.Invalid {
            throw RuntimeError("\(path): nothing applied:\n" + invalid.problems.map { "  " + $0 }.joined(separator: "\n"))
        }
        try await bulk.apply(entries, reviewer: reviewer, at: Date())
        for e in entries {
            print(TerminalText.escaped("sheet \(e.sheet.id) \(e.field): \(e.from) → \(e.value)" + (e.note.map { " (\($0))" } ?? "")))
        }
        let sheets = Set(entries.map(\.sheet.id)).count
        print("applied \(entries.count) correction\(entries.count == 1 ? "" : "s") to \(sheets) sheet\(sheets == 1 ? "" : "s") as \(reviewer); approve them with 'statsheet review'")
    }

    static func loginName() -> String {
        if let name = getlogin().map({ String(cString: $0) }), !name.isEmpty { return name }
        let env = ProcessInfo.processInfo.environment
        if let name = env["LOGNAME"] ?? env["USER"], !name.isEmpty { return name }
        if let entry = getpwuid(getuid()), let name = entry.pointee.pw_name { return String(cString: name) }
        return "uid \(getuid())"
    }

    /// Colour unless NO_COLOR is set (to anything but empty, per no-color.org) or the terminal is dumb.
    static func colorWanted() -> Bool {
        let env = ProcessInfo.processInfo.environment
        if let noColor = env["NO_COLOR"], !noColor.isEmpty { return false }
        return env["TERM"] != "dumb"
    }
}

/// Keys from the terminal to the session, the screen redrawn after each; the terminal is restored
/// however the loop ends (quit, Ctrl-C, a signal, the terminal closing, an error).
struct ReviewLoop {
    let session: ReviewSession
    let color: Bool

    /// The exit status: 0 on quit, 128 + the signal's number when one ended the session.
    func run() async throws -> Int32 {
        let terminal = Terminal()
        try terminal.enter()
        defer { terminal.restore() }
        func redraw() {
            let size = terminal.size()
            terminal.draw(ReviewScreen.render(session.state, width: size.columns, height: size.rows, color: color).lines(color: color))
        }
        redraw()
        while true {
            switch terminal.next() {
            case .resized:
                terminal.write("\u{1B}[2J")
                redraw()
            case .ended(let status):
                return status
            case .keys(let bytes):
                for key in KeyDecoder.keys(bytes) {
                    if key == .interrupt { return 130 }
                    if try await session.handle(key) == .quit { return 0 }
                }
                redraw()
                // The slow part of a change, once its screen is up; keys typed meanwhile wait in the tty.
                if session.suggestionPending {
                    session.searchSuggestion()
                    redraw()
                }
            }
        }
    }
}
