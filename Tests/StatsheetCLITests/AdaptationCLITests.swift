import Foundation
import SheetModel
import SheetStore
import Testing

/// The store learning its writers, through the built binary: `scan` keeps each handwritten digit's embedding,
/// `review --apply` labels them, later scans read with them unless `--no-adapt`, and `eval --db` reads with them
/// too, writing nothing.
@Suite struct AdaptationCLITests {
    static let hand = CLITests.root.appendingPathComponent("TestImages/lacrosse-goalie/handwritten-phone")

    static func sheets(_ count: Int) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: hand.path).filter { !$0.hasSuffix(".json") }.sorted()
            .prefix(count).map { hand.appendingPathComponent($0).path }
    }

    /// The fields of `scan --json`'s one line.
    static func fields(_ run: CLITests.Run) throws -> [String: FieldReading] {
        let line = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("{") })
        let result = try JSONDecoder().decode(SheetResult.self, from: Data(line.utf8))
        return Dictionary(uniqueKeysWithValues: result.fields.map { ($0.id, $0.reading) })
    }

    @Test func correctionsTeachLaterScansUnlessNoAdapt() async throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("store.sqlite").path
        let sheets = try Self.sheets(3)
        let taught = try CLITests.run(["scan", "--db", db, "--writing", "hand", "--today", "2026-11-22", sheets[0], sheets[1]])
        #expect(taught.status == 0 || taught.status == 1, "\(taught.stderr)")

        // Every number of the two sheets confirmed as its truth has it: what a reviewer's corrections label.
        let store = try SQLiteSheetStore(path: db)
        var entries: [[String: Any]] = []
        for sheet in try await store.sheets(status: nil) {
            let truthURL = URL(fileURLWithPath: sheet.path).deletingPathExtension().appendingPathExtension("truth.json")
            let truth = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: truthURL)) as? [String: Any])
            let fields = try #require(truth["fields"] as? [String: Any])
            for reading in try await store.readings(sheetID: sheet.id) where reading.kind == .count {
                guard let n = fields[reading.field] as? Int else { continue }
                entries.append(["sheet": sheet.id, "field": reading.field, "value": n])
            }
        }
        #expect(try await store.digitExamples().allSatisfy { $0.source == .balancedSheet },
                "before a person says what was written, only the sums of sheets that balance label digits")
        let file = folder.appendingPathComponent("corrections.json")
        try JSONSerialization.data(withJSONObject: entries).write(to: file)
        let apply = try CLITests.run(["review", "--apply", file.path, "--db", db, "--reviewer", "ann"])
        #expect(apply.status == 0, "\(apply.stderr)")
        let examples = try await store.digitExamples().filter { $0.source == .person }
        #expect(examples.count >= entries.count, "\(examples.count) digits labelled by \(entries.count) numbers")

        let plain = try CLITests.run(["scan", "--dry-run", "--json", "--writing", "hand", "--today", "2026-11-22", sheets[2]])
        let unadapted = try CLITests.run(["scan", "--db", db, "--no-adapt", "--json", "--writing", "hand", "--today", "2026-11-22", sheets[2]])
        let adapted = try CLITests.run(["scan", "--db", db, "--reread", "--json", "--writing", "hand", "--today", "2026-11-22", sheets[2]])
        let network = try Self.fields(plain)
        #expect(try Self.fields(unadapted) == network, "--no-adapt reads with the network alone")
        let learnt = try Self.fields(adapted)
        #expect(learnt.keys.sorted() == network.keys.sorted())
        #expect(learnt.contains { id, reading in reading.confidence != network[id]?.confidence }, "the store's examples had a say")

        // eval --db reads as the store knows, and writes nothing to it.
        let before = (try await store.sheets(status: nil), try await store.allCorrections(), try await store.digitExamples())
        let eval = try CLITests.run(["eval", "--db", db, "--writing", "hand", "--today", "2026-11-22", "--json", sheets[2]])
        #expect(eval.status == 0, "\(eval.stderr)")
        let after = (try await store.sheets(status: nil), try await store.allCorrections(), try await store.digitExamples())
        #expect(after.0 == before.0 && after.1 == before.1 && after.2 == before.2)
        let missing = try CLITests.run(["eval", "--db", folder.appendingPathComponent("none.sqlite").path, sheets[2]])
        #expect(missing.status != 0 && missing.stderr.contains("no store at"))
    }
}
