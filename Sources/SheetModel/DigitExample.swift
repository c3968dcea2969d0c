/// One labelled handwritten digit: the digit it is, by a person's word (correcting or confirming its number) or
/// by a sheet whose sums all hold, and the digit network's embedding of its ink at scan time. A store's
/// examples teach the reader its writers' hands (`DigitAdaptation`); they never leave the store.
public struct DigitExample: Sendable, Equatable {
    public var digit: Int
    public var embedding: [Float]
    /// The network that made the embedding (`DigitNetwork.identity`): another network's are not comparable.
    public var network: String
    public var source: Source

    /// Who labelled a digit: how much its word is worth (`DigitAdaptation`).
    public enum Source: Sendable, Equatable {
        /// A person corrected or confirmed its number.
        case person
        /// Its number, a count, was read sure on a sheet whose ink breaks no rule and on which no count is
        /// flagged: the sums vouch for it, no person has looked.
        case balancedSheet
    }

    /// The least confidence a number on a balanced sheet needs to label its digits: on two USPS-written seasons
    /// (`Tools/stream-figure.sh`, seeds 5950 and 5951, 3 and 6 recurring writers) every one of the 733 counts
    /// that labelled digits from sheets 1–40 was right.
    public static let balancedSheetBar = 99.0

    /// The most balanced sheets' numbers a store reads out at once: the reader keeps no more examples than
    /// this (`DigitAdaptation.capacity`), a person's first.
    public static let mostKept = 2_048

    public init(digit: Int, embedding: [Float], network: String, source: Source = .person) {
        self.digit = digit; self.embedding = embedding; self.network = network; self.source = source
    }

    /// The digits a person's value for a field says were written, in order, or nil when it names none:
    /// a count's decimal digits, a digit string's, a date's as written (MMDDYY).
    public static func writtenDigits(of value: FieldValue, kind: FieldKind) -> [Int]? {
        let text: String
        switch (value, kind) {
        case (.integer(let n), .count) where n >= 0: text = String(n)
        case (.string(let s), .digits): text = s
        case (.string(let iso), .date):
            let parts = iso.split(separator: "-")
            guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2 else { return nil }
            text = String(parts[1]) + String(parts[2]) + String(parts[0].suffix(2))
        default: return nil
        }
        let digits = text.compactMap(\.wholeNumberValue)
        return digits.count == text.count && !digits.isEmpty ? digits : nil
    }
}
