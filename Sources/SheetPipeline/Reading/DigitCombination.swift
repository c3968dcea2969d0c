import SheetModel

/// Turns per-box digit probabilities into the field's most probable readings.
///
/// Each marked comb box has a probability for each digit and for "not a digit"; boxes are read
/// independently, so a reading's probability is the product of its boxes' probabilities. Readings that
/// mean the same value ("07" and " 7") are merged by adding their probabilities. The result is what a
/// field's confidence and its alternatives are made of, and what the validator's suggestions search.
public enum DigitCombination {
    /// One box's belief: probabilities for "0"…"9" (indexes 0–9) and "not a digit" (index 10).
    public typealias BoxProbabilities = [Double]

    /// A candidate reading of the whole field.
    public struct Candidate: Sendable, Equatable {
        /// The digits read, left to right, without the boxes read as "not a digit".
        public let digits: String
        public let probability: Double
    }

    /// The field's candidates, most probable first, keeping the `perBox` likeliest classes of each box
    /// and at most `limit` candidates. Boxes holding no ink are not passed in.
    ///
    /// Readings grow `perBox`-fold with each box, so after each box only the `beam` most probable are
    /// kept: exact up to 7 boxes at the defaults (3⁷ = 2,187), more than any field has; a damaged image
    /// whose ringing made 40 marks of one field took minutes and 19 GB before it was bounded.
    public static func candidates(_ boxes: [BoxProbabilities], perBox: Int = 3, limit: Int = 5, beam: Int = 4096) -> [Candidate] {
        guard !boxes.isEmpty else { return [] }
        var partial: [(digits: String, probability: Double)] = [("", 1)]
        for box in boxes {
            let top = box.indices.sorted { box[$0] > box[$1] }.prefix(perBox)
            partial = partial.flatMap { prefix in
                top.map { cls in (prefix.digits + (cls == 10 ? "" : String(cls)), prefix.probability * box[cls]) }
            }
            if partial.count > beam {
                partial = Array(partial.sorted { $0.probability > $1.probability }.prefix(beam))
            }
        }
        var merged: [String: Double] = [:]
        for (digits, p) in partial { merged[digits, default: 0] += p }
        return merged.map { Candidate(digits: $0.key, probability: $0.value) }
            .sorted { $0.probability != $1.probability ? $0.probability > $1.probability : $0.digits < $1.digits }
            .prefix(limit).map { $0 }
    }

    /// Candidates as values of a field of `kind`: counts merge leading zeros ("07" is 7); readings that
    /// are no value of that kind (an empty string, a date that does not exist) are dropped.
    public static func values(_ candidates: [Candidate], kind: FieldKind,
                              date: (String) -> String? = { _ in nil }) -> [(value: FieldValue, probability: Double)] {
        var merged: [(value: FieldValue, probability: Double)] = []
        for c in candidates where !c.digits.isEmpty {
            let value: FieldValue?
            switch kind {
            case .count: value = Int(c.digits).map(FieldValue.integer)
            case .date: value = date(c.digits).map(FieldValue.string)
            default: value = .string(c.digits)
            }
            guard let value else { continue }
            if let i = merged.firstIndex(where: { $0.value == value }) { merged[i].probability += c.probability }
            else { merged.append((value, c.probability)) }
        }
        return merged.sorted { $0.probability > $1.probability }
    }

    /// The values a count's range allows, each with its probability given the ink *and* that the value
    /// lies in the range, and the probability the ink alone put on values outside it.
    ///
    /// The range is a fact about the game, not about the ink: no goalie faces 72 shots in a quarter, so
    /// a quarter's "72" whose alternatives include 12 is a 12 written with a long-flagged 1 — read the way
    /// a stat keeper reads it. The probabilities are divided by one minus the listed probability outside,
    /// not by the listed probability inside: what the candidates left unlisted may lie in the range too,
    /// and this way a value never looks surer than the ink and the range together make it.
    /// A value that is no integer is kept as it is (a count's values are all integers; this keeps the
    /// function whole); without a range, nothing changes. `outside` is for tests and tuning.
    public static func withinRange(_ values: [(value: FieldValue, probability: Double)], _ range: ClosedRange<Int>?)
        -> (values: [(value: FieldValue, probability: Double)], outside: Double) {
        guard let range else { return (values, 0) }
        func allowed(_ value: FieldValue) -> Bool {
            if case .integer(let n) = value { return range.contains(n) }
            return true
        }
        let outside = values.reduce(0) { allowed($1.value) ? $0 : $0 + $1.probability }
        let inside = 1 - min(outside, 1)
        guard outside > 0, inside > 0 else { return (outside > 0 ? [] : values, outside) }
        return (values.filter { allowed($0.value) }.map { ($0.value, min(1, $0.probability / inside)) }, outside)
    }
}
