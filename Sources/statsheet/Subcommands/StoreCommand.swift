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
                of their file and their page: one the destination already holds is left as it is, so copying twice, or again \
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
                let counts = try await StoreCopy.copy(from: source, to: target)
                print("copied \(counts.sheets) sheet\(counts.sheets == 1 ? "" : "s") (\(counts.alreadyThere) already there), "
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
    }
}
