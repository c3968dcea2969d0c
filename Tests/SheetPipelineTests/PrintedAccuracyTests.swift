import Foundation
import SheetModel
import Testing
@testable import SheetPipeline

/// The accuracy floor of issue 2 on the committed sheets in TestImages/lacrosse-goalie/printed, made by
/// the independent generator in Tools/ (printed fonts; phone and scanner distortions). Not trained on:
/// the printed reader is Tesseract's stock model.
@Suite struct PrintedAccuracyTests {
    @Test func committedPrintedSheetsMeetTheFloor() throws {
        let folder = Fixtures.testImages.appendingPathComponent("lacrosse-goalie/printed").path
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasSuffix(".json") }.sorted()
        try #require(names.count >= 30, "the committed test set is missing")
        let library = try Fixtures.library()
        let scanner = try SheetScanner(library: library)
        var report = EvaluationReport()
        for name in names {
            let path = folder + "/" + name
            let truth = try GroundTruth.load(GroundTruth.path(forImage: path))
            report.add(scanner.scan(path), truth: truth, template: try #require(library.template(id: truth.template)))
        }
        #expect(report.failedSheets.isEmpty, "\(report.failedSheets)")
        #expect(report.numeric.accuracy >= 0.995, "numeric accuracy \(report.numeric.accuracy); misses \(report.misses)")
        #expect(report.numeric.silentErrors == 0, "wrong but confident: \(report.misses.filter { !$0.flagged })")
        #expect(report.checkboxes.accuracy >= 0.99)
    }
}
