/// A rule's expression: integers, field ids, `+ - *`, comparisons, `&& || !`, parentheses and the
/// functions `sum(…)`, `count(…)`, `present(field)` and `not_future(date)`. Arguments of `sum` and
/// `count` may be field-id patterns with `*` (`q*.shots`).
public indirect enum Expression: Equatable, Sendable {
    case number(Int)
    case field(String)
    case negate(Expression)
    case not(Expression)
    case binary(BinaryOperator, Expression, Expression)
    case call(String, [Expression])

    /// Field ids (and patterns) the expression reads.
    public var fieldReferences: [String] { references { _ in true } }

    /// Field ids (and patterns) whose values the expression weighs against something: all it reads but
    /// what it reads only through `present`, `count` and `not_future`, which ask whether a field holds
    /// anything (or a date is not ahead). `present(opp.score)` cannot tell 81 from 21.
    public var valueReferences: [String] { references { !["present", "count", "not_future"].contains($0) } }

    /// Field ids (and patterns) read, looking into the arguments of the calls `into` lets through.
    private func references(into call: (String) -> Bool) -> [String] {
        switch self {
        case .number: []
        case .field(let id): [id]
        case .negate(let e), .not(let e): e.references(into: call)
        case .binary(_, let a, let b): a.references(into: call) + b.references(into: call)
        case .call(let name, let args): call(name) ? args.flatMap { $0.references(into: call) } : []
        }
    }
}

public enum BinaryOperator: String, Sendable, CaseIterable {
    case add = "+", subtract = "-", multiply = "*"
    case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
    case and = "&&", or = "||"

    var precedence: Int {
        switch self {
        case .or: 1
        case .and: 2
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual: 3
        case .add, .subtract: 4
        case .multiply: 5
        }
    }

    var isComparison: Bool { precedence == 3 }
}

/// A mistake in a rule's text, with the 1-based column where it was noticed.
public struct RuleSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    public let column: Int
    public let message: String
    public var description: String { "column \(column): \(message)" }
}

/// Parses rule expressions by precedence climbing.
public struct RuleParser {
    public static let functions: Set<String> = ["sum", "count", "present", "not_future"]

    enum Token: Equatable {
        case number(Int), identifier(String), op(String), open, close, comma, end
    }

    private var tokens: [(token: Token, column: Int)] = []
    private var index = 0

    public static func parse(_ text: String) throws(RuleSyntaxError) -> Expression {
        var parser = RuleParser()
        parser.tokens = try tokenize(text)
        let expression = try parser.parseExpression(minimumPrecedence: 1)
        guard parser.current.token == .end else {
            throw RuleSyntaxError(column: parser.current.column, message: "unexpected \(describe(parser.current.token))")
        }
        return expression
    }

    private var current: (token: Token, column: Int) { tokens[index] }

    private mutating func parseExpression(minimumPrecedence: Int) throws(RuleSyntaxError) -> Expression {
        var left = try parseUnary()
        while case .op(let symbol) = current.token, let op = BinaryOperator(rawValue: symbol), op.precedence >= minimumPrecedence {
            let column = current.column
            index += 1
            let right = try parseExpression(minimumPrecedence: op.precedence + 1)
            if op.isComparison, case .binary(let inner, _, _) = left, inner.isComparison {
                throw RuleSyntaxError(column: column, message: "comparisons cannot be chained; join them with &&")
            }
            left = .binary(op, left, right)
        }
        return left
    }

    private mutating func parseUnary() throws(RuleSyntaxError) -> Expression {
        switch current.token {
        case .op("-"):
            index += 1
            return .negate(try parseUnary())
        case .op("!"):
            index += 1
            return .not(try parseUnary())
        default:
            return try parsePrimary()
        }
    }

    private mutating func parsePrimary() throws(RuleSyntaxError) -> Expression {
        let (token, column) = current
        switch token {
        case .number(let n):
            index += 1
            return .number(n)
        case .identifier(let name):
            index += 1
            guard current.token == .open else {
                if Self.functions.contains(name) { throw RuleSyntaxError(column: current.column, message: "expected ( after \(name)") }
                return .field(name)
            }
            guard Self.functions.contains(name) else {
                throw RuleSyntaxError(column: column, message: "unknown function '\(name)' (known: \(Self.functions.sorted().joined(separator: ", ")))")
            }
            index += 1
            var args: [Expression] = []
            if current.token != .close {
                while true {
                    args.append(try parseExpression(minimumPrecedence: 1))
                    if current.token == .comma { index += 1; continue }
                    break
                }
            }
            guard current.token == .close else { throw RuleSyntaxError(column: current.column, message: "expected , or ) in \(name)(…)") }
            index += 1
            if (name == "present" || name == "not_future"), args.count != 1 {
                throw RuleSyntaxError(column: column, message: "\(name) takes one field")
            }
            if args.isEmpty { throw RuleSyntaxError(column: column, message: "\(name) needs at least one field") }
            return .call(name, args)
        case .open:
            index += 1
            let inner = try parseExpression(minimumPrecedence: 1)
            guard current.token == .close else { throw RuleSyntaxError(column: current.column, message: "expected )") }
            index += 1
            return inner
        default:
            throw RuleSyntaxError(column: column, message: token == .end ? "the expression ends too early" : "unexpected \(Self.describe(token))")
        }
    }

    static func describe(_ token: Token) -> String {
        switch token {
        case .number(let n): "number \(n)"
        case .identifier(let s): "'\(s)'"
        case .op(let s): "'\(s)'"
        case .open: "'('"
        case .close: "')'"
        case .comma: "','"
        case .end: "end of the expression"
        }
    }

    static func tokenize(_ text: String) throws(RuleSyntaxError) -> [(token: Token, column: Int)] {
        let chars = Array(text)
        var tokens: [(Token, Int)] = []
        var i = 0
        while i < chars.count {
            let c = chars[i], column = i + 1
            if c == " " || c == "\t" { i += 1; continue }
            if c.isNumber {
                var j = i
                while j < chars.count, chars[j].isNumber { j += 1 }
                guard let n = Int(String(chars[i..<j])) else { throw RuleSyntaxError(column: column, message: "number too large") }
                tokens.append((.number(n), column)); i = j; continue
            }
            // '*' is a pattern wildcard next to a '.' (q*.shots, q1.*), multiplication anywhere else.
            func isWildcard(_ j: Int) -> Bool {
                chars[j] == "*" && ((j + 1 < chars.count && chars[j + 1] == ".") || (j > 0 && chars[j - 1] == "."))
            }
            if c.isLetter || c == "_" || isWildcard(i) {
                var j = i
                while j < chars.count, chars[j].isLetter || chars[j].isNumber || "_.-".contains(chars[j]) || isWildcard(j) {
                    // A '-' belongs to an id only when a letter follows (q1.goals-2 is a subtraction).
                    if chars[j] == "-", !(j + 1 < chars.count && chars[j + 1].isLetter) { break }
                    j += 1
                }
                tokens.append((.identifier(String(chars[i..<j])), column)); i = j; continue
            }
            let two = i + 1 < chars.count ? String(chars[i...(i + 1)]) : ""
            if ["==", "!=", "<=", ">=", "&&", "||"].contains(two) { tokens.append((.op(two), column)); i += 2; continue }
            switch c {
            case "+", "-", "*", "<", ">", "!": tokens.append((.op(String(c)), column))
            case "(": tokens.append((.open, column))
            case ")": tokens.append((.close, column))
            case ",": tokens.append((.comma, column))
            case "=": throw RuleSyntaxError(column: column, message: "use == to compare")
            default: throw RuleSyntaxError(column: column, message: "unexpected character '\(c)'")
            }
            i += 1
        }
        tokens.append((.end, chars.count + 1))
        return tokens
    }
}
