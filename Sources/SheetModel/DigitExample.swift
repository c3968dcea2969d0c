/// One handwritten digit a person labelled: the digit they said it is (by correcting or confirming its
/// number) and the digit network's embedding of its ink at scan time. A store's examples teach the reader
/// its writers' hands (`DigitAdaptation`); they never leave the store.
public struct DigitExample: Sendable, Equatable {
    public var digit: Int
    public var embedding: [Float]
    /// The network that made the embedding (`DigitNetwork.identity`): another network's are not comparable.
    public var network: String

    public init(digit: Int, embedding: [Float], network: String) {
        self.digit = digit; self.embedding = embedding; self.network = network
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
