import Foundation
import SheetModel
import SheetStore

/// Everything the report shows, read from a store in a few whole-store queries: the games and box-score
/// lines the filters select, and the state of every sheet (the filters do not apply to it: what waits for
/// review waits whoever it belongs to).
public struct ReportData: Sendable, Equatable {
    /// Which games the report covers, as given on the command line.
    public struct Filters: Sendable, Equatable {
        /// Case-insensitive exact athlete name (goalie games). Given alone, box scores are left out.
        public var athlete: String?
        /// Case-insensitive exact team name (box scores). Given alone, goalie games are left out.
        public var team: String?
        /// Inclusive `YYYY-MM-DD` bounds on the game date.
        public var from: String?
        public var to: String?
        public init(athlete: String? = nil, team: String? = nil, from: String? = nil, to: String? = nil) {
            self.athlete = athlete; self.team = team; self.from = from; self.to = to
        }
        public var isEmpty: Bool { athlete == nil && team == nil && from == nil && to == nil }
        var includesGoalies: Bool { athlete != nil || team == nil }
        var includesBoxScores: Bool { team != nil || athlete == nil }
    }

    /// The store as output names it (never with a password).
    public var storeName: String
    public var generatedAt: Date
    public var filters: Filters
    /// Approved goalie games, by date.
    public var goalieGames: [GoalieGameLog]
    /// Approved box-score lines, by date, team, game and line.
    public var boxScoreLines: [BoxScoreLine]
    public var sheets: [SheetSummary]
    public var failures: [FailureRecord]
    /// Every game log, approved or waiting.
    public var gameLogs: [GameLogSummary]
    public var flaggedReadings: [FlaggedReading]
    public var corrections: [Correction]

    public init(storeName: String, generatedAt: Date, filters: Filters = Filters(), goalieGames: [GoalieGameLog] = [],
                boxScoreLines: [BoxScoreLine] = [], sheets: [SheetSummary] = [], failures: [FailureRecord] = [],
                gameLogs: [GameLogSummary] = [], flaggedReadings: [FlaggedReading] = [], corrections: [Correction] = []) {
        self.storeName = storeName; self.generatedAt = generatedAt; self.filters = filters; self.goalieGames = goalieGames
        self.boxScoreLines = boxScoreLines; self.sheets = sheets; self.failures = failures; self.gameLogs = gameLogs
        self.flaggedReadings = flaggedReadings; self.corrections = corrections
    }

    /// Reads what the report needs through the store protocol: one query per kind of row, however many sheets.
    public static func load(from store: any SheetStore, storeName: String, filters: Filters, at now: Date) async throws -> ReportData {
        let goalies = filters.includesGoalies
            ? try await store.goalieGameLogs(GameLogFilter(athlete: filters.athlete, from: filters.from, to: filters.to)) : []
        let lines = filters.includesBoxScores
            ? try await store.boxScoreLines(GameLogFilter(athlete: filters.team, from: filters.from, to: filters.to)) : []
        return ReportData(storeName: storeName, generatedAt: now, filters: filters, goalieGames: goalies, boxScoreLines: lines,
                          sheets: try await store.sheets(status: nil), failures: try await store.failures(),
                          gameLogs: try await store.gameLogs(sheetID: nil), flaggedReadings: try await store.flaggedReadings(),
                          corrections: try await store.allCorrections())
    }
}
