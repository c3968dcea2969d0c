import SheetModel
import Testing

/// The name model on readings made by hand: which of the known names, or a new one, a line of characters is.
@Suite struct NameReadingTests {
    static let athletes = ["Cameron Lee", "Jordan Smith", "Avery Brooks", "Riley Chen", "Drew Patel", "Quinn Walker"]
        .map { KnownName(kind: .athlete, name: $0) }
    static let opponents = ["Westfield Academy", "Oak Hill", "Pine Ridge", "St. Mary's", "O'Neill Prep", "Coeur d'Alene"]
        .map { KnownName(kind: .opponent, name: $0) }

    /// Characters read sure of themselves: each its own candidate with `sure`, and a look-alike with the rest.
    static func read(_ text: String, sure: Double = 0.97) -> [ReadCharacter] {
        var characters: [ReadCharacter] = []
        var startsWord = true
        for c in text {
            if c == " " { startsWord = true; continue }
            characters.append(ReadCharacter(choices: [CharacterChoice(text: String(c), probability: sure),
                                                      CharacterChoice(text: "~", probability: 1 - sure)], startsWord: startsWord))
            startsWord = false
        }
        return characters
    }

    let model = NameReadingModel(knownNames: athletes + opponents)

    @Test func aKnownNameReadRightIsSure() throws {
        let posterior = try #require(model.weigh(Self.read("Quinn Walker"), kind: .athlete))
        #expect(posterior.winner?.name == "Quinn Walker")
        #expect(posterior.winner!.probability > 0.999)
    }

    /// "Camerm Lee": the o lost and the n read as an m (its candidates gave n a little); "Jordan Smlth": an i read
    /// as an l with nothing else listed. Each is the known name, and sure of it.
    @Test(arguments: ["Camerm Lee", "Jordan Smlth", "Avery Broks", "Riley  Chen", "drew patel", "QUINN WALKER"])
    func aKnownNameReadWithALetterOffWinsAndIsSure(_ text: String) throws {
        var characters = Self.read(text)
        if let m = characters.firstIndex(where: { $0.choices[0].text == "m" }) {
            characters[m] = ReadCharacter(scores: [("m", 70), ("n", 20), ("r", 5)])
        }
        let posterior = try #require(model.weigh(characters, kind: .athlete))
        let expected = Self.athletes.first { KnownName.normalized($0.name).prefix(3) == KnownName.normalized(text).prefix(3) }!.name
        #expect(posterior.winner?.name == expected, "\(posterior)")
        #expect(posterior.winner!.probability > 0.95, "\(posterior)")
    }

    @Test(arguments: ["Morgan Davis", "Emerson Kelly", "Sam Okafor"])
    func aNameTheRosterLacksIsNew(_ text: String) throws {
        let posterior = try #require(model.weigh(Self.read(text), kind: .athlete))
        #expect(posterior.winner == nil, "\(posterior)")
        #expect(posterior.newName > 0.99)
    }

    /// "Westfield" is not "Westfield Academy" with a word lost, nor the other way round: the new name keeps the mass.
    @Test func aNearMissIsNeverMerged() throws {
        let short = try #require(model.weigh(Self.read("Westfield"), kind: .opponent))
        #expect(short.winner == nil, "\(short)")
        #expect(short.known.first?.name == "Westfield Academy")
        let long = NameReadingModel(knownNames: [KnownName(kind: .opponent, name: "Westfield"), KnownName(kind: .opponent, name: "Oak Hill")])
        let posterior = try #require(long.weigh(Self.read("Westfield Academy"), kind: .opponent))
        #expect(posterior.winner == nil, "\(posterior)")
        // Both known: each reading is its own name.
        let both = NameReadingModel(knownNames: Self.opponents + [KnownName(kind: .opponent, name: "Westfield")])
        #expect(both.weigh(Self.read("Westfield"), kind: .opponent)?.winner?.name == "Westfield")
        #expect(both.weigh(Self.read("Westfield Academy"), kind: .opponent)?.winner?.name == "Westfield Academy")
    }

    /// As people write them and as Tesseract reads them: periods and apostrophes lost, the apostrophe's shape,
    /// accents dropped, capitals.
    @Test(arguments: [("ST MARYS", "St. Mary's"), ("St. Mary’s", "St. Mary's"), ("O’Neill Prep", "O'Neill Prep"),
                      ("ONeill Prep", "O'Neill Prep"), ("Coeur dAlene", "Coeur d'Alene")])
    func punctuationAndCaseAsWritten(_ text: String, _ expected: String) throws {
        let posterior = try #require(model.weigh(Self.read(text), kind: .opponent))
        #expect(posterior.winner?.name == expected, "\(posterior)")
        #expect(posterior.winner!.probability > 0.95, "\(posterior)")
    }

    @Test func accentsDroppedByTheReaderStillMatchButAreCharacters() throws {
        let zoe = KnownName(kind: .athlete, name: "Zoë Fernández")
        let model = NameReadingModel(knownNames: Self.athletes + [zoe])
        let plain = try #require(model.weigh(Self.read("Zoe Fernandez"), kind: .athlete))
        #expect(plain.winner?.name == "Zoë Fernández", "\(plain)")
        #expect(plain.winner!.probability > 0.95)
        // Two people, one spelled with accents: each reading is its own.
        let both = NameReadingModel(knownNames: [zoe, KnownName(kind: .athlete, name: "Zoe Fernandez")])
        #expect(both.weigh(Self.read("Zoe Fernandez"), kind: .athlete)?.winner?.name == "Zoe Fernandez")
        #expect(both.weigh(Self.read("Zoë Fernández"), kind: .athlete)?.winner?.name == "Zoë Fernández")
    }

    /// "Björn Müller" in a script hand Tesseract could not follow (set 7302, sheet 9): every letter's candidates
    /// near even, three letters run together. Against a club's 24 athletes, no name may pass a goalie sheet's
    /// line: with one drop rate for every line, Sam Okafor, as short as the line, took 99.9%.
    @Test func aLineBarelyReadLeavesTheNameToAPerson() throws {
        let scores: [(Bool, [(String, Double)])] = [
            (true, [("B", 23), ("R", 17), ("H", 16), ("S", 16), ("F", 15), ("A", 14)]),
            (false, [("a", 24), ("r", 20), ("n", 16), ("o", 14), ("e", 13), ("v", 12)]),
            (false, [("r", 28), ("n", 23), ("v", 18), ("m", 16), ("o", 15)]),
            (true, [("N", 29), ("M", 28), ("W", 24), ("H", 10), ("U", 9)]),
            (false, [("a", 22), ("o", 17), ("e", 16), ("i", 16), ("u", 15), ("s", 14)]),
            (false, [("i", 21), ("b", 17), ("h", 17), ("t", 17), ("f", 14), ("k", 13)]),
            (false, [("i", 28), ("o", 24), ("t", 24), ("l", 24)]),
            (false, [("o", 27), ("n", 23), ("e", 18), ("r", 17), ("w", 16)]),
        ]
        let characters = scores.map { ReadCharacter(scores: $0.1.map { (text: $0.0, score: $0.1) }, startsWord: $0.0) }
        let club = ["Avery Johnson", "Björn Müller", "Cameron Lee", "Casey Brooks", "Chloé Dubois", "D'Andre Wallace", "Drew Patel",
                    "Inés Peña", "J.P. Lefèvre", "Jamie Ortiz", "Jordan Smith", "José Núñez", "Liam O'Connor", "Logan Rivera",
                    "Morgan Davis", "Noémie Côté", "Parker Hayes", "Quinn Walker", "Reese Miller", "Riley Chen", "Sam Okafor",
                    "Seán O'Brien", "Taylor Nguyen", "Zoë Fernández"].map { KnownName(kind: .athlete, name: $0) }
        let posterior = try #require(NameReadingModel(knownNames: club).weigh(characters, kind: .athlete))
        let line = NamePosterior.line(70, numbers: 25) / 100
        #expect((posterior.winner?.probability ?? 0) < line, "\(posterior)")
        // A line read sure keeps its rare drops: "Camerm Lee" stays Cameron Lee, surely.
        let sure = try #require(NameReadingModel(knownNames: club).weigh(Self.read("Camerm Lee"), kind: .athlete))
        #expect(sure.winner?.name == "Cameron Lee" && sure.winner!.probability > line, "\(sure)")
    }

    /// Another kind's names are not this field's: an opponent's name on the athlete line is a new athlete.
    @Test func onlyTheFieldsKindCounts() throws {
        let posterior = try #require(model.weigh(Self.read("Oak Hill"), kind: .athlete))
        #expect(posterior.winner == nil)
        // No player known: the name is new, surely (the prior's 1 / (0 + 1)).
        let player = try #require(model.weigh(Self.read("Oak Hill"), kind: .player))
        #expect(player.known.isEmpty && player.newName == 1 && player.winner == nil)
        #expect(model.weigh([], kind: .athlete) == nil)
    }

    /// The known names' probabilities and the new one's make one distribution, and a name known twice
    /// (another spelling of the same key) is one name.
    @Test func probabilitiesSumToOne() throws {
        let model = NameReadingModel(knownNames: Self.athletes + [KnownName(kind: .athlete, name: "CAMERON  LEE")])
        #expect(model.count(of: .athlete) == Self.athletes.count)
        let posterior = try #require(model.weigh(Self.read("Camron Le", sure: 0.6), kind: .athlete))
        let all = NameReadingModel(knownNames: Self.athletes)
        let full = try #require(all.weigh(Self.read("Camron Le", sure: 0.6), kind: .athlete))
        #expect(abs(posterior.newName - full.newName) < 1e-12)
        #expect(posterior.known.reduce(posterior.newName) { $0 + $1.probability } <= 1 + 1e-9)
        #expect(posterior.known.count == 3)
    }

    @Test func scoresBecomeShares() {
        let c = ReadCharacter(scores: [("'", 87), ("’", 86), ("i", 27)])
        #expect(c.choices.map(\.text) == ["'", "’", "i"])
        #expect(abs(c.choices[0].probability - 0.435) < 1e-9)
        #expect(ReadCharacter(scores: [("a", 0), ("b", 0)]).choices.map(\.probability) == [0.5, 0.5])
    }

    // MARK: - A box score's players: name and number together

    static let players = [KnownName(kind: .player, name: "Jon Smith", number: "3", team: "Granite Bay"),
                          KnownName(kind: .player, name: "Jan Smith", number: "21", team: "Granite Bay"),
                          KnownName(kind: .player, name: "Cam Lee", number: "12", team: "Granite Bay"),
                          KnownName(kind: .player, name: "Cam Lee", number: "5", team: "Oak Hill")]

    static func number(_ text: String, _ p: Double) -> FieldReading {
        var reading = FieldReading(value: .string(text), text: text, confidence: 100 * p)
        reading.alternatives = [Alternative(value: .string(text), probability: p)]
        return reading
    }

    /// "J?n Smith" with the second letter an o or an a alike: the number read beside it says which.
    @Test func theNumberBesideTheNameTellsTwoLookAlikesApart() throws {
        let model = NameReadingModel(knownNames: Self.players)
        var characters = Self.read("Jon Smith")
        characters[1] = ReadCharacter(scores: [("o", 50), ("a", 50)])
        let jan = try #require(model.weighPlayer(characters, number: Self.number("21", 0.95), team: "Granite Bay"))
        #expect(jan.winner?.name == "Jan Smith" && jan.winner?.number == "21", "\(jan)")
        #expect(jan.winner!.probability > 0.95)
        let jon = try #require(model.weighPlayer(characters, number: Self.number("3", 0.95), team: "Granite Bay"))
        #expect(jon.winner?.name == "Jon Smith", "\(jon)")
        // The name alone cannot tell them apart.
        let alone = try #require(model.weighPlayer(characters, number: FieldReading(value: .empty, text: "", confidence: 97), team: "Granite Bay"))
        #expect(alone.winner.map { $0.probability < 0.6 } ?? true, "\(alone)")
    }

    /// The team's players only: Cam Lee of Oak Hill wears 5, of Granite Bay 12.
    @Test func theSheetsTeamsPlayers() throws {
        let model = NameReadingModel(knownNames: Self.players)
        let posterior = try #require(model.weighPlayer(Self.read("Cam Lee"), number: Self.number("5", 0.9), team: "OAK HILL"))
        #expect(posterior.winner?.number == "5" && posterior.knownCount == 1, "\(posterior)")
        // A team with no known players: every player is a candidate.
        #expect(model.weighPlayer(Self.read("Cam Lee"), number: Self.number("12", 0.9), team: "Westfield")?.knownCount == 4)
    }

    /// A name read sure keeps its player even beside another number (a misread 7, a new jersey); a name the
    /// roster lacks is new whatever its number.
    @Test func aSureNameOutweighsAnotherNumberAndANewNameStaysNew() throws {
        let model = NameReadingModel(knownNames: Self.players)
        let other = try #require(model.weighPlayer(Self.read("Cam Lee"), number: Self.number("7", 0.99), team: "Granite Bay"))
        #expect(other.winner?.name == "Cam Lee" && other.winner?.number == "12", "\(other)")
        let new = try #require(model.weighPlayer(Self.read("Riley Chen"), number: Self.number("12", 0.99), team: "Granite Bay"))
        #expect(new.winner == nil && new.newPlayer > 0.99, "\(new)")
    }
}
