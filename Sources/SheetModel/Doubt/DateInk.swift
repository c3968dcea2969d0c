/// A handwritten date's ink as the digit reader saw it: for each character, left to right, the probabilities
/// of 0–9 and of "not a digit" (index 10). What `SeasonPrior` weighs every day of the calendar against, so that
/// the calendar (a month 1–12, a day its month has, a year of the MM DD YY's two digits) is read together
/// with the digits. Picking the likeliest digit strings first and the dates among them after
/// (`DigitCombination`) leaves the mass of strings that are no date (month 72, day 35) as doubt about the date:
/// a "1" the network gave 0.6 beside a "7" at 0.4, as a month's first digit, is a 1.
public struct DateInk: Sendable, Equatable {
    /// Eleven probabilities per character, in reading order.
    public var characters: [[Double]]

    public init(characters: [[Double]]) {
        self.characters = characters
    }

    /// The class index of "not a digit".
    public static let noDigit = 10

    /// P(ink | the digits), up to a factor the same for every string: each character is one of the digits,
    /// in order, or a mark that is no digit (a stray stroke, a box line's remnant), as `DigitCombination`
    /// reads it. `floor` is the least probability a character gives any class: a reader is sometimes sure
    /// of a misread (`SheetPosterior.silentMisread`), so no digit string is ruled out by one sure character.
    func likelihood(_ digits: [Int], floor: Double) -> Double {
        var weighing = Weighing(self, floor: floor)
        return weighing.likelihood(digits)
    }

    /// `likelihood` for many strings of one ink: the floored probabilities worked out once, and no
    /// allocation per string (a date weighs some ten thousand days).
    struct Weighing {
        private let classes: [[Double]]
        private var paths: [Double] = []

        init(_ ink: DateInk, floor: Double) {
            classes = ink.characters.map { p in p.map { floor + (1 - 11 * floor) * $0 } }
        }

        mutating func likelihood(_ digits: [Int]) -> Double {
            let n = classes.count, m = digits.count
            guard n >= m else { return 0 }
            // Six characters for six digits, the usual case: each character is its digit.
            if n == m { return zip(classes, digits).reduce(1) { $0 * $1.0[$1.1] } }
            // paths[j]: the probability of the characters so far read as the first j digits.
            if paths.count != m + 1 { paths = [Double](repeating: 0, count: m + 1) }
            paths[0] = 1
            for j in 1...m { paths[j] = 0 }
            for p in classes {
                // Downwards, so that paths[j − 1] is still the one before this character.
                for j in stride(from: m, through: 0, by: -1) {
                    paths[j] = paths[j] * p[DateInk.noDigit] + (j > 0 ? paths[j - 1] * p[digits[j - 1]] : 0)
                }
            }
            return paths[m]
        }
    }
}
