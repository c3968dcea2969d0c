import Foundation

/// Which of a club's names a name is: a text field of a template says which kind it holds
/// (`"names": "opponent"`), and the store keeps the names the club uses by kind.
public enum NameKind: String, Sendable, Codable, CaseIterable, Comparable {
    /// A goalie or keeper whose game log a sheet is.
    case athlete
    /// The other side of a game.
    case opponent
    /// A player on a box score's row, usually with a jersey number.
    case player
    /// The club's own side on a box score.
    case team

    public static func < (a: NameKind, b: NameKind) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// Only people wear a jersey number or play for a team; a team or an opponent has neither.
    public var hasNumberAndTeam: Bool { self == .athlete || self == .player }
}

/// One name a club uses, as a person wrote it: "St. Mary's", "O'Neill Prep", "Zoë Fernández".
public struct KnownName: Sendable, Equatable, Hashable {
    public var kind: NameKind
    public var name: String
    /// A player's jersey number as written ("00" keeps its zeros); nil when not given.
    public var number: String?
    /// The team a player or athlete plays for; nil when not given.
    public var team: String?

    public init(kind: NameKind, name: String, number: String? = nil, team: String? = nil) {
        self.kind = kind; self.name = name; self.number = number; self.team = team
    }

    /// What makes two names of one kind the same entry: the name, number and team compared as people
    /// mean them, not byte for byte. A roster typed in a word processor and the same names approved
    /// from sheets differ in case ("ST. MARY'S"), runs of spaces, the apostrophe's shape (’ for ')
    /// and how an accent is encoded (ë as one scalar or e + ◌̈); none of these makes another name.
    /// Accents, periods and hyphens are kept: "Zoe" and "Zoë", "St Mary's" and "St. Mary's" may be
    /// another person or school, which only reading against the names (issue 42 item 2) may judge.
    public var matchKey: String {
        [Self.normalized(name), number ?? "", team.map(Self.normalized) ?? ""].joined(separator: "\u{1F}")
    }

    /// NFC, lowercase, typographic apostrophes as `'`, whitespace runs as one space, trimmed.
    public static func normalized(_ text: String) -> String {
        let apostrophes: Set<Unicode.Scalar> = ["\u{2019}", "\u{2018}", "\u{02BC}", "\u{2032}"]
        var scalars = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.precomposedStringWithCanonicalMapping.lowercased().unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !scalars.isEmpty
                continue
            }
            if pendingSpace { scalars.append(" "); pendingSpace = false }
            scalars.append(apostrophes.contains(scalar) ? "'" : scalar)
        }
        return String(scalars)
    }
}

extension GameLogDraft {
    /// The names this game log holds, by kind: its athlete (a box score's, role `team`, is the
    /// team), its opponent, and each player line's name with its number, playing for the team.
    /// A name left empty on the sheet is no name.
    public var knownNames: [KnownName] {
        func present(_ text: String?) -> String? {
            guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
            return text
        }
        let isTeam = role == "team"
        var names: [KnownName] = []
        if let athlete = present(athlete) { names.append(KnownName(kind: isTeam ? .team : .athlete, name: athlete)) }
        if let opponent = present(opponent) { names.append(KnownName(kind: .opponent, name: opponent)) }
        for line in players {
            guard let player = present(line.player) else { continue }
            names.append(KnownName(kind: .player, name: player, number: present(line.number), team: isTeam ? present(athlete) : nil))
        }
        return names
    }
}
