import Foundation

extension FieldKind {
    /// Whether `value` has the shape this kind stores: a count is an integer, a date `YYYY-MM-DD`
    /// text, digits a string of digits, a checkbox a boolean; any field may be empty.
    public func accepts(_ value: FieldValue) -> Bool {
        switch (self, value) {
        case (_, .empty): true
        case (.count, .integer(let n)): n >= 0
        case (.digits, .string(let s)): !s.isEmpty && s.allSatisfy { $0.isASCII && $0.isNumber }
        case (.date, .string(let s)): Self.isDate(s)
        case (.text, .string): true
        case (.checkbox, .boolean): true
        default: false
        }
    }

    /// What a person typed for a field of this kind, as a value, or why it is not one. An empty
    /// string (or `-`) empties the field; checkboxes take `x`/`yes`/`1`/`on` and `no`/`0`/`off`.
    public func value(parsing typed: String) -> Result<FieldValue, FieldValueError> {
        let text = typed.trimmingCharacters(in: .whitespaces)
        if text.isEmpty || text == "-" { return .success(.empty) }
        switch self {
        case .count:
            guard let n = Int(text), n >= 0 else { return .failure(FieldValueError("'\(text)' is not a count (a whole number, 0 or more)")) }
            return .success(.integer(n))
        case .digits:
            guard text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return .failure(FieldValueError("'\(text)' is not digits")) }
            return .success(.string(text))
        case .date:
            guard Self.isDate(text) else { return .failure(FieldValueError("'\(text)' is not a date YYYY-MM-DD")) }
            return .success(.string(text))
        case .text:
            return .success(.string(text))
        case .checkbox:
            switch text.lowercased() {
            case "x", "yes", "y", "1", "on", "true", "checked": return .success(.boolean(true))
            case "no", "n", "0", "off", "false", "unchecked": return .success(.boolean(false))
            default: return .failure(FieldValueError("'\(text)' is not a checkbox value (x or no)"))
            }
        }
    }

    /// `YYYY-MM-DD` naming a real day.
    static func isDate(_ s: String) -> Bool {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]), (1...12).contains(m), d >= 1 else { return false }
        var components = DateComponents()
        components.year = y; components.month = m
        let calendar = Calendar(identifier: .gregorian)
        guard let first = calendar.date(from: components), let days = calendar.range(of: .day, in: .month, for: first) else { return false }
        return days.contains(d)
    }
}

/// Why typed text is not a value for its field.
public struct FieldValueError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
