import Foundation
@testable import ReviewUI
import SheetModel
import SheetStore
import Testing

/// Review on the largest sheet, the basketball box score (199 fields): the screen fits, the suggestion
/// mends a player's points from the sheet's own sums, and approving puts the corrected line in
/// `box_score_lines`.
@Suite struct BoxScoreReviewTests {
    static let template = ReviewSessionTests.bundledTemplate("basketball-box")

    /// Three players; the third's points (7 on paper) were read 1, doubted.
    static func misreadBoxScore() -> NewSheet {
        let columns = ["fg2m", "fg2a", "fg3m", "fg3a", "ftm", "fta", "pts", "reb", "ast", "stl", "blk", "to", "pf"]
        let players: [(String, String, [Int])] = [("23", "Avery Johnson", [4, 9, 2, 5, 3, 4, 17, 6, 2, 1, 0, 3, 2]),
                                                  ("00", "Cameron Lee", [0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1]),
                                                  ("5", "Drew Patel", [3, 4, 0, 3, 1, 2, 7, 3, 5, 2, 1, 1, 5])]
        var values: [String: FieldValue] = ["team": .string("Granite Bay"), "opponent": .string("Summit"), "date": .string("2026-02-14"),
                                            "opp.score": .integer(19), "venue.home": .boolean(true), "venue.away": .boolean(false)]
        for (row, (number, name, numbers)) in zip(["p01", "p02", "p03"], players) {
            values["\(row).num"] = .string(number)
            values["\(row).name"] = .string(name)
            for (column, n) in zip(columns, numbers) { values["\(row).\(column)"] = .integer(n) }
        }
        for (c, column) in columns.enumerated() { values["team.\(column)"] = .integer(players.map { $0.2[c] }.reduce(0, +)) }
        values["p03.pts"] = .integer(1)
        let fields = template.fields.map { spec -> (id: String, reading: FieldReading) in
            var reading = FieldReading(value: values[spec.id] ?? .empty, text: values[spec.id]?.description ?? "", confidence: 96)
            if spec.id == "p03.pts" {
                reading = FieldReading(value: .integer(1), text: "1", confidence: 38, flagged: true, doubts: [.underTheLine(70)])
                reading.alternatives = [Alternative(value: .integer(1), probability: 0.55), Alternative(value: .integer(7), probability: 0.4)]
            }
            return (spec.id, reading)
        }
        var result = SheetResult(file: "/sheets/box.jpg", template: template.id, templateVersion: template.version,
                                 status: .needsReview, fields: fields, milliseconds: 900)
        result.ruleFailures = RuleCheck(template: template, values: Dictionary(uniqueKeysWithValues: fields.map { ($0.id, $0.reading.value) })).failures()
        // As scan stores it: the suggestion searched for then.
        if case .suggestion(let suggestion) = SheetPosterior(search: SuggestionSearch(template: template)).weigh(fields).outcome { result.suggestions = [suggestion] }
        return NewSheet(sha256: String(repeating: "bc", count: 32), path: result.file, scannedAt: Date(timeIntervalSince1970: 1_790_000_000),
                        result: result, fields: template.fields, gameLog: template.gameLog!.draft(from: values))
    }

    @Test func aMisreadPlayerLineIsMendedAndApproved() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("statsheet-box-review-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("store.sqlite").path
        let store = try SQLiteSheetStore(path: path)
        _ = try await store.record(Self.misreadBoxScore(), policy: ApprovalPolicy(), replace: false)
        #expect(try await store.boxScoreLines(GameLogFilter()).isEmpty, "nothing in the view before a person approves")

        let session = ReviewSession(store: store, reviewer: "coach", images: ReviewSessionTests.FixedImages(),
                                    templates: { id, version in id == Self.template.id && version == Self.template.version ? Self.template : nil })
        try await session.start()
        #expect(session.state.currentField?.field == "p03.pts")
        #expect(Set(session.state.failures.map(\.rule)) == ["p03.points", "pts.players-sum"])

        let canvas = ReviewScreen.render(session.state, width: 80, height: 24, color: false)
        let rows = (0..<24).map(canvas.text(row:))
        #expect(rows.allSatisfy { $0.count == 80 })
        #expect(rows.contains { $0.contains("team Granite Bay") }, "\(rows[2])")
        #expect(rows.contains { $0.contains("cell p03.pts") })

        #expect(session.state.suggestion?.changes.map(\.to) == [.integer(7)])
        try await ReviewSessionTests.type("s", into: session)
        #expect(session.state.failures.isEmpty)
        try await ReviewSessionTests.type("a", into: session)

        let lines = try await store.boxScoreLines(GameLogFilter())
        #expect(lines.map(\.points) == [17, 0, 7])
        #expect(lines.last?.player == "Drew Patel")
        #expect(lines.last.map { ($0.fieldGoalsMade, $0.fieldGoalsAttempted, $0.freeThrowPercent) } ?? (nil, nil, nil) == (3, 7, 50))
        let correction = try #require(try await store.corrections(sheetID: 1).first)
        #expect(correction.original.value == .integer(1) && correction.newValue == .integer(7) && correction.reviewer == "coach")
    }
}
