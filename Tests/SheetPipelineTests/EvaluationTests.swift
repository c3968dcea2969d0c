import Foundation
import SheetModel
import Testing
@testable import SheetPipeline

@Suite struct EvaluationTests {
    /// `eval` tallies the numbers as they would read with the top suggestion taken, beside the numbers as
    /// read, which stay what the sheet's readings say.
    @Test func theTopSuggestionIsTalliedAsIfTakenAndTheReadingsAsRead() throws {
        let template = try Fixtures.lacrosse()
        let truth = try JSONDecoder().decode(GroundTruth.self, from: Data(#"""
            {"template": "lacrosse-goalie", "fields": {"q2.shots": 10, "q2.saves": 7, "q2.goals": 3}}
            """#.utf8))
        var result = SheetResult(file: "sheet.jpg", template: template.id, status: .needsReview, fields: [
            ("q2.shots", FieldReading(value: .integer(70), text: "70", confidence: 60, flagged: true)),
            ("q2.saves", FieldReading(value: .integer(7), text: "7", confidence: 69, flagged: true)),
            ("q2.goals", FieldReading(value: .integer(3), text: "3", confidence: 69, flagged: true)),
        ])
        func suggestion(_ changes: String) throws -> Suggestion {
            try JSONDecoder().decode(Suggestion.self, from: Data(#"{"probability": 0.3, "relativeToRead": 0.5, "changes": \#(changes)}"#.utf8))
        }
        // The suggestion mends the misread: one more number right with it taken.
        result.suggestions = [try suggestion(#"[{"field": "q2.shots", "from": 70, "to": 10, "probability": 0.38}]"#)]
        var mended = EvaluationReport()
        mended.add(result, truth: truth, template: template)
        #expect(mended.withTopSuggestion.fields == mended.numeric.fields)
        #expect(mended.withTopSuggestion.right == mended.numeric.right + 1)
        #expect(mended.withTopSuggestion.flagged == mended.numeric.flagged, "flags are counted as they are")
        // One that changes a right number and leaves the misread: one fewer.
        result.suggestions = [try suggestion(#"[{"field": "q2.saves", "from": 7, "to": 67, "probability": 0.01}]"#)]
        var worse = EvaluationReport()
        worse.add(result, truth: truth, template: template)
        #expect(worse.withTopSuggestion.right == worse.numeric.right - 1)
        #expect(worse.misses.contains { $0.field == "q2.shots" } && !worse.misses.contains { $0.field == "q2.saves" },
                "the misses are the readings' own")
    }

    /// Each flagged number is counted once by the cause of its flag; a sheet that failed counts all its
    /// numbers under its own cause, not as unsure ink.
    @Test func flaggedNumbersAreCountedOnceByCause() throws {
        let template = try Fixtures.lacrosse()
        let truth = try JSONDecoder().decode(GroundTruth.self, from: Data(#"""
            {"template": "lacrosse-goalie", "fields": {"q2.shots": 10, "q2.saves": 7, "q2.goals": 3}}
            """#.utf8))
        var sure = FieldReading(value: .integer(7), text: "7", confidence: 60, flagged: true, doubts: [.inFailingRule("q2.balance")])
        sure.inkConfidence = 97
        let result = SheetResult(file: "sheet.jpg", template: template.id, status: .needsReview, fields: [
            ("q2.shots", FieldReading(value: .integer(70), text: "70", confidence: 60, flagged: true)),
            ("q2.saves", sure),
            ("q2.goals", FieldReading(value: .integer(2), text: "2", confidence: 96)),
        ])
        var report = EvaluationReport()
        report.add(result, truth: truth, template: template)
        let unsure = try #require(report.flagCauses[FieldReading.FlagCause.unsureInk.rawValue])
        let doubted = try #require(report.flagCauses[FieldReading.FlagCause.sureButDoubted.rawValue])
        // q2.shots, read 70 under the line, and the template's numbers the result lacks (read as nothing,
        // confidence 0: right, as the truth leaves them empty).
        #expect(unsure.fields == report.numeric.flagged - 1 && unsure.fields - unsure.right == 1, "\(unsure)")
        #expect(doubted.fields == 1 && doubted.right == 1, "q2.saves, right and in the broken row")
        #expect(report.flagCauses.values.reduce(0) { $0 + $1.fields } == report.numeric.flagged)

        let failed = SheetResult(file: "bad.jpg", template: template.id, status: .failed, fields: [])
        var failedReport = EvaluationReport()
        failedReport.add(failed, truth: truth, template: template)
        #expect(failedReport.flagCauses.keys.sorted() == [EvaluationReport.sheetFailed])
        #expect(failedReport.flagCauses[EvaluationReport.sheetFailed]?.fields == failedReport.numeric.fields)
    }

    /// Numbers are tallied per kind of writer when the truth names one (the test-sheet generator's
    /// `writer.kind`); sheets whose truth names none count only in the totals.
    @Test func numbersAreTalliedPerKindOfWriter() throws {
        let template = try Fixtures.lacrosse()
        func truth(_ writer: String?) throws -> GroundTruth {
            let generator = writer.map { #", "generator": {"seed": 1, "writer": {"kind": "\#($0)", "pool": "x"}}"# } ?? ""
            return try JSONDecoder().decode(GroundTruth.self, from: Data(#"""
                {"template": "lacrosse-goalie", "fields": {"q2.shots": 10, "q2.saves": 7, "q2.goals": 3}\#(generator)}
                """#.utf8))
        }
        #expect(try truth("sklearn").writer == "sklearn" && truth(nil).writer == nil)
        let result = SheetResult(file: "sheet.jpg", template: template.id, status: .needsReview, fields: [
            ("q2.shots", FieldReading(value: .integer(70), text: "70", confidence: 60, flagged: true)),
            ("q2.saves", FieldReading(value: .integer(7), text: "7", confidence: 97)),
            ("q2.goals", FieldReading(value: .integer(3), text: "3", confidence: 97)),
        ])
        var report = EvaluationReport()
        report.add(result, truth: try truth("sklearn"), template: template)
        report.add(result, truth: try truth("font"), template: template)
        report.add(result, truth: try truth(nil), template: template)
        let sklearn = try #require(report.numericByWriter["sklearn"]), font = try #require(report.numericByWriter["font"])
        #expect(report.numericByWriter.count == 2)
        #expect(sklearn == font && sklearn.fields * 3 == report.numeric.fields)
        // q2.shots, read 70, is the one wrong number (the template's other numbers, missing from the
        // result, read as nothing, right as the truth leaves them empty, and flagged).
        #expect(sklearn.fields - sklearn.right == 1 && sklearn.flagged * 3 == report.numeric.flagged && sklearn.silentErrors == 0)
    }
}
