/// What a sheet's readers measured, before anything weighed it: each field's reading as its reader gave it,
/// with what the judge weighs some of them from.
public struct SheetEvidence: Sendable {
    /// One per field, in the template's order.
    public var readings: [FieldReading]
    /// How its numbers were written, as the readers judged.
    public var writing: Writing
    /// Each handwritten text field's characters with their candidates, by the field's index: what a name
    /// is weighed against the club's names from.
    public var characters: [Int: [ReadCharacter]]
    /// Each handwritten date's characters' probabilities, by the field's index (`SeasonPrior`).
    public var dateInk: [Int: DateInk]
    /// The fields whose cells were cut where their printed boxes are not (the alignment's
    /// `misplacedFields`), by index.
    public var misplaced: Set<Int>

    public init(readings: [FieldReading], writing: Writing, characters: [Int: [ReadCharacter]] = [:], dateInk: [Int: DateInk] = [:],
                misplaced: Set<Int> = []) {
        self.readings = readings; self.writing = writing; self.characters = characters; self.dateInk = dateInk
        self.misplaced = misplaced
    }
}

extension SheetJudge {
    /// Each field weighed alone, before the rules: a handwritten name against the club's names, a date by its
    /// season, what a reading no rule weighs is worth (`ReaderCalibration`), a box score's players, name and
    /// number together. Handwriting nothing checks is trusted only from the line such readings earned
    /// (`HandwritingDoubt`).
    public func weighedAlone(_ evidence: SheetEvidence) -> [(id: String, reading: FieldReading)] {
        precondition(evidence.readings.count == template.fields.count,
                     "\(evidence.readings.count) readings for \(template.fields.count) fields of \(template.id): a reader returns one per field")
        // The readers' confidences are what they measured: each doubt first takes what it says the value
        // does not keep.
        var readings = evidence.readings.map { reading in
            var reading = reading
            reading.cap(by: policy)
            return reading
        }
        let hand = evidence.writing == .hand
        if hand {
            weighNames(&readings, characters: evidence.characters)
            for (i, field) in template.fields.enumerated() where field.kind == .digits { policy.digitStrings.apply(to: &readings[i]) }
        }
        // A cell cut where its printed box is not may hold a box line read as a 1, or a neighbour's ink:
        // whatever was read there, a person looks.
        for i in evidence.misplaced where readings.indices.contains(i) {
            readings[i].doubt(.boxMisplaced)
            readings[i].cap(by: policy)
        }
        if hand { readings = season(readings, ink: evidence.dateInk) }
        let valuesChecked = rules.valuesChecked
        var fields = zip(template.fields, readings).map { field, reading in
            var reading = reading
            if ReaderCalibration.maps(field.kind, writing: evidence.writing, weighedByRules: valuesChecked.contains(field.id)) {
                reading.confidence = calibration.confidence(of: reading, writing: evidence.writing, kind: field.kind)
            }
            return (id: field.id, reading: reading)
        }
        if hand { holdUnvouchedNumbers(&fields, vouched: weighPlayers(&fields, characters: evidence.characters)) }
        return fields
    }

    /// The numbers a sheet of this template holds: how much a wrong name would misfile (`NamePosterior.line`).
    private var numbers: Int { template.fields.filter { $0.kind.isWrittenInDigits }.count }

    /// Each handwritten name weighed against the club's names of its field's kind (`name`); a text field
    /// with no names to weigh against is trusted as `policy.names` says.
    private func weighNames(_ readings: inout [FieldReading], characters: [Int: [ReadCharacter]]) {
        let nameLine = NamePosterior.line(policy.reviewLine, numbers: numbers)
        // With no names known at all, every name is new: a person confirms it once (`NameReadingModel.weigh`).
        let names = names ?? NameReadingModel(knownNames: [])
        for (i, field) in template.fields.enumerated() where field.kind == .text {
            if let kind = field.names, readings[i].value != .empty, let read = characters[i], let posterior = names.weigh(read, kind: kind) {
                readings[i] = Self.name(readings[i], posterior, kind: kind, line: nameLine, policy: policy)
            } else {
                policy.names.apply(to: &readings[i])
            }
        }
    }

    /// A handwritten name weighed against the known names of its kind: the likeliest known name when it is
    /// likelier than a new one, its confidence its probability; otherwise the name as read, as sure as
    /// `policy.names` makes a reading and no surer than the probability that it is new, flagged for a person
    /// to confirm the new name once. What was read stays in `text`.
    public static func name(_ reading: FieldReading, _ posterior: NamePosterior, kind: NameKind, line: Double,
                            policy: JudgingPolicy = .standard) -> FieldReading {
        if let winner = posterior.winner { return named(winner, of: posterior, readAs: reading.text, line: line, doubts: reading.doubts) }
        var asRead = reading
        policy.names.apply(to: &asRead)
        asRead.confidence *= posterior.newName
        asRead.doubts.append(.unknownName(kind: kind, known: posterior.knownCount, nearest: posterior.known.first?.name,
                                          nearestProbability: posterior.known.first?.probability ?? 0))
        return asRead
    }

    /// The known name `winner` shown for a name read as `text`, as sure as its probability, keeping `doubts`;
    /// doubted when it is not what was read, and under its `line`, with the runner-up named.
    private static func named<Posterior: KnownOrNewPosterior>(_ winner: Posterior.Candidate, of posterior: Posterior, readAs text: String,
                                                              line: Double, doubts: [ReadingDoubt] = []) -> FieldReading {
        var named = FieldReading(value: .string(winner.name), text: text, confidence: 100 * winner.probability, doubts: doubts)
        if KnownName.normalized(text) != KnownName.normalized(winner.name) { named.doubts.append(.readAsKnownName(read: text)) }
        if named.confidence < line {
            named.doubts.append(.nameUnderItsLine(line: line, runnerUp: posterior.runnerUp.name, runnerUpProbability: posterior.runnerUp.probability))
        }
        return named
    }

    /// A handwritten date weighed by the season it lies in (`SeasonPrior`): its athlete's, when the athlete's
    /// name was read at or over the review line and the store holds games of theirs, with the context its
    /// boxes say (another game of theirs that day in that context is unlikely); the club's otherwise.
    private func season(_ readings: [FieldReading], ink: [Int: DateInk]) -> [FieldReading] {
        let log = template.gameLog
        let dates = log.map { [$0.date] } ?? template.fields.filter { $0.kind == .date }.map(\.id)
        // Surely: what the check stage would not flag (`Flagging`), with no rule yet in question.
        let flagging = Flagging(line: policy.reviewLine)
        let athlete = log.flatMap { fieldIndex[$0.athlete] }.map { readings[$0] }
            .flatMap { !flagging.flag($0, failingRules: []).flagged ? $0.value.writtenText : nil }
        // The context its boxes say, when exactly one is ticked and every box was read at or over the line.
        let boxes = (log?.context ?? [:]).compactMap { value, id in fieldIndex[id].map { (value: value, reading: readings[$0]) } }
        let ticked = boxes.filter { $0.reading.value == .boolean(true) }
        let context = ticked.count == 1 && boxes.allSatisfy({ $0.reading.confidence >= policy.reviewLine }) ? ticked[0].value : nil
        let prior = games.prior(today: today, athlete: athlete.flatMap { $0.isEmpty ? nil : $0 }, policy: policy)
        var weighed = readings
        for id in dates {
            guard let i = fieldIndex[id], template.fields[i].kind == .date else { continue }
            weighed[i] = prior.weigh(readings[i], ink: ink[i], context: context)
            // A date no sum checks is trusted only from the line dates earned.
            policy.dates.apply(to: &weighed[i])
        }
        return weighed
    }

    /// A hand-filled box score's player rows, name and number weighed together against the known players of
    /// the sheet's team (`NameReadingModel.weighPlayer`). The likeliest known player shows its name, and its
    /// number is as sure as the player is when the number read is the player's; when the number read is
    /// another, it stays as read and is flagged. When no known player is likelier than a new one, the name
    /// stays as the name alone made it, flagged as new. Returns the indices of the numbers a known player vouched for.
    private func weighPlayers(_ fields: inout [(id: String, reading: FieldReading)], characters: [Int: [ReadCharacter]]) -> Set<Int> {
        guard let names, names.count(of: .player) > 0, let log = template.gameLog, let players = log.players,
              let nameColumn = players.name, let numberColumn = players.number else { return [] }
        var vouched: Set<Int> = []
        let team = log.role == "team" ? fieldIndex[log.athlete].flatMap { fields[$0].reading.value.writtenText } : nil
        let line = NamePosterior.line(policy.reviewLine, numbers: numbers)
        for row in players.rows {
            guard let n = fieldIndex[FieldID(row: row, column: nameColumn).rawValue], let d = fieldIndex[FieldID(row: row, column: numberColumn).rawValue], let read = characters[n],
                  fields[n].reading.value != .empty,
                  let posterior = names.weighPlayer(read, number: fields[d].reading, team: team) else { continue }
            let asRead = fields[n].reading
            guard let winner = posterior.winner else {
                if !asRead.doubts.contains(where: { if case .unknownName = $0 { true } else { false } }) {
                    fields[n].reading.doubts.append(.unknownName(kind: .player, known: posterior.knownCount, nearest: posterior.known.first?.name,
                                                                 nearestProbability: posterior.known.first?.probability ?? 0))
                }
                continue
            }
            fields[n].reading = Self.named(winner, of: posterior, readAs: asRead.text, line: line)
            guard let number = winner.number else {
                // Known without a number (a roster of names alone): approved, the sheet teaches it.
                if !fields[d].reading.doubts.contains(where: \.needsAPerson) {
                    fields[d].reading.doubts.append(.noPlayerVouches(knownPlayers: posterior.knownCount, player: winner.name))
                }
                continue
            }
            if fields[d].reading.value.writtenText == number {
                // The roster, not the ink alone, vouches for it: what held it under the line for want of a check goes.
                fields[d].reading.confidence = max(fields[d].reading.confidence, 100 * winner.probability)
                fields[d].reading.doubts.removeAll { $0 == .uncheckedHandwriting(.digitString) }
                vouched.insert(d)
            } else {
                fields[d].reading.doubts.append(.notThePlayersNumber(player: winner.name, number: number))
            }
        }
        return vouched
    }

    /// A handwritten jersey number no known player vouched for goes to a person however sure its ink was read:
    /// nothing else checks it, and a writer the reader never met is misread sure (`JudgingPolicy.digitStrings`).
    /// A number already sent to a person for another reason keeps that reason alone.
    private func holdUnvouchedNumbers(_ fields: inout [(id: String, reading: FieldReading)], vouched: Set<Int>) {
        guard let players = template.gameLog?.players, let numberColumn = players.number else { return }
        let known = names?.count(of: .player) ?? 0
        for row in players.rows {
            guard let d = fieldIndex[FieldID(row: row, column: numberColumn).rawValue], !vouched.contains(d),
                  fields[d].reading.value != .empty, !fields[d].reading.doubts.contains(where: \.needsAPerson) else { continue }
            fields[d].reading.doubts.append(.noPlayerVouches(knownPlayers: known, player: nil))
        }
    }
}
