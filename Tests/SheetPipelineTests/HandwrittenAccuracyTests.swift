import DigitNet
import Foundation
import OCRKit
import SheetModel
import Testing
@testable import SheetPipeline

/// Accuracy floors of issue 3 on the committed hand-filled sheets in TestImages/TEMPLATE/handwritten-*
/// (lacrosse, hockey and soccer sheets, held to the same floors), made by Tools/make_test_sheets.py
/// --fill hand from writers the digit network never saw (scikit-learn's digits, whose writers are not
/// MNIST's, and handwriting fonts it was not trained on), photographed like a phone or scanned. The
/// floors sit a little under what `statsheet eval` measures on them, so a regression fails here; the
/// README's figures come from eval.
@Suite struct HandwrittenAccuracyTests {
    @Test(arguments: [("lacrosse-goalie", "handwritten-phone", 20), ("lacrosse-goalie", "handwritten-scan", 8),
                      ("hockey-goalie", "handwritten-phone", 8), ("soccer-keeper", "handwritten-phone", 8)])
    func handFilledSheetsMeetTheFloor(template: String, set: String, atLeast: Int) throws {
        let run = try Fixtures.evaluate(template, set, atLeast: atLeast)
        let report = run.report
        #expect(run.misidentified.isEmpty, "\(run.misidentified)")
        #expect(report.failedSheets.isEmpty, "\(report.failedSheets)")
        #expect(report.numeric.accuracy >= Floors.accuracy, "numeric accuracy \(report.numeric.accuracy)")
        // Confidence means something: what is not flagged is right.
        #expect(report.numeric.accuracyWhenConfident >= Floors.unflaggedAccuracy,
                "wrong and unflagged: \(report.misses.filter { !$0.flagged })")
        #expect(report.numeric.flagRate <= Floors.flagRate, "flag rate \(report.numeric.flagRate)")
        // A crossed-out digit with its correction beside it is never a confident guess.
        #expect(report.mustFlagMissed.isEmpty, "\(report.mustFlagMissed)")
        // Ticks and names in pencil are seen: at the print cleaner's ink threshold 9 of 800 ticked boxes
        // (200-sheet eval) read unticked with confidence 99, and names read empty with confidence 97.
        #expect(report.checkboxes.accuracyWhenConfident == 1, "\(report.misses.filter { $0.field.hasPrefix("con") })")
        #expect(!report.misses.contains { !$0.flagged && $0.read == .empty && $0.expected != .empty },
                "written, read empty, not flagged: \(report.misses.filter { !$0.flagged && $0.read == .empty })")
    }

    /// Handwritten sheets are read with the digit network, not Tesseract: auto picks it, whatever the template.
    @Test(arguments: ["lacrosse-goalie", "hockey-goalie", "soccer-keeper"])
    func handwritingIsRecognisedAsSuch(template: String) throws {
        let library = try Fixtures.library()
        let reader = SheetFieldReader(printed: PrintedFieldReader(engine: try .init()),
                                      handwritten: HandwrittenDigitReader(network: try .bundled()))
        let scanner = SheetScanner(library: library, recognizer: reader)
        for set in ["handwritten-phone", "printed"] {
            let folder = Fixtures.testImages.appendingPathComponent("\(template)/\(set)").path
            let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasSuffix(".json") }.sorted().prefix(set == "printed" ? 6 : 24)
            for name in names {
                _ = scanner.scan(folder + "/" + name)
                #expect(reader.lastWriting == (set == "printed" ? .print : .hand), "\(set)/\(name)")
            }
        }
    }

    /// Measured with the committed weights (eval, 2026-11-22): phone 90.3% right, 100% of unflagged
    /// right, 54.7% flagged; scans 92.0%, 100%, 47.0%. Issue 3's goal (99% right, ≤5% flagged) is not
    /// reached yet; these floors keep what is.
    enum Floors {
        static let accuracy = 0.88
        static let unflaggedAccuracy = 0.995
        static let flagRate = 0.62
    }
}
