import Foundation
import SheetModel
import SheetStore
import Testing

/// Issue 40's adaptation claim on a small committed set, through the built binary: a club's few stat keepers
/// fill its sheets, a reviewer corrects (or confirms) every number flagged or read wrong on the first ones with
/// `review --apply`, and the store then reads the same hands' later sheets. The sets
/// (TestImages/lacrosse-goalie/handwritten-hands-taught and -later, 6 sheets each) are scikit-learn's digits written
/// by three recurring hands (`make_test_sheets.py --hands 3`, Tools/README.md; one of them fills two later sheets
/// and no taught one); `statsheet eval` scores the later sheets read without a store (a fresh one) and with the
/// taught store (`--db`). The figure on 20 + 40 sheets is Tools/adaptation-figure.sh's.
@Suite struct HandsAdaptationCLITests {
    static let taught = CLITests.root.appendingPathComponent("TestImages/lacrosse-goalie/handwritten-hands-taught")
    static let later = CLITests.root.appendingPathComponent("TestImages/lacrosse-goalie/handwritten-hands-later")
    static let reading = ["--writing", "hand", "--today", "2026-11-23"]
    static let numberKinds: Set<FieldKind> = [.count, .digits, .date]

    /// What `statsheet eval --json` says of a set's numbers.
    struct Score: Decodable, Sendable {
        struct Numbers: Decodable, Sendable {
            let fields: Int
            let flagged: Int
            let silentErrors: Int
            enum CodingKeys: String, CodingKey { case fields, flagged, silentErrors = "silent_errors" }
        }
        let numeric: Numbers
        /// Σ (confidence − right)² over the numbers: smaller when the true values are read surer.
        let brierSum: Double
        enum CodingKeys: String, CodingKey { case numeric, brierSum = "brier_sum" }
    }

    /// The taught sheets scanned into a store (its files' bytes) and the later sheets scored by a fresh store:
    /// both tests start from them, so each set is read once for the two.
    struct Start: Sendable {
        let store: [String: Data]
        let fresh: Score
    }

    static let start = Task<Start, any Error> {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("store.sqlite").path
        let scan = try CLITests.run(["scan", taught.path, "--db", db] + reading)
        #expect(scan.status == 0, "every taught sheet is read: \(scan.stderr)")
        var files: [String: Data] = [:]
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: db + suffix) {
            files["store.sqlite" + suffix] = try Data(contentsOf: URL(fileURLWithPath: db + suffix))
        }
        return Start(store: files, fresh: try score(later, db: nil))
    }

    static func score(_ set: URL, db: String?) throws -> Score {
        let run = try CLITests.run(["eval", set.path, "--json"] + reading + (db.map { ["--db", $0] } ?? []))
        #expect(run.status == 0, "\(run.stderr)")
        return try JSONDecoder().decode(Score.self, from: Data(run.stdout.utf8))
    }

    /// A copy of the taught store in `folder`, corrected from the truth files as a careful reviewer would: every
    /// number flagged or read wrong gets its true value. `wrong` numbers are typed wrong instead (`slipped`), in the
    /// store's order: those corrections first, then numbers nobody flagged on the sheets under review. Returns the
    /// store's path, the number of entries applied and of them typed wrong.
    static func correctedStore(in folder: URL, wrong: Int = 0) async throws -> (db: String, entries: Int, wrong: Int) {
        let start = try await Self.start.value
        try #require(start.store["store.sqlite"] != nil, "the taught sheets were scanned into a store")
        for (name, data) in start.store { try data.write(to: folder.appendingPathComponent(name)) }
        let db = folder.appendingPathComponent("store.sqlite").path
        let store = try SQLiteSheetStore(path: db)

        struct Entry { var sheet: Int64, field: String, value: FieldValue, note: String? }
        var entries: [Entry] = [], unflagged: [Entry] = []
        for sheet in try await store.sheets(status: nil).sorted(by: { $0.id < $1.id }) {
            let truthURL = URL(fileURLWithPath: sheet.path).deletingPathExtension().appendingPathExtension("truth.json")
            let truth = try JSONDecoder().decode(Truth.self, from: Data(contentsOf: truthURL)).fields
            for stored in try await store.readings(sheetID: sheet.id) where numberKinds.contains(stored.kind) {
                guard let expected = truth[stored.field].map(Self.normalised) else { continue }
                let entry = Entry(sheet: sheet.id, field: stored.field, value: expected, note: nil)
                if stored.reading.flagged || stored.reading.value != expected {
                    entries.append(entry)
                } else if sheet.status == .needsReview {
                    unflagged.append(entry)
                }
            }
        }
        // The slips: the corrections first, then the unflagged dates of the sheets under review (no sum checks a
        // date: where a wrong label could most easily go unseen), then their unflagged counts.
        var slipped = 0
        for i in entries.indices where slipped < wrong {
            guard let value = Self.slipped(entries[i].value) else { continue }
            entries[i].value = value
            entries[i].note = "wrong on purpose"
            slipped += 1
        }
        for var entry in unflagged.filter({ $0.value.isDate }) + unflagged.filter({ !$0.value.isDate }) where slipped < wrong {
            guard let value = Self.slipped(entry.value) else { continue }
            entry.value = value
            entry.note = "wrong on purpose"
            entries.append(entry)
            slipped += 1
        }
        try #require(slipped == wrong, "\(slipped) of \(wrong) numbers typed wrong")
        try #require(!entries.isEmpty, "the taught sheets need something corrected or confirmed")

        let list: [[String: Any]] = entries.map { e in
            var json: [String: Any] = ["sheet": e.sheet, "field": e.field]
            switch e.value {
            case .integer(let n): json["value"] = n
            case .string(let s): json["value"] = s
            case .empty, .boolean: json["value"] = NSNull()
            }
            if let note = e.note { json["note"] = note }
            return json
        }
        let file = folder.appendingPathComponent("corrections.json")
        try JSONSerialization.data(withJSONObject: list).write(to: file)
        let apply = try CLITests.run(["review", "--apply", file.path, "--db", db, "--reviewer", "ann"])
        #expect(apply.status == 0, "\(apply.stderr)")
        #expect(try await !store.digitExamples().isEmpty, "the corrections labelled digits")
        return (db, entries.count, slipped)
    }

    /// A reviewer's slip: a count's last digit moved by 3; a date's day moved by 3 (or back by 3) where the day
    /// stays one every month has, so that the field takes it. Either keeps its number of digits, so it labels them.
    static func slipped(_ value: FieldValue) -> FieldValue? {
        switch value {
        case .integer(let n): return .integer(n - n % 10 + (n % 10 + 3) % 10)
        case .string(let date) where value.isDate:
            let parts = date.split(separator: "-")
            guard let day = Int(parts[2]) else { return nil }
            guard let moved = [3, 7].map({ day - day % 10 + (day % 10 + $0) % 10 }).first(where: { (1...28).contains($0) }) else { return nil }
            return .string("\(parts[0])-\(parts[1])-" + (moved < 10 ? "0" : "") + "\(moved)")
        default: return nil
        }
    }

    struct Truth: Decodable {
        let fields: [String: FieldValue]
    }

    /// A truth value as a field reads it: the generator writes an empty field as "" or null.
    static func normalised(_ value: FieldValue) -> FieldValue {
        value == .string("") ? .empty : value
    }

    /// The issue asks for the flag share halved on 40 new sheets (Tools/adaptation-figure.sh measures it). This
    /// population's digits the network reads well: a fresh store flags few of the later numbers (6 of 150 when
    /// the set was made, 2 of them crossed out, which must stay flagged), too few for a half to mean anything, and
    /// the figure's 40 sheets of the same population go from 2.5% to 2.0% (docs/decisions.md). What this set
    /// shows, and the test asserts: no more flags, no more wrong and unflagged, and the later sheets' true values
    /// read surer (a smaller Brier sum) than by a fresh store.
    @Test func correctionsOfTheTaughtSheetsTeachTheLaterSheets() async throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (db, entries, _) = try await Self.correctedStore(in: folder)
        let fresh = try await Self.start.value.fresh
        try #require(fresh.numeric.flagged >= 4, "a fresh store flags \(fresh.numeric.flagged) numbers: too few to measure")
        let adapted = try Self.score(Self.later, db: db)
        let report = "flagged \(adapted.numeric.flagged) of \(adapted.numeric.fields) (fresh store \(fresh.numeric.flagged)); "
            + "wrong and unflagged \(adapted.numeric.silentErrors) (\(fresh.numeric.silentErrors)); Brier sum "
            + "\(adapted.brierSum) (\(fresh.brierSum)); \(entries) corrections"
        #expect(adapted.numeric.flagged <= fresh.numeric.flagged, "\(report)")
        #expect(adapted.numeric.silentErrors <= fresh.numeric.silentErrors, "\(report)")
        #expect(adapted.brierSum < fresh.brierSum, "\(report)")
    }

    @Test func fiveWrongCorrectionsDoNotMakeTheLaterSheetsSilentlyWrong() async throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (db, entries, wrong) = try await Self.correctedStore(in: folder, wrong: 5)
        #expect(wrong == 5)
        let fresh = try await Self.start.value.fresh
        let misled = try Self.score(Self.later, db: db)
        let report = "wrong and unflagged \(misled.numeric.silentErrors) (fresh store \(fresh.numeric.silentErrors)); flagged "
            + "\(misled.numeric.flagged) (\(fresh.numeric.flagged)); Brier sum \(misled.brierSum) (\(fresh.brierSum)); \(entries) corrections, 5 wrong"
        #expect(misled.numeric.silentErrors <= fresh.numeric.silentErrors, "\(report)")
    }
}

private extension FieldValue {
    /// A date as a date field holds it, YYYY-MM-DD.
    var isDate: Bool {
        guard case .string(let text) = self else { return false }
        return text.split(separator: "-").count == 3 && text.count == 10
    }
}
