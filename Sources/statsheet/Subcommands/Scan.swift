import ArgumentParser
import Foundation
import Logging
import SheetModel
import SheetPipeline
import SheetStore

struct Scan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read stat sheet images into the store: every field with its value and confidence.",
        discussion: """
            PATH may be image files (PNG, JPEG, TIFF, WebP, GIF) or folders, which are searched recursively \
            for those extensions (the summary counts the files skipped for theirs). \
            Files are read in parallel (--jobs) and stored in the store (--db, STATSHEET_DB: a SQLite file, \
            default ./statsheet.sqlite, or a PostgreSQL URL) once each, by the SHA-256 of their bytes: a file already stored is not read \
            again, one whose reading failed is tried again. Game logs of clean sheets are approved at once; \
            sheets that need review wait ('statsheet sheets'). A file that cannot be read is reported with \
            its reason and the others are still read; the exit status is 1 when any file failed. When the store \
            itself fails (a server that goes away), the scan stops at once with what it stored kept; run it again \
            to finish. Handwritten numbers are read with what the store has learnt of its writers: every number a \
            person corrected or confirmed in review labels its digits, and near labelled digits vote beside the \
            network (--no-adapt reads without them); they never leave the store.
            """)

    @OptionGroup var templates: TemplateOptions
    @OptionGroup var writing: WritingOptions
    @OptionGroup var scanDay: ScanDayOptions
    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("Image files or folders of them.", valueName: "path")) var paths: [String]
    @Option(help: ArgumentHelp("The sheets' template id; needed only when a sheet's printed mark cannot be read.", valueName: "id"))
    var template: String?
    @Flag(help: "One JSON object per file per line, instead of tables.") var json = false
    @Option(help: ArgumentHelp("Write an annotated copy of each sheet into this folder.", valueName: "dir")) var overlay: String?
    @Option(help: "Fields read with less confidence (0–100) are flagged for review.") var minConfidence: Double = 70
    @Option(help: "Refuse images with more megapixels than this, before decoding them.") var maxMegapixels: Double = 60
    @Option(name: .shortAndLong, help: "Sheets read at once, one reader each (default: the number of cores).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount
    @Flag(help: "Read and report, but store nothing.") var dryRun = false
    @Flag(help: "Read again sheets already in the store (after a template or reader update), replacing their readings.")
    var reread = false
    @Flag(help: "Queue clean sheets for review too, instead of approving their game logs at once.") var reviewAll = false
    @Flag(help: "Read handwritten digits with the network alone, not with the digits people labelled in the store.")
    var noAdapt = false
    @Option(help: ArgumentHelp("Athlete for sheets that have none written (recorded as given by flag).", valueName: "name"))
    var athlete: String?
    @Option(help: ArgumentHelp("Opponent for sheets that have none written (recorded as given by flag).", valueName: "name"))
    var opponent: String?
    @Option(help: ArgumentHelp("Context for sheets with none marked, as the template names it (high_school, club).", valueName: "context"))
    var context: String?
    @Flag(name: .shortAndLong, help: "Log each step on stderr.") var verbose = false

    func validate() throws {
        guard (0...100).contains(minConfidence) else { throw ValidationError("--min-confidence must be 0–100, not \(minConfidence)") }
        guard maxMegapixels > 0, maxMegapixels <= 4_000 else { throw ValidationError("--max-megapixels must be over 0 and at most 4000, not \(maxMegapixels)") }
        guard (1...64).contains(jobs) else { throw ValidationError("--jobs must be 1–64, not \(jobs)") }
        if dryRun && reread { throw ValidationError("--dry-run stores nothing, so --reread has nothing to replace") }
        if dryRun && reviewAll { throw ValidationError("--dry-run stores nothing, so --review-all has nothing to queue") }
    }

    func run() async throws {
        LogSetup.bootstrap(verbose: verbose)
        let library = try templates.library()
        let requested = try template.map { try templates.template($0, in: library) }
        if library.templates.isEmpty && requested == nil {
            throw RuntimeError("no templates found; searched " + library.searchedFolders.joined(separator: ", "))
        }
        if let context {
            let known = Set(library.templates.flatMap { $0.gameLog?.context?.keys.map { $0 } ?? [] })
            guard known.contains(context) else {
                throw ValidationError("--context must be one of \(known.sorted().joined(separator: ", ")), not '\(context)'")
            }
        }
        let expansion = ImageFiles.expand(paths)
        let files = expansion.files
        guard !files.isEmpty else {
            throw RuntimeError("no image files found in \(paths.joined(separator: ", "))"
                               + (expansion.skipped.isEmpty ? "" : " (\(ScanSummary.skippedText(expansion.skipped)))"))
        }

        var options = ScanOptions(minConfidence: minConfidence, overlayFolder: overlay, writing: writing.writing,
                                  today: scanDay.day)
        options.loader.maxPixels = Int(maxMegapixels * 1_000_000)
        // The review screen shows each field's cell from the store, wherever the file has gone since.
        options.keepCellImages = !dryRun
        let sheetStore = dryRun ? nil : try await store.open()
        let stored = try await reread ? [:] : sheetStore?.storedHashes() ?? [:]
        // Handwritten names are read against the names the store knows: imported, and learnt from every sheet
        // approved before this run (a dry run opens no store, so reads names as written).
        options.knownNames = try await sheetStore?.knownNames(kind: nil).map(\.name) ?? []
        if let sheetStore, !noAdapt { options.digitExamples = try await sheetStore.digitExamples() }
        // A handwritten date is weighed against the seasons of the games approved before this scan; the
        // sheets of this batch teach later scans, not each other (each worker reads with the same options).
        options.gameDates = try await sheetStore?.seasonGames() ?? SeasonGames()
        let batch = ScanBatch(files: files, jobs: jobs, skip: stored) { [options] in
            try SheetScanner(library: library, requested: requested, options: options)
        }
        let output = ScanOutput(json: json, library: library)
        let progress = ProgressBar(total: files.count, enabled: !json && isatty(STDOUT_FILENO) == 1 && isatty(STDERR_FILENO) == 1)
        var summary = ScanSummary(files: files.count, jobs: batch.jobs, store: dryRun ? nil : store.displayName,
                                  skipped: expansion.skipped)
        let policy = ApprovalPolicy(approveClean: !reviewAll)
        let defaults = GameLogDefaults(athlete: athlete, opponent: opponent, context: context)

        // Results are stored as they come, and shown in the order of the files.
        var waiting: [Int: () -> Void] = [:]
        var nextToShow = 0
        for await event in batch.events() {
            switch event {
            case .workerFailed(let message):
                throw RuntimeError(message)
            case .alreadyStored(let index, let path, let sha, let state):
                summary.alreadyStored += 1
                waiting[index] = { output.showAlreadyStored(path: path, sha256: sha, state: state) }
            case .read(let index, let scanned, let sha):
                let result = scanned.result
                summary.count(result.status)
                if let sheetStore {
                    do {
                        try await storeResult(scanned, sha256: sha, library: library, store: sheetStore, policy: policy,
                                              defaults: defaults, summary: &summary)
                    } catch {
                        // The store itself failed (its server went away, say): no later sheet could be
                        // stored either, so the batch stops here instead of reading on. Each sheet is one
                        // transaction, so every sheet stored so far is whole and kept, and a rerun skips
                        // them and finishes the rest.
                        progress.clear()
                        if !json { print(summary.text) }
                        throw RuntimeError("\(error)\nscan stopped: \(summary.stored) new sheet\(summary.stored == 1 ? "" : "s") stored "
                                           + "before the store failed; run the same command again to finish")
                    }
                }
                waiting[index] = { output.show(result) }
            }
            while let show = waiting.removeValue(forKey: nextToShow) {
                progress.clear()
                show()
                batch.consumed()
                nextToShow += 1
            }
            progress.advance()
        }
        progress.clear()
        if !json { print(summary.text) }
        if summary.failed > 0 { throw ExitCode(1) }
    }

    /// One transaction per sheet (inside the store): a kill between two sheets loses nothing stored.
    private func storeResult(_ scanned: ScannedSheet, sha256: String?, library: TemplateLibrary, store: any SheetStore,
                             policy: ApprovalPolicy, defaults: GameLogDefaults, summary: inout ScanSummary) async throws {
        let result = scanned.result
        let path = URL(fileURLWithPath: result.file).standardizedFileURL.path
        guard result.status != .failed, let sha256 else {
            try await store.recordFailure(NewFailure(path: path, sha256: sha256, error: result.error ?? "could not be read", at: Date()))
            return
        }
        let template = result.template.flatMap { library.template(id: $0) }
        let values = Dictionary(result.fields.map { ($0.id, $0.reading.value) }, uniquingKeysWith: { a, _ in a })
        var sheet = NewSheet(sha256: sha256, path: path, scannedAt: Date(), result: result, fields: template?.fields ?? [],
                             gameLog: template?.gameLog?.draft(from: values, defaults: defaults),
                             cellImages: scanned.cellImages.mapValues { Data($0) })
        if let network = scanned.digits.network {
            sheet.digitEmbeddings = scanned.digits.embeddings.map { StoredDigitEmbeddings(field: $0.key, network: network, embeddings: $0.value) }
        }
        let outcome = try await store.record(sheet, policy: policy, replace: reread)
        switch outcome {
        case .alreadyStored:
            // Another process stored the same content between our look-up and now.
            summary.raced += 1
        case .stored(_, let gameLog), .replaced(_, let gameLog):
            if case .replaced = outcome { summary.replaced += 1 } else { summary.stored += 1 }
            switch gameLog {
            case .none: break
            case .approved: summary.approved += 1
            case .pending: summary.waiting += 1
            }
        }
    }
}

enum LogSetup {
    /// swift-log to stderr: warnings by default, everything with --verbose.
    static func bootstrap(verbose: Bool) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = verbose ? .debug : .warning
            return handler
        }
    }
}
