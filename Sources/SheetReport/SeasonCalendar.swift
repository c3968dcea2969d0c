import Foundation

/// Which season a game belongs to: a sport and a date window a club sets, or, where it set none, the school
/// year (August 1 to July 31) named as clubs write it, `2025-26`. Read from a small JSON file (`--seasons`):
///
///     {"seasons": [{"sport": "lacrosse", "name": "Spring 2026", "from": "2026-02-01", "to": "2026-06-30"}]}
///
/// A window without a `sport` holds for every sport. The first window that holds a game's date names its season.
public struct SeasonCalendar: Sendable, Equatable, Codable {
    public struct Window: Sendable, Equatable, Codable {
        public var sport: String?
        public var name: String
        /// Inclusive `YYYY-MM-DD` bounds.
        public var from: String
        public var to: String
        public init(sport: String? = nil, name: String, from: String, to: String) {
            self.sport = sport; self.name = name; self.from = from; self.to = to
        }
    }

    public var seasons: [Window]

    public init(seasons: [Window] = []) { self.seasons = seasons }

    /// The season of a game of `sport` played on `date` (`YYYY-MM-DD`); "no date" without one.
    public func season(sport: String, date: String?) -> String {
        guard let date, date.count >= 7, let year = Int(date.prefix(4)), let month = Int(date.dropFirst(5).prefix(2)) else { return "no date" }
        if let window = seasons.first(where: { ($0.sport == nil || $0.sport?.lowercased() == sport.lowercased()) && $0.from <= date && date <= $0.to }) {
            return window.name
        }
        let start = month >= 8 ? year : year - 1
        return String(format: "%d-%02d", start, (start + 1) % 100)
    }

    /// A calendar file that cannot be used, said so a club can fix it.
    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
    }

    /// Reads and checks a calendar file: dates `YYYY-MM-DD`, `from` not after `to`, a name.
    public static func load(_ data: Data, file: String) throws -> SeasonCalendar {
        let calendar: SeasonCalendar
        do {
            calendar = try JSONDecoder().decode(SeasonCalendar.self, from: data)
        } catch {
            throw Invalid(description: "\(file): not a seasons file ({\"seasons\": [{\"sport\", \"name\", \"from\", \"to\"}]}): \(error)")
        }
        for (i, window) in calendar.seasons.enumerated() {
            for (key, value) in [("from", window.from), ("to", window.to)] where !isDate(value) {
                throw Invalid(description: "\(file): seasons[\(i)].\(key) must be a date YYYY-MM-DD, not \(value)")
            }
            if window.from > window.to { throw Invalid(description: "\(file): seasons[\(i)] ends (\(window.to)) before it starts (\(window.from))") }
            if window.name.trimmingCharacters(in: .whitespaces).isEmpty { throw Invalid(description: "\(file): seasons[\(i)] has no name") }
        }
        return calendar
    }

    static func isDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 3 && parts.map(\.count) == [4, 2, 2] && parts.allSatisfy { $0.allSatisfy(\.isASCII) && Int($0) != nil }
    }
}
