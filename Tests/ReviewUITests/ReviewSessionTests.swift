import Foundation
@testable import ReviewUI
import SheetModel
import SheetStore
import Testing

/// The review session on real SQLite files: keys in, what is stored and what the screen says out.
@Suite struct ReviewSessionTests {
    static let template = bundledTemplate("lacrosse-goalie")

    /// A template of the repository's `Templates/` folder.
    static func bundledTemplate(_ id: String) -> SheetTemplate {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Templates/\(id).json")
        return try! SheetTemplate.decode(try! Data(contentsOf: url))
    }

    /// A sheet whose q2.saves was read 10 (alternative 16) against 17 shots and 1 goal: two rules fail
    /// and the suggestion is 16.
    /// - Parameter clearsBeyondRepair: q1's clears read 8, sure and with nothing else offered, where 7
    ///   adds up: a column no repair mends beside the saves the suggestion does.
    static func misreadSheet(clearsBeyondRepair: Bool = false) -> NewSheet {
        let quarters = [[7, 6, 1, 9], [17, 16, 1, 12], [19, 10, 9, 6], [15, 10, 5, 4]]
        let columns = ["shots", "saves", "goals", "clears"]
        var values: [String: FieldValue] = ["athlete": .string("Quinn Walker"), "date": .string("2026-04-11"),
                                            "opponent": .string("Lincoln High"), "context.hs": .boolean(true),
                                            "context.club": .boolean(false), "conference.conf": .boolean(false),
                                            "conference.nonconf": .boolean(false)]
        for (c, column) in columns.enumerated() {
            for q in 0..<4 { values["q\(q + 1).\(column)"] = .integer(quarters[q][c]) }
            values["ot.\(column)"] = .empty
            values["total.\(column)"] = .integer(quarters.map { $0[c] }.reduce(0, +))
        }
        values["q2.saves"] = .integer(10)
        if clearsBeyondRepair { values["q1.clears"] = .integer(8) }
        let fields = template.fields.map { spec -> (id: String, reading: FieldReading) in
            var reading = FieldReading(value: values[spec.id] ?? .empty, text: values[spec.id]?.description ?? "",
                                       confidence: clearsBeyondRepair && spec.id.hasSuffix(".clears") ? 100 : 97)
            if spec.id == "q2.saves" {
                reading = FieldReading(value: .integer(10), text: "10", confidence: 41, flagged: true, doubts: [.inFailingRule("q2.balance")])
                reading.alternatives = [Alternative(value: .integer(10), probability: 0.6), Alternative(value: .integer(16), probability: 0.35)]
            }
            return (spec.id, reading)
        }
        // As scan stores it: the failing rules and the suggestion searched for then.
        var result = SheetResult(file: "/sheets/misread.png", template: template.id, templateVersion: template.version,
                                 status: .needsReview, fields: fields, milliseconds: 100)
        result.ruleFailures = RuleCheck(template: template, values: Dictionary(uniqueKeysWithValues: fields.map { ($0.id, $0.reading.value) })).failures()
        switch SheetPosterior(search: SuggestionSearch(template: template)).weigh(fields).outcome {
        case .suggestion(let suggestion), .partial(let suggestion, _): result.suggestions = [suggestion]
        default: break
        }
        return NewSheet(sha256: String(repeating: "ab", count: 32), path: result.file, scannedAt: Date(timeIntervalSince1970: 1_790_000_000),
                        result: result, fields: template.fields, gameLog: template.gameLog!.draft(from: values))
    }

    struct FixedImages: CellImageSource {
        func cellImage(sheet: SheetImageKey, field: String) async -> CellPixels? {
            CellPixels(width: 72, height: 42, pixels: (0..<(72 * 42)).map { UInt8(($0 * 7) % 256) })
        }
    }

    /// The misread sheet as a hand-filled scan stores it: the rules' value (q2.saves 16, a number its row and
    /// the saves column read) shown in place of the ink's, flagged, so every rule holds on the values.
    static func filledInSheet() -> NewSheet {
        var sheet = misreadSheet()
        let weighed = SheetPosterior(search: SuggestionSearch(template: template)).weigh(sheet.result.fields)
        for (i, field) in weighed.readings.enumerated() where field.reading.inkValue != nil {
            sheet.result.fields[i].reading = field.reading
            sheet.result.fields[i].reading.flagged = true
        }
        return sheet
    }

    static func withStore(_ sheet: NewSheet = misreadSheet(), _ body: (String) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("statsheet-review-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("store.sqlite").path
        _ = try await SQLiteSheetStore(path: path).record(sheet, policy: ApprovalPolicy(), replace: false)
        try await body(path)
    }

    static func session(_ path: String, reviewer: String) async throws -> ReviewSession {
        let session = ReviewSession(store: try SQLiteSheetStore(path: path), reviewer: reviewer, images: FixedImages(),
                                    templates: { id, version in id == template.id && version == template.version ? template : nil })
        try await session.start()
        return session
    }

    static func type(_ text: String, into session: ReviewSession) async throws {
        for key in KeyDecoder.keys(Array(text.utf8)) { _ = try await session.handle(key) }
    }

    @Test func opensOnTheFlaggedFieldWithRulesAndSuggestion() async throws {
        try await Self.withStore { path in
            let s = try await Self.session(path, reviewer: "ann")
            #expect(s.state.currentField?.field == "q2.saves")
            #expect(Set(s.state.failures.map(\.rule)) == ["q2.balance", "saves.periods-sum"])
            #expect(s.state.suggestion?.changes.map(\.to) == [.integer(16)])
            #expect(s.state.image?.width == 72)
        }
    }

    /// A suggestion that mends the saves but not the clears column is offered, and the screen says which
    /// rule it leaves; taking it leaves that rule failing.
    @Test func aSuggestionThatMendsSomeRulesNamesTheRest() async throws {
        try await Self.withStore(Self.misreadSheet(clearsBeyondRepair: true)) { path in
            let s = try await Self.session(path, reviewer: "ann")
            #expect(s.state.suggestion?.changes.map(\.field) == ["q2.saves"])
            #expect(s.state.suggestionNote == "clears.periods-sum: no fix found")
            let rows = (0..<24).map(ReviewScreen.render(s.state, width: 80, height: 24, color: false).text(row:))
            #expect(rows.contains { $0.contains("sugg.  q2.saves 10→16") })
            #expect(rows.contains { $0.contains("clears.periods-sum: no fix found") }, "\(rows.joined(separator: "\n"))")
            try await Self.type("s", into: s)
            #expect(s.state.failures.map(\.rule) == ["clears.periods-sum"])
        }
    }

    @Test func suggestionTakenRerunsTheRules() async throws {
        try await Self.withStore { path in
            let s = try await Self.session(path, reviewer: "ann")
            // After any change the suggestion is searched for again (once the screen is drawn).
            try await Self.type("k\r", into: s)  // q2.shots accepted as read
            #expect(s.suggestionPending)
            #expect(s.state.suggestion == nil)
            s.searchSuggestion()
            #expect(s.state.suggestion?.changes.map(\.field) == ["q2.saves"])
            try await Self.type("s", into: s)
            #expect(s.state.failures.isEmpty)
            #expect(s.state.message == "Suggestion taken: q2.saves 10 → 16.")
            let correction = try #require(try await SQLiteSheetStore(path: path).corrections(sheetID: 1).last)
            #expect(correction.note == "suggestion (35%)")
            #expect(correction.original.value == .integer(10))
        }
    }

    /// A number the scan filled in from the suggestion holds the rules, yet is not the ink's: approving it
    /// unconfirmed asks for a reason; confirmed, it is approved plainly. The correction keeps the reading
    /// (the digits' own text), and the stored reading's note what the digits read.
    @Test func aFilledInNumberIsConfirmedOrApprovedWithAReason() async throws {
        try await Self.withStore(Self.filledInSheet()) { path in
            let s = try await Self.session(path, reviewer: "ann")
            #expect(s.state.failures.isEmpty)
            #expect(s.state.review?.values["q2.saves"] == .integer(16))
            #expect(s.state.currentField?.field == "q2.saves")
            #expect(s.state.unconfirmedNotFromInk == ["q2.saves"])
            let screen = ReviewScreen.render(s.state, width: 120, height: 30, color: false)
            let rows = (0..<30).map(screen.text(row:))
            #expect(rows.contains { $0.contains("sums   16  (the digits read \"10\")") }, "\(rows)")
            #expect(rows.contains { $0.contains("now    unconfirmed: Enter confirms it") })
            try await Self.type("a", into: s)
            #expect(s.state.mode == .overriding(""))
            let prompt = ReviewScreen.render(s.state, width: 120, height: 30, color: false).text(row: 29)
            #expect(prompt.contains("unconfirmed numbers the ink did not give (q2.saves) — approve anyway because:"), "\(prompt)")
            try await Self.type("\r", into: s)  // no reason: still asked
            #expect(s.state.mode == .overriding(""))
            #expect(s.state.message == "A reason is required to approve numbers the ink did not give unconfirmed (Esc cancels).")
            try await Self.type("\u{1B}\r", into: s)  // back, and confirm q2.saves as filled in
            let correction = try #require(try await SQLiteSheetStore(path: path).corrections(sheetID: 1).last)
            #expect(correction.note == "accepted the value the sums chose")
            #expect(correction.newValue == .integer(16))
            #expect(correction.original.value == .integer(16) && correction.original.text == "10")
            let stored = try #require(s.state.review?.fields.first { $0.field == "q2.saves" }?.stored.reading)
            #expect(stored.notes.contains("the digits alone read 10 (confidence 41); the sums make 16 likelier"))
            #expect(stored.inkValue == .integer(10) && stored.inkConfidence == 41)
            #expect(s.state.unconfirmedNotFromInk.isEmpty)
            try await Self.type("a", into: s)
            #expect(s.state.queue.isEmpty)
            let decision = try #require(try await SQLiteSheetStore(path: path).decisions(sheetID: 1).first)
            #expect(decision.kind == .approved && decision.reason == nil)
        }
    }

    /// Unconfirmed, it is approved only with the reason recorded.
    @Test func aFilledInNumberApprovedUnconfirmedKeepsTheReason() async throws {
        try await Self.withStore(Self.filledInSheet()) { path in
            let s = try await Self.session(path, reviewer: "ann")
            try await Self.type("achecked against the paper\r", into: s)
            #expect(s.state.queue.isEmpty)
            #expect(s.state.message?.hasPrefix("Approved misread.png with unconfirmed numbers the ink did not give (checked against the paper)") == true,
                    "\(s.state.message ?? "")")
            let decision = try #require(try await SQLiteSheetStore(path: path).decisions(sheetID: 1).first)
            #expect(decision.reason == "checked against the paper")
        }
    }

    /// Approving over failing rules takes a reason, and says so of the sheet approved.
    @Test func approvingOverFailingRulesSaysSo() async throws {
        try await Self.withStore { path in
            let s = try await Self.session(path, reviewer: "ann")
            try await Self.type("a", into: s)
            #expect(s.state.mode == .overriding(""))
            try await Self.type("coach confirmed\r", into: s)
            #expect(s.state.message?.hasPrefix("Approved misread.png over failing rules (coach confirmed)") == true, "\(s.state.message ?? "")")
        }
    }

    /// The search may change readings, never a person's value, however doubtful the reading it replaced.
    @Test func aCorrectionIsNeverSuggestedAway() async throws {
        try await Self.withStore { path in
            let s = try await Self.session(path, reviewer: "ann")
            try await Self.type("e11\r", into: s)  // q2.saves: still breaks q2.balance
            s.searchSuggestion()
            let suggested = s.state.suggestion?.changes.map(\.field) ?? []
            #expect(!suggested.contains("q2.saves"), "\(suggested)")
            #expect(s.state.failures.map(\.rule).contains("q2.balance"))
        }
    }

    @Test func aTypedValueMustFitTheKind() async throws {
        try await Self.withStore { path in
            let s = try await Self.session(path, reviewer: "ann")
            try await Self.type("eabc\r", into: s)
            #expect(s.state.mode == .editing("abc"))
            let warned = s.state.messageIsWarning
            #expect(warned)
            #expect(s.state.message?.contains("'abc' is not a count") == true)
            try await Self.type("\u{1B}", into: s)
            #expect(s.state.mode == .browsing)
            #expect(try await SQLiteSheetStore(path: path).corrections(sheetID: 1).isEmpty)
        }
    }

    /// Two reviewers on one sheet: the second's write meets the first's; on another field it is saved
    /// on top (both kept) and the second is told.
    @Test func twoReviewersOnDifferentFieldsKeepBothChanges() async throws {
        try await Self.withStore { path in
            let ann = try await Self.session(path, reviewer: "ann")
            let bob = try await Self.session(path, reviewer: "bob")
            try await Self.type("e16\r", into: ann)
            try await Self.type("je2\r", into: bob)  // q2.goals
            let message = bob.state.message ?? ""
            #expect(message == "q2.goals: 1 → 2 saved. On top of someone else's change, now shown.", "\(message)")
            #expect(bob.state.review?.values["q2.saves"] == .integer(16))
            #expect(bob.state.review?.values["q2.goals"] == .integer(2))
            let corrections = try await SQLiteSheetStore(path: path).corrections(sheetID: 1)
            #expect(corrections.map(\.reviewer) == ["ann", "bob"])
        }
    }

    /// On the same field the first change stands; the second is shown it and nothing of theirs is written.
    @Test func twoReviewersOnTheSameFieldAreToldNotOverwritten() async throws {
        try await Self.withStore { path in
            let ann = try await Self.session(path, reviewer: "ann")
            let bob = try await Self.session(path, reviewer: "bob")
            try await Self.type("e16\r", into: ann)
            try await Self.type("e12\r", into: bob)
            #expect(bob.state.message?.contains("ann changed q2.saves to 16 meanwhile") == true)
            #expect(bob.state.review?.values["q2.saves"] == .integer(16))
            // An approval on a stale revision is refused the same way.
            let stale = try await Self.session(path, reviewer: "cy")
            try await Self.type("u", into: ann)
            try await Self.type("a", into: stale)
            #expect(stale.state.message == "Someone else changed this sheet meanwhile: reloaded, nothing of yours saved; look again.")
            #expect(try await SQLiteSheetStore(path: path).corrections(sheetID: 1).map(\.reviewer) == ["ann"])
            #expect(try await SQLiteSheetStore(path: path).decisions(sheetID: 1).isEmpty)
        }
    }

    @Test func screenFits80x24AndShowsTheCell() async throws {
        try await Self.withStore { path in
            let s = try await Self.session(path, reviewer: "ann")
            let canvas = ReviewScreen.render(s.state, width: 80, height: 24, color: true)
            let rows = (0..<24).map(canvas.text(row:))
            #expect(rows.allSatisfy { $0.count == 80 })
            #expect(rows[0].contains("sheet 1 of 1"))
            #expect(rows.contains { $0.contains("cell q2.saves") })
            #expect(rows.contains { $0.contains("read   10  \"10\"  41% sure") })
            #expect(rows.contains { $0.contains("sugg.  q2.saves 10→16") })
            #expect(rows.contains { $0.contains("✗ 2 rules fail") })
            #expect(rows.contains { $0.contains("@") })  // the current field on the map
            #expect(canvas.lines(color: true).joined().contains("▀"))
            let plain = ReviewScreen.render(s.state, width: 80, height: 24, color: false).lines(color: false).joined()
            #expect(!plain.contains("\u{1B}") && !plain.contains("▀"))
            try await Self.type("?", into: s)
            #expect(ReviewScreen.render(s.state, width: 80, height: 24, color: false).text(row: 3).contains("Keys"))
        }
    }
}
