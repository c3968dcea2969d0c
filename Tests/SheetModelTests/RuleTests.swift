import Foundation
import Testing
@testable import SheetModel

@Suite struct RuleParserTests {
    @Test(arguments: [
        ("q1.saves + ", 12, "the expression ends too early"),
        ("q1.saves = 3", 10, "use == to compare"),
        ("avg(q1.saves) == 3", 1, "unknown function 'avg' (known: count, not_future, present, sum)"),
        ("a < b < c", 7, "comparisons cannot be chained; join them with &&"),
        ("(a + b == c", 12, "expected )"),
        ("a + $", 5, "unexpected character '$'"),
        ("present(a, b)", 1, "present takes one field"),
    ])
    func syntaxErrorsSayWhereAndWhat(text: String, column: Int, message: String) {
        #expect(throws: RuleSyntaxError(column: column, message: message)) { try RuleParser.parse(text) }
    }

    @Test func precedenceAndPatterns() throws {
        #expect(try RuleParser.parse("a + b * 2 == c") ==
            .binary(.equal, .binary(.add, .field("a"), .binary(.multiply, .field("b"), .number(2))), .field("c")))
        #expect(try RuleParser.parse("sum(q*.shots) >= 0 && !x").fieldReferences == ["q*.shots", "x"])
        #expect(try RuleParser.parse("q1.goals-2 == 0") == .binary(.equal, .binary(.subtract, .field("q1.goals"), .number(2)), .number(0)))
        #expect(try RuleParser.parse("context.hs-only") == .field("context.hs-only"))
    }

    @Test func aFieldOnlyAskedWhetherItHoldsAnythingHasNoValueChecked() throws {
        let fields = ["team.pts", "opp.score", "p1.pts", "p2.pts", "date"].enumerated().map {
            FieldSpec(id: $1, kind: .count, rect: Rect(x: 60, y: 100 + Double($0) * 50, width: 40, height: 30))
        }
        let template = SheetTemplate(format: 1, id: "box", version: 1, title: "Box", page: PageSize(width: 612, height: 792),
                                     fields: fields, rules: [RuleSpec(id: "score", check: "present(team.pts) && present(opp.score)", message: "m"),
                                                             RuleSpec(id: "sum", check: "sum(p*.pts) == team.pts", message: "m"),
                                                             RuleSpec(id: "when", check: "not_future(date)", message: "m")])
        #expect(try RuleParser.parse("present(a) && count(b, c) == 1 || not_future(d) && e <= 5").valueReferences == ["e"])
        let parsed = ParsedRules(template)
        #expect(parsed.valuesChecked == ["team.pts", "p1.pts", "p2.pts"])
    }
}

@Suite struct RuleEvaluationTests {
    static let fields: [FieldSpec] = ["q1.shots", "q2.shots", "total.shots"].enumerated().map {
        FieldSpec(id: $1, kind: .count, rect: Rect(x: 100, y: 100 + Double($0) * 50, width: 60, height: 30))
    } + [FieldSpec(id: "c.a", kind: .checkbox, rect: Rect(x: 300, y: 100, width: 16, height: 16)),
         FieldSpec(id: "c.b", kind: .checkbox, rect: Rect(x: 300, y: 150, width: 16, height: 16)),
         FieldSpec(id: "date", kind: .date, rect: Rect(x: 300, y: 200, width: 120, height: 30), combs: 6)]

    static func evaluate(_ text: String, _ values: [String: FieldValue], today: String = "2026-11-22") throws -> RuleValue {
        let evaluator = RuleEvaluator(values: values, fields: fields, today: RuleEvaluator.parseDate(today)!)
        return try evaluator.evaluate(try RuleParser.parse(text))
    }

    @Test func arithmeticPatternsAndEmptyCounts() throws {
        let values: [String: FieldValue] = ["q1.shots": .integer(7), "total.shots": .integer(7)]
        #expect(try Self.evaluate("sum(q*.shots) == total.shots", values) == .boolean(true))   // q2 empty counts 0
        #expect(try Self.evaluate("q1.shots * 2 - 4", values) == .integer(10))
        #expect(try Self.evaluate("present(q2.shots)", values) == .boolean(false))
    }

    @Test func aTrialValueStandsInForTheSheetsOwn() throws {
        let values: [String: FieldValue] = ["q1.shots": .integer(7), "q2.shots": .integer(2), "total.shots": .integer(7)]
        var evaluator = RuleEvaluator(values: values, fields: Self.fields, today: RuleEvaluator.parseDate("2026-11-22")!)
        let sum = try RuleParser.parse("sum(q*.shots) == total.shots")
        #expect(try evaluator.evaluate(sum) == .boolean(false))
        evaluator.changed = ["q2.shots": .empty]   // an empty count adds 0
        #expect(try evaluator.evaluate(sum) == .boolean(true))
        evaluator.changed = ["total.shots": .integer(9)]
        #expect(try evaluator.evaluate(sum) == .boolean(true))
        #expect(try evaluator.evaluate(try RuleParser.parse("present(q2.shots)")) == .boolean(true))
        #expect(evaluator.values["total.shots"] == .integer(7))
    }

    @Test func parsedRulesKeepEachRulesFieldsAndExpandedPatterns() throws {
        let template = SheetTemplate(format: 1, id: "t", version: 1, title: "T", page: PageSize(width: 612, height: 792), fields: Self.fields,
                                     rules: [RuleSpec(id: "total", check: "sum(q*.shots) == total.shots", message: "m"),
                                             RuleSpec(id: "one", check: "count(c.*) <= 1", message: "m"),
                                             RuleSpec(id: "broken", check: "q1.shots ==", message: "m")])
        let parsed = ParsedRules(template)
        #expect(parsed.fieldIDs == [["q1.shots", "q2.shots", "total.shots"], ["c.a", "c.b"], []])
        #expect(parsed.expansions == ["q*.shots": ["q1.shots", "q2.shots"], "c.*": ["c.a", "c.b"]])
        #expect(RuleEvaluator.isPattern("q*.shots") && !RuleEvaluator.isPattern("q1.shots"))
    }

    @Test func checkboxesCountAndCombine() throws {
        #expect(try Self.evaluate("count(c.*) == 1", ["c.a": .boolean(true)]) == .boolean(true))
        #expect(try Self.evaluate("count(c.a, c.b) == 1", [:]) == .boolean(false))
        #expect(try Self.evaluate("count(c.*) == 0 || c.a", ["c.b": .boolean(true)]) == .boolean(false))
    }

    @Test func datesUpToADayAheadAreAllowed() throws {
        #expect(try Self.evaluate("not_future(date)", ["date": .string("2026-11-23")]) == .boolean(true))
        #expect(try Self.evaluate("not_future(date)", ["date": .string("2026-11-24")]) == .boolean(false))
        #expect(try Self.evaluate("not_future(date)", [:]) == .boolean(true))
        #expect(RuleEvaluator.parseDate("2025-02-29") == nil)
    }
}

/// Every lacrosse rule holds on a consistent game and catches its own kind of mistake.
@Suite struct LacrosseRuleTests {
    static let template: SheetTemplate = {
        let url = repositoryRoot.appendingPathComponent("Templates/lacrosse-goalie.json")
        return try! SheetTemplate.decode(try! Data(contentsOf: url))
    }()

    static let game: [String: FieldValue] = {
        var v: [String: FieldValue] = ["date": .string("2026-04-11"), "athlete": .string("Jo"), "opponent": .string("Oak Hill"),
                                       "context.hs": .boolean(true), "context.club": .boolean(false),
                                       "conference.conf": .boolean(true), "conference.nonconf": .boolean(false)]
        for (row, saves, goals, clears) in [("q1", 9, 2, 3), ("q2", 7, 3, 0), ("q3", 4, 0, 5), ("q4", 17, 3, 11)] {
            v["\(row).shots"] = .integer(saves + goals); v["\(row).saves"] = .integer(saves)
            v["\(row).goals"] = .integer(goals); v["\(row).clears"] = .integer(clears)
        }
        v["total.shots"] = .integer(45); v["total.saves"] = .integer(37); v["total.goals"] = .integer(8); v["total.clears"] = .integer(19)
        return v
    }()

    static func failures(_ change: [String: FieldValue]) -> [RuleFailure] {
        RuleCheck(template: template, values: game.merging(change) { $1 }, today: RuleEvaluator.parseDate("2026-11-22")!).failures()
    }

    @Test func consistentGamePassesEveryRule() {
        #expect(Self.failures([:]).isEmpty, "\(Self.failures([:]))")
        #expect((Self.template.rules ?? []).count >= 20)
    }

    @Test func wrongShotsNamesTheRuleAndTheNumbers() throws {
        let failures = Self.failures(["q2.shots": .integer(11)])
        let balance = try #require(failures.first { $0.rule == "q2.balance" })
        #expect(balance.message == "Q2: saves + goals allowed must equal shots")
        #expect(balance.detail == "q2.saves 7 + q2.goals 3 = 10, q2.shots 11")
        #expect(failures.contains { $0.rule == "shots.periods-sum" })
    }

    @Test(arguments: [
        (["q3.saves": FieldValue.integer(9), "q3.shots": .integer(8), "q3.goals": .integer(-1)], "q3.saves-within-shots"),
        (["total.clears": .integer(20)], "clears.periods-sum"),
        (["context.club": .boolean(true)], "context.exactly-one"),
        (["context.hs": .boolean(false)], "context.exactly-one"),
        (["conference.nonconf": .boolean(true)], "conference.at-most-one"),
        (["context.hs": .boolean(false), "context.club": .boolean(true)], "conference.high-school-only"),
        (["date": .empty], "date.present"),
        (["date": .string("2027-01-05")], "date.not-future"),
        (["total.goals": .empty], "total.present"),
        (["ot.shots": .integer(2), "ot.saves": .integer(1)], "ot.balance"),
    ])
    func eachRuleCatchesItsMistake(change: [String: FieldValue], rule: String) {
        #expect(Self.failures(change).contains { $0.rule == rule }, "\(Self.failures(change).map(\.rule))")
    }
}

@Suite struct FlagCauseTests {
    /// `eval` and the report tell what a flag is made of from the reading's typed record: a value the ink
    /// did not give comes first whatever else is true of it; then the ink's own confidence; then the rules'.
    @Test func aFlagsFirstCauseIsToldFromTheInksOwnValueAndConfidence() {
        #expect(FieldReading(value: .integer(7), text: "7", confidence: 97).flagCause(line: 70) == nil, "not flagged")

        var sure = FieldReading(value: .integer(7), text: "7", confidence: 60, flagged: true, doubts: [.inFailingRule("clears.periods-sum")])
        sure.inkConfidence = 97
        #expect(sure.flagCause(line: 70) == .sureButDoubted)
        #expect(sure.flagCause(line: 98) == .unsureInk, "under a stricter line the ink alone was unsure")

        // The rules raised an unclear 60 to 98, then it was flagged: the ink was unsure all along.
        var raised = FieldReading(value: .integer(4), text: "4", confidence: 98, flagged: true)
        raised.inkConfidence = 60
        #expect(raised.flagCause(line: 70) == .unsureInk)

        var chosen = FieldReading(value: .integer(7), text: "1", confidence: 96, flagged: true)
        chosen.inkValue = .integer(1)
        chosen.inkConfidence = 62
        #expect(chosen.flagCause(line: 70) == .fromSums)
        #expect(chosen.notes.first == "the digits alone read 1 (confidence 62); the sums make 7 likelier")

        let noted = FieldReading(value: .integer(12), text: "12", confidence: 96, flagged: true, doubts: [.wideMark])
        #expect(noted.flagCause(line: 70) == .reader)
    }

    /// A doubt takes from the value read what it says the value keeps at most, and says so in words. The
    /// reader's confidence stays what it measured; the judge takes the caps (`cap(by:)`).
    @Test func aDoubtCapsTheValueReadAndIsRenderedOnlyInWords() throws {
        var reading = FieldReading(value: .integer(4), text: "4", confidence: 97)
        reading.doubt(.smallMark)
        #expect(reading.confidence == 97 && reading.cappedConfidence() == 50 && reading.doubts == [.smallMark])
        reading.doubt(.strayMarks(count: 2))
        #expect(reading.cappedConfidence() == 50, "stray marks say nothing of the value's meaning")
        reading.cap()
        #expect(reading.confidence == 50)
        #expect(reading.notes == ["a mark much smaller than the sheet's other digits", "2 stray marks ignored"])
        let json = try JSONEncoder().encode(reading)
        let back = try JSONDecoder().decode(FieldReading.self, from: json)
        #expect(back.doubts == reading.doubts, "typed doubts round-trip; their words are never read back")
        // Output written before doubts were typed keeps its sentences as they were written.
        let old = try JSONDecoder().decode(FieldReading.self, from: Data(#"{"value": 3, "text": "3", "confidence": 41, "flagged": true, "notes": ["unsure"]}"#.utf8))
        #expect(old.doubts == [.earlierNote("unsure")])
    }
}
