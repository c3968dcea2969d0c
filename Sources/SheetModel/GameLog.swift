import Foundation

/// A template's optional `gameLog` section: which fields of a read sheet make one game log. The store
/// knows nothing of lacrosse; a hockey or soccer sheet needs only its own template file
/// (`Templates/README.md`, "Game logs").
///
/// ```json
/// "gameLog": {"role": "goalie", "athlete": "athlete", "date": "date", "opponent": "opponent",
///             "context": {"high_school": "context.hs", "club": "context.club"},
///             "conference": {"conference": "conference.conf", "non_conference": "conference.nonconf"},
///             "periods": {"p1": "q1", "p2": "q2", "p3": "q3", "p4": "q4", "ot": "ot", "total": "total"},
///             "stats": {"shots": "shots", "saves": "saves", "goals_allowed": "goals", "clears": "clears"}}
/// ```
public struct GameLogSpec: Sendable, Equatable, Codable {
    /// Whose log this is: `goalie` (shown by the `goalie_game_logs` view) or `team` (a box score; its
    /// player lines are shown by `box_score_lines`).
    public var role: String
    /// Field ids of the game's metadata.
    public var athlete: String
    public var date: String
    public var opponent: String?
    /// Stored value → the checkbox field that says so; exactly one checked gives the value.
    public var context: [String: String]?
    public var conference: [String: String]?
    /// Stored period (`p1`…`p9`, `ot`, `total`) → the row prefix of its fields (`q1` in `q1.shots`).
    public var periods: [String: String]
    /// Stored stat name → the column suffix of its fields (`goals` in `q1.goals`).
    public var stats: [String: String]
    /// Stored stat name → a field holding a whole-game number that has no period row (a box score's
    /// opponent score); stored as period `total`.
    public var totals: [String: String]?
    /// A box score's player rows, each stored as one player line of this game.
    public var players: PlayerLinesSpec?

    public init(role: String, athlete: String, date: String, opponent: String? = nil,
                context: [String: String]? = nil, conference: [String: String]? = nil,
                periods: [String: String], stats: [String: String], totals: [String: String]? = nil,
                players: PlayerLinesSpec? = nil) {
        self.role = role; self.athlete = athlete; self.date = date; self.opponent = opponent
        self.context = context; self.conference = conference; self.periods = periods; self.stats = stats
        self.totals = totals; self.players = players
    }

    /// Period keys the store's views know, in display order.
    public static let periodKeys = (1...9).map { "p\($0)" } + ["ot", "total"]

    /// The field id holding one period's stat.
    public func field(period: String, stat: String) -> String? {
        guard let row = periods[period], let column = stats[stat] else { return nil }
        return FieldID(row: row, column: column).rawValue
    }

    /// Everything wrong with this section against its template's fields; empty when usable.
    func problems(fields: [FieldSpec]) -> [String] {
        var problems: [String] = []
        func kind(_ id: String) -> FieldKind? { fields.first { $0.id == id }?.kind }
        func isName(_ s: String) -> Bool {
            !s.isEmpty && s.first!.isLetter && s.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }
        }
        func expect(_ key: String, _ id: String?, _ kinds: [FieldKind]) {
            guard let id else { return }
            guard let k = kind(id) else { problems.append("gameLog.\(key): unknown field '\(id)'"); return }
            if !kinds.contains(k) {
                problems.append("gameLog.\(key): field '\(id)' is a \(k.rawValue), not a \(kinds.map(\.rawValue).joined(separator: " or "))")
            }
        }
        // The store learns an approved game log's names by their place in it (`GameLogDraft.knownNames`):
        // a field that says it holds another kind of name contradicts that.
        func names(_ key: String, _ id: String?, _ expected: NameKind) {
            guard let id, let names = fields.first(where: { $0.id == id })?.names, names != expected else { return }
            problems.append("gameLog.\(key): field '\(id)' holds \(names.rawValue) names; a \(role) game log's \(key) holds \(expected.rawValue) names")
        }
        names("athlete", athlete, role == "team" ? .team : .athlete)
        names("opponent", opponent, .opponent)
        for row in players?.rows ?? [] { names("players.name (\(row))", players?.name.map { FieldID(row: row, column: $0).rawValue }, .player) }
        if !isName(role) { problems.append("gameLog.role: '\(role)' must be lowercase letters, digits and '_'") }
        expect("athlete", athlete, [.text])
        expect("date", date, [.date])
        expect("opponent", opponent, [.text])
        for (name, map) in [("context", context), ("conference", conference)] {
            for (value, id) in (map ?? [:]).sorted(by: { $0.key < $1.key }) {
                if !isName(value) { problems.append("gameLog.\(name): value '\(value)' must be lowercase letters, digits and '_'") }
                expect("\(name).\(value)", id, [.checkbox])
            }
        }
        if periods.isEmpty { problems.append("gameLog.periods: at least one period") }
        if stats.isEmpty { problems.append("gameLog.stats: at least one stat") }
        for period in periods.keys.sorted() where !Self.periodKeys.contains(period) {
            problems.append("gameLog.periods: '\(period)' is not one of p1…p9, ot, total")
        }
        for stat in stats.keys.sorted() where !isName(stat) {
            problems.append("gameLog.stats: '\(stat)' must be lowercase letters, digits and '_'")
        }
        for period in periods.keys.sorted() {
            for stat in stats.keys.sorted() {
                let id = field(period: period, stat: stat)!
                expect("periods.\(period) × stats.\(stat)", id, [.count])
            }
        }
        for (stat, id) in (totals ?? [:]).sorted(by: { $0.key < $1.key }) {
            if !isName(stat) { problems.append("gameLog.totals: '\(stat)' must be lowercase letters, digits and '_'") }
            if stats.keys.contains(stat) && periods["total"] != nil {
                problems.append("gameLog.totals: '\(stat)' is already the total row's \(stat)")
            }
            expect("totals.\(stat)", id, [.count])
        }
        if let players {
            if players.rows.isEmpty { problems.append("gameLog.players.rows: at least one row") }
            if players.stats.isEmpty { problems.append("gameLog.players.stats: at least one stat") }
            if Set(players.rows).count != players.rows.count { problems.append("gameLog.players.rows: a row is listed twice") }
            for stat in players.stats.keys.sorted() where !isName(stat) {
                problems.append("gameLog.players.stats: '\(stat)' must be lowercase letters, digits and '_'")
            }
            for row in players.rows {
                expect("players.number (\(row))", players.number.map { FieldID(row: row, column: $0).rawValue }, [.digits, .count, .text])
                expect("players.name (\(row))", players.name.map { FieldID(row: row, column: $0).rawValue }, [.text])
                for (stat, column) in players.stats.sorted(by: { $0.key < $1.key }) {
                    expect("players.stats.\(stat) (\(row))", FieldID(row: row, column: column).rawValue, [.count])
                }
            }
        }
        return problems
    }

    /// The game log these readings make. A metadata value missing from the sheet is taken from
    /// `defaults` (command-line flags) and named in `givenByFlags`, never passed off as a reading.
    public func draft(from values: [String: FieldValue], defaults: GameLogDefaults = GameLogDefaults()) -> GameLogDraft {
        func text(_ id: String?) -> String? { id.flatMap { values[$0]?.writtenText } }
        func checked(_ map: [String: String]?) -> String? {
            let on = (map ?? [:]).filter { values[$0.value] == .boolean(true) }.map(\.key)
            return on.count == 1 ? on[0] : nil
        }
        var draft = GameLogDraft(role: role, athlete: text(athlete), date: text(date), opponent: text(opponent),
                                 context: checked(context), conference: checked(conference))
        if draft.athlete == nil, let value = defaults.athlete { draft.athlete = value; draft.givenByFlags.append("athlete") }
        if draft.opponent == nil, let value = defaults.opponent { draft.opponent = value; draft.givenByFlags.append("opponent") }
        if draft.context == nil, let value = defaults.context { draft.context = value; draft.givenByFlags.append("context") }
        for period in Self.periodKeys where periods[period] != nil {
            for stat in stats.keys.sorted() {
                draft.stats.append(PeriodStat(period: period, stat: stat, value: values[field(period: period, stat: stat)!]?.integerValue))
            }
        }
        for (stat, id) in (totals ?? [:]).sorted(by: { $0.key < $1.key }) {
            draft.stats.append(PeriodStat(period: "total", stat: stat, value: values[id]?.integerValue))
        }
        draft.players = players?.lines(from: values) ?? []
        return draft
    }
}

/// The `players` part of a box score's `gameLog`: which rows are players and which of their columns
/// are stored. A row's fields are `<row>.<column>` (`p03.fg2m`).
///
/// ```json
/// "players": {"rows": ["p01", "p02"], "number": "num", "name": "name",
///             "stats": {"fg2m": "fg2m", "fg2a": "fg2a", "pts": "pts", "pf": "pf"}}
/// ```
public struct PlayerLinesSpec: Sendable, Equatable, Codable {
    /// Row prefixes in sheet order; a line's number is its row's position, from 1.
    public var rows: [String]
    /// Column suffix of the jersey number, and of the player's name.
    public var number: String?
    public var name: String?
    /// Stored stat name → column suffix. The `box_score_lines` view reads the basketball names
    /// (`docs/store-schema.md`); other names are stored and copied, not shown by that view.
    public var stats: [String: String]

    public init(rows: [String], number: String? = nil, name: String? = nil, stats: [String: String]) {
        self.rows = rows; self.number = number; self.name = name; self.stats = stats
    }

    /// One line per row someone wrote in; a row left blank (a short bench) is no line.
    public func lines(from values: [String: FieldValue]) -> [PlayerLine] {
        func text(_ row: String, _ column: String?) -> String? { column.flatMap { values[FieldID(row: row, column: $0).rawValue]?.writtenText } }
        return rows.enumerated().compactMap { index, row in
            let stats = self.stats.keys.sorted().map { stat in
                PlayerStat(stat: stat, value: values[FieldID(row: row, column: self.stats[stat]!).rawValue]?.integerValue)
            }
            let line = PlayerLine(line: index + 1, number: text(row, number), player: text(row, name), stats: stats)
            return line.number == nil && line.player == nil && stats.allSatisfy({ $0.value == nil }) ? nil : line
        }
    }
}

/// One player's numbers in one game, from one row of a box score.
public struct PlayerLine: Sendable, Equatable, Codable {
    /// The row on the sheet, from 1.
    public var line: Int
    /// As written: a jersey number keeps its leading zero ("00").
    public var number: String?
    public var player: String?
    public var stats: [PlayerStat]

    public init(line: Int, number: String? = nil, player: String? = nil, stats: [PlayerStat] = []) {
        self.line = line; self.number = number; self.player = player; self.stats = stats
    }

    public func value(_ stat: String) -> Int? { stats.first { $0.stat == stat }?.value ?? nil }
}

/// One number of a player line: `pts` 14. An empty box is nil.
public struct PlayerStat: Sendable, Equatable, Codable {
    public var stat: String
    public var value: Int?
    public init(stat: String, value: Int?) { self.stat = stat; self.value = value }
}

/// Game-log metadata given on the command line, used only where the sheet has none.
public struct GameLogDefaults: Sendable, Equatable {
    public var athlete: String?
    public var opponent: String?
    public var context: String?

    public init(athlete: String? = nil, opponent: String? = nil, context: String? = nil) {
        self.athlete = athlete; self.opponent = opponent; self.context = context
    }
}

/// One number of a game: `p2` `saves` 7. An empty box is nil (an unplayed overtime).
public struct PeriodStat: Sendable, Equatable, Codable {
    public var period: String
    public var stat: String
    public var value: Int?

    public init(period: String, stat: String, value: Int?) {
        self.period = period; self.stat = stat; self.value = value
    }
}

/// A game log made from one sheet, before the store decides whether it is approved.
public struct GameLogDraft: Sendable, Equatable {
    public var role: String
    public var athlete: String?
    /// `YYYY-MM-DD`.
    public var date: String?
    public var opponent: String?
    public var context: String?
    public var conference: String?
    public var stats: [PeriodStat] = []
    /// A box score's player lines; empty for a goalie's sheet.
    public var players: [PlayerLine] = []
    /// Metadata columns that came from command-line flags rather than the sheet.
    public var givenByFlags: [String] = []

    public init(role: String, athlete: String? = nil, date: String? = nil, opponent: String? = nil,
                context: String? = nil, conference: String? = nil, stats: [PeriodStat] = [], players: [PlayerLine] = [],
                givenByFlags: [String] = []) {
        self.role = role; self.athlete = athlete; self.date = date; self.opponent = opponent
        self.context = context; self.conference = conference; self.stats = stats; self.players = players
        self.givenByFlags = givenByFlags
    }
}
