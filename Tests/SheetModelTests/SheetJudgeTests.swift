import Foundation
import Testing
@testable import SheetModel

/// The one judging stage: a sheet judged from its evidence, and judged again in review with a person's values.
@Suite struct SheetJudgeTests {
    static let judge = SheetJudge(template: LacrosseRuleTests.template, today: SheetPosteriorTests.today)

    /// A misread the sums mend is shown as they want it and flagged (its value is not the ink's); a number
    /// of a rule left broken is flagged with the rule named; every other number passes.
    @Test func aMisreadTheSumsMendIsShownAndFlagged() throws {
        let readings = SheetPosteriorTests.readings(["q2.shots": (.integer(16), [(.integer(16), 0.55), (.integer(10), 0.40), (.integer(18), 0.05)])])
        let judged = Self.judge.judge(SheetEvidence(readings: readings.map(\.reading), writing: .hand))
        let fields = Dictionary(uniqueKeysWithValues: judged.fields.map { ($0.id, $0.reading) })
        #expect(fields["q2.shots"]?.value == .integer(10) && fields["q2.shots"]?.flagged == true)
        #expect(judged.inkFailures.contains { $0.fields.contains("q2.shots") })
        #expect(judged.stillFailing.isEmpty)
        #expect(judged.fields.filter { $0.reading.flagged }.map(\.id) == ["q2.shots"])
        #expect(judged.needsReview)
        #expect(judged.weighedAlone.count == LacrosseRuleTests.template.fields.count)
    }

    /// In review a person's value is certain: it is not searched, it is not flagged by the line, and the
    /// rules are judged with it; the other fields are weighed from their ink again.
    @Test func aPersonsValueIsSettledWhenTheSheetIsJudgedAgain() throws {
        let readings = SheetPosteriorTests.readings(["q2.shots": (.integer(16), [(.integer(16), 0.55), (.integer(10), 0.40), (.integer(18), 0.05)])])
        var scanned = Self.judge.judge(SheetEvidence(readings: readings.map(\.reading), writing: .hand)).fields
        // A doubt only a person settles, on the ink: the person's value settles it.
        let shotsIndex = try #require(scanned.firstIndex { $0.id == "q2.shots" })
        scanned[shotsIndex].reading.doubts.append(.unreadableMark)
        let again = Self.judge.rejudge(scanned, settled: ["q2.shots": .integer(10)])
        let shots = try #require(again.fields.first { $0.id == "q2.shots" }?.reading)
        #expect(shots.value == .integer(10) && shots.confidence == 100 && !shots.flagged, "\(shots)")
        #expect(again.outcome == .consistent)
        // A person's value the sums disagree with holds: the rule it breaks is what is flagged.
        let wrong = Self.judge.rejudge(scanned, settled: ["q2.shots": .integer(12)])
        #expect(wrong.fields.first { $0.id == "q2.shots" }?.reading.value == .integer(12))
        #expect(!wrong.stillFailing.isEmpty)
    }

    /// The review line is the policy's: the same reading is flagged under a higher line and passes a lower one.
    @Test func theLineIsThePolicys() {
        var readings = SheetPosteriorTests.readings([:]).map(\.reading)
        let index = LacrosseRuleTests.template.fields.firstIndex { $0.kind == .checkbox }!
        readings[index].confidence = 80
        let strict = SheetJudge(template: LacrosseRuleTests.template, policy: .standard.withReviewLine(90), today: SheetPosteriorTests.today)
        let lenient = SheetJudge(template: LacrosseRuleTests.template, policy: .standard.withReviewLine(70), today: SheetPosteriorTests.today)
        #expect(strict.judge(SheetEvidence(readings: readings, writing: .print)).fields[index].reading.flagged)
        #expect(!lenient.judge(SheetEvidence(readings: readings, writing: .print)).fields[index].reading.flagged)
    }

    /// Each template version's rules are parsed once, and a different template under the same id and
    /// version gets its own.
    @Test func theRuleBookKeepsATemplatesOwnRules() {
        let template = LacrosseRuleTests.template
        var variant = template
        variant.rules = Array((template.rules ?? []).prefix(1))
        #expect(RuleBook.shared.rules(of: template).rules.count == (template.rules ?? []).count)
        #expect(RuleBook.shared.rules(of: variant).rules.count == 1)
        #expect(RuleBook.shared.rules(of: template).rules.count == (template.rules ?? []).count)
    }
}
