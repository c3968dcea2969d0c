import Foundation
import SheetModel

/// Where a known name came from.
public enum NameSource: String, Sendable, Equatable, CaseIterable {
    /// A names file (`statsheet names import`): the club's roster and schedule.
    case imported = "import"
    /// An approved sheet's game log: its athlete or team, opponent and players.
    case sheet
}

/// A name the club uses, as the store keeps it (`known_names`).
public struct StoredKnownName: Sendable, Equatable {
    public var name: KnownName
    public var source: NameSource
    /// When it was imported, or when the sheet it was learnt from was approved.
    public var addedAt: Date

    public init(name: KnownName, source: NameSource, addedAt: Date) {
        self.name = name; self.source = source; self.addedAt = addedAt
    }

    /// Kind, then name as people compare them, then number and team: one order whatever the
    /// database's collation.
    public static func listOrder(_ a: StoredKnownName, _ b: StoredKnownName) -> Bool {
        (a.name.kind, a.name.matchKey, a.name.name) < (b.name.kind, b.name.matchKey, b.name.name)
    }
}

/// The statements of known names (issue 42), shared by both backends.
extension StoreSQL {
    /// A name already known by the same kind and match key, whatever its spelling or source, is left
    /// as it is: importing a file again, or approving a sheet of known names, adds nothing.
    static let insertKnownName = """
        INSERT INTO known_names (kind, name, number, team, match_key, source, added_at) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (kind, match_key) DO NOTHING RETURNING id
        """

    static func knownNameArguments(_ stored: StoredKnownName) -> [SQLValue] {
        let n = stored.name
        return [.text(n.kind.rawValue), .text(n.name), SQLValue(n.number), SQLValue(n.team), .text(n.matchKey), .text(stored.source.rawValue),
                .text(Timestamp.string(stored.addedAt))]
    }

    /// Names to insert in one order, by kind and match key: two PostgreSQL transactions adding the
    /// same names then wait on each other's unique-index entries in the same order, never in a cycle.
    static func insertionOrder(_ names: [StoredKnownName]) -> [StoredKnownName] {
        names.sorted { ($0.name.kind, $0.name.matchKey) < ($1.name.kind, $1.name.matchKey) }
    }

    static func knownNames(kind: NameKind?) -> (sql: String, arguments: [SQLValue]) {
        guard let kind else { return ("SELECT * FROM known_names", []) }
        return ("SELECT * FROM known_names WHERE kind = ?", [.text(kind.rawValue)])
    }

    static let approvedGameDays = """
        SELECT athlete, game_date, context FROM game_logs
        WHERE approved_at IS NOT NULL AND athlete IS NOT NULL AND game_date IS NOT NULL ORDER BY id
        """

    static func seasonGames(_ rows: [SQLRow]) -> SeasonGames {
        SeasonGames(rows.compactMap { row in
            guard let athlete = row.string("athlete"), let date = row.string("game_date") else { return nil }
            return (athlete, GameDay(date: date, context: row.string("context")))
        })
    }

    /// An approved game log's names and when it was approved; no row when it is not approved.
    static let approvedGameLogNames = "SELECT role, athlete, opponent, approved_at FROM game_logs WHERE id = ? AND approved_at IS NOT NULL"
    static let approvedGameLogIDs = "SELECT id FROM game_logs WHERE approved_at IS NOT NULL ORDER BY id"

    /// The names an approved game log teaches (`GameLogDraft.knownNames`), added when it was approved.
    static func learntNames(log: SQLRow, playerLines: [SQLRow]) -> [StoredKnownName] {
        let draft = GameLogDraft(role: log.text("role"), athlete: log.string("athlete"), opponent: log.string("opponent"),
                                 players: playerLines.map { PlayerLine(line: $0.int("line") ?? 0, number: $0.string("number"), player: $0.string("player")) })
        let at = Timestamp.date(log.text("approved_at"))
        return draft.knownNames.map { StoredKnownName(name: $0, source: .sheet, addedAt: at) }
    }
}

extension StoreRows {
    static func knownName(_ row: SQLRow) -> StoredKnownName {
        StoredKnownName(name: KnownName(kind: NameKind(rawValue: row.text("kind")) ?? .athlete, name: row.text("name"),
                                        number: row.string("number"), team: row.string("team")),
                        source: NameSource(rawValue: row.text("source")) ?? .imported, addedAt: Timestamp.date(row.text("added_at")))
    }
}
