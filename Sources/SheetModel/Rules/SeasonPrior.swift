import Foundation

/// How likely each calendar day is as the date of the game a sheet records, before its ink is read: a
/// prior over days, which the date's ink is weighed against as a count's ink is weighed against its sums
/// (`SheetPosterior`). Only ratios between days matter; the model:
///
///     P(day) ∝ (1 − q) · U_season(day) + q · B(day)          × `sameDay` when the athlete has a game that day in that context
///
/// - B, the days any sheet is scanned for: uniform over the `yearsBack` (2) years before the day of the scan
///   up to the day after it (the not-future rule's slack); a day older than that is `olderWeight` (2e-4) as
///   likely, per day (about one sheet in a thousand typed up from an old notebook, spread over the ten years
///   before); a day after that, never.
/// - U_season, the athlete's season: uniform over the span of the games the store holds for them, widened by
///   `widening` (21 days) at each end, since games come about weekly and a season's first and last games lie
///   within a few of those already seen.
/// - q = 2 / (n + 1) for n stored games: the chance that the next of n + 1 exchangeable days lies outside the
///   range of the other n, whatever their distribution (with the span widened, an upper bound). One game
///   says nothing of a season (q = 1: B alone, the two-year window); a season of 15 games says much (q = 1/8).
/// - `sameDay` (1/20): the athlete already has a game that day in the same context (or one not known to
///   differ). Two games in one day and context (a tournament, a double-header) are about one game day in
///   twenty; a second sheet of the same game is a duplicate the store catches elsewhere. A game that day in
///   another context (school and club) costs nothing.
///
/// With no stored games this is the window the reader used before: every day of the two years alike.
public struct SeasonPrior: Sendable {
    /// The day of the scan.
    public var today: Date
    /// The games the store holds for the athlete, or for the club (`penalisesSameDay` false: another athlete's
    /// game that day is no reason to doubt it).
    public var games: [GameDay]
    public var penalisesSameDay: Bool
    /// The model's numbers, documented in `JudgingPolicy.Season`.
    public var season: JudgingPolicy.Season
    /// The least probability a reader leaves to dates it did not list (`JudgingPolicy.Sums.silentMisread`).
    public var sums: JudgingPolicy.Sums
    public var yearsBack: Int { season.yearsBack }
    var widening: Int { season.widening }
    var olderWeight: Double { season.olderWeight }
    var sameDay: Double { season.sameDay }
    var silentMisread: Double { sums.silentMisread }

    public init(today: Date, games: [GameDay] = [], penalisesSameDay: Bool = true, policy: JudgingPolicy = .standard) {
        self.today = today
        self.games = games
        self.penalisesSameDay = penalisesSameDay
        season = policy.season
        sums = policy.sums
    }

    /// Where a day lies for this prior.
    public enum Place: Equatable, Sendable {
        /// After the day after the scan.
        case future
        /// More than `yearsBack` years before the scan.
        case older
        /// In the two years, outside the athlete's season (or no season is known).
        case window
        /// In the athlete's season, widened.
        case season
    }

    private static let day = 86_400.0
    private var earliest: Date {
        RuleEvaluator.utcCalendar.date(byAdding: .year, value: -yearsBack, to: today) ?? today
    }
    private var windowDays: Double { max(1, (today.timeIntervalSince(earliest) / Self.day).rounded() + 2) }
    private var parsedGames: [(date: Date, context: String?)] {
        games.compactMap { game in RuleEvaluator.parseDate(game.date).map { ($0, game.context) } }
    }
    /// The season's first and last day, widened, and no later than the not-future rule allows.
    private var span: ClosedRange<Date>? {
        let dates = parsedGames.map(\.date)
        guard let first = dates.min(), let last = dates.max() else { return nil }
        let from = first.addingTimeInterval(-Double(widening) * Self.day)
        let to = min(last.addingTimeInterval(Double(widening) * Self.day), today.addingTimeInterval(Self.day))
        return from <= to ? from...to : nil
    }
    /// The chance that a game lies outside the season seen: 2 / (n + 1).
    var outsideShare: Double { span == nil ? 1 : min(1, 2 / Double(parsedGames.count + 1)) }

    public func place(_ date: Date) -> Place { place(date, span: span) }

    private func place(_ date: Date, span: ClosedRange<Date>?) -> Place {
        if !RuleEvaluator.isNotFuture(date, today: today) { return .future }
        if let span, span.contains(date) { return .season }
        return date < earliest ? .older : .window
    }

    /// nil when the text is no date.
    public func place(_ iso: String) -> Place? { RuleEvaluator.parseDate(iso).map(place) }

    /// The prior probability of one day (per day), up to a constant; a text that is no date has none.
    public func weight(_ iso: String, context: String?) -> Double {
        guard let date = RuleEvaluator.parseDate(iso) else { return 0 }
        return Shape(self).weight(date, context: context)
    }

    /// What `weight` needs, worked out once: the joint reading of a date weighs every day of the calendar.
    private struct Shape {
        let prior: SeasonPrior
        let q: Double
        let windowDays: Double
        let span: ClosedRange<Date>?
        let seasonDays: Double
        let earliest: Date
        /// The not-future rule's last day.
        let latest: Date
        /// The contexts of the games played each day.
        let played: [Date: [String?]]

        init(_ prior: SeasonPrior) {
            self.prior = prior
            q = prior.outsideShare
            windowDays = prior.windowDays
            span = prior.span
            seasonDays = span.map { max(1, ($0.upperBound.timeIntervalSince($0.lowerBound) / SeasonPrior.day).rounded() + 1) } ?? 1
            earliest = prior.earliest
            latest = prior.today.addingTimeInterval(SeasonPrior.day)
            played = Dictionary(grouping: prior.parsedGames, by: \.date).mapValues { $0.map(\.context) }
        }

        /// As `place` says: nothing after `latest`, a day of the season or the two years alike, an older one
        /// `olderWeight` as likely; the season's span ends by `latest`.
        func weight(_ date: Date, context: String?) -> Double {
            guard date <= latest else { return 0 }
            let inSpan = span?.contains(date) ?? false
            var w = q * (inSpan || date >= earliest ? 1 : prior.olderWeight) / windowDays
            if inSpan { w += (1 - q) / seasonDays }
            if prior.penalisesSameDay, let contexts = played[date], contexts.contains(where: { $0 == nil || context == nil || $0 == context }) {
                w *= prior.sameDay
            }
            return w
        }
    }

    /// The most any day weighs: what a date the reader did not list is taken to weigh, so that the dates it
    /// listed never look surer than their ink and this prior together make them.
    public var largestWeight: Double {
        let q = outsideShare
        guard let span else { return 1 / windowDays }
        let seasonDays = max(1, (span.upperBound.timeIntervalSince(span.lowerBound) / Self.day).rounded() + 1)
        let inWindow = span.upperBound >= earliest
        return (1 - q) / seasonDays + q * ((inWindow ? 1 : olderWeight) / windowDays)
    }

    /// A date field's values (probabilities from the ink) weighed by this prior, most probable first:
    /// P(day | ink) = P_ink(day) · P(day) / Z, where Z also counts what the ink left unlisted (at least
    /// `silentMisread`), taken to weigh `largestWeight`. Values that are no date weigh nothing.
    public func weigh(_ values: [(value: FieldValue, probability: Double)], context: String?) -> [(value: FieldValue, probability: Double)] {
        let listed = values.reduce(0) { $0 + $1.probability }
        let scale = sums.scaleLeavingMisreads(listed: listed)
        let unlisted = max(0, 1 - listed * scale)
        let weighed: [(value: FieldValue, probability: Double)] = values.map { option in
            guard case .string(let iso) = option.value else { return (option.value, 0) }
            return (option.value, option.probability * scale * weight(iso, context: context))
        }
        let total = weighed.reduce(0) { $0 + $1.probability } + unlisted * largestWeight
        guard total > 0 else { return values.map { ($0.value, 0) } }
        // Swift's sort is stable: equally probable dates keep the ink's order.
        return weighed.map { ($0.value, $0.probability / total) }.sorted { $0.probability > $1.probability }
    }

    /// A handwritten date's reading weighed by this prior: the value shown is the likeliest day, its confidence
    /// that day's probability; a day the prior, not the ink, chose keeps the ink's in `inkValue` (and so is
    /// flagged, `Flagging`). The ink's own probabilities are its alternatives, its confidence (a doubt's cap
    /// included) what it gives the value it read.
    public func weigh(_ reading: FieldReading, context: String?) -> FieldReading {
        guard case .string = reading.value else { return reading }
        let own = reading.cappedConfidence() / 100
        var options = reading.alternatives.map { (value: $0.value, probability: $0.probability) }
        if let i = options.firstIndex(where: { $0.value == reading.value }) {
            options[i].probability = min(options[i].probability, own)
        } else {
            options.insert((reading.value, own), at: 0)
        }
        guard let top = weigh(options, context: context).first else { return reading }
        var weighed = reading
        if top.value != reading.value {
            weighed.inkValue = reading.value
            weighed.value = top.value
        }
        weighed.inkConfidence = reading.confidence
        weighed.confidence = 100 * top.probability
        if case .string(let iso) = top.value, let place = place(iso), place == .future || place == .older {
            weighed.doubts.append(.outsideGameDates(date: iso, afterToday: place == .future, yearsBack: yearsBack))
        }
        return weighed
    }

    /// A handwritten date read together with the calendar and this prior: every day its MM DD YY can write,
    /// from 2000-01-01 to the not-future rule's last day (later ones weigh nothing), weighed by
    /// P(ink | the day's digits) × P(day), every character a digit of the day or a mark that is no digit
    /// (`DateInk`). The value shown is the likeliest day, its confidence that day's probability. A day this
    /// prior chose over the ink's likeliest possible day keeps that one in `inkValue` (and so is flagged,
    /// `Flagging`); a day after the scan is no choice of the ink's, however its digits read.
    ///
    /// A doubt about what the ink means (`ReadingDoubt.readAtMost`: a wide mark, a struck-out number, a
    /// misplaced box) is the chance that the ink is no evidence of the day, when any one day is as unlikely as
    /// the prior makes it: the day keeps at most that share. A small mark is weighed in its own character
    /// (`HandwrittenDigitReader`), not over the date. Ink of fewer than six characters or more than twelve is
    /// weighed as the reader listed it (`weigh(_:context:)`).
    public func weigh(_ reading: FieldReading, ink: DateInk?, context: String?) -> FieldReading {
        guard let ink, case .string = reading.value, (6...12).contains(ink.characters.count),
              let first = RuleEvaluator.parseDate("2000-01-01"), let end = RuleEvaluator.parseDate("2099-12-31") else {
            return weigh(reading, context: context)
        }
        let shape = Shape(self)
        let last = min(end, today.addingTimeInterval(Self.day))
        // A character's misread mass, spread over the ten classes it did not read.
        let floor = silentMisread / 10
        var weighing = DateInk.Weighing(ink, floor: floor)
        var total = 0.0
        var best: (day: String, weight: Double)?, likeliest: (day: String, likelihood: Double)?
        var (year, month, day, date) = (2000, 1, 1, first)
        var digits = [Int](repeating: 0, count: 6)
        while date <= last {
            (digits[0], digits[1], digits[2], digits[3], digits[4], digits[5]) = (month / 10, month % 10, day / 10, day % 10, year % 100 / 10, year % 10)
            let likelihood = weighing.likelihood(digits)
            let weight = likelihood * shape.weight(date, context: context)
            total += weight
            if weight > (best?.weight ?? 0) { best = (Self.iso(year, month, day), weight) }
            if likelihood > (likeliest?.likelihood ?? 0) { likeliest = (Self.iso(year, month, day), likelihood) }
            date = date.addingTimeInterval(Self.day)
            day += 1
            if day > Self.days(inMonth: month, year: year) { (day, month) = (1, month + 1) }
            if month > 12 { (month, year) = (1, year + 1) }
        }
        guard let best, let likeliest, total > 0 else { return weigh(reading, context: context) }
        let keeps = reading.doubts.compactMap { $0 == .smallMark ? nil : $0.readAtMost }.min() ?? 1
        var weighed = reading
        weighed.value = .string(best.day)
        weighed.inkValue = likeliest.day == best.day ? nil : .string(likeliest.day)
        weighed.inkConfidence = reading.confidence
        weighed.confidence = 100 * keeps * best.weight / total
        if let place = place(best.day), place == .future || place == .older {
            weighed.doubts.append(.outsideGameDates(date: best.day, afterToday: place == .future, yearsBack: yearsBack))
        }
        return weighed
    }

    private static func iso(_ year: Int, _ month: Int, _ day: Int) -> String {
        "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
    }

    private static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

/// A game the store holds: its day (YYYY-MM-DD) and the context it was played in (`high_school`, `club`; nil
/// when the sheet did not say).
public struct GameDay: Sendable, Hashable, Codable {
    public var date: String
    public var context: String?

    public init(date: String, context: String? = nil) {
        self.date = date
        self.context = context
    }
}

/// The games a store holds, by whose they are: the key is `KnownName.normalized` of the athlete (a box
/// score's team), so "O'Neill" and "O’NEILL" are one athlete.
public struct SeasonGames: Sendable, Equatable {
    public var byAthlete: [String: [GameDay]]

    public init(byAthlete: [String: [GameDay]] = [:]) {
        self.byAthlete = byAthlete
    }

    public init(_ games: [(athlete: String, day: GameDay)]) {
        byAthlete = Dictionary(grouping: games, by: { KnownName.normalized($0.athlete) }).mapValues { $0.map(\.day) }
    }

    public var isEmpty: Bool { byAthlete.isEmpty }

    /// The prior for a sheet whose athlete was read as `athlete` (nil when not read surely): that athlete's
    /// season when the store holds games of theirs; otherwise the club's, every stored game together, where
    /// another game that day is no reason for doubt (a new athlete plays the club's season); with no games
    /// stored, the two years before the scan.
    public func prior(today: Date, athlete: String?, policy: JudgingPolicy = .standard) -> SeasonPrior {
        if let athlete, let own = byAthlete[KnownName.normalized(athlete)], !own.isEmpty {
            return SeasonPrior(today: today, games: own, policy: policy)
        }
        return SeasonPrior(today: today, games: byAthlete.values.flatMap { $0 }, penalisesSameDay: false, policy: policy)
    }
}
