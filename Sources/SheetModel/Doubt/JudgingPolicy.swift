/// The numbers the judge (`SheetJudge`) decides confidences and flags with, each documented with the
/// measurement that set it. A scan keeps the review line it judged with (`SheetResult.reviewLine`, the store's
/// `sheets.review_line`), so changing the standard line changes no stored flag.
public struct JudgingPolicy: Sendable {
    /// The confidence (0–100) under which a field is flagged for a person to settle: scan's and eval's
    /// default `--min-confidence`, and the line a sheet's flags are counted against when its own was not
    /// stored. Set where the held-out writers' wrong numbers all fall under it while under 1% of right ones
    /// do (`docs/accuracy.md`, made by `Tools/accuracy-doc.sh`).
    public var reviewLine = 70.0

    /// Handwritten names and opponents: Tesseract's confidence means less on handwriting than on print.
    /// Readings at 95 or more were all right, those at 70–95 about 4 in 5, nearly all one letter off
    /// ("Camerm Lee").
    public var names = HandwritingDoubt(trusted: 95, earned: 79, kind: .name)

    /// Handwritten digit strings (jersey numbers), which no sum checks: those read at 70–95 were right about
    /// 9 times in 10. Mapped through a calibration table instead, the 87 jersey numbers read at 0.92 or more
    /// on the calibration sets (one wrong, at 99.95) earned 0.947 together, and two of the committed box
    /// scores' read at 0.92–0.95 passed wrong (15 read 75, 22 read 11): the sets hold too few to place the
    /// line the 95 here places. Over this line a jersey number still goes to a person unless a known player
    /// vouches for it (`ReadingDoubt.noPlayerVouches`): read with no roster, 20 box scores by writers the
    /// network never met (USPS, seed 5960) had 98 numbers at 70 or more, 5 of them wrong at 95.1–99.8, where
    /// 20 by MNIST writers (seed 5961) had 88, none wrong: no line tells a stranger's sure misread apart.
    public var digitStrings = HandwritingDoubt(trusted: 95, earned: 69, kind: .digitString)

    /// A count whose every sum the judge spent mending other numbers is checked by no rule, as a jersey number
    /// is not: held to the same line by design, not a line of its own (`SheetJudge.holdCountsWithOnlySpentSums`).
    /// On 40 lacrosse sheets by USPS writers (seed 5901), 3 of the 4 numbers wrong and unflagged were such
    /// counts, read at 88–92 beside a mend in their clears column, which has no other sum (two misreads, one
    /// mended to absorb the other). It holds printed counts too, which are read that unsure far less often.
    public var spentSums: HandwritingDoubt { digitStrings }

    /// Handwritten dates, after their season has weighed them (`SeasonPrior`): a date only its ink and its
    /// season vouch for is trusted from 97 up. At 92.8–97, 200 dates by USPS writers (whom the network never
    /// met; seeds 5901, 5902 and two seasons) held 5 wrong of 20, and 180 by MNIST's 0 of 9; from 97 up, 3 of
    /// 138 and 1 of 144 (where a higher line flags a third of all dates). 92.8 was the line the cube of its
    /// probability placed at 80 before the prior, on writers like the training set's.
    public var dates = HandwritingDoubt(trusted: 97, earned: 69, kind: .date)

    /// The numbers of the one model of doubt over a sheet's sums (`SheetPosterior`).
    public var sums = Sums()
    /// The numbers of the prior over a handwritten date's days (`SeasonPrior`).
    public var season = Season()
    /// The numbers the readers make a reading's confidence with, before the judge weighs it.
    public var readers = Readers()

    public init() {}

    /// This policy with another review line (a scan's `--min-confidence`, a stored sheet's own line).
    public func withReviewLine(_ line: Double) -> JudgingPolicy {
        var policy = self
        policy.reviewLine = line
        return policy
    }

    /// The policy scan and eval judge with unless told otherwise.
    public static let standard = JudgingPolicy()
}

extension JudgingPolicy {
    /// The numbers `SheetPosterior` weighs a sheet's sums with (its documentation gives the model).
    public struct Sums: Sendable {
        /// The chance the paper breaks a rule: 1 sum in 200 (`statsheet eval --rule-slip` fits it by the Brier
        /// score on sets with stat keepers' slips).
        public var slip = 0.005
        /// The least probability a reader leaves to values it did not list: a reader is sometimes sure of a
        /// misread. The same floor holds for a date's days (`SeasonPrior`) and a date's characters (`DateInk`).
        public var silentMisread = 0.002
        /// The factor a reader's listed probabilities (summing to `listed`) are scaled by so that they leave at
        /// least `silentMisread` to values it did not list: for counts (`SheetPosterior`) and dates
        /// (`SeasonPrior`) alike.
        public func scaleLeavingMisreads(listed: Double) -> Double {
            listed > 1 - silentMisread ? (1 - silentMisread) / listed : 1
        }
        /// The share of the unlisted mass a value one misread from the value read gets.
        public var nearShare = 0.1
        /// The share any other unlisted value gets.
        public var farShare = 0.001
        /// Assignments visited likeliest first per group, and the likeliest broken ones mended by one unlisted
        /// value each. A box score's group holds some ninety numbers whose sums each read a dozen: there each
        /// visit costs ten times more, and `largeGroup` of each keep a sheet near its time before the model.
        public var budget = 2_000
        public var mended = 40
        public var largeGroup = (numbers: 40, budget: 1_000, mended: 20)
        /// Assignments less probable than this times the likeliest are not visited: even with every rule
        /// holding they would weigh less than a reading breaking two rules.
        public var floor = 1e-7

        public init() {}
    }

    /// The numbers of `SeasonPrior` (its documentation gives the model and why each is what it is).
    public struct Season: Sendable {
        /// Years before the day of the scan that any sheet's date may lie in alike.
        public var yearsBack = 2
        /// Days a season's span is widened by at each end.
        public var widening = 21
        /// How likely, per day, a date older than `yearsBack` is against one within.
        public var olderWeight = 2e-4
        /// How likely a second game the same day in the same context is.
        public var sameDay = 0.05

        public init() {}
    }
}

extension JudgingPolicy {
    /// The most probability the value read keeps under `doubt`, which the judge takes from a reader's measured
    /// confidence first (`FieldReading.cappedConfidence`); nil when the doubt says nothing of the value's
    /// meaning (the network's probabilities already say which digit it is). Measured on
    /// hand-filled sheets when each doubt was found (docs/decisions.md, "Reading handwriting").
    public func readAtMost(_ doubt: ReadingDoubt) -> Double? {
        switch doubt {
        case .unreadableMark, .outsideRange, .rangeChose: 0.4
        case .digitsInMarkedBoxes: 0.25
        case .smallMark, .lineAndBoxesDisagree, .handwritingReaderAlone, .readersDisagree, .unlikelyCharacters: 0.5
        // A mark as wide as two digits is one digit at most 3 times in 5 (jersey numbers: "32" written touching
        // read 3 at 98); on a count its sum tells them apart (`SheetPosterior`).
        case .struckOutCorrection, .faintMarksInEmptyField, .wideMark: 0.6
        case .notADate, .noDigits, .noTextRead, .notANumber: 0.2
        // Nothing read in a misplaced cell is evidence of the number written: a box edge read as a leading 1
        // came at 99.7 (a bowed sheet aligned by its markers alone).
        case .boxMisplaced: 0.1
        // A date's days are weighed by `SeasonPrior`, not capped: these say why it weighed a date little.
        case .outsideGameDates, .windowChose: nil
        case .strayMarks, .faintCheckmark, .uncheckedHandwriting, .noSumVouches, .inFailingRule, .underTheLine, .earlierNote: nil
        // The name model's posterior is the confidence.
        case .unknownName, .readAsKnownName, .notThePlayersNumber, .nameUnderItsLine: nil
        // A person checks it against the roster; the ink's confidence stands.
        case .noPlayerVouches: nil
        }
    }
}

extension JudgingPolicy {
    /// How sure the readers say a reading is, before the judge weighs it: the numbers they apply themselves.
    public struct Readers: Sendable {
        /// A printed digit's confidence is at most this plus its lead over Tesseract's runner-up: a dotted
        /// zero read "9" scored 91 with "0" close behind; of 5,276 rightly read fields only 8 led by under 25,
        /// and the one sure wrong reading led by 9, so leads under 25 fall under the review line.
        public var printedLeadBase = 45.0
        /// A handwritten digit string (a jersey number), which no sum checks, is as sure as its probability to
        /// this power: only those read 0.89 sure or more pass the review line (`JudgingPolicy.digitStrings`
        /// holds more under it); the calibration sets hold too few wrong ones to do better.
        public var digitStringPower = 3.0
        /// Boxes with no ink at all: an empty box the network was never asked about, and a printed sheet's field
        /// whose boxes are clean (under a third of the inked-box threshold) or whose text box holds no ink.
        public var inkless = 97.0
        /// Boxes holding only specks that are no digit, under `faintStrayShare` of the box's area (a speck or two
        /// leaves little doubt that nothing was written), and more ink than that (some doubt): `stray` is also a
        /// printed sheet's boxes with faint marks under the inked-box threshold.
        public var faintStray = 85.0
        public var stray = 60.0
        public var faintStrayShare = 0.02
        /// Print read by Tesseract and the network alike where the two differ: each value this share of the
        /// probability, for the sums to choose between them.
        public var readersDisagreeShare = 0.5
        /// A checkbox is ticked when ink covers `checkboxTicked` of its middle (empty boxes measure about 0,
        /// ticks 0.15 and more), and as sure as `checkboxLeast` plus `checkboxSpread` times how far its ink lies
        /// from that line, up to `checkboxSureBeyond` away: a box within `checkboxDoubtedWithin` of that distance
        /// is a faint mark, which falls under the review line.
        public var checkboxTicked = 0.07
        public var checkboxLeast = 50.0
        public var checkboxSpread = 49.0
        public var checkboxSureBeyond = 0.05
        public var checkboxDoubtedWithin = 0.4

        public init() {}
    }
}

/// The standard review line (`JudgingPolicy.reviewLine`), by the name the CLI's options and the report use.
public enum ReviewLine {
    public static let standard = JudgingPolicy.standard.reviewLine
}

/// A reader's confidence on handwriting no rule checks (names, dates, digit strings) is trusted only from
/// `trusted` up; under it the field is flagged and its confidence lowered to what such readings earned
/// (`earned`, measured).
public struct HandwritingDoubt: Sendable {
    public let trusted: Double
    public let earned: Double
    public let kind: ReadingDoubt.UncheckedHandwriting

    public init(trusted: Double, earned: Double, kind: ReadingDoubt.UncheckedHandwriting) {
        self.trusted = trusted; self.earned = earned; self.kind = kind
    }

    /// Under `trusted`, the reading keeps `earned` at most and carries `.uncheckedHandwriting`, which
    /// `Flagging` sends to a person (`ReadingDoubt.needsAPerson`).
    public func apply(to reading: inout FieldReading) {
        guard reading.value != .empty, reading.confidence < trusted else { return }
        reading.confidence = min(reading.confidence, earned)
        reading.doubts.append(.uncheckedHandwriting(kind))
    }
}

extension NameReadingModel.Rates {
    /// How often Tesseract's reading of a handwritten name departs from what was written (`NameReadingModel`).
    /// Measured by `Tools/name-rates.py` on hand-filled set 7001 (30 sheets, 60 names in handwriting fonts, 723
    /// characters written, phone photos; made only for this), each the rule of succession's (k + 1) / (n + 2) so that
    /// a count of 0, 1 or 2 does not make a near-certainty: 2 of 560 sure characters and 14 of 143 others misread,
    /// 9 of 22 periods and apostrophes dropped, 1 character added in 723, 8 of 23 accents dropped. Letters dropped
    /// by the line's quality, on 7001 and 7002 together (one set holds too few lines read unsure): 3 of 881 in
    /// lines read sure, 14 of 276 unsure, 12 of 133 lost.
    public static let measured = NameReadingModel.Rates(misreadSure: 3.0 / 562, misreadUnsure: 15.0 / 145,
                                                        dropped: NameReadingModel.DroppedLetters(sure: 4.0 / 883, unsure: 15.0 / 278, lost: 13.0 / 135),
                                                        punctuationDropped: 10.0 / 24, added: 2.0 / 725, accentDropped: 9.0 / 25)
    /// A character Tesseract gave this much or more is a sure one (`misreadSure`).
    public static let sure = 0.9
}

extension NameReadingModel.DroppedLetters {
    /// A line whose characters Tesseract read this sure on average is read sure, and from `unsureFrom` unsure;
    /// under it, lost.
    public static let sureFrom = 0.8
    public static let unsureFrom = 0.5
}

extension NameReadingModel {
    /// A jersey number of no particular player is one of this many (`numberRatio`).
    static let jerseyNumbers = 100.0
    /// The least a number read can weigh for or against a player: a reader sure of a misread number would
    /// otherwise veto the name.
    static let leastNumberRatio = 0.01
}
