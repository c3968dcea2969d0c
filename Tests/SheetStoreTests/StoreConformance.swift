import Foundation
import SheetModel
import SheetStore
import Testing

/// What every `SheetStore` backend must do, written against the protocol only. A backend's test
/// file runs each case on a new, empty store of its kind (`SQLiteConformanceTests` for SQLite; the
/// PostgreSQL backend will add its own runner over the same cases).
enum StoreConformance {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let run: @Sendable (any SheetStore) async throws -> Void
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a sheet is stored once by its content hash", run: storedOnceByHash),
        Case(name: "readings come back as they were read", run: readingsRoundTrip),
        Case(name: "a clean sheet's game log is approved and in goalie_game_logs", run: cleanSheetIsApproved),
        Case(name: "needs_review and --review-all sheets wait for review", run: reviewQueue),
        Case(name: "the same athlete, date and opponent twice is a probable duplicate", run: duplicateGuard),
        Case(name: "a different context is not a duplicate", run: contextSeparatesGames),
        Case(name: "failures are recorded, counted and cleared once read", run: failures),
        Case(name: "corrections keep the original reading", run: corrections),
        Case(name: "the whole store's flagged readings and corrections, one query each", run: wholeStoreFlagsAndCorrections),
        Case(name: "a re-read replaces readings and keeps a person's approval", run: replace),
        Case(name: "games filter by athlete and date", run: filters),
        Case(name: "metadata from flags is recorded as such", run: metadataFromFlags),
        Case(name: "review queue: undecided sheets needing review, oldest first", run: reviewQueueOrder),
        Case(name: "review: corrections overlay readings; undo marks, never deletes", run: correctionOverlayAndUndo),
        Case(name: "review: approval writes the corrected numbers to the game log", run: approvalUsesCorrectedValues),
        Case(name: "review: approving over failing rules needs a recorded override reason", run: approvalOverride),
        Case(name: "review: rejection needs a reason and leaves the game log unapproved", run: rejection),
        Case(name: "review: a stale revision is a conflict, and neither change is lost", run: revisionConflict),
        Case(name: "review: a correction must fit the field's kind", run: correctionKind),
        Case(name: "review: cell images are stored with the sheet and replaced on re-read", run: cellImages),
        Case(name: "box scores: one line per player in box_score_lines, with FG%, 3P% and FT%", run: boxScoreLines),
        Case(name: "box scores: approval stores the corrected player lines; a stored sheet carries them", run: boxScoreApproval),
        Case(name: "box scores: a re-read replaces the player lines, never adds to them", run: boxScoreReread),
        Case(name: "known names: added once by kind and match key; accents and apostrophes as written", run: knownNamesOnce),
        Case(name: "known names: learnt from every approved game log, never from one waiting", run: knownNamesLearnt),
        Case(name: "known names: a box score teaches its team, opponent and players with their numbers", run: knownNamesOfABoxScore),
        Case(name: "known names: a copied approved sheet teaches its names", run: knownNamesOfACopiedSheet),
        Case(name: "digit examples: a live correction or confirmation labels a number's digits when their count matches", run: digitExamplesLabelled),
        Case(name: "digit examples: a re-read replaces a sheet's embeddings; a copied sheet carries them", run: digitExamplesRereadAndCopied),
        Case(name: "digit examples: a balanced sheet's sure counts label their digits; five sheets with a slip teach nothing", run: digitExamplesFromBalancedSheets),
        Case(name: "seasons: each approved game's day and context by athlete, none waiting", run: seasonGames),
        Case(name: "pages: two pages of one file are two sheets, each stored once; a one-image file is neither", run: pagesAreSheets),
        Case(name: "pages: failures are kept by path and page; a page read clears its own and its whole file's", run: pageFailures),
        Case(name: "pages: the views name a page path#page=N, with sheet_page; review and copies carry the page", run: pagesInViews),
    ]

    /// Copying one store into another (`statsheet store copy`): each backend's runner gives two new stores of its kind.
    struct CopyCase: Sendable, CustomTestStringConvertible {
        let name: String
        let run: @Sendable (_ source: any SheetStore, _ target: any SheetStore) async throws -> Void
        var testDescription: String { name }
    }

    static let copyCases: [CopyCase] = [
        CopyCase(name: "store copy: a two-page file's sheets are copied once each, failures with their pages; a rerun adds nothing",
                 run: copyPages),
    ]

    // MARK: Fixtures

    static let template: SheetTemplate = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Templates/lacrosse-goalie.json")
        return try! SheetTemplate.decode(try! Data(contentsOf: url))
    }()

    /// A lacrosse sheet: quarters of (shots, saves, goals, clears), no overtime, totals summed.
    static func sheet(hash: String, athlete: String = "Quinn Walker", date: String = "2026-04-11", opponent: String = "Lincoln High",
                      club: Bool = false, status: SheetStatus = .clean, quarters: [[Int]] = [[7, 6, 1, 9], [17, 16, 1, 12], [19, 10, 9, 6], [15, 10, 5, 4]],
                      defaults: GameLogDefaults = GameLogDefaults(), path: String? = nil, page: Int? = nil) -> NewSheet {
        var values: [String: FieldValue] = [
            "athlete": athlete.isEmpty ? .empty : .string(athlete), "date": .string(date), "opponent": .string(opponent),
            "context.hs": .boolean(!club), "context.club": .boolean(club),
            "conference.conf": .boolean(!club), "conference.nonconf": .boolean(false),
        ]
        let columns = ["shots", "saves", "goals", "clears"]
        for (q, numbers) in quarters.enumerated() {
            for (c, n) in numbers.enumerated() { values["q\(q + 1).\(columns[c])"] = .integer(n) }
        }
        for (c, column) in columns.enumerated() {
            values["ot.\(column)"] = .empty
            values["total.\(column)"] = .integer(quarters.map { $0[c] }.reduce(0, +))
        }
        let fields = template.fields.map { spec in
            var reading = FieldReading(value: values[spec.id] ?? .empty, text: values[spec.id].map { "\($0)" } ?? "", confidence: 95)
            if spec.id == "q2.saves" {
                reading.alternatives = [Alternative(value: .integer(16), probability: 0.9), Alternative(value: .integer(10), probability: 0.05)]
                if status == .needsReview {
                    reading.flagged = true; reading.confidence = 41; reading.doubts = [.smallMark, .inFailingRule("q2.balance")]
                    reading.inkValue = .integer(10); reading.inkConfidence = 5
                }
            }
            return (id: spec.id, reading: reading)
        }
        var result = SheetResult(file: path ?? "/sheets/\(hash).png", template: template.id, templateVersion: template.version, status: status,
                                 alignment: AlignmentReport(quality: 0.98, quarterTurns: 0, scale: 4.17, markRead: true),
                                 fields: fields, milliseconds: 120)
        if status == .needsReview { result.ruleFailures = [try! JSONDecoder().decode(RuleFailure.self, from: Data("""
            {"rule": "q2.balance", "message": "Q2", "detail": "16 + 1 = 17", "fields": ["q2.saves"]}
            """.utf8))] }
        return NewSheet(sha256: String(repeating: hash, count: 64 / hash.count), path: result.file, page: page,
                        scannedAt: Date(timeIntervalSince1970: 1_790_000_000), result: result, fields: template.fields,
                        gameLog: template.gameLog!.draft(from: values, defaults: defaults))
    }

    static let basketball: SheetTemplate = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Templates/basketball-box.json")
        return try! SheetTemplate.decode(try! Data(contentsOf: url))
    }()

    /// One player's row of a box score: number, name, then 2PM 2PA 3PM 3PA FTM FTA PTS REB AST STL BLK TO PF.
    typealias BoxRow = (number: String, name: String, numbers: [Int])
    static let boxColumns = ["fg2m", "fg2a", "fg3m", "fg3a", "ftm", "fta", "pts", "reb", "ast", "stl", "blk", "to", "pf"]
    static let boxRows: [BoxRow] = [
        ("23", "Avery Johnson", [4, 9, 2, 5, 3, 4, 17, 6, 2, 1, 0, 3, 2]),
        ("00", "Cameron Lee", [0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1]),
        ("5", "Drew Patel", [3, 4, 0, 3, 1, 2, 7, 3, 5, 2, 1, 1, 5]),
    ]

    /// A box score of `boxRows` (rows 1, 2 and 4: row 3 left blank), with team totals and the
    /// opponent's score, every field read at `confidence`.
    static func boxScore(hash: String, rows: [BoxRow] = boxRows, status: SheetStatus = .clean, path: String? = nil, page: Int? = nil) -> NewSheet {
        var values: [String: FieldValue] = ["team": .string("Granite Bay"), "opponent": .string("Summit"), "date": .string("2026-02-14"),
                                            "opp.score": .integer(19), "venue.home": .boolean(true), "venue.away": .boolean(false)]
        for (row, line) in zip(["p01", "p02", "p04"], rows) {
            values["\(row).num"] = .string(line.number)
            values["\(row).name"] = .string(line.name)
            for (column, n) in zip(boxColumns, line.numbers) { values["\(row).\(column)"] = .integer(n) }
        }
        for (c, column) in boxColumns.enumerated() { values["team.\(column)"] = .integer(rows.map { $0.numbers[c] }.reduce(0, +)) }
        let fields = basketball.fields.map { spec in
            (id: spec.id, reading: FieldReading(value: values[spec.id] ?? .empty, text: values[spec.id].map { "\($0)" } ?? "", confidence: 95))
        }
        let result = SheetResult(file: path ?? "/sheets/box-\(hash).jpg", template: basketball.id, templateVersion: basketball.version, status: status,
                                 alignment: AlignmentReport(quality: 0.97, quarterTurns: 0, scale: 4.17, markRead: true),
                                 fields: fields, milliseconds: 900)
        return NewSheet(sha256: String(repeating: hash, count: 64 / hash.count), path: result.file, page: page,
                        scannedAt: Date(timeIntervalSince1970: 1_790_000_000), result: result, fields: basketball.fields,
                        gameLog: basketball.gameLog!.draft(from: values))
    }

    static func sheetID(_ outcome: RecordOutcome) -> Int64 {
        switch outcome {
        case .stored(let id, _), .replaced(let id, _), .alreadyStored(let id, _): id
        }
    }

    static func gameLog(_ outcome: RecordOutcome) -> GameLogOutcome? {
        if case .stored(_, let g) = outcome { return g }
        if case .replaced(_, let g) = outcome { return g }
        return nil
    }

    // MARK: Cases

    static func storedOnceByHash(_ store: any SheetStore) async throws {
        let first = try await store.record(sheet(hash: "a"), policy: ApprovalPolicy(), replace: false)
        guard case .stored = first else { Issue.record("first record: \(first)"); return }
        let again = try await store.record(sheet(hash: "a", path: "/elsewhere/copy.png"), policy: ApprovalPolicy(), replace: false)
        #expect(again == .alreadyStored(sheetID: sheetID(first), status: .clean))
        #expect(try await store.sheets(status: nil).count == 1)
        #expect(try await store.sheets(status: nil).first?.path == "/sheets/a.png")
        #expect(try await store.gameLogs(sheetID: nil).count == 1)
        #expect(try await store.storedSheets()[SheetKey(sha256: String(repeating: "a", count: 64))]?.status == .clean)
    }

    static func readingsRoundTrip(_ store: any SheetStore) async throws {
        var new = sheet(hash: "b", status: .needsReview)
        new.result.reviewLine = 62.5
        let id = sheetID(try await store.record(new, policy: ApprovalPolicy(), replace: false))
        let readings = try await store.readings(sheetID: id)
        #expect(readings.map(\.field) == template.fields.map(\.id))
        #expect(readings.map(\.reading) == new.result.fields.map(\.reading))
        #expect(readings.first { $0.field == "q1.shots" }?.cell == template.field("q1.shots")?.rect)
        #expect(readings.first { $0.field == "date" }?.kind == .date)
        let summary = try #require(try await store.sheets(status: .needsReview).first)
        #expect(summary.flaggedFields == 1)
        #expect(summary.ruleFailures.map(\.rule) == ["q2.balance"])
        #expect(summary.alignmentQuality == 0.98)
        #expect(summary.reviewLine == 62.5)
        #expect(try await store.sheets(status: .clean).isEmpty)
    }

    static func cleanSheetIsApproved(_ store: any SheetStore) async throws {
        let outcome = try await store.record(sheet(hash: "c"), policy: ApprovalPolicy(), replace: false)
        guard case .approved = gameLog(outcome) else { Issue.record("\(outcome)"); return }
        let logs = try await store.goalieGameLogs(GameLogFilter())
        #expect(logs.count == 1)
        let log = try #require(logs.first)
        #expect(log.athlete == "Quinn Walker")
        #expect(log.date == "2026-04-11")
        #expect(log.opponent == "Lincoln High")
        #expect(log.context == "high_school")
        #expect(log.conference == "conference")
        #expect(log.source == "ocr")
        #expect(log.totals == GoalieStats(shots: 58, saves: 42, goalsAllowed: 16, clears: 31))
        #expect(log.periods["p2"] == GoalieStats(shots: 17, saves: 16, goalsAllowed: 1, clears: 12))
        #expect(log.periods["ot"] == GoalieStats())
        #expect(log.approvedBy == ApprovalPolicy().approver)
        #expect(log.givenByFlags.isEmpty)
    }

    static func reviewQueue(_ store: any SheetStore) async throws {
        let review = try await store.record(sheet(hash: "d", status: .needsReview), policy: ApprovalPolicy(), replace: false)
        guard case .pending(let id, let reason)? = gameLog(review) else { Issue.record("\(review)"); return }
        #expect(reason.contains("needs review"))
        let queued = try await store.record(sheet(hash: "e", date: "2026-05-01"), policy: ApprovalPolicy(approveClean: false), replace: false)
        guard case .pending(_, let why)? = gameLog(queued) else { Issue.record("\(queued)"); return }
        #expect(why.contains("--review-all"))
        #expect(try await store.goalieGameLogs(GameLogFilter()).isEmpty)
        try await store.approveGameLog(id: id, by: "coach", at: Date(timeIntervalSince1970: 1_790_000_100))
        let logs = try await store.goalieGameLogs(GameLogFilter())
        #expect(logs.map(\.id) == [id])
        #expect(logs.first?.approvedBy == "coach")
        await #expect(throws: StoreError.self) { try await store.approveGameLog(id: 9_999, by: "coach", at: Date()) }
    }

    static func duplicateGuard(_ store: any SheetStore) async throws {
        let first = try await store.record(sheet(hash: "f"), policy: ApprovalPolicy(), replace: false)
        // Another photo of the same game: different bytes, same athlete (any case), date and opponent.
        let second = try await store.record(sheet(hash: "1", athlete: "QUINN WALKER"), policy: ApprovalPolicy(), replace: false)
        guard case .approved(let firstLog)? = gameLog(first), case .pending(let secondLog, let reason)? = gameLog(second) else {
            Issue.record("\(first) \(second)"); return
        }
        #expect(reason.contains("duplicate of game log \(firstLog)"))
        #expect(try await store.gameLogs(sheetID: nil).first { $0.id == secondLog }?.duplicateOf == firstLog)
        #expect(try await store.goalieGameLogs(GameLogFilter()).count == 1)
        #expect(try await store.sheets(status: nil).count == 2)
    }

    static func contextSeparatesGames(_ store: any SheetStore) async throws {
        _ = try await store.record(sheet(hash: "2"), policy: ApprovalPolicy(), replace: false)
        let club = try await store.record(sheet(hash: "3", club: true), policy: ApprovalPolicy(), replace: false)
        guard case .approved? = gameLog(club) else { Issue.record("\(club)"); return }
        #expect(try await store.goalieGameLogs(GameLogFilter()).map(\.context).sorted { ($0 ?? "") < ($1 ?? "") } == ["club", "high_school"])
    }

    static func failures(_ store: any SheetStore) async throws {
        let path = "/sheets/4.png"
        try await store.recordFailure(NewFailure(path: path, sha256: nil, error: "not readable", at: Date(timeIntervalSince1970: 1_790_000_000)))
        try await store.recordFailure(NewFailure(path: path, sha256: String(repeating: "4", count: 64), error: "no markers found",
                                                 at: Date(timeIntervalSince1970: 1_790_000_060)))
        let failures = try await store.failures()
        #expect(failures.count == 1)
        #expect(failures.first?.attempts == 2)
        #expect(failures.first?.error == "no markers found")
        #expect(failures.first?.firstFailedAt == Date(timeIntervalSince1970: 1_790_000_000))
        #expect(failures.first?.lastFailedAt == Date(timeIntervalSince1970: 1_790_000_060))
        _ = try await store.record(sheet(hash: "4", path: path), policy: ApprovalPolicy(), replace: false)
        #expect(try await store.failures().isEmpty)
    }

    static func corrections(_ store: any SheetStore) async throws {
        let id = sheetID(try await store.record(sheet(hash: "5", status: .needsReview), policy: ApprovalPolicy(), replace: false))
        let original = try #require(try await store.readings(sheetID: id).first { $0.field == "q2.saves" }).reading
        let at = Date(timeIntervalSince1970: 1_790_000_500)
        let correctionID = try await store.addCorrection(NewCorrection(sheetID: id, field: "q2.saves", newValue: .integer(10),
                                                                       reviewer: "coach", at: at, note: "ink smudge"))
        let list = try await store.corrections(sheetID: id)
        #expect(list.count == 1)
        let c = try #require(list.first)
        #expect(c.id == correctionID)
        #expect(c.original.value == original.value)
        #expect(c.original.text == original.text)
        #expect(c.original.confidence == original.confidence)
        #expect(c.newValue == .integer(10))
        #expect(c.reviewer == "coach")
        #expect(c.at == at)
        #expect(c.note == "ink smudge")
        // The reading itself is untouched: corrections sit beside it.
        #expect(try await store.readings(sheetID: id).first { $0.field == "q2.saves" }?.reading == original)
        await #expect(throws: StoreError.self) {
            _ = try await store.addCorrection(NewCorrection(sheetID: id, field: "q9.saves", newValue: .integer(1), reviewer: "coach", at: at))
        }
    }

    /// What the report counts: every flagged reading with its notes, every correction of every sheet, undone ones too.
    static func wholeStoreFlagsAndCorrections(_ store: any SheetStore) async throws {
        #expect(try await store.flaggedReadings().isEmpty)
        #expect(try await store.allCorrections().isEmpty)
        let a = sheetID(try await store.record(sheet(hash: "a", status: .needsReview), policy: ApprovalPolicy(), replace: false))
        _ = try await store.record(sheet(hash: "b", opponent: "Pine Ridge"), policy: ApprovalPolicy(), replace: false)
        let c = sheetID(try await store.record(sheet(hash: "c", opponent: "Oak Hill", status: .needsReview), policy: ApprovalPolicy(),
                                               replace: false))
        let flagged = try await store.flaggedReadings()
        #expect(flagged.map(\.sheetID) == [a, c] && flagged.allSatisfy { $0.field == "q2.saves" })
        // Doubts and the ink's own value come back typed, as stored.
        #expect(flagged.allSatisfy { $0.reading.confidence == 41 && $0.reading.doubts == [.smallMark, .inFailingRule("q2.balance")] })
        #expect(flagged.allSatisfy { $0.reading.inkValue == .integer(10) && $0.reading.inkConfidence == 5 })
        #expect(flagged.allSatisfy { $0.reading.flagCause(line: 70) == .fromSums })
        let at = Date(timeIntervalSince1970: 1_790_000_700)
        _ = try await store.addCorrection(NewCorrection(sheetID: c, field: "q2.saves", newValue: .integer(10), reviewer: "ann", at: at))
        _ = try await store.addCorrection(NewCorrection(sheetID: a, field: "q1.shots", newValue: .integer(8), reviewer: "bob", at: at))
        _ = try await store.undoLastCorrection(UndoRequest(sheetID: a, expectedRevision: nil, reviewer: "bob", at: at))
        let all = try await store.allCorrections()
        #expect(all.map(\.sheetID) == [c, a])
        #expect(all.map(\.field) == ["q2.saves", "q1.shots"])
        #expect(all.map(\.isLive) == [true, false])
        #expect(all == (try await store.corrections(sheetID: c)) + (try await store.corrections(sheetID: a)))
    }

    static func replace(_ store: any SheetStore) async throws {
        let first = try await store.record(sheet(hash: "6", status: .needsReview), policy: ApprovalPolicy(), replace: false)
        let id = sheetID(first)
        let reread = try await store.record(sheet(hash: "6", quarters: [[5, 5, 0, 1], [1, 1, 0, 1], [1, 1, 0, 1], [1, 1, 0, 1]]),
                                            policy: ApprovalPolicy(), replace: true)
        guard case .replaced(id, .approved(let logID)) = reread else { Issue.record("\(reread)"); return }
        #expect(try await store.sheets(status: nil).map(\.status) == [.clean])
        #expect(try await store.readings(sheetID: id).first { $0.field == "q1.shots" }?.reading.value == .integer(5))
        #expect(try await store.gameLogs(sheetID: nil).count == 1)
        #expect(try await store.goalieGameLogs(GameLogFilter()).first?.totals.shots == 8)
        // A person's approval survives another re-read.
        try await store.approveGameLog(id: logID, by: "coach", at: Date(timeIntervalSince1970: 1_790_000_900))
        _ = try await store.record(sheet(hash: "6"), policy: ApprovalPolicy(), replace: true)
        #expect(try await store.goalieGameLogs(GameLogFilter()).first?.approvedBy == "coach")
        #expect(try await store.readings(sheetID: id).count == template.fields.count)
    }

    static func filters(_ store: any SheetStore) async throws {
        for (hash, athlete, date) in [("7", "Quinn Walker", "2026-03-01"), ("8", "Quinn Walker", "2026-04-01"), ("9", "Drew Patel", "2026-04-02")] {
            _ = try await store.record(sheet(hash: hash, athlete: athlete, date: date), policy: ApprovalPolicy(), replace: false)
        }
        #expect(try await store.goalieGameLogs(GameLogFilter(athlete: "quinn walker")).map(\.date) == ["2026-03-01", "2026-04-01"])
        #expect(try await store.goalieGameLogs(GameLogFilter(from: "2026-04-01")).map(\.athlete) == ["Quinn Walker", "Drew Patel"])
        #expect(try await store.goalieGameLogs(GameLogFilter(from: "2026-03-02", to: "2026-04-01")).map(\.date) == ["2026-04-01"])
    }

    static func metadataFromFlags(_ store: any SheetStore) async throws {
        let outcome = try await store.record(sheet(hash: "0", athlete: "", defaults: GameLogDefaults(athlete: "Jamie Ortiz", opponent: "Ignored")),
                                             policy: ApprovalPolicy(), replace: false)
        guard case .approved? = gameLog(outcome) else { Issue.record("\(outcome)"); return }
        let log = try #require(try await store.goalieGameLogs(GameLogFilter()).first)
        #expect(log.athlete == "Jamie Ortiz")
        #expect(log.opponent == "Lincoln High")
        #expect(log.givenByFlags == ["athlete"])
    }

    // MARK: Review cases (issue 6)

    static let reviewTime = Date(timeIntervalSince1970: 1_790_001_000)

    static func recordForReview(_ store: any SheetStore, hash: String, scannedAt: Date? = nil) async throws -> Int64 {
        var new = sheet(hash: hash, status: .needsReview)
        if let scannedAt { new.scannedAt = scannedAt }
        return sheetID(try await store.record(new, policy: ApprovalPolicy(), replace: false))
    }

    static func reviewQueueOrder(_ store: any SheetStore) async throws {
        _ = try await store.record(sheet(hash: "a"), policy: ApprovalPolicy(), replace: false)
        let later = try await recordForReview(store, hash: "b", scannedAt: Date(timeIntervalSince1970: 1_790_000_300))
        let earlier = try await recordForReview(store, hash: "c", scannedAt: Date(timeIntervalSince1970: 1_790_000_100))
        let third = try await recordForReview(store, hash: "d", scannedAt: Date(timeIntervalSince1970: 1_790_000_200))
        #expect(try await store.reviewQueue().map(\.id) == [earlier, third, later])
        try await store.approveSheet(SheetApproval(sheetID: earlier, expectedRevision: nil, reviewer: "coach", at: reviewTime,
                                                   gameLog: nil, ruleFailures: []))
        try await store.rejectSheet(SheetRejection(sheetID: later, expectedRevision: nil, reviewer: "coach", at: reviewTime, reason: "blurred"))
        #expect(try await store.reviewQueue().map(\.id) == [third])
    }

    static func correctionOverlayAndUndo(_ store: any SheetStore) async throws {
        let id = try await recordForReview(store, hash: "e")
        let start = try await store.sheetReview(sheetID: id)
        #expect(start.values["q2.saves"] == .integer(16))
        #expect(start.fields.first { $0.field == "q2.saves" }?.stored.reading.flagged == true)
        _ = try await store.addCorrection(NewCorrection(sheetID: id, field: "q2.saves", newValue: .integer(10), reviewer: "ann", at: reviewTime,
                                                        expectedRevision: start.revision))
        _ = try await store.addCorrection(NewCorrection(sheetID: id, field: "q2.saves", newValue: .integer(12), reviewer: "ann", at: reviewTime,
                                                        expectedRevision: start.revision + 1))
        let corrected = try await store.sheetReview(sheetID: id)
        #expect(corrected.revision == start.revision + 2)
        #expect(corrected.values["q2.saves"] == .integer(12))
        let undone = try #require(try await store.undoLastCorrection(UndoRequest(sheetID: id, expectedRevision: corrected.revision,
                                                                                 reviewer: "bob", at: reviewTime.addingTimeInterval(5))))
        #expect(undone.newValue == .integer(12))
        #expect(undone.undoneBy == "bob")
        #expect(undone.undoneAt == reviewTime.addingTimeInterval(5))
        #expect(try await store.sheetReview(sheetID: id).values["q2.saves"] == .integer(10))
        _ = try await store.undoLastCorrection(UndoRequest(sheetID: id, expectedRevision: nil, reviewer: "bob", at: reviewTime))
        #expect(try await store.undoLastCorrection(UndoRequest(sheetID: id, expectedRevision: nil, reviewer: "bob", at: reviewTime)) == nil)
        let after = try await store.sheetReview(sheetID: id)
        #expect(after.values["q2.saves"] == .integer(16))
        // Both corrections stay on record, marked undone; the reading is untouched.
        #expect(after.corrections.map(\.newValue) == [.integer(10), .integer(12)])
        #expect(after.corrections.allSatisfy { !$0.isLive })
        #expect(after.fields.first { $0.field == "q2.saves" }?.stored.reading.value == .integer(16))
    }

    static func approvalUsesCorrectedValues(_ store: any SheetStore) async throws {
        let id = try await recordForReview(store, hash: "f")
        let review = try await store.sheetReview(sheetID: id)
        _ = try await store.addCorrection(NewCorrection(sheetID: id, field: "q2.saves", newValue: .integer(15), reviewer: "ann", at: reviewTime,
                                                        note: "1 misread as 6", expectedRevision: review.revision))
        _ = try await store.addCorrection(NewCorrection(sheetID: id, field: "q2.goals", newValue: .integer(2), reviewer: "ann", at: reviewTime))
        let corrected = try await store.sheetReview(sheetID: id)
        let draft = template.gameLog!.draft(from: corrected.values)
        try await store.approveSheet(SheetApproval(sheetID: id, expectedRevision: corrected.revision, reviewer: "ann",
                                                   at: reviewTime.addingTimeInterval(60), gameLog: draft, ruleFailures: []))
        let log = try #require(try await store.goalieGameLogs(GameLogFilter()).first)
        #expect(log.periods["p2"] == GoalieStats(shots: 17, saves: 15, goalsAllowed: 2, clears: 12))
        #expect(log.approvedBy == "ann")
        #expect(log.approvedAt == reviewTime.addingTimeInterval(60))
        let decisions = try await store.decisions(sheetID: id)
        #expect(decisions.map(\.kind) == [.approved])
        #expect(decisions.first?.reason == nil)
        #expect(decisions.first?.revision == corrected.revision + 1)
        #expect(try await store.sheetReview(sheetID: id).decision?.kind == .approved)
        #expect(try await store.reviewQueue().isEmpty)
    }

    static func approvalOverride(_ store: any SheetStore) async throws {
        let id = try await recordForReview(store, hash: "1")
        let review = try await store.sheetReview(sheetID: id)
        let failures = review.sheet.ruleFailures
        let draft = template.gameLog!.draft(from: review.values)
        for reason: String? in [nil, "  "] {
            await #expect(throws: StoreError.self) {
                try await store.approveSheet(SheetApproval(sheetID: id, expectedRevision: review.revision, reviewer: "ann", at: reviewTime,
                                                           gameLog: draft, ruleFailures: failures, overrideReason: reason))
            }
        }
        #expect(try await store.goalieGameLogs(GameLogFilter()).isEmpty)
        #expect(try await store.sheetReview(sheetID: id).revision == review.revision)
        try await store.approveSheet(SheetApproval(sheetID: id, expectedRevision: review.revision, reviewer: "ann", at: reviewTime,
                                                   gameLog: draft, ruleFailures: failures, overrideReason: "the sheet itself is wrong"))
        let decision = try #require(try await store.decisions(sheetID: id).first)
        #expect(decision.reason == "the sheet itself is wrong")
        #expect(decision.ruleFailures.map(\.rule) == ["q2.balance"])
        #expect(try await store.goalieGameLogs(GameLogFilter()).count == 1)
    }

    static func rejection(_ store: any SheetStore) async throws {
        let id = try await recordForReview(store, hash: "2")
        await #expect(throws: StoreError.self) {
            try await store.rejectSheet(SheetRejection(sheetID: id, expectedRevision: nil, reviewer: "ann", at: reviewTime, reason: ""))
        }
        try await store.rejectSheet(SheetRejection(sheetID: id, expectedRevision: nil, reviewer: "ann", at: reviewTime, reason: "not our game"))
        let decision = try #require(try await store.decisions(sheetID: id).last)
        #expect(decision.kind == .rejected)
        #expect(decision.reason == "not our game")
        #expect(decision.reviewer == "ann")
        #expect(decision.at == reviewTime)
        let log = try #require(try await store.gameLogs(sheetID: id).first)
        #expect(log.approvedAt == nil)
        #expect(log.pendingReason?.contains("not our game") == true)
        #expect(try await store.reviewQueue().isEmpty)
        #expect(try await store.goalieGameLogs(GameLogFilter()).isEmpty)
    }

    static func revisionConflict(_ store: any SheetStore) async throws {
        let id = try await recordForReview(store, hash: "3")
        let seen = try await store.sheetReview(sheetID: id).revision
        _ = try await store.addCorrection(NewCorrection(sheetID: id, field: "q2.saves", newValue: .integer(15), reviewer: "ann", at: reviewTime,
                                                        expectedRevision: seen))
        // Bob loaded the same revision; his write is refused with a typed conflict, not applied over Ann's.
        await #expect(throws: ReviewConflict.self) {
            _ = try await store.addCorrection(NewCorrection(sheetID: id, field: "q2.goals", newValue: .integer(2), reviewer: "bob",
                                                            at: reviewTime, expectedRevision: seen))
        }
        for write in [
            { try await store.approveSheet(SheetApproval(sheetID: id, expectedRevision: seen, reviewer: "bob", at: reviewTime, gameLog: nil)) },
            { try await store.rejectSheet(SheetRejection(sheetID: id, expectedRevision: seen, reviewer: "bob", at: reviewTime, reason: "x")) },
            { _ = try await store.undoLastCorrection(UndoRequest(sheetID: id, expectedRevision: seen, reviewer: "bob", at: reviewTime)) },
        ] as [@Sendable () async throws -> Void] {
            await #expect(throws: ReviewConflict.self) { try await write() }
        }
        let reloaded = try await store.sheetReview(sheetID: id)
        #expect(reloaded.values["q2.saves"] == .integer(15))
        #expect(reloaded.decision == nil)
        _ = try await store.addCorrection(NewCorrection(sheetID: id, field: "q2.goals", newValue: .integer(2), reviewer: "bob",
                                                        at: reviewTime, expectedRevision: reloaded.revision))
        let both = try await store.sheetReview(sheetID: id)
        #expect(both.values["q2.saves"] == .integer(15))
        #expect(both.values["q2.goals"] == .integer(2))
        #expect(both.corrections.map(\.reviewer) == ["ann", "bob"])
    }

    static func correctionKind(_ store: any SheetStore) async throws {
        let id = try await recordForReview(store, hash: "4")
        for (field, value) in [("q2.saves", FieldValue.string("seven")), ("q2.saves", .integer(-1)), ("date", .string("2026-02-30")),
                               ("context.hs", .integer(1))] {
            await #expect(throws: StoreError.self) {
                _ = try await store.addCorrection(NewCorrection(sheetID: id, field: field, newValue: value, reviewer: "ann", at: reviewTime))
            }
        }
        #expect(try await store.corrections(sheetID: id).isEmpty)
        _ = try await store.addCorrection(NewCorrection(sheetID: id, field: "q2.saves", newValue: .empty, reviewer: "ann", at: reviewTime))
        #expect(try await store.sheetReview(sheetID: id).values["q2.saves"] == .empty)
    }

    static func cellImages(_ store: any SheetStore) async throws {
        var new = sheet(hash: "5", status: .needsReview)
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF, 0x10])
        new.cellImages = ["q2.saves": png, "q2.shots": Data([1, 2, 3])]
        let id = sheetID(try await store.record(new, policy: ApprovalPolicy(), replace: false))
        #expect(try await store.cellImage(sheetID: id, field: "q2.saves") == png)
        #expect(try await store.cellImage(sheetID: id, field: "q1.saves") == nil)
        let before = try await store.sheetReview(sheetID: id).revision
        new.cellImages = ["q2.saves": Data([9, 9])]
        _ = try await store.record(new, policy: ApprovalPolicy(), replace: true)
        #expect(try await store.cellImage(sheetID: id, field: "q2.saves") == Data([9, 9]))
        #expect(try await store.cellImage(sheetID: id, field: "q2.shots") == nil)
        // A re-read changes what an open review screen shows: it counts as a new revision.
        #expect(try await store.sheetReview(sheetID: id).revision > before)
    }

    // MARK: Box scores (issue 8)

    static func boxScoreLines(_ store: any SheetStore) async throws {
        let outcome = try await store.record(boxScore(hash: "e1"), policy: ApprovalPolicy(), replace: false)
        guard case .approved = gameLog(outcome) else { Issue.record("\(outcome)"); return }
        _ = try await store.record(boxScore(hash: "e2", status: .needsReview), policy: ApprovalPolicy(), replace: false)
        let lines = try await store.boxScoreLines(GameLogFilter())
        #expect(lines.count == 3, "the waiting box score has no lines in the view; the blank row is no line")
        #expect(lines.map(\.line) == [1, 2, 4])
        #expect(lines.map(\.number) == ["23", "00", "5"], "a jersey number keeps its leading zero")
        #expect(lines.map(\.player) == ["Avery Johnson", "Cameron Lee", "Drew Patel"])
        #expect(lines.allSatisfy { $0.team == "Granite Bay" && $0.opponent == "Summit" && $0.date == "2026-02-14" })
        let avery = lines[0]
        #expect(avery.points == 17)
        #expect(avery.fieldGoalsMade == 6 && avery.fieldGoalsAttempted == 14, "field goals are 2PT and 3PT together")
        #expect(abs((avery.fieldGoalPercent ?? 0) - 600.0 / 14) < 1e-9)
        #expect(avery.threesMade == 2 && avery.threesAttempted == 5 && avery.threePercent == 40)
        #expect(avery.freeThrowsMade == 3 && avery.freeThrowsAttempted == 4 && avery.freeThrowPercent == 75)
        #expect(avery.twosMade == 4 && avery.twosAttempted == 9)
        #expect([avery.rebounds, avery.assists, avery.steals, avery.blocks, avery.turnovers, avery.fouls] == [6, 2, 1, 0, 3, 2])
        let cameron = lines[1]
        #expect(cameron.fieldGoalsAttempted == 0 && cameron.fieldGoalPercent == nil, "no attempt, no percentage")
        #expect(cameron.threePercent == nil && cameron.freeThrowPercent == nil)
        #expect(lines[2].threesMade == 0 && lines[2].threesAttempted == 3 && lines[2].threePercent == 0)
        #expect(try await store.boxScoreLines(GameLogFilter(athlete: "granite bay")).count == 3, "filtered by team")
        #expect(try await store.boxScoreLines(GameLogFilter(athlete: "Summit")).isEmpty)
        #expect(try await store.boxScoreLines(GameLogFilter(from: "2026-02-15")).isEmpty)
        #expect(try await store.goalieGameLogs(GameLogFilter()).isEmpty, "a team's box score is no goalie's game log")
    }

    static func boxScoreApproval(_ store: any SheetStore) async throws {
        var rows = boxRows
        rows[2].numbers[6] = 1  // Drew Patel's points misread: 7 → 1
        let id = sheetID(try await store.record(boxScore(hash: "e3", rows: rows, status: .needsReview), policy: ApprovalPolicy(), replace: false))
        let stored = try await store.storedSheet(id: id)
        #expect(stored.gameLog?.content.players.count == 3)
        #expect(stored.gameLog?.content.players.last?.value("pts") == 1)
        #expect(stored.gameLog?.content.stats.contains(PeriodStat(period: "total", stat: "opponent_points", value: 19)) == true)

        _ = try await store.addCorrection(NewCorrection(sheetID: id, field: "p04.pts", newValue: .integer(7), reviewer: "ann", at: reviewTime))
        let corrected = try await store.sheetReview(sheetID: id)
        try await store.approveSheet(SheetApproval(sheetID: id, expectedRevision: corrected.revision, reviewer: "ann", at: reviewTime,
                                                   gameLog: basketball.gameLog!.draft(from: corrected.values), ruleFailures: []))
        let lines = try await store.boxScoreLines(GameLogFilter())
        #expect(lines.map(\.points) == [17, 0, 7])
        #expect(lines.count == 3, "the approval replaced the lines, it did not add to them")
        #expect(try await store.storedSheet(id: id).gameLog?.content.players.last?.value("pts") == 7)
    }

    static func boxScoreReread(_ store: any SheetStore) async throws {
        _ = try await store.record(boxScore(hash: "e4"), policy: ApprovalPolicy(), replace: false)
        var rows = boxRows
        rows.removeLast()
        let again = try await store.record(boxScore(hash: "e4", rows: rows), policy: ApprovalPolicy(), replace: true)
        guard case .replaced(_, .approved) = again else { Issue.record("\(again)"); return }
        let lines = try await store.boxScoreLines(GameLogFilter())
        #expect(lines.map(\.player) == ["Avery Johnson", "Cameron Lee"], "the re-read's lines only")
        #expect(try await store.gameLogs(sheetID: nil).count == 1)
    }

    // MARK: Known names (issue 42)

    static let importTime = Date(timeIntervalSince1970: 1_789_000_000)

    static func imported(_ names: [KnownName], at time: Date = importTime) -> [StoredKnownName] {
        names.map { StoredKnownName(name: $0, source: .imported, addedAt: time) }
    }

    static func knownNamesOnce(_ store: any SheetStore) async throws {
        let roster = [
            KnownName(kind: .opponent, name: "St. Mary's"), KnownName(kind: .opponent, name: "O'Neill Prep"),
            KnownName(kind: .athlete, name: "Zoë Fernández", number: "1", team: "Granite Bay"),
            KnownName(kind: .player, name: "Lee, \"Cam\"", number: "00", team: "Granite Bay"),
        ]
        #expect(try await store.addKnownNames(imported(roster)) == 4)
        #expect(try await store.addKnownNames(imported(roster, at: reviewTime)) == 0, "the same names again add nothing")
        // The same name as people write it differently is no new name; the same letters of another kind are.
        #expect(try await store.addKnownNames(imported([KnownName(kind: .opponent, name: "ST.  MARY’S"),
                                                         KnownName(kind: .athlete, name: "Zoe\u{0308} Ferna\u{0301}ndez", number: "1", team: "granite bay")])) == 0)
        #expect(try await store.addKnownNames(imported([KnownName(kind: .athlete, name: "St. Mary's"),
                                                         KnownName(kind: .player, name: "Lee, \"Cam\"", number: "0", team: "Granite Bay")])) == 2)
        let all = try await store.knownNames(kind: nil)
        #expect(all.map(\.name) == [
            KnownName(kind: .athlete, name: "St. Mary's"), KnownName(kind: .athlete, name: "Zoë Fernández", number: "1", team: "Granite Bay"),
            KnownName(kind: .opponent, name: "O'Neill Prep"), KnownName(kind: .opponent, name: "St. Mary's"),
            KnownName(kind: .player, name: "Lee, \"Cam\"", number: "0", team: "Granite Bay"),
            KnownName(kind: .player, name: "Lee, \"Cam\"", number: "00", team: "Granite Bay"),
        ])
        #expect(all.allSatisfy { $0.source == .imported })
        #expect(all.first { $0.name.name == "Zoë Fernández" }?.addedAt == importTime, "the first import's time is kept")
        // Written as imported, byte for byte: one precomposed ë, the ASCII apostrophe.
        #expect(try await store.knownNames(kind: .opponent).map(\.name.name) == ["O'Neill Prep", "St. Mary's"])
        #expect(try await store.knownNames(kind: .athlete).contains { Array($0.name.name.unicodeScalars) == Array("Zo\u{00EB} Fern\u{00E1}ndez".unicodeScalars) })
        #expect(try await store.knownNames(kind: .team).isEmpty)
        #expect(try await store.addKnownNames([]) == 0)
    }

    static func knownNamesLearnt(_ store: any SheetStore) async throws {
        // Imported first: a sheet that names it again leaves it as imported.
        #expect(try await store.addKnownNames(imported([KnownName(kind: .athlete, name: "Quinn Walker")])) == 1)
        // Approved at once (a clean sheet): its names are known from its scan.
        _ = try await store.record(sheet(hash: "c1", athlete: "Zoë Fernández", opponent: "O'Neill Prep"), policy: ApprovalPolicy(), replace: false)
        // Waiting for review: nothing learnt yet.
        let waiting = try await recordForReview(store, hash: "c2")
        var review = try await store.sheetReview(sheetID: waiting)
        _ = try await store.addCorrection(NewCorrection(sheetID: waiting, field: "opponent", newValue: .string("St. Mary's"), reviewer: "ann",
                                                        at: reviewTime, expectedRevision: review.revision))
        let queued = try await store.record(sheet(hash: "c3", athlete: "Sam Okafor", date: "2026-05-02", opponent: "Jefferson High"),
                                            policy: ApprovalPolicy(approveClean: false), replace: false)
        func names() async throws -> [String] { try await store.knownNames(kind: nil).map { "\($0.name.kind.rawValue):\($0.name.name):\($0.source.rawValue)" } }
        #expect(try await names() == ["athlete:Quinn Walker:import", "athlete:Zoë Fernández:sheet", "opponent:O'Neill Prep:sheet"])
        #expect(try await store.knownNames(kind: .opponent).first?.addedAt == Date(timeIntervalSince1970: 1_790_000_000), "when it was approved")

        // A reviewer's approval teaches the corrected names.
        review = try await store.sheetReview(sheetID: waiting)
        try await store.approveSheet(SheetApproval(sheetID: waiting, expectedRevision: review.revision, reviewer: "ann", at: reviewTime,
                                                   gameLog: template.gameLog!.draft(from: review.values), ruleFailures: [],
                                                   overrideReason: "checked on paper"))
        #expect(try await names() == ["athlete:Quinn Walker:import", "athlete:Zoë Fernández:sheet", "opponent:O'Neill Prep:sheet",
                                      "opponent:St. Mary's:sheet"])
        #expect(try await store.knownNames(kind: .opponent).last?.addedAt == reviewTime)
        // So does approving a waiting game log.
        guard case .pending(let id, _)? = gameLog(queued) else { Issue.record("\(queued)"); return }
        try await store.approveGameLog(id: id, by: "coach", at: reviewTime)
        #expect(try await names() == ["athlete:Quinn Walker:import", "athlete:Sam Okafor:sheet", "athlete:Zoë Fernández:sheet",
                                      "opponent:Jefferson High:sheet", "opponent:O'Neill Prep:sheet", "opponent:St. Mary's:sheet"])
    }

    static func seasonGames(_ store: any SheetStore) async throws {
        #expect(try await store.seasonGames().isEmpty)
        _ = try await store.record(sheet(hash: "s1", athlete: "Zoë Fernández", date: "2026-04-11"), policy: ApprovalPolicy(), replace: false)
        _ = try await store.record(sheet(hash: "s2", athlete: "ZOË FERNÁNDEZ", date: "2026-05-02", opponent: "Oak Hill", club: true),
                                   policy: ApprovalPolicy(), replace: false)
        // Waiting for review: its date may be the misread, so it is no part of a season yet.
        let queued = try await store.record(sheet(hash: "s3", athlete: "Sam Okafor", date: "2026-05-09"),
                                            policy: ApprovalPolicy(approveClean: false), replace: false)
        #expect(try await store.seasonGames() == SeasonGames(byAthlete: [
            "zoë fernández": [GameDay(date: "2026-04-11", context: "high_school"), GameDay(date: "2026-05-02", context: "club")],
        ]))
        guard case .pending(let id, _)? = gameLog(queued) else { Issue.record("\(queued)"); return }
        try await store.approveGameLog(id: id, by: "coach", at: reviewTime)
        #expect(try await store.seasonGames().byAthlete["sam okafor"] == [GameDay(date: "2026-05-09", context: "high_school")])
    }

    static func knownNamesOfABoxScore(_ store: any SheetStore) async throws {
        _ = try await store.record(boxScore(hash: "c4"), policy: ApprovalPolicy(), replace: false)
        let names = try await store.knownNames(kind: nil).map(\.name)
        #expect(names == [
            KnownName(kind: .opponent, name: "Summit"),
            KnownName(kind: .player, name: "Avery Johnson", number: "23", team: "Granite Bay"),
            KnownName(kind: .player, name: "Cameron Lee", number: "00", team: "Granite Bay"),
            KnownName(kind: .player, name: "Drew Patel", number: "5", team: "Granite Bay"),
            KnownName(kind: .team, name: "Granite Bay"),
        ])
        // Read again: the same names, nothing added.
        _ = try await store.record(boxScore(hash: "c4"), policy: ApprovalPolicy(), replace: true)
        #expect(try await store.knownNames(kind: nil).count == 5)
    }

    static func knownNamesOfACopiedSheet(_ store: any SheetStore) async throws {
        let id = sheetID(try await store.record(sheet(hash: "c5", athlete: "Zoë Fernández"), policy: ApprovalPolicy(), replace: false))
        var copy = try await store.storedSheet(id: id)
        copy.sha256 = String(repeating: "c6", count: 32)
        copy.gameLog?.content.athlete = "Pat O'Neill"
        #expect(try await store.insert(copy))
        #expect(try await store.knownNames(kind: .athlete).map(\.name.name) == ["Pat O'Neill", "Zoë Fernández"])
        var waiting = copy
        waiting.sha256 = String(repeating: "c7", count: 32)
        waiting.gameLog?.content.athlete = "Not Approved"
        waiting.gameLog?.approvedAt = nil
        waiting.gameLog?.approvedBy = nil
        #expect(try await store.insert(waiting))
        #expect(try await store.knownNames(kind: .athlete).count == 2)
    }

    // MARK: Digit examples (issue 40)

    /// A made-up embedding per character: distinct, so each example can be told by its numbers.
    static func embeddings(_ field: Int, count: Int) -> [[Float]] {
        (0..<count).map { i in (0..<4).map { Float(field * 100 + i * 10 + $0) + 0.25 } }
    }

    static func digitExamplesLabelled(_ store: any SheetStore) async throws {
        var new = sheet(hash: "d1", status: .needsReview)
        new.digitEmbeddings = [StoredDigitEmbeddings(field: "q2.saves", network: "n1", embeddings: embeddings(1, count: 2)),
                               StoredDigitEmbeddings(field: "q1.shots", network: "n1", embeddings: embeddings(2, count: 1)),
                               StoredDigitEmbeddings(field: "date", network: "n1", embeddings: embeddings(3, count: 6))]
        let id = sheetID(try await store.record(new, policy: ApprovalPolicy(), replace: false))
        #expect(try await store.digitExamples().isEmpty, "nothing is labelled before a person says what was written")
        let at = Date(timeIntervalSince1970: 1_790_000_000)
        // Enter on the flagged field: the value read, confirmed.
        _ = try await store.addCorrection(NewCorrection(sheetID: id, field: "q2.saves", newValue: .integer(16), reviewer: "ann", at: at))
        #expect(try await store.digitExamples() == [DigitExample(digit: 1, embedding: embeddings(1, count: 2)[0], network: "n1"),
                                                    DigitExample(digit: 6, embedding: embeddings(1, count: 2)[1], network: "n1")])
        // One mark read, two digits written: which is which is unknown, so it teaches nothing.
        _ = try await store.addCorrection(NewCorrection(sheetID: id, field: "q1.shots", newValue: .integer(12), reviewer: "ann", at: at))
        #expect(try await store.digitExamples().count == 2)
        // A later correction of the same number replaces what the earlier one taught; a date teaches its MMDDYY.
        _ = try await store.addCorrection(NewCorrection(sheetID: id, field: "q2.saves", newValue: .integer(18), reviewer: "bob", at: at))
        _ = try await store.addCorrection(NewCorrection(sheetID: id, field: "date", newValue: .string("2026-04-12"), reviewer: "bob", at: at))
        let examples = try await store.digitExamples()
        #expect(examples.map(\.digit) == [0, 4, 1, 2, 2, 6, 1, 8], "most recently corrected first, each number's digits in order")
        #expect(examples.prefix(6).map(\.embedding) == embeddings(3, count: 6))
        // Undoing a correction unlabels its digits.
        _ = try await store.undoLastCorrection(UndoRequest(sheetID: id, expectedRevision: nil, reviewer: "bob", at: at))
        #expect(try await store.digitExamples().map(\.digit) == [1, 8])
    }

    static func digitExamplesRereadAndCopied(_ store: any SheetStore) async throws {
        var new = sheet(hash: "d2", status: .needsReview)
        new.digitEmbeddings = [StoredDigitEmbeddings(field: "q2.saves", network: "n1", embeddings: embeddings(1, count: 2))]
        let id = sheetID(try await store.record(new, policy: ApprovalPolicy(), replace: false))
        _ = try await store.addCorrection(NewCorrection(sheetID: id, field: "q2.saves", newValue: .integer(16), reviewer: "ann",
                                                        at: Date(timeIntervalSince1970: 1_790_000_000)))
        var copy = try await store.storedSheet(id: id)
        #expect(copy.digitEmbeddings == new.digitEmbeddings)
        copy.sha256 = String(repeating: "d3", count: 32)
        #expect(try await store.insert(copy))
        #expect(try await store.digitExamples().count == 4, "the copy's correction labels the copy's digits")
        new.digitEmbeddings = [StoredDigitEmbeddings(field: "q2.saves", network: "n2", embeddings: embeddings(5, count: 2))]
        _ = try await store.record(new, policy: ApprovalPolicy(), replace: true)
        let examples = try await store.digitExamples()
        #expect(examples.filter { $0.network == "n2" }.map(\.embedding) == embeddings(5, count: 2), "the re-read's embeddings, labelled by the kept correction")
        #expect(examples.filter { $0.network == "n1" }.count == 2, "only the copy's are left of the first reading")
    }

    static func digitExamplesFromBalancedSheets(_ store: any SheetStore) async throws {
        /// The sheet with every number read at 99.5 (the helper's 95 is under the bar).
        func sure(_ new: NewSheet) -> NewSheet {
            var sure = new
            sure.result.fields = new.result.fields.map { field in
                var reading = field.reading
                if reading.confidence == 95 { reading.confidence = 99.5 }
                return (id: field.id, reading: reading)
            }
            return sure
        }
        // A keeper's slip in a total breaks a rule: however sure its numbers, such a sheet teaches nothing.
        for i in 0..<5 {
            var slip = sure(sheet(hash: "e\(i)", date: "2026-05-1\(i)", status: .needsReview))
            slip.digitEmbeddings = [StoredDigitEmbeddings(field: "q1.shots", network: "n1", embeddings: embeddings(10 + i, count: 1))]
            _ = try await store.record(slip, policy: ApprovalPolicy(), replace: false)
        }
        #expect(try await store.digitExamples().isEmpty, "five sheets whose rules fail teach nothing")
        // A balanced sheet's sure counts label their digits with the values read, the sums vouching; its date,
        // which no sum checks, and a count under the bar do not.
        var balanced = sure(sheet(hash: "e9", date: "2026-05-20"))
        let q3 = balanced.result.fields.firstIndex { $0.id == "q3.shots" }!
        balanced.result.fields[q3].reading.confidence = 98
        balanced.digitEmbeddings = [StoredDigitEmbeddings(field: "q1.shots", network: "n1", embeddings: embeddings(1, count: 1)),
                                    StoredDigitEmbeddings(field: "q2.shots", network: "n1", embeddings: embeddings(2, count: 2)),
                                    StoredDigitEmbeddings(field: "q3.shots", network: "n1", embeddings: embeddings(3, count: 2)),
                                    StoredDigitEmbeddings(field: "date", network: "n1", embeddings: embeddings(4, count: 6))]
        _ = try await store.record(balanced, policy: ApprovalPolicy(), replace: false)
        #expect(try await store.digitExamples() == [
            DigitExample(digit: 7, embedding: embeddings(1, count: 1)[0], network: "n1", source: .balancedSheet),
            DigitExample(digit: 1, embedding: embeddings(2, count: 2)[0], network: "n1", source: .balancedSheet),
            DigitExample(digit: 7, embedding: embeddings(2, count: 2)[1], network: "n1", source: .balancedSheet),
        ])
    }

    // MARK: Pages (issue 57)

    static func pagesAreSheets(_ store: any SheetStore) async throws {
        // Two pages of one PDF: the same bytes, so the same hash; a game each (different dates: not duplicates).
        let pdf = "/sheets/week3.pdf"
        let page1 = try await store.record(sheet(hash: "a1", date: "2026-04-11", path: pdf, page: 1), policy: ApprovalPolicy(), replace: false)
        let page2 = try await store.record(sheet(hash: "a1", date: "2026-04-18", path: pdf, page: 2), policy: ApprovalPolicy(), replace: false)
        guard case .stored(let first, .approved) = page1, case .stored(let second, .approved) = page2 else {
            Issue.record("\(page1) \(page2)"); return
        }
        #expect(first != second)
        // Page 2 again, under another name: nothing added.
        #expect(try await store.record(sheet(hash: "a1", date: "2026-04-18", path: "/elsewhere/copy.pdf", page: 2), policy: ApprovalPolicy(),
                                       replace: false) == .alreadyStored(sheetID: second, status: .clean))
        // The same bytes as a file that is one image (no page) are another sheet than its page 1.
        let single = try await store.record(sheet(hash: "a1", date: "2026-04-25"), policy: ApprovalPolicy(), replace: false)
        guard case .stored(let third, _) = single else { Issue.record("\(single)"); return }
        let hash = String(repeating: "a1", count: 32)
        #expect(try await store.storedSheets().mapValues(\.id) == [SheetKey(sha256: hash, page: 1): first, SheetKey(sha256: hash, page: 2): second,
                                                                    SheetKey(sha256: hash): third])
        let sheets = try await store.sheets(status: nil)
        #expect(sheets.map(\.page) == [1, 2, nil])
        #expect(sheets.map(\.source.description) == ["/sheets/week3.pdf#page=1", "/sheets/week3.pdf#page=2", "/sheets/a1.png"])
        #expect(try await store.gameLogs(sheetID: nil).count == 3)
        // A re-read of page 2 replaces page 2 only.
        let reread = try await store.record(sheet(hash: "a1", date: "2026-04-18", path: pdf, page: 2), policy: ApprovalPolicy(), replace: true)
        guard case .replaced(second, _) = reread else { Issue.record("\(reread)"); return }
        #expect(try await store.sheets(status: nil).count == 3)
        #expect(try await store.readings(sheetID: first).count == template.fields.count)
        // Pages count from 1: a page 0 would be taken for the one-image file.
        await #expect(throws: StoreError.self) {
            try await store.record(sheet(hash: "a1", path: pdf, page: 0), policy: ApprovalPolicy(), replace: false)
        }
        await #expect(throws: StoreError.self) {
            try await store.recordFailure(NewFailure(path: pdf, page: -1, sha256: nil, error: "x", at: Date()))
        }
        #expect(try await store.sheets(status: nil).count == 3)
    }

    static func pageFailures(_ store: any SheetStore) async throws {
        let (pdf, tiff) = ("/sheets/week3.pdf", "/sheets/scan.tiff")
        let hash = String(repeating: "b2", count: 32)
        let at = Date(timeIntervalSince1970: 1_790_000_000)
        try await store.recordFailure(NewFailure(path: pdf, page: 2, sha256: hash, error: "no markers found", at: at))
        try await store.recordFailure(NewFailure(path: pdf, page: 1, sha256: hash, error: "too blurred", at: at))
        try await store.recordFailure(NewFailure(path: pdf, page: 2, sha256: hash, error: "no markers found", at: at.addingTimeInterval(60)))
        // A file that could not be opened at all: no page.
        try await store.recordFailure(NewFailure(path: tiff, sha256: nil, error: "not a TIFF", at: at))
        var failures = try await store.failures()
        #expect(failures.map(\.source.description) == ["/sheets/scan.tiff", "/sheets/week3.pdf#page=1", "/sheets/week3.pdf#page=2"])
        #expect(failures.map(\.attempts) == [1, 1, 2])
        #expect(failures.last?.lastFailedAt == at.addingTimeInterval(60))
        // Page 2 read at last: its failure goes, page 1's stays.
        _ = try await store.record(sheet(hash: "b2", path: pdf, page: 2), policy: ApprovalPolicy(), replace: false)
        failures = try await store.failures()
        #expect(failures.map(\.source.description) == ["/sheets/scan.tiff", "/sheets/week3.pdf#page=1"])
        // A page of the TIFF read: the file opened, so its whole-file failure goes.
        _ = try await store.record(sheet(hash: "c3", date: "2026-05-01", path: tiff, page: 1), policy: ApprovalPolicy(), replace: false)
        #expect(try await store.failures().map(\.source.description) == ["/sheets/week3.pdf#page=1"])
    }

    static func pagesInViews(_ store: any SheetStore) async throws {
        let paged = sheetID(try await store.record(sheet(hash: "d4", path: "/sheets/week3.pdf", page: 2), policy: ApprovalPolicy(), replace: false))
        _ = try await store.record(sheet(hash: "e5", athlete: "Drew Patel"), policy: ApprovalPolicy(), replace: false)
        let logs = try await store.goalieGameLogs(GameLogFilter())
        #expect(logs.map(\.sheetPath) == ["/sheets/e5.png", "/sheets/week3.pdf#page=2"])
        #expect(logs.map(\.sheetPage) == [nil, 2])
        #expect(logs.last?.totals == GoalieStats(shots: 58, saves: 42, goalsAllowed: 16, clears: 31), "the page's numbers, grouped as before")
        _ = try await store.record(boxScore(hash: "f6", path: "/sheets/box.tiff", page: 3), policy: ApprovalPolicy(), replace: false)
        let lines = try await store.boxScoreLines(GameLogFilter())
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.sheetPath == "/sheets/box.tiff#page=3" && $0.sheetPage == 3 })
        #expect(lines.map(\.points) == [17, 0, 7])
        // The page goes wherever the sheet is shown or copied.
        let waiting = sheetID(try await store.record(sheet(hash: "d4", date: "2026-05-02", status: .needsReview, path: "/sheets/week3.pdf", page: 4),
                                                     policy: ApprovalPolicy(), replace: false))
        #expect(try await store.reviewQueue().map(\.source.description) == ["/sheets/week3.pdf#page=4"])
        #expect(try await store.sheetReview(sheetID: waiting).sheet.page == 4)
        let whole = try await store.storedSheet(id: paged)
        #expect(whole.page == 2 && whole.key == SheetKey(sha256: String(repeating: "d4", count: 32), page: 2))
        #expect(try await !store.insert(whole), "the same page is there")
        var page5 = whole
        page5.page = 5
        #expect(try await store.insert(page5), "another page of the same file is another sheet")
        #expect(try await store.storedSheets()[page5.key] != nil)
    }

    static func copyPages(_ source: any SheetStore, _ target: any SheetStore) async throws {
        let pdf = "/sheets/week3.pdf"
        // The same bytes as a one-image file, and as pages 1 and 2 of a PDF; page 2's game is page 1's again.
        _ = try await source.record(sheet(hash: "a7", date: "2026-04-04"), policy: ApprovalPolicy(), replace: false)
        _ = try await source.record(sheet(hash: "a7", athlete: "Drew Patel", path: pdf, page: 1), policy: ApprovalPolicy(), replace: false)
        let page2 = try await source.record(sheet(hash: "a7", athlete: "Drew Patel", path: pdf, page: 2), policy: ApprovalPolicy(), replace: false)
        guard case .pending(_, let reason)? = gameLog(page2) else { Issue.record("\(page2)"); return }
        #expect(reason.contains("probable duplicate"))
        let at = Date(timeIntervalSince1970: 1_790_000_000)
        for _ in 0..<2 { try await source.recordFailure(NewFailure(path: pdf, page: 3, sha256: String(repeating: "a7", count: 32), error: "blurred", at: at)) }
        try await source.recordFailure(NewFailure(path: "/sheets/other.pdf", sha256: nil, error: "not a PDF", at: at))

        let counts = try await StoreCopy.copy(from: source, to: target)
        #expect(counts.sheets == 3 && counts.alreadyThere == 0 && counts.failures == 2, "\(counts)")
        let copied = try await target.sheets(status: nil)
        #expect(copied.map(\.source.description) == ["/sheets/a7.png", "/sheets/week3.pdf#page=1", "/sheets/week3.pdf#page=2"])
        #expect(Set(copied.map(\.key)) == Set(try await source.sheets(status: nil).map(\.key)))
        // Page 2's probable duplicate is the copy of page 1's game log, not of the one-image file's.
        let logs = try await target.gameLogs(sheetID: nil)
        let page1Log = logs.first { $0.sheetID == copied[1].id }
        #expect(page1Log != nil && logs.first { $0.sheetID == copied[2].id }?.duplicateOf == page1Log?.id)
        #expect(try await target.goalieGameLogs(GameLogFilter()).map(\.sheetPath) == ["/sheets/a7.png", "/sheets/week3.pdf#page=1"])
        let failures = try await target.failures()
        #expect(failures.map(\.source.description) == ["/sheets/other.pdf", "/sheets/week3.pdf#page=3"])
        #expect(failures.map(\.attempts) == [1, 2])

        // Again: every sheet is there already; failures are put back as they were, none added.
        let again = try await StoreCopy.copy(from: source, to: target)
        #expect(again.sheets == 0 && again.alreadyThere == 3, "\(again)")
        #expect(try await target.sheets(status: nil).count == 3)
        #expect(try await target.gameLogs(sheetID: nil).count == 3)
        #expect(try await target.failures() == failures)
        // A failure of a page the destination has read since is not copied over it.
        try await source.recordFailure(NewFailure(path: pdf, page: 2, sha256: String(repeating: "a7", count: 32), error: "blurred", at: at))
        _ = try await StoreCopy.copy(from: source, to: target)
        #expect(try await target.failures().count == 2)
    }
}
