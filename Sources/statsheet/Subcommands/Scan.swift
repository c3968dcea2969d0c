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
            PATH may be image files (PNG, JPEG, TIFF, WebP, GIF, HEIC/HEIF) and documents (PDF, multi-page TIFF), \
            or folders, which are searched recursively for those extensions (the summary counts the files skipped \
            for theirs). Every page of a document is one sheet, named FILE#page=N. \
            Sheets are read in parallel (--jobs) and stored in the store (--db, STATSHEET_DB: a SQLite file, \
            default ./statsheet.sqlite, or a PostgreSQL URL) once each, by the SHA-256 of their file's bytes and their page: \
            a sheet already stored is not read again, one whose reading failed is tried again. With --watch, a folder \
            is read and then watched for new files. Ctrl-C finishes the sheets in hand, stores them and stops. Game logs of clean sheets are approved at once; \
            sheets that need review wait ('statsheet sheets'). A file that cannot be read is reported with \
            its reason and the others are still read; the exit status is 1 when any file failed. When the store \
            itself fails (a server that goes away), the scan stops at once with what it stored kept; run it again \
            to finish. Handwritten numbers are read with what the store has learnt of its writers: every number a \
            person corrected or confirmed in review labels its digits, as, with less say, does every count read \
            sure on a sheet that balances; near labelled digits vote beside the network (--no-adapt reads \
            without them); they never leave the store.
            """)

    @OptionGroup var templates: TemplateOptions
    @OptionGroup var writing: WritingOptions
    @OptionGroup var scanDay: ScanDayOptions
    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("Image files or folders of them.", valueName: "path")) var paths: [String]
    @Option(help: ArgumentHelp("The sheets' template id; needed only when a sheet's printed mark cannot be read, or two forms printed elsewhere fit it alike.", valueName: "id"))
    var template: String?
    @Flag(help: "One JSON object per file per line, instead of tables.") var json = false
    @Option(help: ArgumentHelp("Write an annotated copy of each sheet into this folder.", valueName: "dir")) var overlay: String?
    @Option(help: "Fields read with less confidence (0–100) are flagged for review.") var minConfidence: Double = ReviewLine.standard
    @Option(help: "Refuse images with more megapixels than this, before decoding them.") var maxMegapixels: Double = 60
    @Option(name: .shortAndLong, help: "Sheets read at once, one reader each (default: the number of cores).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount
    @Flag(help: "Read and report, but store nothing. With --db, read with what that store knows (its names, its writers' digits, its seasons); it is only read.") var dryRun = false
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
    @Flag(help: ArgumentHelp("Read what is in the folder, then keep watching it and read each new file once it is complete, until Ctrl-C.",
                             discussion: "Takes one folder. A file counts as complete when nothing has written to it for --settle seconds."))
    var watch = false
    @Option(help: ArgumentHelp("With --watch: seconds a new file must be left alone before it is read.", valueName: "seconds"))
    var settle: Double = 2
    @Flag(name: .shortAndLong, help: "Log each step on stderr.") var verbose = false

    func validate() throws {
        guard (0...100).contains(minConfidence) else { throw ValidationError("--min-confidence must be 0–100, not \(minConfidence)") }
        guard maxMegapixels > 0, maxMegapixels <= 4_000 else { throw ValidationError("--max-megapixels must be over 0 and at most 4000, not \(maxMegapixels)") }
        guard (1...64).contains(jobs) else { throw ValidationError("--jobs must be 1–64, not \(jobs)") }
        if dryRun && reread { throw ValidationError("--dry-run stores nothing, so --reread has nothing to replace") }
        if dryRun && reviewAll { throw ValidationError("--dry-run stores nothing, so --review-all has nothing to queue") }
        if watch {
            var isDirectory: ObjCBool = false
            guard paths.count == 1, FileManager.default.fileExists(atPath: paths[0], isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--watch takes one folder to watch, not \(paths.joined(separator: ", "))")
            }
        }
        guard settle > 0, settle <= 600 else { throw ValidationError("--settle must be over 0 and at most 600 seconds, not \(settle)") }
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
        // Made before the folder is listed, so a file arriving meanwhile is not missed, and before any sheet is
        // read, so a folder that cannot be watched is said at once. The store and the overlay folder may sit
        // in the watched folder: what scan writes there is not a new sheet.
        let ownFiles = !StoreLocator.isPostgres(store.path) ? ["", "-wal", "-shm", "-journal"].map { store.path + $0 } : []
        let watcher = try watch ? FolderWatcher(root: paths[0], settle: settle, ignoring: ownFiles + (overlay.map { [$0] } ?? [])) : nil
        let expansion = ImageFiles.expand(paths)
        let files = expansion.files
        guard !files.isEmpty || watch else {
            throw RuntimeError("no image files found in \(paths.joined(separator: ", "))"
                               + (expansion.skipped.isEmpty ? "" : " (\(ScanSummary.skippedText(expansion.skipped)))"))
        }

        var options = ScanOptions(minConfidence: minConfidence, overlayFolder: overlay, writing: writing.writing,
                                  today: scanDay.day)
        options.loader.maxPixels = Int(maxMegapixels * 1_000_000)
        // The review screen shows each field's cell from the store, wherever the file has gone since.
        options.keepCellImages = !dryRun
        let sheetStore = dryRun ? nil : try await store.open()
        let stored = try await reread ? [:] : sheetStore?.storedSheets() ?? [:]
        // A dry run given a store reads with what it knows, as the real run would, and only reads it.
        let known = try await dryRun ? store.openGivenForReading() : sheetStore
        if dryRun, known == nil, let given = store.explicitPath {
            // A mistyped path would otherwise read as a club that knows no names, silently.
            FileHandle.standardError.write(Data(TerminalText.escaped("note: no store at \(given) yet: read as a new store would\n").utf8))
        }
        if let known { try await options.read(with: known, adapt: !noAdapt) }
        if dryRun, let known { await StoreLocator.close(known) }
        // A document's pages are read by every worker, so a single PDF still wants them all.
        let documentsOrWatch = watch || files.contains { ["pdf", "tif", "tiff"].contains(($0 as NSString).pathExtension.lowercased()) }
        let batch = ScanBatch(jobs: documentsOrWatch ? jobs : min(jobs, files.count), loader: options.loader, skip: stored) { [options] in
            try SheetScanner(library: library, requested: requested, options: options)
        }
        batch.add(files)
        let output = ScanOutput(json: json, library: library)
        let progress = ProgressBar(total: files.count, enabled: !watch && !json && isatty(STDOUT_FILENO) == 1 && isatty(STDERR_FILENO) == 1)
        var summary = ScanSummary(files: files.count, jobs: batch.jobs, store: dryRun ? nil : store.displayName,
                                  skipped: expansion.skipped)
        let policy = ApprovalPolicy(approveClean: !reviewAll)
        let defaults = GameLogDefaults(athlete: athlete, opponent: opponent, context: context)

        // Ctrl-C: each worker finishes the sheet in hand, those sheets are stored, and the summary is printed.
        // A second Ctrl-C ends the process at once; each sheet is one transaction, so nothing is half-stored.
        let interrupt = Interrupt { [batch] in
            batch.stop()
            watcher?.stop()
        }
        let arrived = LockedCounter()
        if let watcher {
            let root = paths[0]
            if !json { print(TerminalText.escaped("watching \(root) for new files (Ctrl-C to stop)")) }
            fflush(nil)
            Task.detached { [batch, json, files] in
                for await arrival in watcher.arrivals(known: files) {
                    switch arrival {
                    case .file(let path) where ImageFiles.extensions.contains((path as NSString).pathExtension.lowercased()):
                        arrived.increment()
                        batch.add([path])
                    case .file(let path):
                        if !json { print(TerminalText.escaped("\(path): skipped, not an image or document by its extension")) }
                    case .notWatched(let error):
                        FileHandle.standardError.write(Data(TerminalText.escaped("warning: \(error); files put there are not read\n").utf8))
                    }
                }
                batch.finishAdding()
            }
        } else {
            batch.finishAdding()
        }

        // Results are stored as they come, and shown in the order of the files and their pages.
        var waiting: [ScanBatch.Unit: () -> Void] = [:]
        var next = (file: 0, page: nil as Int?)
        func showReady() {
            while let unit = waiting.keys.first(where: { $0.file == next.file && ($0.page ?? 1) == (next.page ?? 1) }),
                  let show = waiting.removeValue(forKey: unit) {
                progress.clear()
                show()
                // Also into a pipe, each sheet's lines go out when it is shown: a program following
                // `scan --watch --json` sees each sheet as it is stored, not when a buffer fills.
                fflush(nil)
                batch.consumed()
                if unit.isLastOfFile { progress.advance() }
                next = unit.isLastOfFile ? (unit.file + 1, nil) : (unit.file, (unit.page ?? 0) + 1)
            }
        }
        for await event in batch.events() {
            switch event {
            case .workerFailed(let message):
                throw RuntimeError(message)
            case .alreadyStored(let unit, let source, let sha, let state):
                summary.alreadyStored += 1
                waiting[unit] = { output.showAlreadyStored(source: source, sha256: sha, state: state) }
            case .read(let unit, let scanned, let sha):
                let result = scanned.result
                summary.count(scanned)
                if let sheetStore {
                    do {
                        let key = try await storeResult(scanned, sha256: sha, library: library, store: sheetStore, policy: policy,
                                                        defaults: defaults, summary: &summary)
                        if let key { batch.remember(key.key, key.state) }
                    } catch {
                        // The store itself failed (its server went away, say): no later sheet could be
                        // stored either, so the batch stops here instead of reading on. Each sheet is one
                        // transaction, so every sheet stored so far is whole and kept, and a rerun skips
                        // them and finishes the rest.
                        batch.stop()
                        watcher?.stop()
                        progress.clear()
                        if !json { print(summary.text) }
                        throw RuntimeError("\(error)\nscan stopped: \(summary.stored) new sheet\(summary.stored == 1 ? "" : "s") stored "
                                           + "before the store failed; run the same command again to finish")
                    }
                }
                waiting[unit] = { output.show(result) }
            }
            showReady()
        }
        // After Ctrl-C a document's later pages may never have been read: what was read is shown all the same.
        for unit in waiting.keys.sorted() {
            waiting[unit]?()
            batch.consumed()
        }
        progress.clear()
        withExtendedLifetime(interrupt) {}
        summary.files += arrived.count
        if !json {
            if interrupt.happened {
                print(watch ? "stopped watching: every sheet read before Ctrl-C is stored"
                            : "interrupted: every sheet read before Ctrl-C is stored; run the same command again to read the rest")
            }
            print(summary.text)
        }
        if summary.failed > 0 { throw ExitCode(1) }
        if interrupt.happened && !watch { throw ExitCode(130) }
    }

    /// One transaction per sheet (inside the store): a kill between two sheets loses nothing stored.
    /// Returns the sheet's key and state when it is in the store now.
    private func storeResult(_ scanned: ScannedSheet, sha256: String?, library: TemplateLibrary, store: any SheetStore,
                             policy: ApprovalPolicy, defaults: GameLogDefaults,
                             summary: inout ScanSummary) async throws -> (key: SheetKey, state: StoredSheetState)? {
        let result = scanned.result
        let path = URL(fileURLWithPath: result.file).standardizedFileURL.path
        guard result.status != .failed, let sha256 else {
            try await store.recordFailure(NewFailure(path: path, page: result.page, sha256: sha256,
                                                     error: result.error ?? "could not be read", at: Date()))
            return nil
        }
        let template = result.template.flatMap { library.template(id: $0) }
        let values = Dictionary(result.fields.map { ($0.id, $0.reading.value) }, uniquingKeysWith: { a, _ in a })
        var sheet = NewSheet(sha256: sha256, path: path, scannedAt: Date(), result: result, fields: template?.fields ?? [],
                             gameLog: template?.gameLog?.draft(from: values, defaults: defaults),
                             cellImages: scanned.cellImages.mapValues { Data($0) })
        sheet.page = result.page
        if let network = scanned.digits.network {
            sheet.digitEmbeddings = scanned.digits.embeddings.map { StoredDigitEmbeddings(field: $0.key, network: network, embeddings: $0.value) }
        }
        let outcome = try await store.record(sheet, policy: policy, replace: reread)
        let key = SheetKey(sha256: sha256, page: result.page)
        let state = { (id: Int64, status: SheetStatus) in
            StoredSheetState(id: id, status: status, templateID: result.template ?? "", templateVersion: result.templateVersion ?? 0)
        }
        switch outcome {
        case .alreadyStored(let id, let status):
            // Another process stored the same content between our look-up and now.
            summary.raced += 1
            return (key, state(id, status))
        case .stored(let id, let gameLog), .replaced(let id, let gameLog):
            if case .replaced = outcome { summary.replaced += 1 } else { summary.stored += 1 }
            switch gameLog {
            case .none: break
            case .approved: summary.approved += 1
            case .pending: summary.waiting += 1
            }
            return (key, state(id, result.status))
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
