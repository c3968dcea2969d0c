import ArgumentParser
import Foundation
import SheetModel
import SheetPipeline
import SheetStore

extension ScanOptions {
    /// Reads with what `store` knows, as `scan` and `eval --db` both do: its names (beside any already given),
    /// learnt from every sheet approved before; the seasons of its approved games, which a handwritten date is
    /// weighed against; and, with `adapt`, the digits it has labelled (`--no-adapt` reads with the network
    /// alone). The sheets of one batch teach later scans, not each other: each worker reads with these.
    mutating func read(with store: any SheetStore, adapt: Bool = true) async throws {
        knownNames += try await store.knownNames(kind: nil).map(\.name)
        gameDates = try await store.seasonGames()
        if adapt { digitExamples = try await store.digitExamples() }
    }
}

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

/// Which store to use; shared by `scan`, `games`, `sheets` and `store`.
struct StoreOptions: ParsableArguments {
    static let defaultPath = "statsheet.sqlite"

    @Option(name: .customLong("db"), help: ArgumentHelp(
        "The store: a SQLite file (default ./statsheet.sqlite) or a PostgreSQL URL "
            + "postgres://user:password@host:port/database?sslmode=require (or STATSHEET_DB).",
        valueName: "path|url"))
    var explicitPath: String?

    var path: String {
        explicitPath ?? ProcessInfo.processInfo.environment["STATSHEET_DB"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultPath
    }

    /// How output names the store: never with a password.
    var displayName: String { StoreLocator.displayName(path) }

    func open() async throws -> any SheetStore {
        do {
            return try await StoreLocator.open(path)
        } catch {
            throw RuntimeError("\(error)")
        }
    }

    /// For a dry run, which reads as a real run would and writes nothing: the store given with `--db`, opened
    /// read-only (no migration either). Nil when none was given (STATSHEET_DB names where scans store, so a dry
    /// run does not read it unasked) or when the SQLite file given does not exist yet: a new store knows nothing.
    /// A store that exists and cannot be read (an older schema, a server refusing) is an error.
    func openGivenForReading() async throws -> (any SheetStore)? {
        guard let given = explicitPath else { return nil }
        if !StoreLocator.isPostgres(given) && !FileManager.default.fileExists(atPath: given) { return nil }
        do {
            return try await StoreLocator.openReadingOnly(given)
        } catch {
            throw RuntimeError("\(error)")
        }
    }

    /// For commands that only read: a missing SQLite store is an error, not a new empty file.
    func openExisting() async throws -> any SheetStore {
        do {
            return try await StoreLocator.openExisting(path)
        } catch {
            throw RuntimeError("\(error)")
        }
    }
}

/// The day sheets are read as of; shared by `scan` and `eval`.
struct ScanDayOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Read the sheets as on this day (default: today). A date after it breaks the not-future rule; a handwritten "
            + "date is weighed against the athlete's season in the store, or the two years before it. Give the season's last day for old sheets.",
        valueName: "YYYY-MM-DD"))
    var today: String?

    func validate() throws {
        if let today, !DateArgument.isValid(today) || RuleEvaluator.parseDate(today) == nil {
            throw ValidationError("--today must be a date YYYY-MM-DD, not '\(today)'")
        }
    }

    var day: Date { today.flatMap(RuleEvaluator.parseDate) ?? Date() }
}
