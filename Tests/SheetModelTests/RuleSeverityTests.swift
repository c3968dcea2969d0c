import Foundation
import Testing
@testable import SheetModel

/// A rule's optional `severity`: `warning` rules are reported and flag their fields like errors, but the
/// suggestion search does not try to "mend" them.
@Suite struct RuleSeverityTests {
    /// Two counts and a foul count: `a <= b` is an error, `fouls <= 5` a warning.
    static func template(severity: Any? = "warning") throws -> SheetTemplate {
        try SheetTemplate.decode(try TemplateDecodingTests.json { o in
            o["fields"] = [
                ["id": "a", "kind": "count", "rect": [100, 200, 60, 30], "combs": 2],
                ["id": "b", "kind": "count", "rect": [200, 200, 60, 30], "combs": 2],
                ["id": "fouls", "kind": "count", "rect": [300, 200, 60, 30], "combs": 2],
            ]
            var warning: [String: Any] = ["id": "fouls.at-most-five", "check": "fouls <= 5", "message": "more than 5 fouls"]
            if let severity { warning["severity"] = severity }
            o["rules"] = [["id": "a.within-b", "check": "a <= b", "message": "a cannot exceed b"], warning]
        })
    }

    @Test func severityDecodesAndDefaultsToError() throws {
        let rules = try #require(try Self.template().rules)
        #expect(rules.map(\.effectiveSeverity) == [.error, .warning])
        #expect(try Self.template(severity: nil).rules?.map(\.effectiveSeverity) == [.error, .error])
    }

    @Test func anUnknownSeverityIsNamed() throws {
        let problems = try TemplateDecodingTests.problems { o in
            o["rules"] = [["id": "r", "check": "a <= 5", "message": "m", "severity": "minor"]]
        }
        #expect(problems == ["rules[0].severity: not one of error, warning"])
    }

    @Test func failuresCarryTheirSeverity() throws {
        let template = try Self.template()
        let values: [String: FieldValue] = ["a": .integer(7), "b": .integer(3), "fouls": .integer(6)]
        let failures = RuleCheck(template: template, values: values).failures()
        #expect(failures.map(\.rule) == ["a.within-b", "fouls.at-most-five"])
        #expect(failures.map(\.severity) == [.error, .warning])
        #expect(failures[1].fields == ["fouls"])
        // In JSON too, and failures stored before severities existed read back as errors.
        let json = String(decoding: try JSONEncoder().encode(failures[1]), as: UTF8.self)
        #expect(json.contains("\"severity\":\"warning\""))
        let old = #"{"rule":"r","message":"m","detail":"d","fields":["a"]}"#
        #expect(try JSONDecoder().decode(RuleFailure.self, from: Data(old.utf8)).severity == .error)
    }

    @Test func theSearchDoesNotMendAWarning() throws {
        let template = try Self.template()
        func reading(_ value: Int, _ alternatives: [(Int, Double)] = []) -> FieldReading {
            var r = FieldReading(value: .integer(value), text: "", confidence: (alternatives.first?.1 ?? 0.99) * 100)
            r.alternatives = alternatives.map { Alternative(value: .integer($0.0), probability: $0.1) }
            return r
        }
        // Six fouls read doubtfully, with 5 as the runner-up: an error rule would be "mended" to 5.
        let sixFouls: [(id: String, reading: FieldReading)] = [("a", reading(2)), ("b", reading(3)),
                                                               ("fouls", reading(6, [(6, 0.6), (5, 0.4)]))]
        #expect(SheetPosterior(search: SuggestionSearch(template: template)).weigh(sixFouls).outcome == .consistent)
        let asError = try Self.template(severity: "error")
        guard case .suggestion(let s) = SheetPosterior(search: SuggestionSearch(template: asError)).weigh(sixFouls).outcome else {
            Issue.record("the same rule as an error is mended"); return
        }
        #expect(s.changes.map(\.to) == [.integer(5)])
    }
}

/// A sheet with more than 64 fields read with alternatives (a box score) still gets suggestions.
@Suite struct LargeSheetSuggestionTests {
    @Test func moreThan64DoubtfulFieldsStillGetASuggestion() throws {
        let fields = (0..<70).map { i in
            FieldSpec(id: "f\(i)", kind: .count, rect: Rect(x: 60 + Double(i % 10) * 50, y: 100 + Double(i / 10) * 50, width: 40, height: 30))
        }
        let template = SheetTemplate(format: 1, id: "big", version: 1, title: "Big", page: PageSize(width: 612, height: 792),
                                     fields: fields, rules: [RuleSpec(id: "pair", check: "f0 + f1 == f2", message: "m")])
        let readings: [(id: String, reading: FieldReading)] = fields.map { field in
            let read = field.id == "f0" ? 8 : 2   // f0 was 0: 0 + 2 == 2
            var reading = FieldReading(value: .integer(read), text: "", confidence: 60)
            reading.alternatives = [Alternative(value: .integer(read), probability: 0.6),
                                    Alternative(value: .integer(field.id == "f0" ? 0 : 7), probability: 0.4)]
            return (field.id, reading)
        }
        guard case .suggestion(let s) = SheetPosterior(search: SuggestionSearch(template: template)).weigh(readings).outcome else {
            Issue.record("expected a suggestion"); return
        }
        #expect(s.changes.map(\.field) == ["f0"])
        #expect(s.changes.first?.to == .integer(0))
    }
}
