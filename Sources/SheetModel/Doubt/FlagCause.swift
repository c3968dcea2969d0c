extension FieldReading {
    /// Why a flagged reading is flagged, for `statsheet eval` and the report to say what flags are made of.
    public enum FlagCause: String, CaseIterable, Sendable {
        /// The value shown is not the ink's first choice: the sheet's rules made another likelier.
        case fromSums = "from_sums"
        /// The reader alone was under the line: an unclear digit, a struck-out number's correction, a number
        /// no rule checks.
        case unsureInk = "unsure_ink"
        /// The reader was sure, but the sheet's rules made its value doubtful, or no rule checks it once its sums
        /// were spent mending another number (`ReadingDoubt.noSumVouches`).
        case sureButDoubted = "sure_but_doubted"
        /// Read at or over the line and flagged all the same (a wide mark on a number no rule checks).
        case reader = "reader"
        /// Read at or over the line, a jersey number no known player vouches for (`ReadingDoubt.noPlayerVouches`).
        case unvouched = "unvouched"

        /// What `statsheet eval` prints for it.
        public var label: String {
            switch self {
            case .fromSums: "value from the sums, not the ink"
            case .unsureInk: "the reader unsure on its own"
            case .sureButDoubted: "read sure; the rules doubt it"
            case .reader: "read sure; flagged by the reader"
            case .unvouched: "read sure; no known player vouches for it"
            }
        }
    }

    /// The cause of this reading's flag (nil when it is not flagged): a value the ink did not give, whatever
    /// else is true of it; then the reader's own confidence under the line; then a sure reading the rules
    /// put under it.
    public func flagCause(line: Double) -> FlagCause? {
        guard flagged else { return nil }
        if inkValue != nil { return .fromSums }
        if confidenceAlone < line { return .unsureInk }
        if confidence < line { return .sureButDoubted }
        return doubts.contains { if case .noPlayerVouches = $0 { true } else { false } } ? .unvouched : .reader
    }
}
