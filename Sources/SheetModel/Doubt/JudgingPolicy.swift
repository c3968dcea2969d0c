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
    /// line the 95 here places.
    public var digitStrings = HandwritingDoubt(trusted: 95, earned: 69, kind: .digitString)

    /// Handwritten dates, after their season has weighed them (`SeasonPrior`): a date only its ink and its
    /// season vouch for is trusted from 0.928 up, the line the cube of its probability placed at 80 before
    /// the prior, held, not tuned again. Without it, wrong dates came at 66.5 and 66.6 on two sets, right
    /// under the review line; read at their probability before, one date in eight at 0.70–0.89 was wrong;
    /// and the calibration sets hold too few wrong dates to place a line (docs/decisions.md).
    public var dates = HandwritingDoubt(trusted: 92.8, earned: 69, kind: .date)

    /// Combinations the suggestion search may try again after a person's change in review (the scan's
    /// budget is `SheetPosterior.budget`): a person is waiting, and a hand-filled box score with many
    /// doubtful digits took seconds at the scan's.
    public var reviewSearchBudget = 2_000

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
