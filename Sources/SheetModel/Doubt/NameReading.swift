import Foundation

/// One character of a line as the text reader saw it: its candidates, most probable first.
public struct ReadCharacter: Sendable, Equatable, Codable {
    public var choices: [CharacterChoice]
    /// Whether a word begins here ("Oak Hill" is two words, "OakHill" one).
    public var startsWord: Bool

    public init(choices: [CharacterChoice], startsWord: Bool = false) {
        self.choices = choices
        self.startsWord = startsWord
    }

    /// From a reader's scores for its candidates (Tesseract's 0–100, which sum to nothing in particular: three
    /// shapes of apostrophe can each score 70–90): each candidate's share of their total. A reader that lists
    /// one candidate gives it all.
    public init(scores: [(text: String, score: Double)], startsWord: Bool = false) {
        let total = scores.reduce(0) { $0 + max(0, $1.score) }
        let choices = scores.map { CharacterChoice(text: $0.text, probability: total > 0 ? max(0, $0.score) / total : 1 / Double(scores.count)) }
        self.init(choices: choices.sorted { $0.probability > $1.probability }, startsWord: startsWord)
    }
}

/// A candidate reading of one character.
public struct CharacterChoice: Sendable, Equatable, Codable {
    public var text: String
    public var probability: Double

    public init(text: String, probability: Double) {
        self.text = text
        self.probability = probability
    }
}

/// How sure a handwritten name is, against the names a club uses (issue 42): for each known name W of the
/// field's kind, and for "a name the club has not used" (new),
///
///     P(W | ink) ∝ P(W) × P(ink | W),   P(new | ink) ∝ P(new) × P(ink | new)
///
/// - P(ink | W) sums over every alignment of W's characters with the characters read (a pair hidden Markov
///   model, the edit distance's probabilistic form): a written character is read as one character (with the
///   reader's probability for it, or misread, `Rates.misreadSure`, `misreadUnsure`), dropped (`Rates.dropped`, more for
///   punctuation, and more when the reader was unsure of the whole line) or a character is read that was not written
///   (`Rates.added`). Each term is a ratio against the ink being
///   explained by no particular character, so that names of different lengths compare.
/// - P(ink | new) is the same sum over every string a new name could be, each character drawn from the
///   letters names are made of: a character read explains itself whatever it is (ratio 1), and a known name
///   earns, for each character it shares with the ink, `alphabet` (how many letters a name's next letter is
///   as uncertain as: the perplexity of the known names' letters). A specific known name is a far likelier
///   source of "Cameron Le" than a new name that happens to be spelled so; but "Westfield" read clean is not
///   "Westfield Academy" with " Academy" dropped, eight drops each `Rates.dropped`.
/// - P(new) = 1 / (N + 1) and each of the N known names 1 / (N + 1): the Chinese-restaurant (Dirichlet
///   process) prior with concentration 1, the one that needs no parameter. A club with few known names meets
///   new ones often; one with a full roster rarely.
///
/// Names compare as people mean them (`KnownName.normalized`: case, runs of spaces, the apostrophe's shape,
/// Unicode form); accents and periods are characters like the others, but a reader drops an accent or a
/// period more often than it misreads a letter (`Rates.accentDropped`, `Rates.punctuationDropped`).
public struct NameReadingModel: Sendable {
    /// How often the text reader misreads, drops and adds characters of handwritten names, per character
    /// written. Measured by `Tools/name-rates.py` on a generated set used for nothing else (docs/decisions.md).
    public struct Rates: Sendable, Equatable, Codable {
        /// A written character read as another, the reader's own probabilities notwithstanding (its candidates
        /// gave the written one under 5%): for a character the reader gave `sure` or more, and for the others.
        /// Tesseract's confidence means something, so a sure character is rarely a misread.
        public var misreadSure: Double
        public var misreadUnsure: Double
        /// A written letter not read at all, by how sure the reader was of the whole line.
        public var dropped: DroppedLetters
        /// A written period, apostrophe or hyphen not read at all.
        public var punctuationDropped: Double
        /// A character read where none was written.
        public var added: Double
        /// An accented letter read as its bare letter ("ë" as "e").
        public var accentDropped: Double

        public init(misreadSure: Double, misreadUnsure: Double, dropped: DroppedLetters, punctuationDropped: Double, added: Double,
                    accentDropped: Double) {
            self.misreadSure = misreadSure; self.misreadUnsure = misreadUnsure; self.dropped = dropped; self.punctuationDropped = punctuationDropped
            self.added = added; self.accentDropped = accentDropped
        }

        // `measured` and `sure` are declared with the judge's other numbers (JudgingPolicy.swift).
    }

    /// How often a written letter is not read at all, by the line's `quality`. A reader unsure of every letter
    /// of a line is reading a hand it cannot follow, and runs its letters together ("ll" read as one, "rn" as
    /// "m"): 9.6% of letters against 0.45% in a line read sure. One rate for every line made such a line's
    /// missing letters cost each name that spells them so much (three of them, e^−12) that whichever known name
    /// was as short as the line won at 99.9% over letters barely read ("Ban Nahin" as Sam Okafor for Björn Müller).
    public struct DroppedLetters: Sendable, Equatable, Codable {
        /// Lines of quality `sureFrom` and up.
        public var sure: Double
        /// Lines of quality `unsureFrom` up to `sureFrom`.
        public var unsure: Double
        /// Lines of lower quality.
        public var lost: Double
        // `sureFrom` and `unsureFrom` are declared with the judge's other numbers (JudgingPolicy.swift).

        public init(sure: Double, unsure: Double, lost: Double) {
            self.sure = sure; self.unsure = unsure; self.lost = lost
        }

        public func rate(quality: Double) -> Double {
            quality >= Self.sureFrom ? sure : quality >= Self.unsureFrom ? unsure : lost
        }
    }

    public let rates: Rates
    /// Per kind, the distinct known names: the name as the club spells it, and its letters as compared.
    private let names: [NameKind: [(name: String, letters: [Character])]]
    /// The known players, each with its number and team (one entry per name, number and team).
    private let players: [(name: String, letters: [Character], number: String?, team: String?)]
    /// The perplexity of the known names' letters: a new name's next letter is as uncertain as a choice among
    /// this many. From the letters of every known name, with one more of each of a–z and the space so that
    /// a handful of names does not make a small alphabet.
    public let alphabet: Double

    public init(knownNames: [KnownName], rates: Rates = .measured) {
        self.rates = rates
        var names: [NameKind: [(name: String, letters: [Character])]] = [:]
        var seen: Set<String> = []
        var counts: [Character: Double] = [:]
        for c in "abcdefghijklmnopqrstuvwxyz " { counts[c] = 1 }
        for known in knownNames {
            let key = KnownName.normalized(known.name)
            guard !key.isEmpty, seen.insert("\(known.kind.rawValue)\u{1F}\(key)").inserted else { continue }
            names[known.kind, default: []].append((known.name, Array(key)))
            for c in key { counts[c, default: 0] += 1 }
        }
        self.names = names
        var playerKeys: Set<String> = []
        players = knownNames.filter { $0.kind == .player && !KnownName.normalized($0.name).isEmpty && playerKeys.insert($0.matchKey).inserted }
            .map { ($0.name, Array(KnownName.normalized($0.name)), $0.number, $0.team.map(KnownName.normalized)) }
        let total = counts.values.reduce(0, +)
        let entropy = counts.values.reduce(0) { $0 - ($1 / total) * log($1 / total) }
        alphabet = exp(entropy)
    }

    /// How many distinct names of this kind are known.
    public func count(of kind: NameKind) -> Int { names[kind]?.count ?? 0 }

    /// The posterior over the known names of `kind` and a new name, for a line read as `characters`; nil when
    /// nothing was read. With no name of the kind known, the prior leaves nothing but a new name (1 / (0 + 1)):
    /// the club's first athlete is confirmed once, as every later new one is.
    public func weigh(_ characters: [ReadCharacter], kind: NameKind) -> NamePosterior? {
        let read = Self.symbols(characters)
        guard !read.isEmpty else { return nil }
        guard let candidates = names[kind], !candidates.isEmpty else { return NamePosterior(known: [], newName: 1, knownCount: 0) }
        let logPrior = -log(Double(candidates.count + 1))
        let dropped = rates.dropped.rate(quality: Self.quality(read))
        // A character read, under a new name, explains itself: ratio 1 each, times not being dropped or added.
        let logNew = logPrior + Double(read.count) * log(1 - rates.added - dropped)
        let logKnown = candidates.map { logPrior + logLikelihood(read, written: $0.letters, dropped: dropped) }
        let top = max(logNew, logKnown.max()!)
        let weights = logKnown.map { exp($0 - top) }
        let newWeight = exp(logNew - top)
        let total = weights.reduce(newWeight, +)
        let ranked = zip(candidates, weights).map { NamePosterior.Candidate(name: $0.name, probability: $1 / total) }
            .sorted { $0.probability > $1.probability }
        return NamePosterior(known: Array(ranked.prefix(3)), newName: newWeight / total, knownCount: candidates.count)
    }

    /// A box score's player row, name and jersey number weighed together against the known players of `team`
    /// (all known players when none is known to play for it): a player known with number 12 is supported by a
    /// "12" read beside the name as much as by the name. The number's term is the ratio of the probability the
    /// digit reader gave the player's number to the one a number of no particular player gets (1 in 100 jersey
    /// numbers): 100 × P(number), the value's alternatives' probability, or the share the reader left to
    /// numbers it did not list (`FieldReading.listedProbability`) spread over the other 99. A player with no
    /// number known, or a number left empty, weighs the name alone. Nil when no player is known or nothing
    /// was read.
    public func weighPlayer(_ characters: [ReadCharacter], number: FieldReading, team: String?) -> PlayerPosterior? {
        let teamKey = team.map(KnownName.normalized)
        let ofTeam = players.filter { teamKey != nil && $0.team == teamKey }
        let candidates = ofTeam.isEmpty ? players : ofTeam
        let read = Self.symbols(characters)
        guard !candidates.isEmpty, !read.isEmpty else { return nil }
        let logPrior = -log(Double(candidates.count + 1))
        let dropped = rates.dropped.rate(quality: Self.quality(read))
        let logNew = logPrior + Double(read.count) * log(1 - rates.added - dropped)
        let logKnown = candidates.map { player in
            logPrior + logLikelihood(read, written: player.letters, dropped: dropped) + log(Self.numberRatio(player.number, number))
        }
        let top = max(logNew, logKnown.max()!)
        let weights = logKnown.map { exp($0 - top) }
        let newWeight = exp(logNew - top)
        let total = weights.reduce(newWeight, +)
        let ranked = zip(candidates, weights).map { PlayerPosterior.Candidate(name: $0.name, number: $0.number, probability: $1 / total) }
            .sorted { $0.probability > $1.probability }
        return PlayerPosterior(known: Array(ranked.prefix(3)), newPlayer: newWeight / total, knownCount: candidates.count)
    }

    /// P(number read | the player's number) over P(number read | a number of no particular player), of 100.
    static func numberRatio(_ known: String?, _ reading: FieldReading) -> Double {
        guard let known, reading.value.writtenText != nil else { return 1 }
        func matches(_ value: FieldValue) -> Bool { value.writtenText == known }
        let probability: Double, others = jerseyNumbers - 1
        if reading.alternatives.isEmpty {
            let p = reading.confidence / 100
            probability = matches(reading.value) ? p : (1 - p) / others
        } else if let listed = reading.alternatives.first(where: { matches($0.value) }) {
            probability = listed.probability
        } else {
            probability = max(0, 1 - reading.listedProbability) / others
        }
        // Never quite 0: a reader sure of a misread number would otherwise veto the name.
        return max(jerseyNumbers * probability, leastNumberRatio)
    }

    /// The characters read as the names compare them: each candidate normalised, equal ones merged, and a
    /// space where a word begins (Tesseract does not read the space as a character).
    static func symbols(_ characters: [ReadCharacter]) -> [[Character: Double]] {
        var symbols: [[Character: Double]] = []
        for character in characters {
            var choices: [Character: Double] = [:]
            for choice in character.choices {
                guard let c = KnownName.normalized(choice.text).first else { continue }
                choices[c, default: 0] += choice.probability
            }
            guard !choices.isEmpty else { continue }
            if character.startsWord && !symbols.isEmpty { symbols.append([" ": 1]) }
            // A blank among a character's candidates (Tesseract lists the space before a word's first letter)
            // is no character of the name: the others share its probability.
            let total = choices.values.reduce(0, +)
            symbols.append(choices.mapValues { $0 / total })
        }
        return symbols
    }

    /// How sure the reader was of a line: the mean, over the characters read (not the spaces between words),
    /// of its likeliest candidate's probability. 0 for a line with no character.
    static func quality(_ read: [[Character: Double]]) -> Double {
        let tops = read.filter { $0 != [" ": 1] }.map { $0.values.max() ?? 0 }
        return tops.isEmpty ? 0 : tops.reduce(0, +) / Double(tops.count)
    }

    /// log P(ink | written) − log P(ink | no particular characters): the forward sum over alignments, a letter
    /// dropped at `dropped` (the line's rate).
    func logLikelihood(_ read: [[Character: Double]], written: [Character], dropped letterDropped: Double) -> Double {
        let m = read.count
        let keep = log(1 - rates.added - letterDropped)
        let added = log(rates.added)
        var previous = [Double](repeating: -.infinity, count: m + 1)
        previous[0] = 0
        for j in stride(from: 1, through: m, by: 1) { previous[j] = previous[j - 1] + added }
        for w in written {
            let dropped = log(Self.isPunctuation(w) ? rates.punctuationDropped : letterDropped)
            var row = [Double](repeating: -.infinity, count: m + 1)
            row[0] = previous[0] + dropped
            for j in stride(from: 1, through: m, by: 1) {
                row[j] = Self.logSum(previous[j - 1] + keep + log(emission(read[j - 1], w)),
                                     Self.logSum(previous[j] + dropped, row[j - 1] + added))
            }
            previous = row
        }
        return previous[m]
    }

    /// P(this character read | `w` written) over P(it read | no particular character): the reader's probability
    /// for `w` (or, for an accented letter, for its bare letter, as often as accents are dropped) against the
    /// one in `alphabet` a letter of no particular name would get, or a misread, which any character explains.
    func emission(_ symbol: [Character: Double], _ w: Character) -> Double {
        var q = symbol[w] ?? 0
        let bare = Self.bare(w)
        if bare != w { q += rates.accentDropped * (symbol[bare] ?? 0) }
        let misread = (symbol.values.max() ?? 0) >= Rates.sure ? rates.misreadSure : rates.misreadUnsure
        return (1 - misread) * alphabet * min(1, q) + misread
    }

    static func isPunctuation(_ c: Character) -> Bool { ".'-,&/()".contains(c) }

    /// The letter without its accents: "ë" → "e".
    static func bare(_ c: Character) -> Character {
        String(c).folding(options: .diacriticInsensitive, locale: nil).first ?? c
    }

    static func logSum(_ a: Double, _ b: Double) -> Double {
        if a == -.infinity { return b }
        if b == -.infinity { return a }
        let top = max(a, b)
        return top + log(exp(a - top) + exp(b - top))
    }
}

/// Which name a handwritten name is: the known names likeliest first (at most three), and a name the club has
/// not used. The probabilities sum to 1 over every known name and the new one.
/// What a name (or a player) read against the known ones comes to: the known ones, likeliest first, and the
/// probability that it is none of them (`unknown`).
public protocol KnownOrNewPosterior {
    associatedtype Candidate: NamedCandidate
    var known: [Candidate] { get }
    var unknown: Double { get }
}

public protocol NamedCandidate {
    var name: String { get }
    var probability: Double { get }
}

extension KnownOrNewPosterior {
    /// The known one to show, when it is likelier than a new one.
    public var winner: Candidate? {
        guard let best = known.first, best.probability > unknown else { return nil }
        return best
    }

    /// The next likeliest after the winner: a known one, or a new one (nil), with its probability.
    public var runnerUp: (name: String?, probability: Double) {
        let second = known.dropFirst().first
        return (second?.probability ?? 0) > unknown ? (second!.name, second!.probability) : (nil, unknown)
    }
}

public struct NamePosterior: Sendable, Equatable, KnownOrNewPosterior {
    public struct Candidate: Sendable, Equatable, NamedCandidate {
        public var name: String
        public var probability: Double
    }

    public var known: [Candidate]
    /// The probability that the name written is none of the known names.
    public var newName: Double
    /// How many names of the kind were weighed.
    public var knownCount: Int

    public var unknown: Double { newName }

    /// The confidence (0–100) a name must reach to pass unflagged, for a review line `line` and a sheet of
    /// `numbers` numbers. A wrong number costs one wrong number; a wrong athlete, opponent or team files every
    /// number of the sheet under another: flagging is worth it when the expected loss of passing it,
    /// (1 − p) × numbers, exceeds what the review line accepts for one number, 1 − line. Two names the reader
    /// cannot tell apart (an accent it drops one time in three: "Seán" and "Sean") are about 3 to 1, not
    /// sure enough for a whole sheet.
    public static func line(_ line: Double, numbers: Int) -> Double {
        100 - (100 - line) / Double(max(1, numbers))
    }
}


/// Which known player a box score's row is (its name and number weighed together), or a player not known.
public struct PlayerPosterior: Sendable, Equatable, KnownOrNewPosterior {
    public struct Candidate: Sendable, Equatable, NamedCandidate {
        public var name: String
        public var number: String?
        public var probability: Double
    }

    public var known: [Candidate]
    public var newPlayer: Double
    public var knownCount: Int

    public var unknown: Double { newPlayer }
}
