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
        /// One season's games only, by its name (`2025-26`, or a name the seasons file gives).
        public var season: String?
        public init(athlete: String? = nil, team: String? = nil, from: String? = nil, to: String? = nil, season: String? = nil) {
            self.athlete = athlete; self.team = team; self.from = from; self.to = to; self.season = season
        }
        public var isEmpty: Bool { athlete == nil && team == nil && from == nil && to == nil && season == nil }
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
    /// Each template's sport, by template id (the templates' `sport` key).
    public var sports: [String: String]
    public var calendar: SeasonCalendar

    public init(storeName: String, generatedAt: Date, filters: Filters = Filters(), goalieGames: [GoalieGameLog] = [],
                boxScoreLines: [BoxScoreLine] = [], sheets: [SheetSummary] = [], failures: [FailureRecord] = [],
                gameLogs: [GameLogSummary] = [], flaggedReadings: [FlaggedReading] = [], corrections: [Correction] = [],
                sports: [String: String] = [:], calendar: SeasonCalendar = SeasonCalendar()) {
        self.storeName = storeName; self.generatedAt = generatedAt; self.filters = filters; self.goalieGames = goalieGames
        self.boxScoreLines = boxScoreLines; self.sheets = sheets; self.failures = failures; self.gameLogs = gameLogs
        self.flaggedReadings = flaggedReadings; self.corrections = corrections; self.sports = sports; self.calendar = calendar
    }

    /// The sport of a template: its `sport` key, else the template's id (a template that names none stays apart).
    func sport(templateID: String?) -> String {
        guard let templateID else { return "" }
        return sports[templateID] ?? templateID
    }

    /// Game log id → the sheet it was read from.
    var sheetOfGameLog: [Int64: SheetSummary] {
        let sheets = Dictionary(self.sheets.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return Dictionary(gameLogs.compactMap { g in sheets[g.sheetID].map { (g.id, $0) } }, uniquingKeysWith: { a, _ in a })
    }

    /// The goalies' games by sport and athlete, each game with its season.
    var athleteSeasons: [AthleteSeason] {
        let sheets = sheetOfGameLog
        return AthleteSeason.seasons(goalieGames, sport: { sport(templateID: $0.templateID ?? sheets[$0.id]?.templateID) },
                                     season: { calendar.season(sport: $1, date: $0.date) })
    }

    var teamSeasons: [TeamSeason] {
        let sheets = sheetOfGameLog
        return TeamSeason.seasons(boxScoreLines, sport: { sport(templateID: $0.templateID ?? sheets[$0.gameLogID]?.templateID) },
                                  season: { calendar.season(sport: $1, date: $0.date) })
    }

    /// Reads what the report needs through the store protocol: one query per kind of row, however many sheets.
    /// An athlete, team or season that no game names is an error naming the nearest ones the store knows.
    public static func load(from store: any SheetStore, storeName: String, filters: Filters, at now: Date,
                            sports: [String: String] = [:], calendar: SeasonCalendar = SeasonCalendar()) async throws -> ReportData {
        var goalies = filters.includesGoalies
            ? try await store.goalieGameLogs(GameLogFilter(athlete: filters.athlete, from: filters.from, to: filters.to)) : []
        var lines = filters.includesBoxScores
            ? try await store.boxScoreLines(GameLogFilter(athlete: filters.team, from: filters.from, to: filters.to)) : []
        if let athlete = filters.athlete, goalies.isEmpty {
            let known = Set(try await store.goalieGameLogs(GameLogFilter()).compactMap(\.athlete))
            if !known.contains(where: { $0.lowercased() == athlete.lowercased() }) { throw UnknownName(kind: "athlete", name: athlete, known: known) }
        }
        if let team = filters.team, lines.isEmpty {
            let known = Set(try await store.boxScoreLines(GameLogFilter()).compactMap(\.team))
            if !known.contains(where: { $0.lowercased() == team.lowercased() }) { throw UnknownName(kind: "team", name: team, known: known) }
        }
        var data = ReportData(storeName: storeName, generatedAt: now, filters: filters, goalieGames: goalies, boxScoreLines: lines,
                              sheets: try await store.sheets(status: nil), failures: try await store.failures(),
                              gameLogs: try await store.gameLogs(sheetID: nil), flaggedReadings: try await store.flaggedReadings(),
                              corrections: try await store.allCorrections(), sports: sports, calendar: calendar)
        if let season = filters.season {
            let sheets = data.sheetOfGameLog
            func seasonOf(_ id: Int64, _ template: String?, _ date: String?) -> String {
                calendar.season(sport: data.sport(templateID: template ?? sheets[id]?.templateID), date: date)
            }
            let known = Set(goalies.map { seasonOf($0.id, $0.templateID, $0.date) } + lines.map { seasonOf($0.gameLogID, $0.templateID, $0.date) })
            if !known.contains(season) { throw UnknownName(kind: "season", name: season, known: known) }
            goalies = goalies.filter { seasonOf($0.id, $0.templateID, $0.date) == season }
            lines = lines.filter { seasonOf($0.gameLogID, $0.templateID, $0.date) == season }
            data.goalieGames = goalies; data.boxScoreLines = lines
        }
        return data
    }
}

/// An athlete, team or season the store has no game of, with the nearest ones it has.
public struct UnknownName: Error, CustomStringConvertible, Equatable {
    public var kind: String
    public var name: String
    /// Up to three known names, nearest first.
    public var nearest: [String]

    init(kind: String, name: String, known: Set<String>) {
        self.kind = kind; self.name = name
        nearest = known.map { ($0, Self.distance($0.lowercased(), name.lowercased())) }
            .sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(3).map { $0.0 }
    }

    public var description: String {
        "no \(kind) named \(name) in the store" + (nearest.isEmpty ? " (it has none)" : "; nearest: " + nearest.joined(separator: ", "))
    }

    /// Edit distance (insertions, deletions, substitutions of characters).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let kept = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = kept
            }
        }
        return row[b.count]
    }
}
