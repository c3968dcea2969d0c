import Foundation

/// What a reader's confidence is worth, for the fields no rule weighs (`maps`): a box score's opponent
/// score, a checkbox, a printed date or digit string, a printed count Tesseract read alone. Their confidence
/// is the share of such readings that were right on sets made for calibration, at the reader's own
/// confidence, one table per reader and kind (`hand.count`, `print.checkbox`, …; readings of an empty field
/// have their own, `print.count.empty`). A count a rule weighs is not mapped: `SheetPosterior` weighs it.
///
/// The tables are fitted by `statsheet eval --fit-calibration` (isotonic regression: the accuracy can only
/// rise with the reader's confidence) and shipped as a resource; docs/accuracy.md reports them on sets never
/// used to fit them. A doubt that caps what the value read keeps (`ReadingDoubt.readAtMost`) caps it after
/// the mapping too.
public struct ReaderCalibration: Sendable, Codable, Equatable {
    /// From `from` (the reader's probability, 0–1) up to the next step's, readings were right at least
    /// `accuracy` of the time, with 95% credibility (`credibleAccuracy`): a step of few readings promises
    /// little, and a field no rule checks is never shown surer than its kind has shown itself to be.
    public struct Step: Sendable, Codable, Equatable {
        public let from: Double
        public let accuracy: Double
        public let readings: Int
    }

    /// Table key → steps, lowest first.
    public var tables: [String: [Step]]
    /// What the tables were fitted on (folders), for the record.
    public var fittedOn: [String]

    public init(tables: [String: [Step]] = [:], fittedOn: [String] = []) {
        self.tables = tables
        self.fittedOn = fittedOn
    }

    /// No tables: every confidence stays the reader's own (how the tables are fitted).
    public static let identity = ReaderCalibration()

    /// Fewer readings than this of a kind fit no table: the reader's own confidence stands.
    public static let minimumReadings = 30

    public static func key(writing: Writing, kind: FieldKind, empty: Bool) -> String {
        "\(writing.rawValue).\(kind.rawValue)\(empty ? ".empty" : "")"
    }

    /// True for the fields whose confidence the tables give: checkboxes, counts no rule weighs, and printed
    /// dates and digit strings. Not names, nor handwritten dates and digit strings: the calibration sets hold
    /// too few wrong ones to place a line (`JudgingPolicy.dates`, `digitStrings`); a handwritten date
    /// is weighed by its season (`SeasonPrior`), a jersey number waits for the roster.
    public static func maps(_ kind: FieldKind, writing: Writing, weighedByRules: Bool) -> Bool {
        switch kind {
        case .text: false
        case .count: !weighedByRules
        case .date, .digits: writing != .hand
        case .checkbox: true
        }
    }

    /// The reading's confidence (0–100) as its table gives it, capped by its doubts; the reader's own when
    /// no table was fitted for its kind. A table only lowers a confidence: sets with no wrong reading at some
    /// confidence cannot show that the reader is surer than it says there (every printed count of the
    /// calibration sets was right, from Tesseract's 7 up), and for writers they never held, lifting did not
    /// hold (docs/decisions.md).
    public func confidence(of reading: FieldReading, writing: Writing, kind: FieldKind) -> Double {
        let key = Self.key(writing: writing, kind: kind, empty: reading.value == .empty)
        guard let steps = tables[key], let first = steps.first else { return reading.confidence }
        let raw = reading.confidence / 100
        let step = steps.last { $0.from <= raw } ?? first
        let cap = reading.doubts.compactMap(\.readAtMost).min() ?? 1
        return 100 * min(step.accuracy, raw, cap)
    }

    /// One reading of a calibration set: the reader's confidence (0–100) and whether its value was right.
    public struct Sample: Sendable {
        public let key: String
        public let confidence: Double
        public let right: Bool

        public init(key: String, confidence: Double, right: Bool) {
            self.key = key
            self.confidence = confidence
            self.right = right
        }
    }

    /// Isotonic (pool-adjacent-violators) fit per key: adjacent runs of readings, ordered by confidence,
    /// are pooled while a lower run was right more often than the one above it.
    public static func fit(_ samples: [Sample], fittedOn: [String]) -> ReaderCalibration {
        var tables: [String: [Step]] = [:]
        for (key, group) in Dictionary(grouping: samples, by: \.key) where group.count >= minimumReadings {
            var pools: [(from: Double, readings: Int, right: Int)] = []
            for sample in group.sorted(by: { $0.confidence < $1.confidence }) {
                let from = sample.confidence / 100
                if let last = pools.last, last.from == from {
                    pools[pools.count - 1].readings += 1
                    pools[pools.count - 1].right += sample.right ? 1 : 0
                } else {
                    pools.append((from, 1, sample.right ? 1 : 0))
                }
                while pools.count >= 2 {
                    let upper = pools[pools.count - 1], lower = pools[pools.count - 2]
                    guard Double(lower.right) * Double(upper.readings) >= Double(upper.right) * Double(lower.readings) else { break }
                    pools.removeLast()
                    pools[pools.count - 1] = (lower.from, lower.readings + upper.readings, lower.right + upper.right)
                }
            }
            // A run of few readings promises less than its share right (a lone right reading at the top, 0.22):
            // where a run would promise more than the one above it, the two are pooled, as the fit pools.
            var i = 0
            while i + 1 < pools.count {
                let lower = pools[i], upper = pools[i + 1]
                if credibleAccuracy(right: lower.right, readings: lower.readings) > credibleAccuracy(right: upper.right, readings: upper.readings) {
                    pools[i] = (lower.from, lower.readings + upper.readings, lower.right + upper.right)
                    pools.remove(at: i + 1)
                    i = max(0, i - 1)
                } else {
                    i += 1
                }
            }
            let steps = pools.map { Step(from: $0.from, accuracy: credibleAccuracy(right: $0.right, readings: $0.readings), readings: $0.readings) }
            tables[key] = steps
        }
        return ReaderCalibration(tables: tables, fittedOn: fittedOn)
    }

    /// The accuracy the readings show with 95% credibility: the 5% quantile of Beta(right + 1, wrong + 1), the
    /// accuracy's posterior from a uniform prior. (All right of n: 0.05^(1/(n + 1)); 98 of 98 → 0.970.)
    public static func credibleAccuracy(right: Int, readings: Int, credibility: Double = 0.95) -> Double {
        // For whole a and b, P(p ≤ x) = P(Binomial(a + b − 1, x) ≥ a): bisection on that tail.
        let a = right + 1, n = readings + 1
        func below(_ x: Double) -> Double {
            let lx = log(x), l1x = log1p(-x)
            var sum = 0.0
            for k in a...n {
                sum += exp(lgamma(Double(n + 1)) - lgamma(Double(k + 1)) - lgamma(Double(n - k + 1)) + Double(k) * lx + Double(n - k) * l1x)
            }
            return sum
        }
        var low = 0.0, high = 1.0
        for _ in 0..<60 {
            let mid = (low + high) / 2
            if below(mid) < 1 - credibility { low = mid } else { high = mid }
        }
        return low
    }
}
