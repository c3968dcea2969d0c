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
}
