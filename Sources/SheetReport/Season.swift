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

/// Games of one sport by date, each with the season it belongs to: a goalie's, or a team's box scores.
protocol SeasonedGames {
    associatedtype Game
    var name: String? { get }
    var games: [Game] { get }
    var sport: String { get }
    /// Each game's season, in the order of `games` (empty: one unnamed season).
    var seasonOf: [String] { get }
    init(name: String?, games: [Game], sport: String, seasonOf: [String])
}

extension SeasonedGames {
    func season(at i: Int) -> String { seasonOf[safe: i] ?? "" }

    /// The seasons the games fall in, in date order.
    var seasonNames: [String] {
        var seen: [String] = []
        for i in games.indices where !seen.contains(season(at: i)) { seen.append(season(at: i)) }
        return seen
    }

    /// Only the games of one season.
    func only(season name: String) -> Self {
        let kept = games.indices.filter { season(at: $0) == name }
        return Self(name: self.name, games: kept.map { games[$0] }, sport: sport, seasonOf: kept.map { season(at: $0) })
    }

    /// Where a new season starts: the index of its first game and its name (not the first season's).
    var boundaries: [(index: Int, label: String)] {
        games.indices.dropFirst().filter { season(at: $0) != season(at: $0 - 1) }.map { (index: $0, label: season(at: $0)) }
    }
}

/// One goalie's games of one sport, by date, each with the season it belongs to.
struct AthleteSeason: Sendable, SeasonedGames {
    /// As written on the sheets (the first spelling met); nil when no sheet named the athlete.
    var name: String?
    var games: [GoalieGameLog]
    var sport: String = ""
    /// Each game's season, in the order of `games` (empty: one unnamed season).
    var seasonOf: [String] = []

    var displayName: String { name ?? "No athlete named" }
    var savePercents: [Double?] { games.map { savePercent(saves: $0.totals.saves, shots: $0.totals.shots) } }


    /// Save % of the season so far after each game: all saves over all shots up to it (not a mean of
    /// percentages, so a 3-shot game weighs less than a 30-shot one). It starts again with each season.
    var seasonToDate: [Double?] {
        var shots = 0, saves = 0
        return games.indices.map { i in
            if i > 0 && season(at: i) != season(at: i - 1) { shots = 0; saves = 0 }
            let game = games[i]
            if let s = game.totals.shots, s > 0 { shots += s; saves += game.totals.saves ?? 0 }
            return savePercent(saves: saves, shots: shots)
        }
    }

    var totals: (shots: Int, saves: Int, goals: Int) {
        games.reduce((0, 0, 0)) { ($0.0 + ($1.totals.shots ?? 0), $0.1 + ($1.totals.saves ?? 0), $0.2 + ($1.totals.goalsAllowed ?? 0)) }
    }

    /// Clears over the games that record them; nil when none does (only lacrosse sheets carry them).
    var clears: Int? {
        let recorded = games.compactMap(\.totals.clears)
        return recorded.isEmpty ? nil : recorded.reduce(0, +)
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
        return names.map { context in split(context, games.filter { $0.context == context }) }
    }

    /// The same for conference and non-conference games.
    var conferences: [ContextSplit] {
        let known = ["conference", "non_conference"]
        let names = known.filter { c in games.contains { $0.conference == c } }
            + Set(games.compactMap(\.conference)).subtracting(known).sorted()
        return names.map { conference in split(conference, games.filter { $0.conference == conference }) }
    }

    /// Per opponent, most games first.
    var opponents: [ContextSplit] {
        Dictionary(grouping: games) { $0.opponent ?? "—" }
            .map { split($0.key, $0.value, named: true) }
            .sorted { ($0.games, $1.label) > ($1.games, $0.label) }
    }

    func split(_ context: String, _ games: [GoalieGameLog], named: Bool = false) -> ContextSplit {
        let shots = games.reduce(0) { $0 + ($1.totals.shots ?? 0) }, saves = games.reduce(0) { $0 + ($1.totals.saves ?? 0) }
        let goals = games.reduce(0) { $0 + ($1.totals.goalsAllowed ?? 0) }
        let clears = games.compactMap(\.totals.clears)
        return ContextSplit(context: context, games: games.count, savePercent: savePercent(saves: saves, shots: shots),
                            goalsAgainstPerGame: Double(goals) / Double(max(games.count, 1)), shots: shots, saves: saves, goals: goals,
                            clears: clears.isEmpty ? nil : clears.reduce(0, +), named: named)
    }

    /// Pairs of the season's parts whose save % could differ: every two periods, High School and Club,
    /// conference and non-conference.
    var comparisons: [(Insight.Side, Insight.Side)] {
        func side(_ label: String, _ stats: [GoalieStats]) -> Insight.Side {
            Insight.Side(label: label, saves: stats.reduce(0) { $0 + ($1.saves ?? 0) }, shots: stats.reduce(0) { $0 + ($1.shots ?? 0) })
        }
        let periods = self.periods.map { p in side("in the \(periodLabel(p))", games.compactMap { $0.periods[p] }) }
        var pairs: [(Insight.Side, Insight.Side)] = []
        for i in periods.indices { for j in periods.indices where j > i { pairs.append((periods[i], periods[j])) } }
        for (a, b) in [("high_school", "club")] where games.contains(where: { $0.context == a }) && games.contains(where: { $0.context == b }) {
            pairs.append((side("in High School games", games.filter { $0.context == a }.map(\.totals)),
                          side("in Club games", games.filter { $0.context == b }.map(\.totals))))
        }
        if games.contains(where: { $0.conference == "conference" }) && games.contains(where: { $0.conference == "non_conference" }) {
            pairs.append((side("in conference games", games.filter { $0.conference == "conference" }.map(\.totals)),
                          side("outside the conference", games.filter { $0.conference == "non_conference" }.map(\.totals))))
        }
        return pairs
    }

    /// Shots of one game are not independent (one opponent, one day): under `Insight.minimumGames` games nothing is
    /// called an insight, however large the gap.
    var insights: [Insight] { games.count < Insight.minimumGames ? [] : Insight.significant(comparisons, games: games.count) }

    /// The games grouped by sport and athlete (names case-insensitively, as the store's filter matches them):
    /// sports in `sportOrder`, then most games first.
    static func seasons(_ games: [GoalieGameLog], sport: (GoalieGameLog) -> String = { _ in "" },
                        season: (GoalieGameLog, String) -> String = { _, _ in "" }) -> [AthleteSeason] {
        var order: [String] = []
        var byKey: [String: AthleteSeason] = [:]
        for game in games {
            let sport = sport(game)
            let key = sport + "\u{0}" + (game.athlete?.lowercased() ?? "")
            if byKey[key] == nil { order.append(key); byKey[key] = AthleteSeason(name: game.athlete, games: [], sport: sport) }
            byKey[key]?.games.append(game)
        }
        return order.compactMap { byKey[$0] }
            .map { a in
                let sorted = a.games.sorted { ($0.date ?? "", $0.id) < ($1.date ?? "", $1.id) }
                return AthleteSeason(name: a.name, games: sorted, sport: a.sport, seasonOf: sorted.map { season($0, a.sport) })
            }
            .sorted { (sportRank($1.sport), $0.games.count, $1.displayName.lowercased()) > (sportRank($0.sport), $1.games.count, $0.displayName.lowercased()) }
    }
}

/// The sports in the order the page shows them (the goalie sports first); others after, by name.
let sportOrder = ["lacrosse", "hockey", "soccer", "basketball"]
func sportRank(_ sport: String) -> Int { sportOrder.firstIndex(of: sport.lowercased()) ?? sportOrder.count }
func sportLabel(_ sport: String) -> String { sport.isEmpty ? "Games" : sport.prefix(1).uppercased() + sport.dropFirst() }

struct ContextSplit: Sendable, Equatable {
    var context: String
    var games: Int
    var savePercent: Double?
    var goalsAgainstPerGame: Double
    var shots = 0, saves = 0, goals = 0
    var clears: Int? = nil
    /// `context` is a name (an opponent) shown as written, not a stored key.
    var named = false

    static func == (a: ContextSplit, b: ContextSplit) -> Bool {
        (a.context, a.games, a.savePercent, a.goalsAgainstPerGame) == (b.context, b.games, b.savePercent, b.goalsAgainstPerGame)
    }

    var label: String { named ? context : Self.label(of: context) }

    static func label(of context: String) -> String {
        switch context {
        case "high_school": "High School"
        case "club": "Club"
        case "conference": "Conference"
        case "non_conference": "Non-conference"
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
struct TeamSeason: Sendable, SeasonedGames {
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

    var sport: String = ""
    /// Each game's season, in the order of `games`.
    var seasonOf: [String] = []


    /// Wins, losses and ties of the games whose sheet gives the opponent's score.
    var record: (wins: Int, losses: Int, ties: Int, decided: Int) {
        let results = games.compactMap(BoxScoreLine.result)
        return (results.filter { $0 == "W" }.count, results.filter { $0 == "L" }.count, results.filter { $0 == "T" }.count, results.count)
    }

    /// Points for and against per game, over the games that have them.
    var pointsPerGame: (for: Double?, against: Double?) {
        let ours = games.compactMap(BoxScoreLine.teamPoints), theirs = games.compactMap { $0.first?.opponentPoints }
        return (ours.isEmpty ? nil : Double(ours.reduce(0, +)) / Double(ours.count),
                theirs.isEmpty ? nil : Double(theirs.reduce(0, +)) / Double(theirs.count))
    }

    /// The team's made and attempted shots over every game.
    var shootingTotals: (fgm: Int, fga: Int, threes: Int, threesTried: Int, ftm: Int, fta: Int) {
        let all = Array(games.joined())
        func sum(_ key: KeyPath<BoxScoreLine, Int?>) -> Int { all.reduce(0) { $0 + ($1[keyPath: key] ?? 0) } }
        return (sum(\.fieldGoalsMade), sum(\.fieldGoalsAttempted), sum(\.threesMade), sum(\.threesAttempted), sum(\.freeThrowsMade), sum(\.freeThrowsAttempted))
    }

    /// A player's numbers over the games they have a line in.
    struct PlayerTotals: Sendable, Equatable {
        var player: String
        var number: String?
        var games = 0
        var points = 0, rebounds = 0, assists = 0, steals = 0, blocks = 0, turnovers = 0, fouls = 0
        var fgm = 0, fga = 0, threes = 0, threesTried = 0, ftm = 0, fta = 0
        func perGame(_ total: Int) -> Double? { games > 0 ? Double(total) / Double(games) : nil }
    }

    var playerTotals: [PlayerTotals] {
        players.map { player in
            var t = PlayerTotals(player: player)
            for line in lines(of: player).compactMap({ $0 }) {
                t.games += 1
                t.number = t.number ?? line.number
                t.points += line.points ?? 0; t.rebounds += line.rebounds ?? 0; t.assists += line.assists ?? 0
                t.steals += line.steals ?? 0; t.blocks += line.blocks ?? 0; t.turnovers += line.turnovers ?? 0; t.fouls += line.fouls ?? 0
                t.fgm += line.fieldGoalsMade ?? 0; t.fga += line.fieldGoalsAttempted ?? 0
                t.threes += line.threesMade ?? 0; t.threesTried += line.threesAttempted ?? 0
                t.ftm += line.freeThrowsMade ?? 0; t.fta += line.freeThrowsAttempted ?? 0
            }
            return t
        }.sorted { ($0.points, $1.player) > ($1.points, $0.player) }
    }

    static func seasons(_ lines: [BoxScoreLine], sport: (BoxScoreLine) -> String = { _ in "" },
                        season: (BoxScoreLine, String) -> String = { _, _ in "" }) -> [TeamSeason] {
        byTeam(lines).flatMap { team -> [TeamSeason] in
            // A club's name used in two sports is two teams.
            var bySport: [String: [[BoxScoreLine]]] = [:], order: [String] = []
            for game in team.games {
                let s = game.first.map(sport) ?? ""
                if bySport[s] == nil { order.append(s) }
                bySport[s, default: []].append(game)
            }
            return order.map { s in
                let games = bySport[s] ?? []
                return TeamSeason(name: team.name, games: games, sport: s, seasonOf: games.map { $0.first.map { season($0, s) } ?? "" })
            }
        }.sorted { (sportRank($1.sport), $0.games.count) > (sportRank($0.sport), $1.games.count) }
    }

    /// The lines grouped by team name (case-insensitively) and game, games by date.
    static func byTeam(_ lines: [BoxScoreLine]) -> [TeamSeason] {
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

/// Why a field is flagged, in the three words a coach can act on: the reader doubted the ink, the sheet's sums
/// did (they failed around it, chose its value, doubted a sure reading or were spent mending another number),
/// or it names someone the store has not met (a name, or a player's number).
enum TrustCause: String, CaseIterable, Sendable {
    case reader, rule, newName

    var label: String {
        switch self {
        case .reader: "the reader's doubt"
        case .rule: "the sums"
        case .newName: "a new name or number"
        }
    }

    /// A new name, or a number no known player vouches for, first (whatever else), then the sums' doing (a value
    /// from the sums, a sure reading they doubt or no longer check, a field of a failing rule), else the reader's
    /// own doubt.
    init(_ flagged: FlaggedReading, line: Double) {
        let doubts = flagged.reading.doubts
        if doubts.contains(where: { switch $0 { case .unknownName, .noPlayerVouches: true; default: false } }) {
            self = .newName
        } else if doubts.contains(where: { if case .inFailingRule = $0 { true } else { false } })
                    || [.fromSums, .sureButDoubted].contains(flagged.reading.flagCause(line: line)) {
            self = .rule
        } else {
            self = .reader
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
    /// Flagged fields by the reading's own cause, most first.
    var flagCauses: [(cause: String, fields: Int)]
    /// Flagged fields by what a coach can act on, in `TrustCause` order.
    var trustCauses: [(cause: TrustCause, fields: Int)]
    var flaggedFields: Int
    var corrections: [Correction]
    var sheetPaths: [Int64: String]
    /// The review lines the sheets were read with, lowest first (`ReviewLine.standard` for a sheet that kept none).
    var reviewLines: [Double]
    /// Sheets stored before each kept its line.
    var unrecordedLines: Int

    init(_ data: ReportData) {
        sheets = data.sheets.count
        clean = data.sheets.filter { $0.status == .clean }.count
        needsReview = data.sheets.filter { $0.status == .needsReview }.count
        let byID = Dictionary(data.sheets.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        waiting = data.gameLogs.filter { $0.approvedAt == nil }.map { ($0, byID[$0.sheetID]) }
        failures = data.failures
        // Each field is counted against the line its own sheet was read with.
        let lines = byID.mapValues { $0.reviewLine ?? ReviewLine.standard }
        func line(_ flagged: FlaggedReading) -> Double { lines[flagged.sheetID] ?? ReviewLine.standard }
        reviewLines = Set(data.sheets.map { $0.reviewLine ?? ReviewLine.standard }).sorted()
        unrecordedLines = data.sheets.filter { $0.reviewLine == nil }.count
        var counts: [String: Int] = [:]
        for reading in data.flaggedReadings { counts[Self.cause(of: reading, line: line(reading)).label, default: 0] += 1 }
        flagCauses = counts.map { (cause: $0.key, fields: $0.value) }.sorted { ($0.fields, $1.cause) > ($1.fields, $0.cause) }
        let trust = Dictionary(grouping: data.flaggedReadings) { TrustCause($0, line: line($0)) }
        trustCauses = TrustCause.allCases.map { (cause: $0, fields: trust[$0]?.count ?? 0) }
        flaggedFields = data.flaggedReadings.count
        corrections = data.corrections
        sheetPaths = byID.mapValues(\.source.description)
    }

    /// Why a field was flagged, as `statsheet eval` counts it: the reading's own `flagCause`, so that the
    /// report and eval never disagree on what a flag is made of.
    static func cause(of flagged: FlaggedReading, line: Double) -> FieldReading.FlagCause {
        flagged.reading.flagCause(line: line) ?? .reader
    }

    /// A correction that wrote the value already read: a person confirmed it, nothing changed.
    static func isConfirmation(_ c: Correction) -> Bool { c.newValue == c.original.value }

    /// Values reviewers changed and did not undo: the latest live correction of each field counts once, and only
    /// when it wrote another value than the one read.
    var valuesChanged: Int { Set(corrections.filter { $0.isLive && !Self.isConfirmation($0) }.map { "\($0.sheetID) \($0.field)" }).count }
    /// Values reviewers confirmed as read.
    var valuesConfirmed: Int { Set(corrections.filter { $0.isLive && Self.isConfirmation($0) }.map { "\($0.sheetID) \($0.field)" }).count }

    /// Why a game log waits: the store's reason, and the rules its sheet fails.
    func reasons(_ w: (log: GameLogSummary, sheet: SheetSummary?)) -> String {
        var parts: [String] = []
        if let reason = w.log.pendingReason { parts.append(reason) }
        for failure in w.sheet?.ruleFailures ?? [] { parts.append("fails \(failure.rule): \(failure.message)") }
        if let flagged = w.sheet?.flaggedFields, flagged > 0 { parts.append(Number.plural(flagged, "field") + " flagged") }
        return parts.isEmpty ? "not approved" : parts.joined(separator: "; ")
    }
}

/// A file's name without its folders: what a page meant to be mailed shows of where a sheet came from.
func fileName(_ path: String) -> String {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    return name.isEmpty ? path : name
}
