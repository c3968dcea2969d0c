import Foundation
import Testing
@testable import SheetModel

/// What a reader's confidence is worth for the fields no rule weighs.
@Suite struct ReaderCalibrationTests {
    private func samples(_ key: String, at confidence: Double, right: Int, wrong: Int) -> [ReaderCalibration.Sample] {
        Array(repeating: .init(key: key, confidence: confidence, right: true), count: right)
            + Array(repeating: .init(key: key, confidence: confidence, right: false), count: wrong)
    }

    /// Runs are pooled until accuracy rises with confidence, and each step promises the accuracy its readings
    /// show with 95% credibility.
    @Test func theFitRisesWithConfidenceAndPromisesLittleOnFewReadings() throws {
        // 90 at 0.6 were right 8 in 10, 0.7 right 6 in 10 (a dip the fit pools away), 0.95 right 40 in 40.
        let all = samples("hand.date", at: 60, right: 8, wrong: 2) + samples("hand.date", at: 70, right: 6, wrong: 4)
            + samples("hand.date", at: 95, right: 40, wrong: 0)
        let fit = ReaderCalibration.fit(all, fittedOn: ["set"])
        let steps = try #require(fit.tables["hand.date"])
        #expect(steps.map(\.from) == [0.6, 0.95])
        #expect(steps[0].readings == 20 && steps[0].accuracy == ReaderCalibration.credibleAccuracy(right: 14, readings: 20))
        #expect(abs(steps[1].accuracy - pow(0.05, 1.0 / 41)) < 1e-9)
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0.accuracy <= $1.accuracy })
        #expect(fit.fittedOn == ["set"])
    }

    /// A lone right reading above a large run does not drag the run down to what one reading promises: the
    /// two are pooled.
    @Test func aFewReadingsAtTheTopArePooledWithTheRunBelow() throws {
        let fit = ReaderCalibration.fit(samples("hand.digits", at: 92, right: 84, wrong: 2) + samples("hand.digits", at: 100, right: 1, wrong: 0),
                                        fittedOn: [])
        let steps = try #require(fit.tables["hand.digits"])
        #expect(steps.count == 1 && steps[0].readings == 87)
        #expect(steps[0].accuracy == ReaderCalibration.credibleAccuracy(right: 85, readings: 87))
    }

    /// A reading takes the accuracy of the step its confidence falls in (under the first step, the first's),
    /// never more than the reader's own confidence.
    @Test func aReadingTakesItsStepsAccuracy() {
        let fit = ReaderCalibration.fit(samples("hand.digits", at: 50, right: 20, wrong: 20)
                                        + samples("hand.digits", at: 97, right: 98, wrong: 0), fittedOn: [])
        let sure = FieldReading(value: .string("23"), text: "23", confidence: 99)
        let unsure = FieldReading(value: .string("23"), text: "23", confidence: 80)
        let low = FieldReading(value: .string("23"), text: "23", confidence: 10)
        let sureSteps = 100 * pow(0.05, 1.0 / 99), unsureSteps = 100 * ReaderCalibration.credibleAccuracy(right: 20, readings: 40)
        #expect(abs(fit.confidence(of: sure, writing: .hand, kind: .digits) - sureSteps) < 1e-9)
        #expect(abs(fit.confidence(of: unsure, writing: .hand, kind: .digits) - unsureSteps) < 1e-9)
        #expect(fit.confidence(of: low, writing: .hand, kind: .digits) == 10)
        // The print reader's digits have no table here: its own confidence stands.
        #expect(fit.confidence(of: unsure, writing: .print, kind: .digits) == 80)
    }

    /// A doubt's cap holds after the mapping: "58" written touching, read 5 at 96 where such readings are
    /// right 97 times in 100 or more, stays at the wide mark's 60, under the review line.
    @Test func aDoubtCapsTheMappedConfidence() {
        let fit = ReaderCalibration.fit(samples("hand.count", at: 96, right: 98, wrong: 0), fittedOn: [])
        let wide = FieldReading(value: .integer(5), text: "5", confidence: 96, doubts: [.wideMark])
        #expect(abs(fit.confidence(of: wide, writing: .hand, kind: .count) - 60) < 1e-9)
        let plain = FieldReading(value: .integer(5), text: "5", confidence: 99)
        #expect(abs(fit.confidence(of: plain, writing: .hand, kind: .count) - 100 * pow(0.05, 1.0 / 99)) < 1e-9)
    }

    /// The credible accuracy: all right of n is 0.05^(1/(n + 1)); half right of 40 lies under a half; more
    /// readings at the same share promise more.
    @Test func theCredibleAccuracyIsALowerBoundThatTightensWithReadings() {
        #expect(abs(ReaderCalibration.credibleAccuracy(right: 98, readings: 98) - pow(0.05, 1.0 / 99)) < 1e-9)
        let half = ReaderCalibration.credibleAccuracy(right: 20, readings: 40)
        #expect(half > 0.35 && half < 0.5)
        #expect(ReaderCalibration.credibleAccuracy(right: 990, readings: 1000) > ReaderCalibration.credibleAccuracy(right: 99, readings: 100))
    }

    /// Empty readings and written ones are different claims and keep different tables; a kind with too few
    /// readings fits none.
    @Test func emptyReadingsHaveTheirOwnTableAndFewReadingsFitNone() {
        let fit = ReaderCalibration.fit(samples("print.checkbox.empty", at: 97, right: 30, wrong: 0)
                                        + samples("print.checkbox", at: 97, right: 29, wrong: 0), fittedOn: [])
        #expect(fit.tables["print.checkbox.empty"] != nil)
        #expect(fit.tables["print.checkbox"] == nil)
        let ticked = FieldReading(value: .boolean(true), text: "", confidence: 97)
        #expect(fit.confidence(of: ticked, writing: .print, kind: .checkbox) == 97)
    }

    /// Names, handwritten dates and jersey numbers wait for their own model; counts a rule weighs are the posterior's.
    @Test func onlyFieldsNoRuleWeighsAreMapped() {
        #expect(!ReaderCalibration.maps(.text, writing: .print, weighedByRules: false))
        #expect(!ReaderCalibration.maps(.count, writing: .hand, weighedByRules: true))
        #expect(ReaderCalibration.maps(.count, writing: .hand, weighedByRules: false))
        #expect(ReaderCalibration.maps(.digits, writing: .print, weighedByRules: false))
        #expect(!ReaderCalibration.maps(.digits, writing: .hand, weighedByRules: false))
        #expect(ReaderCalibration.maps(.date, writing: .print, weighedByRules: true))
        #expect(!ReaderCalibration.maps(.date, writing: .hand, weighedByRules: true))
    }
}
