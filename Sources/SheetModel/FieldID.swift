/// A field's id as its parts: a dotted id (`q2.saves`) is the row `q2` and the column `saves`, which tables
/// show as a grid and game logs map periods and stats by. Ids are composed and taken apart here only, so the
/// rule for the dot lives in one place; an id without a dot has no row.
public struct FieldID: Hashable, Sendable, CustomStringConvertible {
    /// The id as the template writes it.
    public let rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The id of `column` in `row`: `q2` and `saves` make `q2.saves`.
    public init(row: String, column: String) { self.rawValue = row + "." + column }

    /// The part before the first dot; nil for an id without one.
    public var row: String? {
        rawValue.firstIndex(of: ".").map { String(rawValue[..<$0]) }
    }

    /// The part after the first dot; nil for an id without one.
    public var column: String? {
        rawValue.firstIndex(of: ".").map { String(rawValue[rawValue.index(after: $0)...]) }
    }

    public var description: String { rawValue }
}
