import ArgumentParser
import Foundation
import SheetStore

/// `statsheet store copy`: moving a store, from a station's SQLite file to a club's PostgreSQL server say.
/// `statsheet store migrate`: bringing a store's schema up to date without reading or storing anything, for a store
/// `eval --db` refuses because it reads a store without changing it.
struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Work on whole stores: copy one into another, or bring one up to date.",
        subcommands: [Copy.self, Migrate.self])

    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Bring an existing store's schema up to date.",
            discussion: """
                Every command that writes to a store brings its schema up to date when it opens it; 'eval --db' \
                reads a store without changing it, so it refuses one written by an earlier statsheet until this \
                is run on it.
                """)

        @OptionGroup var store: StoreOptions

        func run() async throws {
            let opened = try await store.openExisting()
            await StoreLocator.close(opened)
            print("\(StoreLocator.displayName(store.path)): schema up to date")
        }
    }

    struct Copy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy every sheet, reading, correction, game log, failure and known name from one store into another.",
            discussion: """
                Each of --from and --to is a SQLite file or a PostgreSQL URL \
                (postgres://user:password@host:port/database?sslmode=require). Sheets are matched by the SHA-256 \
                of their file: one the destination already holds is left as it is, so copying twice, or again \
                after a copy that stopped, stores nothing twice. Approvals, reviewers and times are copied as \
                they were; so are known names (statsheet names), a name the destination knows left as it is.
                """)

        @Option(help: ArgumentHelp("The store to copy from (it must exist).", valueName: "path|url")) var from: String
        @Option(help: ArgumentHelp("The store to copy into (made if needed).", valueName: "path|url")) var to: String

        func run() async throws {
            let (fromName, toName) = (StoreLocator.displayName(from), StoreLocator.displayName(to))
            do {
                let source = try await StoreLocator.openExisting(from)
                let target = try await StoreLocator.open(to)
                let counts = try await copy(from: source, to: target)
                print("copied \(counts.sheets) sheet\(counts.sheets == 1 ? "" : "s") (\(counts.present) already there), "
                      + "\(counts.failures) failure\(counts.failures == 1 ? "" : "s") and \(counts.names) known name\(counts.names == 1 ? "" : "s") "
                      + "from \(fromName) to \(toName)")
                await StoreLocator.close(source)
                await StoreLocator.close(target)
            } catch let error as StoreError {
                throw RuntimeError("\(error)")
            } catch let error as StoreUnavailableError {
                throw RuntimeError("\(error)\ncopy stopped: what was copied is kept; run the same command again to finish")
            }
        }

        /// Known names, then sheets oldest first, so a game log's probable duplicate is in place before the log naming it.
        private func copy(from source: any SheetStore, to target: any SheetStore) async throws
            -> (sheets: Int, present: Int, failures: Int, names: Int) {
            // Names first: an imported name stays `import` rather than being learnt again from a copied sheet.
            let names = try await target.addKnownNames(try await source.knownNames(kind: nil))
            let have = try await target.storedHashes()
            var sheets = 0, present = 0, failures = 0
            for sheet in try await source.sheets(status: nil) {
                if have[sheet.sha256] == nil, try await target.insert(try await source.storedSheet(id: sheet.id)) {
                    sheets += 1
                } else {
                    present += 1
                }
            }
            // A failure is copied unless the destination has read that file since.
            let stored = try await target.sheets(status: nil)
            let (hashes, paths) = (Set(stored.map(\.sha256)), Set(stored.map(\.path)))
            for failure in try await source.failures() where !paths.contains(failure.path) && !(failure.sha256.map(hashes.contains) ?? false) {
                try await target.restoreFailure(failure)
                failures += 1
            }
            return (sheets, present, failures, names)
        }
    }
}
