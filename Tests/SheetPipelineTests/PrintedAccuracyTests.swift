import Foundation
import SheetModel
import Testing
@testable import SheetPipeline

/// The accuracy floor of issue 2 on the committed printed sheets of every template
/// (TestImages/TEMPLATE/printed), made by the independent generator in Tools/ (printed fonts; phone and
/// scanner distortions). Not trained on: the printed reader is Tesseract's stock model. The hockey,
/// soccer and basketball sets hold the lacrosse sheet's floor with no code of their own: only their template files.
@Suite struct PrintedAccuracyTests {
    @Test(arguments: [("lacrosse-goalie", 30), ("hockey-goalie", 8), ("soccer-keeper", 8), ("basketball-box", 6)])
    func committedPrintedSheetsMeetTheFloor(template: String, atLeast: Int) throws {
        let run = try Fixtures.evaluate(template, "printed", atLeast: atLeast)
        let report = run.report
        #expect(run.misidentified.isEmpty, "\(run.misidentified)")
        #expect(report.failedSheets.isEmpty, "\(report.failedSheets)")
        #expect(report.numeric.accuracy >= 0.995, "numeric accuracy \(report.numeric.accuracy); misses \(report.misses)")
        #expect(report.numeric.silentErrors == 0, "wrong but confident: \(report.misses.filter { !$0.flagged })")
        #expect(report.checkboxes.accuracy >= 0.99)
        // Names too: a box score's "€merson Kelly" (Tesseract 74% sure) is flagged for its '€'.
        #expect(report.text.silentErrors == 0, "wrong but confident: \(report.misses.filter { !$0.flagged })")
    }
}
