import ArgumentParser
import Foundation
import SheetModel
import SheetPipeline
import SheetStore

struct Eval: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure reading accuracy on images with known answers.",
        discussion: """
            Reads every image in the folders that has a NAME.truth.json beside it and compares field by \
            field: accuracy, accuracy of unflagged fields, wrong-and-unflagged (silent) errors (a wrong \
            number is silent unless its own field is flagged: a failing rule that names it is not a flag), flag rate, \
            a calibration table, the flagged numbers by the cause of their flag (the value is the sums', \
            the reader was unsure on its own, a sure reading is in a broken rule or doubted by the sums, or a \
            jersey number no known player vouches for) \
            and the median time per sheet. This is the command docs/accuracy.md's numbers \
            come from.
            """)

    @OptionGroup var templates: TemplateOptions
    @OptionGroup var writing: WritingOptions
    @OptionGroup var scanDay: ScanDayOptions
    @Option(name: .customLong("db"), help: ArgumentHelp("Read with what this store knows (its known names, …); nothing is written to it.", valueName: "path|url")) var db: String?
    @Option(help: ArgumentHelp("Read handwritten names against the names in this CSV file (as 'names import' reads it), with no store.",
                               valueName: "file.csv"))
    var names: String?
    @Argument(help: ArgumentHelp("Folders (or images) with ground truth beside them.", valueName: "dir")) var paths: [String]
    @Option(help: "Fields read with less confidence (0–100) are flagged.") var minConfidence: Double = ReviewLine.standard
    @Flag(help: "Print the report as JSON.") var json = false
    @Option(help: ArgumentHelp("Read digits with these network weights (a digits-cnn.bin with its .json beside it) instead of the shipped ones.",
                               valueName: "file"))
    var digitNetwork: String?
    @Option(help: ArgumentHelp("Fit what each reader's confidence is worth on these sets (read with the readers' own confidences) and write the tables to this file, the shipped Sources/SheetPipeline/Calibration/reader-calibration.json for one. Use sets never used to report accuracy.",
                               valueName: "file"))
    var fitCalibration: String?
    @Option(help: ArgumentHelp("The chance that the paper itself breaks a rule (a stat keeper's slip), in place of the model's 0.005: how it is fitted on sets with slips (see the Brier score).",
                               valueName: "p"))
    var ruleSlip: Double?
    @Option(help: ArgumentHelp("Stop with exit status 1 unless numeric accuracy is at least this percentage.", valueName: "percent"))
    var requireAccuracy: Double?
    @Option(help: ArgumentHelp("Stop with exit status 1 if more than this percentage of numeric fields are wrong and unflagged.", valueName: "percent"))
    var maxSilentErrors: Double?

    func validate() throws {
        guard (0...100).contains(minConfidence) else { throw ValidationError("--min-confidence must be 0–100, not \(minConfidence)") }
    }

    func run() async throws {
        let library = try templates.library()
        let images = GroundTruth.images(in: paths)
        guard !images.isEmpty else { throw RuntimeError("no images with a .truth.json beside them in \(paths.joined(separator: ", "))") }
        var options = ScanOptions(minConfidence: minConfidence, writing: writing.writing, today: scanDay.day)
        options.knownNames = try namesFile()
        options.digitNetwork = digitNetwork
        if fitCalibration != nil { options.calibration = .identity }
        options.ruleSlip = ruleSlip
        if let db {
            // What the store knows, read once, from the store opened read-only: a measurement never writes to a
            // user's store, not even a migration; a store that does not exist is an error, never made.
            let store: any SheetStore
            do { store = try await StoreLocator.openReadingOnly(db) } catch { throw RuntimeError("\(error)") }
            try await options.read(with: store)
            await StoreLocator.close(store)
        }
        let scanner = try SheetScanner(library: library, options: options)
        var report = EvaluationReport(minConfidence: minConfidence)
        var samples: [ReaderCalibration.Sample] = []
        for image in images {
            let truth = try GroundTruth.load(GroundTruth.path(forImage: image))
            guard let template = library.template(id: truth.template) else {
                throw RuntimeError("\(image): its truth names unknown template '\(truth.template)'")
            }
            let scanned = scanner.scanSheet(image)
            report.add(scanned.result, truth: truth, template: template)
            if fitCalibration != nil { samples += EvaluationReport.calibrationSamples(scanned, truth: truth, template: template) }
        }
        if let fitCalibration {
            try writeCalibration(ReaderCalibration.fit(samples, fittedOn: paths), to: fitCalibration)
            return
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            encoder.keyEncodingStrategy = .convertToSnakeCase   // like scan's output
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(Self.describe(report))
        }
        if let requireAccuracy, report.numeric.accuracy * 100 < requireAccuracy { throw ExitCode(1) }
        if let maxSilentErrors, report.numeric.silentErrorRate * 100 > maxSilentErrors { throw ExitCode(1) }
    }

    /// The names of `--names`, read whole (a bad row stops the run, reported by line as `names import` does).
    private func namesFile() throws -> [KnownName] {
        guard let names else { return [] }
        guard let data = FileManager.default.contents(atPath: names) else { throw RuntimeError("cannot read \(names)") }
        do {
            return try NameList.parse(data)
        } catch {
            throw RuntimeError((error.problems.map { "\(names):\($0.line): \(Names.Import.describe($0.issue))" }
                                + ["--names: \(error.problems.count) problem\(error.problems.count == 1 ? "" : "s") in \(names)"]).joined(separator: "\n"))
        }
    }

    private func writeCalibration(_ calibration: ReaderCalibration, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(calibration).write(to: URL(fileURLWithPath: path))
        for (key, steps) in calibration.tables.sorted(by: { $0.key < $1.key }) {
            let cells = steps.map { String(format: "≥%.2f→%.3f (%d)", $0.from, $0.accuracy, $0.readings) }
            print("\(key): \(cells.joined(separator: "  "))")
        }
        print("wrote \(path)")
    }

    static func describe(_ r: EvaluationReport) -> String {
        func pct(_ x: Double) -> String { String(format: "%.2f%%", x * 100) }
        func row(_ name: String, _ t: EvaluationReport.Tally) -> String {
            "\(name.padding(toLength: 10, withPad: " ", startingAt: 0)) \(String(t.fields).leftPadded(6))  right \(pct(t.accuracy).leftPadded(8))"
                + "  unflagged right \(pct(t.accuracyWhenConfident).leftPadded(8))  flagged \(pct(t.flagRate).leftPadded(7))"
                + "  silent errors \(t.silentErrors) (\(pct(t.silentErrorRate)))"
        }
        var lines = ["\(r.sheets) sheets, \(r.failedSheets.count) failed to align or load; median \(String(format: "%.1f", r.medianMilliseconds)) ms per sheet"]
        let s = r.sheetsRead
        lines.append("sheets read \(s.read): clean \(s.clean), no name flagged \(s.namesUnflagged), neither a name nor a date flagged \(s.namesAndDatesUnflagged)")
        lines.append("fields     count")
        lines.append(row("numeric", r.numeric))
        for (writer, t) in r.numericByWriter.sorted(by: { $0.key < $1.key }) { lines.append(row("  " + writer, t)) }
        lines.append(row("text", r.text))
        if r.names.fields > 0 {
            lines.append(row("  names", r.names))
            for (kind, t) in r.namesByKind.sorted(by: { $0.key < $1.key }) { lines.append(row("  " + kind, t)) }
        }
        lines.append(row("checkbox", r.checkboxes))
        lines.append("calibration (numeric fields; flagged below \(Int(r.minConfidence))):")
        for b in r.calibration where b.fields > 0 {
            lines.append("  confidence \(String(b.low).leftPadded(2))–\(b.low + 9): \(String(b.fields).leftPadded(5)) fields, \(pct(b.accuracy)) right")
        }
        if r.overTheLine.fields > 0 {
            lines.append("  confidence \(Int(r.minConfidence)) or more: \(r.overTheLine.fields) fields, \(pct(r.overTheLine.accuracy)) right")
            lines.append("  Brier score (mean squared gap between confidence and right): \(String(format: "%.5f", r.brierScore))")
        }
        if r.numeric.flagged > 0 {
            lines.append("flagged numeric fields by cause (count, share of the numeric fields, right):")
            let named = FieldReading.FlagCause.allCases.map { ($0.rawValue, $0.label) } + [(EvaluationReport.sheetFailed, "sheet failed")]
            for (key, name) in named {
                guard let t = r.flagCauses[key] else { continue }
                let share = Double(t.fields) / Double(max(1, r.numeric.fields))
                lines.append("  \(name.padding(toLength: 46, withPad: " ", startingAt: 0)) \(String(t.fields).leftPadded(6)) \(pct(share).leftPadded(7))  \(pct(t.accuracy).leftPadded(8)) right")
            }
        }
        let sg = r.suggestions
        let taken = r.withTopSuggestion
        lines.append("numeric fields right with each top suggestion taken: \(pct(taken.accuracy)) (\(taken.right)/\(taken.fields));"
            + " wrong and unflagged \(taken.silentErrors)")
        lines.append("rule failures: \(sg.ruleFailureSheets) sheets, \(sg.ruleFailureSheetsRestored) restored by the top suggestion;"
            + " with exactly one numeric field misread: \(sg.sheetsWithOneMisread) sheets, \(sg.suggested) got a suggestion,"
            + " top suggestion right on \(sg.topSuggestionRight)")
        if r.mustFlag > 0 {
            lines.append("crossed-out fields that must be flagged: \(r.mustFlag), not flagged: \(r.mustFlagMissed.count)"
                + r.mustFlagMissed.map { "\n  NOT FLAGGED: \($0)" }.joined())
        }
        lines.append("digit confusion (rows written, columns read; \(r.lengthMismatches) numeric fields read with a different digit count):")
        lines.append("       " + (0...9).map { String($0).leftPadded(5) }.joined())
        for (digit, row) in r.confusion.enumerated() {
            lines.append("  \(digit)    " + row.map { String($0).leftPadded(5) }.joined())
        }
        lines.append("per field: right / flagged / silent errors")
        for (id, t) in r.perField.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(id.padding(toLength: 20, withPad: " ", startingAt: 0)) \(pct(t.accuracy).leftPadded(8)) \(pct(t.flagRate).leftPadded(8)) \(String(t.silentErrors).leftPadded(4))")
        }
        for (file, error) in r.failedSheets.sorted(by: { $0.key < $1.key }) { lines.append("failed: \(file): \(error)") }
        for m in r.misses {
            lines.append("wrong\(m.flagged ? " (flagged)" : " (SILENT)"): \(m.file) \(m.field): expected \(m.expected), read \(m.read) at \(Int(m.confidence))%")
        }
        return lines.joined(separator: "\n")
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}
