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

    /// Two misreads in the clears column, which has one sum: the unsure 1 is mended to what the sum wants,
    /// which absorbs the sure misread (5 read 8 at 90). That sum is spent on the mend, so nothing checks the
    /// 8: it is held to the line numbers no rule checks are, and flagged. A number at 99 in the same column,
    /// and a number whose other sum holds as read, pass.
    @Test func aCountWhoseOnlySumWasSpentMendingAnotherIsHeld() throws {
        var readings = SheetPosteriorTests.readings([
            "q1.clears": (.integer(1), [(.integer(1), 0.5), (.integer(7), 0.3)]),
            "q3.clears": (.integer(8), [(.integer(8), 0.9), (.integer(5), 0.08)]),
            "q2.shots": (.integer(16), [(.integer(16), 0.55), (.integer(10), 0.40), (.integer(18), 0.05)]),
        ])
        let saves = try #require(readings.firstIndex { $0.id == "q2.saves" })
        readings[saves].reading.confidence = 90
        let judged = Self.judge.judge(SheetEvidence(readings: readings.map(\.reading), writing: .hand))
        let fields = Dictionary(uniqueKeysWithValues: judged.fields.map { ($0.id, $0.reading) })
        let q1 = try #require(fields["q1.clears"]), q3 = try #require(fields["q3.clears"])
        #expect(q1.inkValue == .integer(1) && q1.flagged, "\(q1)")
        #expect(q3.value == .integer(8) && q3.flagged && q3.doubts.contains(.noSumVouches(mended: ["q1.clears"])), "\(q3)")
        #expect(q3.confidence < 70 && q3.confidenceAlone >= 70 && q3.flagCause(line: 70) == .sureButDoubted)
        #expect(fields["q4.clears"]?.flagged == false && fields["total.clears"]?.flagged == false)
        // q2.saves is in q2's balance, spent mending q2.shots, and in the saves column, which holds as read.
        #expect(fields["q2.saves"]?.flagged == false, "\(String(describing: fields["q2.saves"]))")

        // Judged again with the person's value for the 1, nothing mends the 1 any more: the sum checks the 8
        // again, and mends it to the 5 it wants.
        let again = Self.judge.rejudge(judged.fields, settled: ["q1.clears": .integer(3)])
        let q3Again = try #require(again.fields.first { $0.id == "q3.clears" }?.reading)
        #expect(!q3Again.doubts.contains { if case .noSumVouches = $0 { true } else { false } }, "\(q3Again)")
        #expect(q3Again.value == .integer(5) && q3Again.inkValue == .integer(8) && q3Again.flagged, "\(q3Again)")
        // A person's value is never held, whatever the sums did around it.
        let settledAt8 = Self.judge.rejudge(judged.fields, settled: ["q3.clears": .integer(8)])
        #expect(settledAt8.fields.first { $0.id == "q3.clears" }?.reading.flagged == false)
    }

    /// A sum no value the reader or the sums can give mends is left broken: its numbers are flagged as in a
    /// failing rule, not held as checked by no sum.
    @Test func aSumLeftBrokenFlagsItsNumbersAsFailing() throws {
        var readings = SheetPosteriorTests.readings(["q3.clears": (.integer(8), [(.integer(8), 0.99)])])
        let total = try #require(readings.firstIndex { $0.id == "total.clears" })
        readings[total].reading.confidence = 99.9
        let judged = Self.judge.judge(SheetEvidence(readings: readings.map(\.reading), writing: .hand))
        #expect(judged.stillFailing.contains { $0.rule == "clears.periods-sum" }, "\(judged.outcome)")
        for field in judged.fields where field.id.hasSuffix(".clears") && field.reading.value != .empty {
            #expect(field.reading.flagged && !field.reading.doubts.contains { if case .noSumVouches = $0 { true } else { false } },
                    "\(field.id): \(field.reading)")
        }
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

    static let boxScore: SheetTemplate = {
        let url = repositoryRoot.appendingPathComponent("Templates/basketball-box.json")
        return try! SheetTemplate.decode(try! Data(contentsOf: url))
    }()

    /// A hand-filled box score's team and three player rows, each number read 99.9% sure: Riley Chen #3 and
    /// Sam Okafor (known without a number) and Pat Doe (not known) of Granite Bay.
    static func boxScoreEvidence() -> SheetEvidence {
        let template = boxScore
        var readings = template.fields.map { _ in FieldReading(value: .empty, text: "", confidence: 97) }
        var characters: [Int: [ReadCharacter]] = [:]
        func set(_ id: String, _ value: String, text: Bool) {
            let i = template.fields.firstIndex { $0.id == id }!
            readings[i] = FieldReading(value: .string(value), text: value, confidence: text ? 97 : 99.7)
            if text { characters[i] = NameReadingTests.read(value) } else { readings[i].alternatives = [Alternative(value: .string(value), probability: 0.999)] }
        }
        set("team", "Granite Bay", text: true)
        for (row, name, number) in [("p01", "Riley Chen", "3"), ("p02", "Sam Okafor", "12"), ("p03", "Pat Doe", "7")] {
            set("\(row).name", name, text: true)
            set("\(row).num", number, text: false)
        }
        return SheetEvidence(readings: readings, writing: .hand, characters: characters)
    }

    /// No sum checks a jersey number: read however sure, it passes only when a known player vouches for it
    /// (issue 59: a stranger's "11" read "71" at 97.6 passed with no roster). Without a roster each says so;
    /// a known player whose number the club lacks, and a row that is no known player, each say theirs.
    @Test func aJerseyNumberPassesOnlyWhenAKnownPlayerVouchesForIt() throws {
        func numbers(_ names: NameReadingModel?) -> [String: FieldReading] {
            var judge = SheetJudge(template: Self.boxScore, today: SheetPosteriorTests.today)
            judge.names = names
            let fields = judge.judge(Self.boxScoreEvidence()).fields
            return Dictionary(uniqueKeysWithValues: fields.filter { $0.id.hasSuffix(".num") && $0.reading.value != .empty }.map { ($0.id, $0.reading) })
        }
        let alone = numbers(nil)
        #expect(alone.count == 3)
        for (id, reading) in alone {
            #expect(reading.flagged && reading.doubts.contains(.noPlayerVouches(knownPlayers: 0, player: nil)), "\(id): \(reading)")
            #expect(reading.flagCause(line: 70) == .unvouched, "\(id)")
        }

        let roster = NameReadingModel(knownNames: [KnownName(kind: .team, name: "Granite Bay"),
                                                   KnownName(kind: .player, name: "Riley Chen", number: "3", team: "Granite Bay"),
                                                   KnownName(kind: .player, name: "Sam Okafor", team: "Granite Bay")])
        let known = numbers(roster)
        let riley = try #require(known["p01.num"]), sam = try #require(known["p02.num"]), pat = try #require(known["p03.num"])
        #expect(!riley.flagged && riley.doubts.isEmpty, "\(riley)")
        #expect(sam.flagged && sam.doubts.contains(.noPlayerVouches(knownPlayers: 2, player: "Sam Okafor")), "\(sam)")
        #expect(pat.flagged && pat.doubts.contains(.noPlayerVouches(knownPlayers: 2, player: nil)), "\(pat)")
    }
}
