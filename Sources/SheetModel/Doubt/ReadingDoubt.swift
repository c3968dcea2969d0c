/// What made a reader unsure of a field, as data. Stages pass it on and the store keeps it (a JSON column);
/// only `words` turns it into a sentence, for the CLI, the review screen and the report. No code decides
/// anything from those sentences.
///
/// A doubt about what the ink *means* (not which digit it is) is a likelihood term, not a ceiling on the
/// result: `readAtMost` is the most probability the value read keeps under that doubt, the
/// rest being "not what was meant" (`SheetPosterior` spreads it over the values the reader did not list).
public enum ReadingDoubt: Sendable, Equatable, Hashable, Codable {
    // The handwriting reader.
    /// Specks and stray strokes set aside before reading.
    case strayMarks(count: Int)
    /// A character-sized mark that reads as no digit: crossed out, scribbled over, unreadable.
    case unreadableMark
    /// The number was struck out in the boxes and read from the space beside them.
    case struckOutCorrection
    /// A mark much smaller than the sheet's other digits (a tick of the pen reads as a confident 1).
    case smallMark
    /// A mark as wide as two digits read as one: two digits touching, or one wide digit.
    case wideMark
    /// The value read lies outside the field's range.
    case outsideRange(value: Int, lower: Int, upper: Int)
    /// The range, not the ink, chose the value: the digits' first choice lay outside it.
    case rangeChose(firstChoice: FieldValue, probability: Double, lower: Int, upper: Int)
    /// The date shown lies after the day of the scan or more than `yearsBack` years before it: why the
    /// season's prior (`SeasonPrior`) left it under the line.
    case outsideGameDates(date: String, afterToday: Bool, yearsBack: Int)
    /// The window of game dates, not the ink, chose the date: the ink's first choice lay outside it. Only
    /// stores written before `SeasonPrior` hold it; a date the prior chose keeps the ink's in `inkValue`.
    case windowChose(firstChoice: FieldValue, probability: Double, afterToday: Bool, yearsBack: Int)
    /// The digits read make no date written MM DD YY.
    case notADate(text: String)
    /// Ink in the boxes, but no digit was read.
    case noDigits

    // The print reader.
    case faintMarksInEmptyField
    case faintCheckmark(inkedPercent: Int)
    case noTextRead
    /// Characters nobody writes in a name.
    case unlikelyCharacters(String)
    case lineAndBoxesDisagree
    case digitsInMarkedBoxes(digits: Int, boxes: Int)
    case notANumber(text: String)

    // Both readers.
    /// Print Tesseract saw no digit in; the handwriting reader alone read it.
    case handwritingReaderAlone
    /// Print Tesseract read, which the handwriting reader read otherwise.
    case readersDisagree(handwriting: FieldValue)
    /// Handwriting no rule checks, read under the confidence at which such readings were right (`kind`):
    /// names and jersey numbers (`JudgingPolicy.names`, `digitStrings`) and dates (`dates`); counts are what
    /// stores written before `ReaderCalibration` hold.
    case uncheckedHandwriting(UncheckedHandwriting)
    /// A handwritten name likelier to be none of the club's `known` names of its kind than any of them
    /// (`NameReadingModel`): shown as read, for a person to confirm once; `nearest` is the likeliest known one.
    case unknownName(kind: NameKind, known: Int, nearest: String?, nearestProbability: Double)
    /// A handwritten name shown as the known name it most probably is, which the reader read otherwise.
    case readAsKnownName(read: String)
    /// A known name shown under the line names are held to (`NamePosterior.line`): a wrong name files every
    /// number of the sheet under another person or team. `runnerUp` is the next likeliest, known or new (nil).
    case nameUnderItsLine(line: Double, runnerUp: String?, runnerUpProbability: Double)
    /// A box score's row read as a known player whose number, as the club knows it, is not the number read.
    case notThePlayersNumber(player: String, number: String)
    /// A handwritten jersey number no known player vouches for: the club has `knownPlayers` players (none when
    /// no roster is imported or approved yet), and the row is none of them, or is `player`, whose number the
    /// club does not know yet. Nothing but a roster checks a jersey number, and a writer the reader never met
    /// is misread sure (`JudgingPolicy.digitStrings`).
    case noPlayerVouches(knownPlayers: Int, player: String?)

    // The sheet.
    /// The field's printed box was not found where its cell was cut, even after the page's shape was fitted:
    /// the paper is folded, torn or covered there, and a box line or a neighbour's ink may be read as a digit.
    case boxMisplaced
    /// A count every sum of which the judge spent mending other numbers (`mended`): no rule checks it any
    /// more, and it is held to the line numbers no rule checks are (`SheetJudge.holdCountsWithOnlySpentSums`).
    case noSumVouches(mended: [String])
    /// A rule this number is in does not hold with the values shown.
    case inFailingRule(String)
    /// The confidence is under the review line.
    case underTheLine(Double)
    /// A note a store kept before doubts were typed, as it was written (the store's migration).
    case earlierNote(String)

    /// Handwriting whose reading nothing but its own ink supports.
    public enum UncheckedHandwriting: String, Sendable, Codable {
        case name, digitString = "digit_string", date, count
    }

    /// The most probability the value read keeps under this doubt; nil when the doubt says nothing of the
    /// value's meaning. The standard policy's number (`JudgingPolicy.readAtMost`, where they are set).
    public var readAtMost: Double? { JudgingPolicy.standard.readAtMost(self) }

    /// True for a doubt that sends the reading to a person however well the sheet's rules agree with it: a
    /// number struck out and written again, or a mark crossed out among its digits, is where a misread
    /// hides behind a sum that adds up (a crossed-out 3 whose correction the sums confirmed was wrong, on
    /// 377 hand-filled sheets).
    public var needsAPerson: Bool {
        switch self {
        // A new name is confirmed once; approved, it is known (`SheetStore.addKnownNames`). Handwriting no rule
        // checks, read under the line such readings earned (`HandwritingDoubt`), has nothing but
        // a person to check it.
        case .struckOutCorrection, .unreadableMark, .boxMisplaced, .unknownName, .notThePlayersNumber, .nameUnderItsLine,
             .uncheckedHandwriting, .noPlayerVouches, .noSumVouches: true
        default: false
        }
    }

    /// True for a doubt that is itself the line a reading fell under (a line of its own, drawn by the stage that
    /// weighed it: handwriting no rule checks, a name's stricter line, a name none of the known, a number not the
    /// player's), so that the check stage, flagging it, need not name the review line as well (`Flagging`).
    public var isItsOwnLine: Bool {
        switch self {
        case .uncheckedHandwriting, .nameUnderItsLine, .unknownName, .notThePlayersNumber, .noPlayerVouches, .noSumVouches: true
        default: false
        }
    }

    /// The doubt in a sentence, for people.
    public var words: String {
        switch self {
        case .strayMarks(let n): "\(n) stray mark\(n == 1 ? "" : "s") ignored"
        case .unreadableMark: "a crossed-out or unreadable mark among the digits"
        case .struckOutCorrection: "struck out in the boxes; read the number written beside them"
        case .smallMark: "a mark much smaller than the sheet's other digits"
        case .wideMark: "a mark as wide as two digits read as one"
        case .outsideRange(let value, let lower, let upper): "\(value) is outside \(lower)–\(upper)"
        case .rangeChose(let first, let p, let lower, let upper):
            "\(Self.firstChoice(first, p)) is outside \(lower)–\(upper)"
        case .outsideGameDates(let date, let after, let years): "\(date) \(Self.window(after, years))"
        case .windowChose(let first, let p, let after, let years): "\(Self.firstChoice(first, p)) \(Self.window(after, years))"
        case .notADate(let text): "'\(text)' is not a date written MM DD YY"
        case .noDigits: "ink in the boxes, but no digit was read"
        case .faintMarksInEmptyField: "faint marks in an empty-looking field"
        case .faintCheckmark(let percent): "faint mark: \(percent)% of the box inked"
        case .noTextRead: "ink in the field, but no text was read"
        case .unlikelyCharacters(let s): "'\(s)' is not written in names"
        case .lineAndBoxesDisagree: "the line and the single boxes read differently"
        case .digitsInMarkedBoxes(let digits, let boxes):
            "read \(digits) digit\(digits == 1 ? "" : "s") in \(boxes) marked box\(boxes == 1 ? "" : "es")"
        case .notANumber(let text): "'\(text)' is not a number"
        case .handwritingReaderAlone: "read by the handwriting reader alone"
        case .readersDisagree(let value): "the handwriting reader read \(value)"
        case .uncheckedHandwriting(let kind):
            switch kind {
            case .name: "handwriting Tesseract read under 95% sure is right about 4 times in 5"
            case .digitString: "a handwritten number no sum checks, under 95% sure, is right about 9 times in 10"
            case .date: "a handwritten date under 97% sure: new writers' are wrong 1 time in 4"
            case .count: "a handwritten count no rule checks, read under 95% sure"
            }
        case .unknownName(let kind, 0, _, _): "no \(kind.rawValue) name known yet: a new name, shown as read"
        case .unknownName(let kind, let known, let nearest, let p):
            "not one of the \(known) known \(kind.rawValue) name\(known == 1 ? "" : "s")"
                + (nearest.map { " (likeliest: \($0), \(Int((100 * p).rounded()))%)" } ?? "") + ": a new name, shown as read"
        case .readAsKnownName(let read): "read '\(read)'; the known name is likelier"
        case .nameUnderItsLine(let line, let runnerUp, let p):
            "a name files the whole sheet, so it passes only from \(Self.percent(line)) sure; it could be "
                + (runnerUp ?? "a new name") + " (\(Self.percent(100 * p)))"
        case .notThePlayersNumber(let player, let number): "\(player) is known as #\(number)"
        case .noPlayerVouches(0, _): "no roster yet to check a jersey number: import one (names import) or approve this sheet"
        case .noPlayerVouches(_, let player?): "\(player)'s number is not known yet: approve this sheet and it is"
        case .noPlayerVouches: "no known player has this name and number: a new player's, shown as read"
        case .boxMisplaced: "its printed box is not where the sheet's fit puts it: folded, torn or covered here?"
        case .noSumVouches(let mended): "no sum is left to check it: mending \(mended.joined(separator: ", ")) spent its sums"
        case .inFailingRule(let rule): "in failing rule \(rule)"
        case .underTheLine(let line): "under the review line \(Int(line))"
        case .earlierNote(let note): note
        }
    }

    private static func percent(_ p: Double) -> String {
        p >= 99 || p < 1 ? String(format: "%.1f%%", p) : "\(Int(p.rounded()))%"
    }

    private static func firstChoice(_ value: FieldValue, _ p: Double) -> String {
        "\(value), the digits' first choice (confidence \(Int((100 * p).rounded()))),"
    }

    private static func window(_ afterToday: Bool, _ yearsBack: Int) -> String {
        afterToday ? "is after the day of the scan" : "is more than \(yearsBack) years before the day of the scan"
    }
}

extension FieldReading {
    /// Records a doubt. A reader's confidence stays what it measured: the judge takes from the value read the
    /// probability the doubt says it does not keep (`cappedConfidence(by:)`).
    public mutating func doubt(_ doubt: ReadingDoubt) {
        doubts.append(doubt)
    }

    /// The confidence left to the value read once each of its doubts has taken what it says the value does
    /// not keep (`JudgingPolicy.readAtMost`): what the judge weighs, and what a reader deciding between
    /// its own readings compares.
    public func cappedConfidence(by policy: JudgingPolicy = .standard) -> Double {
        let most = doubts.compactMap(policy.readAtMost).min() ?? 1
        return min(confidence, 100 * most)
    }

    /// This reading with its doubts' caps taken (`cappedConfidence(by:)`).
    public mutating func cap(by policy: JudgingPolicy = .standard) {
        confidence = cappedConfidence(by: policy)
    }
}
