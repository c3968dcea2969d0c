import Foundation
import SheetModel

/// Result rows to the protocol's values, shared by both backends (each turns its driver's rows into `SQLRow`s).
enum StoreRows {
    static func state(_ row: SQLRow) -> StoredSheetState {
        StoredSheetState(id: row.int64("id") ?? 0, status: SheetStatus(rawValue: row.text("status")) ?? .needsReview,
                         templateID: row.text("template_id"), templateVersion: row.int("template_version") ?? 0)
    }

    /// A stored page: 0 is a file that is one image (nil), as `StoreSQL.page` writes it.
    static func page(_ row: SQLRow) -> Int? {
        row.int("page").flatMap { $0 > 0 ? $0 : nil }
    }

    static func key(_ row: SQLRow) -> SheetKey { SheetKey(sha256: row.text("sha256"), page: page(row)) }

    static func summary(_ row: SQLRow) -> SheetSummary {
        SheetSummary(id: row.int64("id") ?? 0, sha256: row.text("sha256"), path: row.text("path"), page: page(row),
                     templateID: row.text("template_id"),
                     templateVersion: row.int("template_version") ?? 0, status: SheetStatus(rawValue: row.text("status")) ?? .needsReview,
                     scannedAt: Timestamp.date(row.text("scanned_at")), alignmentQuality: row.double("alignment_quality"),
                     flaggedFields: row.int("flagged_fields") ?? 0, ruleFailures: JSON.decode(row.string("rule_failures")) ?? [],
                     reviewLine: row.double("review_line"))
    }

    static func failure(_ row: SQLRow) -> FailureRecord {
        FailureRecord(path: row.text("path"), page: page(row), sha256: row.string("sha256"), error: row.text("error"), attempts: row.int("attempts") ?? 0,
                      firstFailedAt: Timestamp.date(row.text("first_failed_at")), lastFailedAt: Timestamp.date(row.text("last_failed_at")))
    }

    static func reading(_ row: SQLRow) -> StoredReading {
        StoredReading(field: row.text("field"), kind: FieldKind(rawValue: row.text("kind")) ?? .text, reading: fieldReading(row),
                      cell: Rect(x: row.double("cell_x") ?? 0, y: row.double("cell_y") ?? 0,
                                        width: row.double("cell_width") ?? 0, height: row.double("cell_height") ?? 0))
    }

    static func flaggedReading(_ row: SQLRow) -> FlaggedReading {
        FlaggedReading(sheetID: row.int64("sheet_id") ?? 0, field: row.text("field"), reading: fieldReading(row))
    }

    /// A reading from its columns: its doubts typed (`doubts`), never parsed from the `notes` column, which
    /// keeps their words for people reading the store with SQL.
    static func fieldReading(_ row: SQLRow) -> FieldReading {
        var reading = FieldReading(value: JSON.decode(row.string("value")) ?? .empty, text: row.text("raw_text"),
                                   confidence: row.double("confidence") ?? 0, flagged: (row.int("flagged") ?? 0) != 0,
                                   doubts: JSON.decode(row.string("doubts")) ?? [])
        reading.alternatives = JSON.decode(row.string("alternatives")) ?? []
        reading.inkValue = row.string("ink_value").flatMap { JSON.decode($0) }
        reading.inkConfidence = row.double("ink_confidence")
        return reading
    }

    static func goalieGameLog(_ row: SQLRow) -> GoalieGameLog {
        func stats(_ prefix: String) -> GoalieStats {
            GoalieStats(shots: row.int(prefix + "shots"), saves: row.int(prefix + "saves"),
                        goalsAllowed: row.int(prefix + "goals_allowed"), clears: row.int(prefix + "clears"))
        }
        return GoalieGameLog(
            id: row.int64("game_log_id") ?? 0, athlete: row.string("athlete"), date: row.string("game_date"), context: row.string("context"),
            conference: row.string("conference"), opponent: row.string("opponent"), source: row.text("source"),
            givenByFlags: flags(row), sheetPath: row.text("sheet_path"), sheetSHA256: row.text("sheet_sha256"), sheetPage: row.int("sheet_page"),
            approvedAt: row.string("approved_at").map(Timestamp.date), approvedBy: row.string("approved_by"),
            totals: stats(""), periods: Dictionary(uniqueKeysWithValues: GoalieGameLog.periodColumns.map { ($0, stats($0 + "_")) }),
            templateID: row.string("template_id"))
    }

    static func playerLines(_ lines: [SQLRow], stats: [SQLRow]) -> [PlayerLine] {
        let byLine = Dictionary(grouping: stats) { $0.int("line") ?? 0 }
        return lines.map { l in
            let line = l.int("line") ?? 0
            return PlayerLine(line: line, number: l.string("number"), player: l.string("player"),
                              stats: (byLine[line] ?? []).map { PlayerStat(stat: $0.text("stat"), value: $0.int("value")) })
        }
    }

    static func boxScoreLine(_ row: SQLRow) -> BoxScoreLine {
        BoxScoreLine(
            gameLogID: row.int64("game_log_id") ?? 0, date: row.string("game_date"), team: row.string("team"), opponent: row.string("opponent"),
            sheetPath: row.text("sheet_path"), sheetPage: row.int("sheet_page"), line: row.int("line") ?? 0, number: row.string("number"), player: row.string("player"),
            points: row.int("pts"), fieldGoalsMade: row.int("fgm"), fieldGoalsAttempted: row.int("fga"), fieldGoalPercent: row.double("fg_pct"),
            threesMade: row.int("fg3m"), threesAttempted: row.int("fg3a"), threePercent: row.double("fg3_pct"),
            freeThrowsMade: row.int("ftm"), freeThrowsAttempted: row.int("fta"), freeThrowPercent: row.double("ft_pct"),
            twosMade: row.int("fg2m"), twosAttempted: row.int("fg2a"), rebounds: row.int("reb"), assists: row.int("ast"),
            steals: row.int("stl"), blocks: row.int("blk"), turnovers: row.int("tov"), fouls: row.int("pf"),
            opponentPoints: row.int("opponent_points"), templateID: row.string("template_id"))
    }

    static func gameLogSummary(_ row: SQLRow) -> GameLogSummary {
        GameLogSummary(id: row.int64("id") ?? 0, sheetID: row.int64("sheet_id") ?? 0, role: row.text("role"), athlete: row.string("athlete"),
                       date: row.string("game_date"), opponent: row.string("opponent"), context: row.string("context"),
                       approvedAt: row.string("approved_at").map(Timestamp.date), approvedBy: row.string("approved_by"),
                       duplicateOf: row.int64("duplicate_of"), pendingReason: row.string("pending_reason"))
    }

    static func flags(_ row: SQLRow) -> [String] {
        row.string("given_by_flags")?.split(separator: ",").map(String.init) ?? []
    }

    static func correction(_ row: SQLRow) -> Correction {
        Correction(id: row.int64("id") ?? 0, sheetID: row.int64("sheet_id") ?? 0, field: row.text("field"),
                   original: FieldReading(value: JSON.decode(row.string("original_value")) ?? .empty, text: row.text("original_text"),
                                          confidence: row.double("original_confidence") ?? 0),
                   newValue: JSON.decode(row.string("new_value")) ?? .empty, reviewer: row.text("reviewer"),
                   at: Timestamp.date(row.text("corrected_at")), note: row.string("note"),
                   undoneAt: row.string("undone_at").map(Timestamp.date), undoneBy: row.string("undone_by"))
    }

    static func decision(_ row: SQLRow) -> ReviewDecision {
        ReviewDecision(id: row.int64("id") ?? 0, sheetID: row.int64("sheet_id") ?? 0,
                       kind: ReviewDecision.Kind(rawValue: row.text("decision")) ?? .rejected, reviewer: row.text("reviewer"),
                       at: Timestamp.date(row.text("decided_at")), reason: row.string("reason"),
                       ruleFailures: JSON.decode(row.string("rule_failures")) ?? [], revision: row.int("revision") ?? 0)
    }

    /// A sheet as a reviewer sees it: each reading with its latest live correction.
    static func review(_ row: SQLRow, readings: [SQLRow], corrections: [SQLRow], gameLog: SQLRow?, decision: SQLRow?) -> SheetReview {
        let corrections = corrections.map(correction)
        var live: [String: Correction] = [:]
        for correction in corrections where correction.isLive { live[correction.field] = correction }
        return SheetReview(sheet: summary(row), revision: row.int("revision") ?? 0,
                           fields: readings.map(reading).map { ReviewField(stored: $0, correction: live[$0.field]) },
                           corrections: corrections, suggestions: JSON.decode(row.string("suggestions")) ?? [],
                           gameLog: gameLog.map(gameLogSummary), decision: decision.map(self.decision))
    }

    /// A whole sheet from its row and the rows that belong to it; `numbers` are the rows of
    /// `StoreSQL.gameLogNumberQueries`, and `duplicateOfSheet` is looked up by the caller.
    static func storedSheet(_ row: SQLRow, readings: [SQLRow], corrections: [SQLRow], decisions: [SQLRow], cellImages: [SQLRow],
                            gameLog: SQLRow?, numbers: [[SQLRow]], duplicateOfSheet: SheetKey?) -> StoredSheet {
        let stats = numbers.first ?? [], lines = numbers.dropFirst().first ?? [], playerStats = numbers.dropFirst(2).first ?? []
        return StoredSheet(
            sha256: row.text("sha256"), path: row.text("path"), page: page(row), templateID: row.text("template_id"),
            templateVersion: row.int("template_version") ?? 0, status: SheetStatus(rawValue: row.text("status")) ?? .needsReview,
            alignmentQuality: row.double("alignment_quality"), quarterTurns: row.int("quarter_turns"),
            milliseconds: row.double("milliseconds") ?? 0, reviewLine: row.double("review_line"), ruleFailures: JSON.decode(row.string("rule_failures")) ?? [],
            suggestions: JSON.decode(row.string("suggestions")) ?? [], scannedAt: Timestamp.date(row.text("scanned_at")),
            readings: readings.map(reading), revision: row.int("revision") ?? 0, corrections: corrections.map(correction),
            decisions: decisions.map(decision),
            cellImages: Dictionary(cellImages.map { ($0.text("field"), $0.data("png") ?? Data()) }, uniquingKeysWith: { a, _ in a }),
            gameLog: gameLog.map { g in
                StoredGameLog(
                    content: GameLogDraft(role: g.text("role"), athlete: g.string("athlete"), date: g.string("game_date"),
                                          opponent: g.string("opponent"), context: g.string("context"), conference: g.string("conference"),
                                          stats: stats.map { PeriodStat(period: $0.text("period"), stat: $0.text("stat"), value: $0.int("value")) },
                                          players: playerLines(lines, stats: playerStats), givenByFlags: flags(g)),
                    source: g.text("source"), duplicateOfSheet: duplicateOfSheet, pendingReason: g.string("pending_reason"),
                    approvedAt: g.string("approved_at").map(Timestamp.date), approvedBy: g.string("approved_by"),
                    createdAt: Timestamp.date(g.text("created_at")))
            })
    }

    /// A copied sheet's `sheets` columns, in `StoreSQL.insertSheet`'s order after the hash and page.
    static func columns(_ sheet: StoredSheet) -> [(String, SQLValue)] {
        [
            ("path", .text(sheet.path)), ("template_id", .text(sheet.templateID)), ("template_version", .int(sheet.templateVersion)),
            ("status", .text(sheet.status.rawValue)), ("alignment_quality", SQLValue(sheet.alignmentQuality)),
            ("quarter_turns", SQLValue(sheet.quarterTurns)), ("milliseconds", .double(sheet.milliseconds)),
            ("rule_failures", .text(JSON.string(sheet.ruleFailures))), ("suggestions", .text(JSON.string(sheet.suggestions))),
            ("scanned_at", .text(Timestamp.string(sheet.scannedAt))), ("revision", .int(sheet.revision)),
            ("review_line", SQLValue(sheet.reviewLine)),
        ]
    }
}
