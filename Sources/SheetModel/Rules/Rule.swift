import Foundation

/// A check the filled sheet must pass, declared in the template:
/// `{"id": "q2.balance", "check": "q2.saves + q2.goals == q2.shots", "message": "Q2: saves + goals must equal shots"}`.
public struct RuleSpec: Sendable, Equatable, Codable {
    public var id: String
    public var check: String
    public var message: String
    /// `error` when absent. A `warning` is something unusual rather than impossible (a sixth foul): it is
    /// reported and sends the sheet to review like an error, but the suggestion search never "repairs" it.
    public var severity: RuleSeverity?

    public init(id: String, check: String, message: String, severity: RuleSeverity? = nil) {
        self.id = id; self.check = check; self.message = message; self.severity = severity
    }

    public var effectiveSeverity: RuleSeverity { severity ?? .error }
}

/// How bad a failing rule is: `error` (the sheet contradicts itself) or `warning` (unusual, worth a look).
public enum RuleSeverity: String, Sendable, Equatable, Codable, CaseIterable {
    case error, warning
}

/// A value while a rule is evaluated.
public enum RuleValue: Equatable, Sendable {
    case integer(Int)
    case boolean(Bool)
}

/// Why a rule could not be evaluated (as opposed to failing).
public struct RuleEvaluationError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// Evaluates rule expressions over a sheet's values.
///
/// Empty counts are 0 in arithmetic — an empty overtime row is a row of zeros on paper — while
/// `present(field)` tells whether anything was written. Checkboxes are true or false; `count(…)` counts
/// the checked ones. `not_future(date)` holds for an empty date and for dates up to one day after `today`.
public struct RuleEvaluator {
    public let values: [String: FieldValue]
    /// The template's fields in order: ids for patterns, kinds for what an empty field means.
    public let fields: [FieldSpec]
    public let today: Date

    /// Each field's kind by id: looked up for every field a rule reads, so built once, not searched for.
    let kinds: [String: FieldKind]

    public init(values: [String: FieldValue], fields: [FieldSpec], today: Date = Date()) {
        self.init(values: values, fields: fields, kinds: Self.kinds(of: fields), today: today)
    }

    /// Each field-id pattern's matching ids, in template order, when the caller expanded them already.
    let expansions: [String: [String]]
    /// Values read in place of `values`' own: a trial assignment of a few numbers, weighed without copying
    /// the sheet's hundreds (the model of doubt tries thousands of them on a box score).
    var changed: [String: FieldValue] = [:]

    /// The value `id` has here: `changed`'s, else `values`'.
    func value(_ id: String) -> FieldValue? { changed.isEmpty ? values[id] : changed[id] ?? values[id] }

    /// For callers that evaluate many value sets over one template (the model of doubt): the kinds, and the
    /// patterns' expansions (`expansions(of:in:)`), are worked out once, not for every evaluation.
    init(values: [String: FieldValue], fields: [FieldSpec], kinds: [String: FieldKind], today: Date,
         expansions: [String: [String]] = [:]) {
        self.values = values
        self.fields = fields
        self.kinds = kinds
        self.today = today
        self.expansions = expansions
    }

    /// The ids each pattern among `references` matches, in template order.
    static func expansions(of references: [String], in fields: [FieldSpec]) -> [String: [String]] {
        Dictionary(references.filter(isPattern).map { pattern in (pattern, fields.map(\.id).filter { matches($0, pattern) }) },
                   uniquingKeysWith: { first, _ in first })
    }

    static func kinds(of fields: [FieldSpec]) -> [String: FieldKind] {
        Dictionary(fields.map { ($0.id, $0.kind) }, uniquingKeysWith: { first, _ in first })
    }

    var fieldIds: [String] { fields.map(\.id) }

    public func evaluate(_ e: Expression) throws(RuleEvaluationError) -> RuleValue {
        switch e {
        case .number(let n): return .integer(n)
        case .field(let id): return try fieldValue(id)
        case .negate(let inner): return .integer(-(try integer(inner)))
        case .not(let inner): return .boolean(!(try boolean(inner)))
        case .binary(let op, let a, let b):
            switch op {
            case .add: return .integer(try integer(a) + integer(b))
            case .subtract: return .integer(try integer(a) - integer(b))
            case .multiply: return .integer(try integer(a) * integer(b))
            case .and:
                guard try boolean(a) else { return .boolean(false) }
                return .boolean(try boolean(b))
            case .or:
                if try boolean(a) { return .boolean(true) }
                return .boolean(try boolean(b))
            case .equal, .notEqual:
                let x = try evaluate(a), y = try evaluate(b)
                return .boolean(op == .equal ? x == y : x != y)
            case .less: return .boolean(try integer(a) < integer(b))
            case .lessOrEqual: return .boolean(try integer(a) <= integer(b))
            case .greater: return .boolean(try integer(a) > integer(b))
            case .greaterOrEqual: return .boolean(try integer(a) >= integer(b))
            }
        case .call(let name, let args):
            switch name {
            case "sum":
                var total = 0
                for arg in try expand(args) { total += try integer(arg) }
                return .integer(total)
            case "count":
                var checked = 0
                for arg in try expand(args) where try boolean(arg) { checked += 1 }
                return .integer(checked)
            case "present":
                guard case .field(let id) = args[0] else { throw RuleEvaluationError(message: "present takes a field id") }
                return .boolean((value(id) ?? .empty) != .empty)
            case "not_future":
                guard case .field(let id) = args[0] else { throw RuleEvaluationError(message: "not_future takes a date field") }
                guard case .string(let text)? = value(id) else { return .boolean(true) }
                guard let date = Self.parseDate(text) else { return .boolean(false) }
                return .boolean(Self.isNotFuture(date, today: today))
            default: throw RuleEvaluationError(message: "unknown function \(name)")
            }
        }
    }

    private func fieldValue(_ id: String) throws(RuleEvaluationError) -> RuleValue {
        guard let kind = kinds[id] else { throw RuleEvaluationError(message: "unknown field '\(id)'") }
        switch value(id) ?? .empty {
        case .empty:
            switch kind {
            case .checkbox: return .boolean(false)
            case .count: return .integer(0)
            default: throw RuleEvaluationError(message: "'\(id)' is not a number; use present() or not_future()")
            }
        case .integer(let n): return .integer(n)
        case .boolean(let b): return .boolean(b)
        case .string: throw RuleEvaluationError(message: "'\(id)' is not a number; use present() or not_future()")
        }
    }

    private func integer(_ e: Expression) throws(RuleEvaluationError) -> Int {
        switch try evaluate(e) {
        case .integer(let n): return n
        case .boolean(let b): return b ? 1 : 0
        }
    }

    private func boolean(_ e: Expression) throws(RuleEvaluationError) -> Bool {
        switch try evaluate(e) {
        case .boolean(let b): return b
        case .integer: throw RuleEvaluationError(message: "a number where true or false was expected")
        }
    }

    /// Arguments with field-id patterns replaced by the matching fields, in template order.
    private func expand(_ args: [Expression]) throws(RuleEvaluationError) -> [Expression] {
        var out: [Expression] = []
        for arg in args {
            if case .field(let pattern) = arg, Self.isPattern(pattern) {
                let matches = expansions[pattern] ?? fieldIds.filter { Self.matches($0, pattern) }
                guard !matches.isEmpty else { throw RuleEvaluationError(message: "no field matches '\(pattern)'") }
                out += matches.map(Expression.field)
            } else {
                out.append(arg)
            }
        }
        return out
    }

    /// Whether a field reference is a pattern (holds a `*`). Asked of every argument of every sum evaluated:
    /// `String.contains` with a string argument goes through Foundation's search, a hundred times slower.
    static func isPattern(_ reference: String) -> Bool { reference.utf8.contains(UInt8(ascii: "*")) }

    /// `*` matches any run of characters other than '.'.
    static func matches(_ id: String, _ pattern: String) -> Bool {
        let idParts = id.split(separator: ".", omittingEmptySubsequences: false)
        let patternParts = pattern.split(separator: ".", omittingEmptySubsequences: false)
        guard idParts.count == patternParts.count else { return false }
        return zip(idParts, patternParts).allSatisfy { part, p in
            guard isPattern(String(p)) else { return part == p }
            let pieces = p.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
            var rest = Substring(part)
            for (i, piece) in pieces.enumerated() {
                if i == 0 { guard rest.hasPrefix(piece) else { return false }; rest = rest.dropFirst(piece.count); continue }
                if i == pieces.count - 1 { return rest.hasSuffix(piece) }
                guard let r = rest.range(of: piece) else { return false }
                rest = rest[r.upperBound...]
            }
            return true
        }
    }

    /// Dates are days, midnight UTC: the calendar they are parsed and counted in.
    static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    public static func parseDate(_ text: String) -> Date? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        var c = DateComponents()
        c.year = parts[0]; c.month = parts[1]; c.day = parts[2]
        guard let date = utcCalendar.date(from: c), utcCalendar.component(.day, from: date) == parts[2] else { return nil }
        return date
    }

    /// `not_future`'s test: a date up to one day after `today` (a sheet scanned the evening of a game
    /// played where it is already tomorrow in UTC).
    static func isNotFuture(_ date: Date, today: Date) -> Bool {
        date <= today.addingTimeInterval(86_400)
    }
}
