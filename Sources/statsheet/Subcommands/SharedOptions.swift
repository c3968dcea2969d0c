import ArgumentParser
import Foundation
import SheetPipeline
import SheetStore

/// Where templates come from; shared by every command that needs them.
struct TemplateOptions: ParsableArguments {
    @Option(name: .customLong("templates"), help: ArgumentHelp(
        "A folder of template JSON files, searched before the bundled ones (repeatable; also STATSHEET_TEMPLATES).",
        valueName: "dir"))
    var folders: [String] = []

    func library() throws -> TemplateLibrary {
        try TemplateLibrary.load(folders: TemplateLibrary.defaultFolders(explicit: folders))
    }

    func template(_ id: String, in library: TemplateLibrary) throws -> SheetModelTemplate {
        guard let template = library.template(id: id) else {
            let known = library.templates.map(\.id).joined(separator: ", ")
            throw ValidationError("unknown template '\(id)'" + (known.isEmpty ? "; no templates were found" : "; known: \(known)"))
        }
        return template
    }
}

extension Writing: ExpressibleByArgument {}

/// How numbers are read: a choice shared by `scan` and `eval`.
struct WritingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Numbers are handwritten (hand), printed (print), or decided per sheet (auto).",
                               valueName: "auto|print|hand"))
    var writing: Writing = .auto
}

/// Which store to use; shared by `scan`, `games` and `sheets`.
struct StoreOptions: ParsableArguments {
    static let defaultPath = "statsheet.sqlite"

    @Option(name: .customLong("db"), help: ArgumentHelp(
        "The SQLite store (default ./statsheet.sqlite, or STATSHEET_DB).", valueName: "path"))
    var explicitPath: String?

    var path: String {
        explicitPath ?? ProcessInfo.processInfo.environment["STATSHEET_DB"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultPath
    }

    func open() throws -> SQLiteSheetStore {
        do {
            return try SQLiteSheetStore(path: path)
        } catch {
            throw RuntimeError("\(error)")
        }
    }

    /// For commands that only read: a missing store is an error, not a new empty file.
    func openExisting() throws -> SQLiteSheetStore {
        guard FileManager.default.fileExists(atPath: path) else {
            throw RuntimeError("no store at \(path): run 'statsheet scan' first, or give --db")
        }
        return try open()
    }
}
