import Foundation
import SheetModel
import SheetStore

/// The numbers the report draws, derived from the store's rows once, so the charts, their text
/// alternatives and the tables beside them all show the same values.

/// Saves over shots × 100, nil without a shot.
func savePercent(saves: Int?, shots: Int?) -> Double? {
    guard let shots, shots > 0 else { return nil }
    return 100 * Double(saves ?? 0) / Double(shots)
}

/// Made over attempted × 100, nil without an attempt.
func shootingPercent(made: Int, attempted: Int) -> Double? {
    attempted > 0 ? 100 * Double(made) / Double(attempted) : nil
}

/// One goalie's games, by date.
struct AthleteSeason: Sendable {
    /// As written on the sheets (the first spelling met); nil when no sheet named the athlete.
    var name: String?
    var games: [GoalieGameLog]

    var displayName: String { name ?? "No athlete named" }
    var savePercents: [Double?] { games.map { savePercent(saves: $0.totals.saves, shots: $0.totals.shots) } }

    /// Save % of the season so far after each game: all saves over all shots up to it (not a mean of
    /// percentages, so a 3-shot game weighs less than a 30-shot one).
    var seasonToDate: [Double?] {
        var shots = 0, saves = 0
        return games.map { game in
            if let s = game.totals.shots, s > 0 { shots += s; saves += game.totals.saves ?? 0 }
            return savePercent(saves: saves, shots: shots)
        }
    }

    var totals: (shots: Int, saves: Int, goals: Int) {
        games.reduce((0, 0, 0)) { ($0.0 + ($1.totals.shots ?? 0), $0.1 + ($1.totals.saves ?? 0), $0.2 + ($1.totals.goalsAllowed ?? 0)) }
    }

    /// The periods any of the games recorded, in the view's order.
    var periods: [String] {
        GoalieGameLog.periodColumns.filter { column in games.contains { $0.periods[column]?.shots != nil || $0.periods[column]?.goalsAllowed != nil } }
    }

    /// Games, save % and goals against per game of each context the games name, High School first.
    var contexts: [ContextSplit] {
        let known = ["high_school", "club"]
        let names = known.filter { c in games.contains { $0.context == c } }
            + Set(games.compactMap(\.context)).subtracting(known).sorted()
        return names.map { context in
            let games = self.games.filter { $0.context == context }
            let shots = games.reduce(0) { $0 + ($1.totals.shots ?? 0) }, saves = games.reduce(0) { $0 + ($1.totals.saves ?? 0) }
            let goals = games.reduce(0) { $0 + ($1.totals.goalsAllowed ?? 0) }
            return ContextSplit(context: context, games: games.count, savePercent: savePercent(saves: saves, shots: shots),
                                goalsAgainstPerGame: Double(goals) / Double(games.count))
        }
    }

    /// The games grouped by athlete (case-insensitively, as the store's filter matches names), most games first.
    static func seasons(_ games: [GoalieGameLog]) -> [AthleteSeason] {
        var order: [String] = []
        var byKey: [String: AthleteSeason] = [:]
        for game in games {
            let key = game.athlete?.lowercased() ?? ""
            if byKey[key] == nil { order.append(key); byKey[key] = AthleteSeason(name: game.athlete, games: []) }
            byKey[key]?.games.append(game)
        }
        return order.compactMap { byKey[$0] }
            .map { AthleteSeason(name: $0.name, games: $0.games.sorted { ($0.date ?? "", $0.id) < ($1.date ?? "", $1.id) }) }
            .sorted { ($0.games.count, $1.displayName.lowercased()) > ($1.games.count, $0.displayName.lowercased()) }
    }
}

struct ContextSplit: Sendable, Equatable {
    var context: String
    var games: Int
    var savePercent: Double?
    var goalsAgainstPerGame: Double

    var label: String {
        switch context {
        case "high_school": "High School"
        case "club": "Club"
        default: context.replacingOccurrences(of: "_", with: " ")
        }
    }
}

/// A period column's name on the page: p1–p4 are quarters, periods or halves depending on the sport.
func periodLabel(_ column: String) -> String {
    switch column {
    case "p1": "1st"
    case "p2": "2nd"
    case "p3": "3rd"
    case "p4": "4th"
    case "ot": "OT"
    default: column
    }
}

/// One team's approved box scores.
struct TeamSeason: Sendable {
    var name: String?
    /// Each game's lines, by date.
    var games: [[BoxScoreLine]]

    var displayName: String { name ?? "No team named" }

    /// The players who have a line, in the order they first appear; a line without a name goes by its number.
    var players: [String] {
        var seen: [String] = []
        for line in games.joined() where !seen.contains(Self.player(line)) { seen.append(Self.player(line)) }
        return seen
    }

    static func player(_ line: BoxScoreLine) -> String {
        line.player ?? line.number.map { "#\($0)" } ?? "line \(line.line)"
    }

    /// The player's line in each game, nil where the player has none.
    func lines(of player: String) -> [BoxScoreLine?] {
        games.map { game in game.first { Self.player($0) == player } }
    }

    /// The team's FG%, 3P% and FT% in each game: the players' made over attempted.
    var shooting: [(fg: Double?, three: Double?, ft: Double?)] {
        games.map { game in
            func sum(_ key: KeyPath<BoxScoreLine, Int?>) -> Int { game.reduce(0) { $0 + ($1[keyPath: key] ?? 0) } }
            return (shootingPercent(made: sum(\.fieldGoalsMade), attempted: sum(\.fieldGoalsAttempted)),
                    shootingPercent(made: sum(\.threesMade), attempted: sum(\.threesAttempted)),
                    shootingPercent(made: sum(\.freeThrowsMade), attempted: sum(\.freeThrowsAttempted)))
        }
    }

    static func seasons(_ lines: [BoxScoreLine]) -> [TeamSeason] {
        var order: [String] = []
        var byKey: [String: (name: String?, games: [Int64: [BoxScoreLine]], gameOrder: [Int64])] = [:]
        for line in lines {
            let key = line.team?.lowercased() ?? ""
            if byKey[key] == nil { order.append(key); byKey[key] = (line.team, [:], []) }
            if byKey[key]?.games[line.gameLogID] == nil { byKey[key]?.gameOrder.append(line.gameLogID) }
            byKey[key]?.games[line.gameLogID, default: []].append(line)
        }
        return order.compactMap { key in
            guard let team = byKey[key] else { return nil }
            let games = team.gameOrder.compactMap { team.games[$0] }
                .sorted { ($0.first?.date ?? "", $0.first?.gameLogID ?? 0) < ($1.first?.date ?? "", $1.first?.gameLogID ?? 0) }
            return TeamSeason(name: team.name, games: games)
        }
    }
}

/// Where the store's sheets stand, for the person running the scans.
struct StoreState: Sendable {
    var sheets: Int
    var clean: Int
    var needsReview: Int
    /// Game logs not approved, with why, by sheet.
    var waiting: [(log: GameLogSummary, sheet: SheetSummary?)]
    var failures: [FailureRecord]
    /// Flagged fields by cause, most first.
    var flagCauses: [(cause: String, fields: Int)]
    var flaggedFields: Int
    var corrections: [Correction]
    var sheetPaths: [Int64: String]

    init(_ data: ReportData) {
        sheets = data.sheets.count
        clean = data.sheets.filter { $0.status == .clean }.count
        needsReview = data.sheets.filter { $0.status == .needsReview }.count
        let byID = Dictionary(data.sheets.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        waiting = data.gameLogs.filter { $0.approvedAt == nil }.map { ($0, byID[$0.sheetID]) }
        failures = data.failures
        var counts: [String: Int] = [:]
        for reading in data.flaggedReadings { counts[Self.cause(of: reading).label, default: 0] += 1 }
        flagCauses = counts.map { (cause: $0.key, fields: $0.value) }.sorted { ($0.fields, $1.cause) > ($1.fields, $0.cause) }
        flaggedFields = data.flaggedReadings.count
        corrections = data.corrections
        sheetPaths = byID.mapValues(\.path)
    }

    /// The review line the store's sheets were read with is not stored; `scan`'s default stands for it.
    static let reviewLine = 70.0

    /// Why a field was flagged, as `statsheet eval` counts it: the reading's own `flagCause`, so that the
    /// report and eval never disagree on what a flag is made of.
    static func cause(of flagged: FlaggedReading) -> FieldReading.FlagCause {
        flagged.reading.flagCause(line: reviewLine) ?? .reader
    }

    /// Values reviewers changed and did not undo: the latest live correction of each field counts once.
    var valuesChanged: Int { Set(corrections.filter(\.isLive).map { "\($0.sheetID) \($0.field)" }).count }
}
