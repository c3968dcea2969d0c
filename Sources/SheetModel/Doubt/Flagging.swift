/// When a person must look at a field. Every confidence is a probability (`SheetPosterior` for the counts the
/// rules weigh, `ReaderCalibration` for the fields they do not), so one line decides:
///
/// - the confidence is under the review line (`--min-confidence`, 70);
/// - the value shown is not the ink's first choice (`inkValue`) and no person has confirmed it;
/// - an error rule the values shown break holds this field: one of its numbers is not what the paper says,
///   or the paper slipped, and the rule does not say which;
/// - a doubt only a person settles (`ReadingDoubt.needsAPerson`: a struck-out number, a crossed-out mark,
///   handwriting no rule checks read under its line, a name the club does not know).
///
/// This is the one place a reading is flagged: the stages before say why in doubts, and this stage decides.
public struct Flagging: Sendable {
    public let line: Double

    public init(line: Double) {
        self.line = line
    }

    /// The reading with its flag set, and the doubt that says why when nothing else does.
    /// - Parameter failingRules: the error rules holding this field that the values shown break.
    public func flag(_ reading: FieldReading, failingRules: [String]) -> FieldReading {
        var reading = reading
        for rule in failingRules {
            reading.doubts.append(.inFailingRule(rule))
            reading.flagged = true
        }
        if reading.confidence < line {
            if !reading.flagged && !reading.doubts.contains(where: \.isItsOwnLine) { reading.doubts.append(.underTheLine(line)) }
            reading.flagged = true
        }
        if reading.inkValue != nil || reading.doubts.contains(where: \.needsAPerson) { reading.flagged = true }
        return reading
    }
}
