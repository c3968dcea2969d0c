import DigitNet
import Foundation
import OCRKit
import SheetModel
import Testing
@testable import SheetPipeline

/// Accuracy floors of issue 3 on the committed hand-filled sheets in TestImages/TEMPLATE/handwritten-*
/// (lacrosse, hockey and soccer sheets, held to the same floors), made by Tools/make_test_sheets.py
/// --fill hand from writers the digit network never saw (scikit-learn's digits, whose writers are not
/// MNIST's, handwriting fonts it was not trained on, and, in handwritten-mnist, MNIST's test writers,
/// whom MNIST keeps apart from its training writers), photographed like a phone or scanned. The
/// floors sit a little under what `statsheet eval` measures on them, so a regression fails here; the
/// figures in docs/accuracy.md come from eval.
@Suite struct HandwrittenAccuracyTests {
    /// Each set with its least sheet count and the most of its numbers that may be flagged: two or three
    /// points over what `statsheet eval DIR --writing hand` measures on the set, so that a change that
    /// flags more fails here.
    @Test(arguments: [("lacrosse-goalie", "handwritten-phone", 20, 0.10), ("lacrosse-goalie", "handwritten-scan", 8, 0.06),
                      ("hockey-goalie", "handwritten-phone", 8, 0.04), ("soccer-keeper", "handwritten-phone", 8, 0.08),
                      ("basketball-box", "handwritten-phone", 6, 0.21), ("lacrosse-goalie", "handwritten-mnist", 12, 0.08)])
    func handFilledSheetsMeetTheFloor(template: String, set: String, atLeast: Int, flaggedAtMost: Double) throws {
        let run = try Fixtures.evaluate(template, set, atLeast: atLeast)
        let report = run.report
        #expect(run.misidentified.isEmpty, "\(run.misidentified)")
        #expect(report.failedSheets.isEmpty, "\(report.failedSheets)")
        #expect(report.numeric.accuracy >= Floors.accuracy, "numeric accuracy \(report.numeric.accuracy)")
        // Confidence means something: what is not flagged is right.
        #expect(report.numeric.accuracyWhenConfident >= Floors.unflaggedAccuracy,
                "wrong and unflagged: \(report.misses.filter { !$0.flagged })")
        // Numbers no rule reads (none on the goalie sheets; the box score's jersey numbers) are read a little
        // worse, and read sure they were still wrong on writers the network never met: read with no roster,
        // as here, each goes to a person (`ReadingDoubt.noPlayerVouches`; `JerseyNumberCLITests` checks each
        // is flagged), so none is wrong and unflagged.
        let unchecked = try Self.numericFieldsNoRuleReads(template)
        if !unchecked.isEmpty {
            let rest = Self.tally(report, of: unchecked)
            #expect(rest.fields > 0 && rest.accuracy >= Floors.uncheckedAccuracy, "numbers no rule reads: \(rest.accuracy)")
            #expect(rest.silentErrors == 0,
                    "numbers no rule reads, wrong and unflagged: \(report.misses.filter { !$0.flagged && unchecked.contains($0.field) })")
        }
        #expect(report.numeric.flagRate <= flaggedAtMost, "flag rate \(report.numeric.flagRate)")
        // Every value the sums chose is flagged, and counted as the sums'.
        #expect(report.flagCauses[FieldReading.FlagCause.fromSums.rawValue, default: .init()].fields == run.readFromSums.count)
        #expect(report.overTheLine.fields > 0 && report.overTheLine.accuracy >= Floors.overTheLineAccuracy,
                "read at 70 or more, wrong: \(report.misses.filter { $0.confidence >= 70 })")
        // A value the rules chose over the ink's first choice is likelier, not certain: it is always flagged
        // (counted above as the sums'), and mostly right.
        let wrongFromSums = run.readFromSums.filter { !$0.right }
        #expect(wrongFromSums.count * 5 <= max(run.readFromSums.count, 1), "read from the sums, wrong: \(wrongFromSums)")
        // A crossed-out digit with its correction beside it is never a confident guess.
        #expect(report.mustFlagMissed.isEmpty, "\(report.mustFlagMissed)")
        // Ticks and names in pencil are seen: at the print cleaner's ink threshold 9 of 800 ticked boxes
        // (200-sheet eval) read unticked with confidence 99, and names read empty with confidence 97.
        #expect(report.checkboxes.accuracyWhenConfident == 1, "\(report.misses.filter { $0.field.hasPrefix("con") })")
        // Handwritten names and opponents Tesseract is under 95% sure of are flagged: 8 of 180 were wrong
        // and unflagged at 74–91 before.
        #expect(report.text.silentErrors == 0, "\(report.misses.filter { !$0.flagged && !$0.field.hasPrefix("con") })")
        #expect(!report.misses.contains { !$0.flagged && $0.read == .empty && $0.expected != .empty },
                "written, read empty, not flagged: \(report.misses.filter { !$0.flagged && $0.read == .empty })")
    }

    /// Count, digits and date fields that no rule of the template reads.
    static func numericFieldsNoRuleReads(_ id: String) throws -> Set<String> {
        let template = try #require(try Fixtures.library().template(id: id))
        let read = Set(ParsedRules(template).rules.compactMap(\.expression).flatMap { $0.fieldIDs(in: template.fields) })
        return Set(template.fields.filter { [.count, .digits, .date].contains($0.kind) && !read.contains($0.id) }.map(\.id))
    }

    /// The given fields' tallies added up.
    static func tally(_ report: EvaluationReport, of ids: Set<String>) -> EvaluationReport.Tally {
        ids.compactMap { report.perField[$0] }.reduce(EvaluationReport.Tally()) { combine($0, $1, sign: 1) }
    }

    static func combine(_ a: EvaluationReport.Tally, _ b: EvaluationReport.Tally, sign: Int) -> EvaluationReport.Tally {
        var t = a
        t.fields += sign * b.fields; t.right += sign * b.right; t.flagged += sign * b.flagged
        t.rightUnflagged += sign * b.rightUnflagged; t.silentErrors += sign * b.silentErrors
        return t
    }

    /// Handwritten sheets are read with the digit network, not Tesseract: auto picks it, whatever the template.
    /// Not the basketball box score's printed set: its sheet-003 (a phone photo) has 118 of 127 numbers at
    /// Tesseract confidence 90, under the 0.93 share a hand-filled hockey sheet comes within 0.007 of, so it
    /// is taken for handwriting; its numbers are still all read right (`PrintedAccuracyTests`). Three of
    /// six were once: 3–5 of a box score's 130–180 numbers escape Tesseract, and "3 fields" was a fixed
    /// count; it is now also a share (`unseenShare`).
    @Test(arguments: ["lacrosse-goalie", "hockey-goalie", "soccer-keeper"])
    func handwritingIsRecognisedAsSuch(template: String) throws {
        let library = try Fixtures.library()
        let reader = SheetFieldReader(printed: PrintedFieldReader(engine: try .init()),
                                      handwritten: HandwrittenDigitReader(network: try .bundled()))
        let scanner = try SheetScanner(library: library, recognizer: reader)
        // handwritten-mnist: lacrosse only.
        for set in ["handwritten-phone", "handwritten-mnist", "printed"] {
            let folder = Fixtures.testImages.appendingPathComponent("\(template)/\(set)").path
            guard set != "handwritten-mnist" || FileManager.default.fileExists(atPath: folder) else { continue }
            let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasSuffix(".json") }.sorted().prefix(set == "printed" ? 6 : 24)
            for name in names {
                #expect(scanner.scanSheet(folder + "/" + name).writing == (set == "printed" ? .print : .hand), "\(set)/\(name)")
            }
        }
    }

    /// A little under what `statsheet eval` measures on the committed sets; 100% of the unflagged numbers
    /// a rule reads were right. Issue 3's goal (99% right, ≤5% flagged) is not reached yet; these floors
    /// keep what is.
    enum Floors {
        static let accuracy = 0.955
        static let unflaggedAccuracy = 0.995
        /// Issue 3's calibration bar: numbers read with confidence 70 or more, flagged or not, are right
        /// 99.5% of the time.
        static let overTheLineAccuracy = 0.995
        /// Numbers no rule reads (basketball jersey numbers): the floor sits well under what eval measures.
        static let uncheckedAccuracy = 0.80
    }
}
