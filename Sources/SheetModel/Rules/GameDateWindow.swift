import Foundation

/// The days a game's sheet is usually read in: from `yearsBack` years before the day of the scan to the
/// day after it. A fact about games, like a count's range, that the digit reader weighs a date's ink
/// against.
///
/// A stat keeper scans this season's sheets. A handwritten "26" read as "16" (the 2's bowl left open) is
/// a date ten years old, and the network can be sure of it: a third of the misread dates measured put the
/// game years back (docs/decisions.md). A date outside the window is not impossible (a coach typing up an
/// old notebook), so it is made less probable, not ruled out: each listed date's probability is multiplied
/// by `outsideWeight` when it lies outside, and the dates renormalised against the listed mass and what the
/// reader left unlisted, taken as lying inside (so a date outside never looks surer than its ink makes it).
public struct GameDateWindow: Sendable {
    /// The day of the scan.
    public var today: Date
    public var yearsBack = 2
    /// How much less probable a game date outside the window is than one inside it.
    public var outsideWeight = 0.05

    public init(today: Date = Date()) {
        self.today = today
    }

    /// Whether a date written as YYYY-MM-DD lies in the window; a text that is no date does not.
    public func contains(_ iso: String) -> Bool {
        RuleEvaluator.parseDate(iso).map(contains) ?? false
    }

    /// From `yearsBack` years before `today` to the last day the not-future rule allows.
    func contains(_ date: Date) -> Bool {
        guard let earliest = RuleEvaluator.utcCalendar.date(byAdding: .year, value: -yearsBack, to: today) else { return true }
        return date >= earliest && RuleEvaluator.isNotFuture(date, today: today)
    }

    /// Whether a date outside the window lies after the day of the scan (true) or too long before it
    /// (false); nil when it lies inside or is no date.
    public func outsideAfterToday(_ iso: String) -> Bool? {
        guard let date = RuleEvaluator.parseDate(iso), !contains(date) else { return nil }
        return date > today
    }

    /// A date field's values (most probable first, probabilities from the ink) weighed by the window,
    /// most probable first. Values that are no date string are weighed as lying inside.
    public func weigh(_ values: [(value: FieldValue, probability: Double)]) -> [(value: FieldValue, probability: Double)] {
        func weight(_ value: FieldValue) -> Double {
            guard case .string(let iso) = value, let date = RuleEvaluator.parseDate(iso) else { return 1 }
            return contains(date) ? 1 : outsideWeight
        }
        let listed: Double = values.reduce(0) { $0 + $1.probability }
        let weighed: [(value: FieldValue, probability: Double)] = values.map { ($0.value, $0.probability * weight($0.value)) }
        let total: Double = weighed.reduce(0) { $0 + $1.probability } + max(0, 1 - listed)
        guard total > 0 else { return values }
        // Swift's sort is stable: equally probable dates keep the ink's order.
        return weighed.map { ($0.value, $0.probability / total) }.sorted { $0.probability > $1.probability }
    }
}
