import Foundation
import SheetModel
@testable import SheetStore
import Testing

/// A store written before doubts were typed (`Fixtures/store-v3.sqlite`: two hand-filled sheets scanned by
/// statsheet at schema v3, cell images removed to keep it small) opens, its notes typed once by the
/// migration, and reviews.
@Suite struct EarlierStoreTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/store-v3.sqlite")

    @Test func aStoreWrittenBeforeTypedDoubtsOpensWithThemTypedAndReviews() async throws {
        let dir = try TemporaryStore.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("store.sqlite").path
        try FileManager.default.copyItem(atPath: Self.fixture.path, toPath: path)
        let store = try SQLiteSheetStore(path: path)
        let sheets = try await store.sheets(status: nil)
        #expect(sheets.count == 2)
        let soccer = try #require(sheets.first { $0.templateID == "soccer-keeper" })
        let readings = Dictionary(uniqueKeysWithValues: try await store.readings(sheetID: soccer.id).map { ($0.field, $0.reading) })
        // "in failing rule h2.balance", "confidence 69 with the rule broken, 100 alone", …: typed, and the ink's
        // own confidence in its column.
        let shots = try #require(readings["h2.shots"])
        #expect(shots.doubts.contains(.inFailingRule("h2.balance")) && shots.inkConfidence == 100, "\(shots.doubts)")
        #expect(shots.flagCause(line: 70) == .sureButDoubted)
        #expect(readings["total.goals"]?.doubts == [.underTheLine(70), .smallMark])
        #expect(readings["et.shots"]?.doubts.first == .strayMarks(count: 1))
        // A sentence no type stands for is kept as it was written.
        #expect(readings["h2.saves"]?.doubts.contains(.earlierNote("in failing rule h2.balance, which h2.shots alone explains")) == true)
        // Reviewed as any sheet: corrected and approved.
        let review = try await store.sheetReview(sheetID: soccer.id)
        #expect(review.fields.contains { $0.field == "h2.shots" })
        _ = try await store.addCorrection(NewCorrection(sheetID: soccer.id, field: "h2.shots", newValue: .integer(17), reviewer: "ann", at: Date()))
        #expect(try await store.corrections(sheetID: soccer.id).map(\.newValue) == [.integer(17)])
        // Reopened: the migration has run once and does not run again.
        let again = try SQLiteSheetStore(path: path)
        #expect(try await again.readings(sheetID: soccer.id).first { $0.field == "h2.shots" }?.reading.doubts == shots.doubts)
    }

    @Test func eachSentenceAnEarlierStatsheetWroteBecomesItsType() {
        let converted = EarlierNotes.convert([
            "the digits alone read 1 (confidence 62); the sums make 7 likelier", "confidence 69 is under 70",
            "a crossed-out or unreadable mark among the digits", "in failing rule q2.balance", "3 stray marks ignored", "something else",
        ])
        #expect(converted.inkValue == .integer(1) && converted.inkConfidence == 62)
        #expect(converted.doubts == [.underTheLine(70), .unreadableMark, .inFailingRule("q2.balance"), .strayMarks(count: 3),
                                     .earlierNote("something else")])
        #expect(EarlierNotes.convert(["confidence 98 with the sums, 90 alone"]).inkConfidence == 90)
        #expect(EarlierNotes.convert(["the digits alone read empty (confidence 40); filled in from the sheet's suggestion: 3"]).inkValue == .empty)
    }

    /// A measurement reads a store without changing it (`statsheet eval --db`): one written by an earlier statsheet is
    /// refused, saying its schema and the command that brings it up to date, and its file is left byte for byte as
    /// it was, no migration run; brought up to date, it is read, and still nothing can be written through it.
    @Test func aStoreOpenedToReadIsNeverMigratedNorWritten() async throws {
        let dir = try TemporaryStore.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("store.sqlite").path
        try FileManager.default.copyItem(atPath: Self.fixture.path, toPath: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: StoreError.olderSchema(store: path, version: "v3", current: "v6")) { try SQLiteSheetStore(readingOnly: path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "not migrated")
        #expect(String(describing: StoreError.olderSchema(store: path, version: "v3", current: "v6")).contains("statsheet store migrate --db \(path)"))

        _ = try SQLiteSheetStore(path: path)
        let current = try Data(contentsOf: URL(fileURLWithPath: path))
        let store = try SQLiteSheetStore(readingOnly: path)
        #expect(try await store.sheets(status: nil).count == 2)
        _ = try await store.seasonGames()
        await #expect(throws: StoreError.self) {
            try await store.addKnownNames([StoredKnownName(name: KnownName(kind: .athlete, name: "Zoë Fernández"), source: .imported, addedAt: Date())])
        }
        #expect(try await store.knownNames(kind: nil).isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == current)
        #expect(throws: StoreError.self) { try SQLiteSheetStore(readingOnly: dir.appendingPathComponent("none.sqlite").path) }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("none.sqlite").path))
    }
}
