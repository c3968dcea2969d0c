import Testing
@testable import SheetModel

/// What a reader's confidence is worth for the fields no rule weighs.
@Suite struct ReaderCalibrationTests {
    private func samples(_ key: String, at confidence: Double, right: Int, wrong: Int) -> [ReaderCalibration.Sample] {
        Array(repeating: .init(key: key, confidence: confidence, right: true), count: right)
            + Array(repeating: .init(key: key, confidence: confidence, right: false), count: wrong)
    }

    /// Runs are pooled until accuracy rises with confidence, and each step promises (right + 1) / (readings + 2).
    @Test func theFitRisesWithConfidenceAndPromisesLittleOnFewReadings() throws {
        // 90 at 0.6 were right 8 in 10, 0.7 right 6 in 10 (a dip the fit pools away), 0.95 right 40 in 40.
        let all = samples("hand.date", at: 60, right: 8, wrong: 2) + samples("hand.date", at: 70, right: 6, wrong: 4)
            + samples("hand.date", at: 95, right: 40, wrong: 0)
        let fit = ReaderCalibration.fit(all, fittedOn: ["set"])
        let steps = try #require(fit.tables["hand.date"])
        #expect(steps.map(\.from) == [0.6, 0.95])
        #expect(steps[0].readings == 20 && abs(steps[0].accuracy - 15.0 / 22) < 1e-9)
        #expect(abs(steps[1].accuracy - 41.0 / 42) < 1e-9)
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0.accuracy <= $1.accuracy })
        #expect(fit.fittedOn == ["set"])
    }

    /// A reading takes the accuracy of the step its confidence falls in; under the first step, the first's.
    @Test func aReadingTakesItsStepsAccuracy() {
        let fit = ReaderCalibration.fit(samples("hand.digits", at: 50, right: 20, wrong: 20)
                                        + samples("hand.digits", at: 97, right: 98, wrong: 0), fittedOn: [])
        let sure = FieldReading(value: .string("23"), text: "23", confidence: 99)
        let unsure = FieldReading(value: .string("23"), text: "23", confidence: 80)
        let low = FieldReading(value: .string("23"), text: "23", confidence: 10)
        #expect(abs(fit.confidence(of: sure, writing: "hand", kind: .digits) - 99) < 1e-9)
        #expect(abs(fit.confidence(of: unsure, writing: "hand", kind: .digits) - 50) < 1e-9)
        #expect(abs(fit.confidence(of: low, writing: "hand", kind: .digits) - 50) < 1e-9)
        // The print reader's digits have no table here: its own confidence stands.
        #expect(fit.confidence(of: unsure, writing: "print", kind: .digits) == 80)
    }

    /// A doubt's cap holds after the mapping: "58" written touching, read 5 at 96 where such readings are
    /// right 99 times in 100, stays at the wide mark's 60, under the review line.
    @Test func aDoubtCapsTheMappedConfidence() {
        let fit = ReaderCalibration.fit(samples("hand.count", at: 96, right: 98, wrong: 0), fittedOn: [])
        let wide = FieldReading(value: .integer(5), text: "5", confidence: 96, doubts: [.wideMark])
        #expect(fit.confidence(of: wide, writing: "hand", kind: .count) == 60)
        let plain = FieldReading(value: .integer(5), text: "5", confidence: 96)
        #expect(fit.confidence(of: plain, writing: "hand", kind: .count) == 99)
    }

    /// Empty readings and written ones are different claims and keep different tables; a kind with too few
    /// readings fits none.
    @Test func emptyReadingsHaveTheirOwnTableAndFewReadingsFitNone() {
        let fit = ReaderCalibration.fit(samples("print.checkbox.empty", at: 97, right: 30, wrong: 0)
                                        + samples("print.checkbox", at: 97, right: 29, wrong: 0), fittedOn: [])
        #expect(fit.tables["print.checkbox.empty"] != nil)
        #expect(fit.tables["print.checkbox"] == nil)
        let ticked = FieldReading(value: .boolean(true), text: "", confidence: 97)
        #expect(fit.confidence(of: ticked, writing: "print", kind: .checkbox) == 97)
    }

    /// Names are the names' own reader's; counts a rule weighs are the posterior's.
    @Test func onlyFieldsNoRuleWeighsAreMapped() {
        #expect(!ReaderCalibration.maps(.text, weighedByRules: false))
        #expect(!ReaderCalibration.maps(.count, weighedByRules: true))
        #expect(ReaderCalibration.maps(.count, weighedByRules: false))
        #expect(ReaderCalibration.maps(.date, weighedByRules: true))
    }
}
