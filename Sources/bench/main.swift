// Benchmarks (times are measured and printed, never asserted):
//   swift run -c release bench digits [WEIGHTS.bin]    digit network, ms per digit as the reader reads one: a pass
//                                                      per pen width (default: the shipped weights), then with a
//                                                      store's labelled digits voting (DigitAdaptation, full)
//   swift run -c release bench digits-on-sheets DIR... digit network, ms per digit written on hand-filled sheets
//                                                      with truth files (passes counted, each priced at a timed pass)
//   swift run -c release bench suggest [SCAN.jsonl]                   suggestion search, ms per sheet: a built-in
//                                                                     sheet, or every sheet with failing rules in
//                                                                     the output of `statsheet scan --json`
//   swift run -c release bench corroborate SCAN.jsonl                 weighing readings against the sums, ms per
//                                                                     lacrosse sheet of a `statsheet scan --json` output
//   swift run -c release bench review-redraw                          review screen: keypress to finished screen
//   swift run -c release bench sheets DIR... [--rounds N] [--writing auto|print|hand]
//                                                      whole sheets: the median of each stage (read+hash, load,
//                                                      markers, align, cells, read, judge), wall and CPU
// digits, suggest and corroborate print medians of 7 rounds; review-redraw the median of hundreds of keypresses.
import DigitNet
import Foundation
import OCRKit
import SheetModel
import SheetPipeline

func median(rounds: Int = 7, _ body: () throws -> Double) rethrows -> (median: Double, low: Double, high: Double) {
    var times: [Double] = []
    for _ in 0..<rounds { times.append(try body()) }
    times.sort()
    return (times[rounds / 2], times[0], times[rounds - 1])
}

func milliseconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

/// `count` made-up 28×28 inputs, different from each other (the network's cost does not depend on the pixels).
func digitInputs(_ count: Int) -> [[Float]] {
    (0..<count).map { w in (0..<784).map { i in Float((i * 31 + w * 7) % 17) / 17 } }
}

/// Milliseconds for the network to read each of `inputs` once: the median of 7 rounds of 1,000, with the
/// rounds' range and a checksum that keeps the work from being optimised away.
func readingTime(_ network: DigitNetwork, _ inputs: [[Float]]) -> (median: Double, low: Double, high: Double, checksum: Float) {
    var sink: Float = 0
    let t = median { milliseconds { for _ in 0..<1000 { for input in inputs { sink += network.probabilities(input)[3] } } } / 1000 }
    return (t.median, t.low, t.high, sink)
}

func benchDigits(_ weights: String?) throws {
    // The shipped weights unless another file is named.
    let network = try weights.map { try DigitNetwork(contentsOf: URL(fileURLWithPath: $0)) } ?? DigitNetwork.bundled()
    // The reader reads each character at several pen widths, a pass of the network each: that is what
    // one handwritten digit costs.
    let widths = HandwrittenDigitReader(network: network).strokeShares.count
    let t = readingTime(network, digitInputs(widths))
    print(String(format: "digit network: median %.3f ms per digit, read at %d pen widths (%.3f ms per pass; rounds %.3f–%.3f; checksum %.3f; ",
                 t.median, widths, t.median / Double(widths), t.low, t.high, t.checksum) + "OpenBLAS kernels \(network.blasKernel))")
    // With a store's examples (`DigitAdaptation`, full to its capacity): the passes, then the neighbours' vote.
    let inputs = digitInputs(widths)
    let pool = digitInputs(50).map { network.evaluate($0).embedding }
    let examples = (0..<DigitAdaptation.capacity).map { i in (digit: i % 10, embedding: pool[i % 50]) }
    let adaptation = DigitAdaptation(examples: examples, width: network.embeddingWidth)
    var sink = 0.0
    let adapted = median {
        milliseconds {
            for _ in 0..<1000 {
                var p = [Double](repeating: 0, count: DigitNetwork.classes), e = [Float](repeating: 0, count: network.embeddingWidth)
                for input in inputs {
                    let out = network.evaluate(input)
                    for i in p.indices { p[i] += Double(out.probabilities[i]) }
                    for i in e.indices { e[i] += out.embedding[i] }
                }
                sink += adaptation.adjust(p.map { $0 / Double(widths) }, embedding: e)[3]
            }
        } / 1000
    }
    let probabilities = [Double](repeating: 1.0 / Double(DigitNetwork.classes), count: DigitNetwork.classes)
    let vote = median { milliseconds { for _ in 0..<1000 { sink += adaptation.adjust(probabilities, embedding: pool[7])[3] } } / 1000 }
    print(String(format: "with %d labelled digits: median %.3f ms per digit, of which the neighbours' vote %.3f ms (rounds %.3f–%.3f; checksum %.3f)",
                 adaptation.count, adapted.median, vote.median, adapted.low, adapted.high, sink))
}

/// The network's time per digit written on whole hand-filled sheets: a reader reads a digit at each pen
/// width, and some marks more than once (a wide one whole and as two halves; a struck-out number and the
/// correction beside it), so the passes are counted on real sheets and priced at a timed pass.
func benchDigitsOnSheets(_ folders: [String]) throws {
    let network = try DigitNetwork.bundled()
    let library = try TemplateLibrary.load(folders: TemplateLibrary.defaultFolders())
    let reader = SheetFieldReader(printed: PrintedFieldReader(engine: try TesseractEngine()),
                                  handwritten: HandwrittenDigitReader(network: network), writing: .hand)
    let scanner = try SheetScanner(library: library, options: ScanOptions(writing: .hand), recognizer: reader)
    var sheets = 0, written = 0
    for image in GroundTruth.images(in: folders) {
        let truth = try GroundTruth.load(GroundTruth.path(forImage: image))
        guard let template = library.template(id: truth.template) else { continue }
        _ = scanner.scan(image)
        sheets += 1
        // The fields the digit network reads, as `EvaluationReport` counts their digits.
        for field in template.fields where [.count, .digits, .date].contains(field.kind) {
            written += EvaluationReport.digits(truth.fields[field.id] ?? .empty).count
        }
    }
    let passes = network.passes
    let pass = readingTime(network, digitInputs(1))
    let perDigit = Double(passes) / Double(max(1, written))
    print(String(format: "%d sheets, %d digits written, %d passes of the network: %.2f a digit; %.3f ms a pass (checksum %.3f)",
                 sheets, written, passes, perDigit, pass.median, pass.checksum))
    print(String(format: "digit network: %.3f ms per digit written", perDigit * pass.median))
}

/// The lacrosse goalie template, from the repository's Templates folder.
func lacrosseTemplate() throws -> SheetTemplate {
    let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Templates/lacrosse-goalie.json")
    return try SheetTemplate.decode(try Data(contentsOf: path))
}

/// The sheets of `template` in a `statsheet scan --json` output, each with its readings in the template's
/// field order: the order the scanner passes them in, which the JSON object does not keep.
func sheets(of template: SheetTemplate, in scanOutput: String) throws -> [(result: SheetResult, readings: [(id: String, reading: FieldReading)])] {
    try String(contentsOfFile: scanOutput, encoding: .utf8).split(separator: "\n")
        .map { try JSONDecoder().decode(SheetResult.self, from: Data($0.utf8)) }
        .filter { $0.template == template.id }
        .map { result in (result, template.fields.compactMap { field in result.fields.first { $0.id == field.id } }) }
}

/// A lacrosse sheet read with three doubtful digits (three alternatives each) that break four rules.
func benchSuggest() throws {
    let template = try lacrosseTemplate()
    var values: [String: FieldValue] = ["date": .string("2026-04-11"), "context.hs": .boolean(true)]
    for (row, saves, goals) in [("q1", 9, 2), ("q2", 7, 3), ("q3", 4, 0), ("q4", 17, 3)] {
        values["\(row).shots"] = .integer(saves + goals); values["\(row).saves"] = .integer(saves); values["\(row).goals"] = .integer(goals)
    }
    values["total.shots"] = .integer(45); values["total.saves"] = .integer(37); values["total.goals"] = .integer(8)
    let misread: [String: [(Int, Double)]] = ["q2.shots": [(16, 0.5), (10, 0.4), (18, 0.1)],
                                              "q3.saves": [(4, 0.6), (9, 0.3), (1, 0.1)],
                                              "total.saves": [(31, 0.5), (37, 0.45), (57, 0.05)]]
    let readings: [(id: String, reading: FieldReading)] = template.fields.map { field in
        guard let alternatives = misread[field.id] else {
            return (field.id, FieldReading(value: values[field.id] ?? .empty, text: "", confidence: 99))
        }
        var r = FieldReading(value: .integer(alternatives[0].0), text: "", confidence: alternatives[0].1 * 100)
        r.alternatives = alternatives.map { Alternative(value: .integer($0.0), probability: $0.1) }
        return (field.id, r)
    }
    let model = SheetPosterior(search: SuggestionSearch(template: template, today: Date()))
    var found = 0
    let t = median { milliseconds { for _ in 0..<100 { if model.weigh(readings).outcome.suggestion != nil { found += 1 } } } / 100 }
    print(String(format: "suggestion search: median %.3f ms per sheet (rounds %.3f–%.3f; found %d/700)", t.median, t.low, t.high, found))
}

/// The search on every sheet of a `statsheet scan --json` output whose rules failed: the median and the
/// slowest sheet, each the median of its rounds.
func benchSuggest(scanOutput: String) throws {
    let template = try lacrosseTemplate()
    let model = SheetPosterior(search: SuggestionSearch(template: template, today: Date()))
    let sheets = try sheets(of: template, in: scanOutput).filter { !$0.result.ruleFailures.isEmpty }.map(\.readings)
    var perSheet: [Double] = []
    var found = 0
    for readings in sheets {
        perSheet.append(median { milliseconds { if model.weigh(readings).outcome.suggestion != nil { found += 1 } } }.median)
    }
    perSheet.sort()
    guard !perSheet.isEmpty else { return print("no sheet with failing rules in \(scanOutput)") }
    print(String(format: "suggestion search over %d sheets with failing rules: median %.3f ms, 90th percentile %.3f ms, slowest %.3f ms; suggested on %d",
                 perSheet.count, perSheet[perSheet.count / 2], perSheet[perSheet.count * 9 / 10], perSheet.last!, found / 7))
}

/// Weighing the readings under the rules (`SheetPosterior`) on every lacrosse sheet of a
/// `statsheet scan --json` output: the median, 90th percentile and slowest sheet, each the median of its
/// rounds. The output's readings were weighed once already: their alternatives, which the search walks,
/// are the network's, but a sheet the sums mended now adds up, so its search ends sooner than the
/// scanner's did. The figures are a lower bound on the sheets the sums changed.
func benchCorroborate(scanOutput: String) throws {
    let template = try lacrosseTemplate()
    let model = SheetPosterior(search: SuggestionSearch(template: template, today: Date()))
    let sheets = try sheets(of: template, in: scanOutput).map(\.readings)
    guard !sheets.isEmpty else { return print("no lacrosse sheet in \(scanOutput)") }
    var perSheet: [Double] = []
    var sink = 0.0
    for readings in sheets {
        perSheet.append(median { milliseconds { sink += model.weigh(readings).readings.reduce(0) { $0 + $1.reading.confidence } } }.median)
    }
    perSheet.sort()
    print(String(format: "weighing against the sums over %d sheets: median %.3f ms, 90th percentile %.3f ms, slowest %.3f ms (checksum %.0f)",
                 perSheet.count, perSheet[perSheet.count / 2], perSheet[perSheet.count * 9 / 10], perSheet.last!, sink))
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "digits": try benchDigits(arguments.dropFirst().first)
case "digits-on-sheets":
    guard arguments.count > 1 else { print("usage: bench digits-on-sheets DIR..."); exit(64) }
    try benchDigitsOnSheets(Array(arguments.dropFirst()))
case "suggest":
    if let file = arguments.dropFirst().first { try benchSuggest(scanOutput: file) } else { try benchSuggest() }
case "corroborate":
    guard let file = arguments.dropFirst().first else { print("usage: bench corroborate scan.jsonl"); exit(64) }
    try benchCorroborate(scanOutput: file)
case "review-redraw": try await benchReviewRedraw()
case "sheets":
    guard arguments.count > 1 else { print("usage: bench sheets DIR... [--rounds N] [--writing auto|print|hand]"); exit(64) }
    try benchSheets(Array(arguments.dropFirst()))
default:
    print("usage: bench digits [weights.bin] | bench digits-on-sheets DIR... | bench suggest [scan.jsonl] | bench corroborate scan.jsonl | bench review-redraw | bench sheets DIR...")
    exit(64)
}
