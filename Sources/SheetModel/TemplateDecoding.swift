import Foundation

/// Why a template file cannot be used. Every message names the field, key or value at fault.
public struct TemplateError: Error, Equatable, Sendable, CustomStringConvertible {
    public let problems: [String]
    public init(_ problems: [String]) { self.problems = problems }
    public var description: String { problems.joined(separator: "; ") }
}

extension SheetTemplate {
    /// Decodes and checks a template. Structural problems (bad JSON, missing keys, wrong types) and
    /// semantic ones (duplicate ids, rects off the page, overlapping fields) are all `TemplateError`s.
    public static func decode(_ data: Data) throws(TemplateError) -> SheetTemplate {
        let template = try decodeUnchecked(data)
        let problems = template.problems()
        guard problems.isEmpty else { throw TemplateError(problems) }
        return template
    }

    /// Decodes a template's JSON without checking it: a draft whose boxes overlap or sit where no field may is
    /// still named, and the named template is what gets checked.
    public static func decodeUnchecked(_ data: Data) throws(TemplateError) -> SheetTemplate {
        try decodeJSON(SheetTemplate.self, from: data)
    }

    /// Decodes a template's JSON, or a file that goes with one (a NAMES file); a mistake is one line naming
    /// the key at fault.
    static func decodeJSON<T: Decodable>(_ type: T.Type, from data: Data) throws(TemplateError) -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as DecodingError {
            throw TemplateError([Self.describe(error)])
        } catch {
            throw TemplateError(["not valid JSON: \(error.localizedDescription)"])
        }
    }

    /// Everything wrong with this template; empty when it is usable.
    public func problems() -> [String] {
        problems(naming: Self.fieldName)
    }

    /// How a problem names a field: `fields[3] 'q1.shots'`.
    static func fieldName(_ index: Int, _ field: FieldSpec) -> String { "fields[\(index)] '\(field.id)'" }

    /// The problems, a field's named by `naming` (its index and spec): a named draft adds the box it came from.
    func problems(naming: (Int, FieldSpec) -> String) -> [String] {
        var problems: [String] = []
        if format != Self.supportedFormat {
            problems.append("format \(format) is not supported (this statsheet reads format \(Self.supportedFormat))")
        }
        if id.isEmpty || !id.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }) {
            problems.append("id '\(id)' must be lowercase letters, digits and '-'")
        }
        if version < 1 || version > 255 { problems.append("version \(version) must be between 1 and 255") }
        if !(page.width > 0 && page.height > 0) {
            problems.append("page size \(page.width.formatted)×\(page.height.formatted) must be positive")
        }
        if fields.isEmpty { problems.append("fields: a template needs at least one field") }
        let frame = SheetFrame(page: page)
        var seen: Set<String> = []
        for (index, field) in fields.enumerated() {
            let name = naming(index, field)
            if field.id.isEmpty || !field.id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) {
                problems.append("\(name): id must be letters, digits, '.', '_' or '-'")
            }
            if !seen.insert(field.id).inserted { problems.append("\(name): duplicate field id '\(field.id)'") }
            let r = field.rect
            if !(r.width > 0 && r.height > 0) {
                problems.append("\(name): rect \(r) must have a positive width and height")
            } else if r.x < 0 || r.y < 0 || r.maxX > page.width || r.maxY > page.height {
                problems.append("\(name): rect \(r) extends past the page (\(page.width.formatted)×\(page.height.formatted) points)")
            } else if hasMarkers, frame.reservedAreas.contains(where: { $0.intersects(r) }) {
                problems.append("\(name): rect \(r) covers an alignment marker or the template mark")
            }
            if let combs = field.combs, combs < 1 { problems.append("\(name): combs must be at least 1, not \(combs)") }
            switch field.kind {
            case .date where field.combs != 6:
                problems.append("\(name): a date has combs 6 (MM DD YY)")
            case .checkbox where field.combs != nil:
                problems.append("\(name): a checkbox has no combs")
            default: break
            }
            if let range = field.range, field.allowedRange == nil {
                problems.append("\(name): range \(range) must be [min, max] with min ≤ max")
            }
            if let names = field.names, field.kind != .text {
                problems.append("\(name): only a text field holds names, not a \(field.kind.rawValue) (names \"\(names.rawValue)\")")
            }
        }
        for i in fields.indices {
            for j in fields.indices where j > i && fields[i].rect.intersects(fields[j].rect) {
                problems.append("fields '\(fields[i].id)' and '\(fields[j].id)' overlap")
            }
        }
        return problems + landmarkProblems() + ruleProblems() + (gameLog?.problems(fields: fields) ?? [])
    }

    /// The shortest landmark accepted, in points: a shorter line is too easily a stroke of handwriting or
    /// a letter's bar, and says little about where the page is.
    public static let shortestLandmark = 12.0
    /// Parallel landmarks closer than this (points) fix no homography between them.
    public static let landmarkSpread = 36.0

    /// A form printed elsewhere needs its landmarks, each a straight horizontal or vertical line on the page,
    /// with at least two horizontal and two vertical ones `landmarkSpread` apart: four lines that cross in four
    /// points fix a homography. A sheet statsheet prints is aligned by its markers, so landmarks on it are
    /// refused rather than silently ignored.
    func landmarkProblems() -> [String] {
        guard !hasMarkers else {
            return landmarks == nil ? [] : ["landmarks: only a template of paper printed elsewhere (\"printedElsewhere\": true) has landmarks; a sheet statsheet prints is aligned by its markers"]
        }
        guard let landmarks, !landmarks.isEmpty else {
            return ["landmarks: a template of paper printed elsewhere needs its printed lines as landmarks, to be aligned without markers"]
        }
        var problems: [String] = []
        var rows: [Double] = [], columns: [Double] = []
        for (index, landmark) in landmarks.enumerated() {
            let name = "landmarks[\(index)]"
            guard landmark.from.count == 2, landmark.to.count == 2 else {
                problems.append("\(name): from and to are points [x, y]")
                continue
            }
            let (a, b) = (Point(x: landmark.from[0], y: landmark.from[1]), Point(x: landmark.to[0], y: landmark.to[1]))
            let inside = { (p: Point) in p.x >= 0 && p.y >= 0 && p.x <= page.width && p.y <= page.height }
            if !inside(a) || !inside(b) {
                problems.append("\(name): [\(a.x.formatted), \(a.y.formatted)]–[\(b.x.formatted), \(b.y.formatted)] extends past the page (\(page.width.formatted)×\(page.height.formatted) points)")
            } else if a.y == b.y && abs(a.x - b.x) >= Self.shortestLandmark {
                rows.append(a.y)
            } else if a.x == b.x && abs(a.y - b.y) >= Self.shortestLandmark {
                columns.append(a.x)
            } else if a.x != b.x && a.y != b.y {
                problems.append("\(name): a landmark runs horizontally or vertically (same y or same x at both ends)")
            } else {
                problems.append("\(name): shorter than \(Self.shortestLandmark.formatted) points")
            }
        }
        let spread = { (positions: [Double]) in (positions.max() ?? 0) - (positions.min() ?? 0) >= Self.landmarkSpread }
        if problems.isEmpty && !(spread(rows) && spread(columns)) {
            problems.append("landmarks: at least two horizontal and two vertical lines, each pair \(Self.landmarkSpread.formatted) points or more apart, are needed to align the page")
        }
        return problems
    }

    /// Rules that do not parse, read unknown fields, mix types, or can never hold.
    func ruleProblems() -> [String] {
        var problems: [String] = []
        var seen: Set<String> = []
        let ids = fields.map(\.id)
        for (index, rule) in (rules ?? []).enumerated() {
            let name = "rules[\(index)] '\(rule.id)'"
            if !seen.insert(rule.id).inserted { problems.append("\(name): duplicate rule id") }
            let expression: Expression
            do {
                expression = try RuleParser.parse(rule.check)
            } catch {
                problems.append("\(name): \(error) in \"\(rule.check)\"")
                continue
            }
            let unknown = expression.fieldReferences.filter { ref in
                ref.contains("*") ? !ids.contains { RuleEvaluator.matches($0, ref) } : !ids.contains(ref)
            }
            if !unknown.isEmpty {
                problems.append("\(name): unknown field\(unknown.count == 1 ? "" : "s") \(unknown.map { "'\($0)'" }.joined(separator: ", "))")
                continue
            }
            // Evaluated on an empty sheet: type mistakes show, and a rule without fields that is false
            // can never hold.
            do {
                let value = try RuleEvaluator(values: [:], fields: fields).evaluate(expression)
                if case .integer = value { problems.append("\(name): the check is a number, not true or false") }
                if expression.fieldReferences.isEmpty, value == .boolean(false) { problems.append("\(name): can never hold") }
            } catch {
                problems.append("\(name): \(error.message)")
            }
        }
        return problems
    }

    /// Turns Codable's error into one line naming the key path, e.g. `fields[2].kind: …`.
    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            let text = keys.reduce("") { partial, key in
                if let i = key.intValue { return partial + "[\(i)]" }
                return partial.isEmpty ? key.stringValue : partial + "." + key.stringValue
            }
            return text.isEmpty ? "the template" : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): required key is missing"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(Self.typeName(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(Self.typeName(type)), found null"
        case .dataCorrupted(let context):
            if context.codingPath.last?.stringValue == "kind" {
                return "\(path(context.codingPath)): not one of \(FieldKind.allCases.map(\.rawValue).joined(separator: ", "))"
            }
            if context.codingPath.last?.stringValue == "names" {
                return "\(path(context.codingPath)): not one of \(NameKind.allCases.map(\.rawValue).joined(separator: ", "))"
            }
            if context.codingPath.last?.stringValue == "severity" {
                return "\(path(context.codingPath)): not one of \(RuleSeverity.allCases.map(\.rawValue).joined(separator: ", "))"
            }
            if context.codingPath.isEmpty { return "not valid JSON" }
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Double.Type: "a number"
        case is Bool.Type: "true or false"
        default: "\(type)".contains("Array") ? "a list" : "an object"
        }
    }
}
