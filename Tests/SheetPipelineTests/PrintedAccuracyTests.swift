import Foundation
import SheetModel
import Testing
@testable import SheetPipeline

/// The accuracy floor of issue 2 on the committed sheets in TestImages/lacrosse-goalie/printed, made by
/// the independent generator in Tools/ (printed fonts; phone and scanner distortions). Not trained on:
/// the printed reader is Tesseract's stock model.
@Suite struct PrintedAccuracyTests {
    @Test func committedPrintedSheetsMeetTheFloor() throws {
        let report = try Fixtures.evaluate("printed", atLeast: 30)
        #expect(report.failedSheets.isEmpty, "\(report.failedSheets)")
        #expect(report.numeric.accuracy >= 0.995, "numeric accuracy \(report.numeric.accuracy); misses \(report.misses)")
        #expect(report.numeric.silentErrors == 0, "wrong but confident: \(report.misses.filter { !$0.flagged })")
        #expect(report.checkboxes.accuracy >= 0.99)
    }
}
