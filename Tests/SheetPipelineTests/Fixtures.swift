import Foundation
import OCRKit
import SheetModel
import SheetPipeline

/// Paths and sheets shared by the pipeline tests.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let templatesFolder = root.appendingPathComponent("Templates").path
    static let testImages = root.appendingPathComponent("TestImages")

    static func library() throws -> TemplateLibrary { try TemplateLibrary.load(folders: [templatesFolder]) }

    /// The day the committed test sets are read as of: their dates run from 2025-08-01 to 2026-11-15
    /// (`Tools/make_test_sheets.py`), and a date years before the scan is unlikely (`SeasonPrior`), so
    /// the tests must not depend on the day they run.
    static let scanDay = RuleEvaluator.parseDate("2026-11-22")!

    static func lacrosse() throws -> SheetTemplate {
        guard let t = try library().template(id: "lacrosse-goalie") else { throw FixtureError("no lacrosse-goalie template") }
        return t
    }

    /// What reading one committed test set gave: the scores, and the sheets read as another template
    /// than their truth names.
    struct SetRun {
        var report: EvaluationReport
        var misidentified: [String]
        /// The fields whose value the sums chose over the digit network's first choice, and whether the
        /// paper says that value.
        var readFromSums: [(field: String, right: Bool)] = []
    }

    /// Reads every image of `TestImages/TEMPLATE/SET` and scores it against the truth beside it. The
    /// scanner knows every template in Templates/ and is not told which one a sheet is, so each sheet
    /// must be identified from its printed mark, as `statsheet scan` does without `--template`.
    static func evaluate(_ template: String, _ set: String, atLeast minimum: Int) throws -> SetRun {
        let folder = testImages.appendingPathComponent("\(template)/\(set)").path
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { !$0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
        guard names.count >= minimum else { throw FixtureError("the committed test set \(template)/\(set) is missing") }
        let library = try library()
        let scanner = try SheetScanner(library: library, options: ScanOptions(today: scanDay))
        var run = SetRun(report: EvaluationReport(), misidentified: [])
        for name in names {
            let path = folder + "/" + name
            let truth = try GroundTruth.load(GroundTruth.path(forImage: path))
            guard let template = library.template(id: truth.template) else { throw FixtureError("unknown template \(truth.template)") }
            let result = scanner.scan(path)
            if result.template != truth.template {
                run.misidentified.append("\(name) read as \(result.template ?? "none"), truth \(truth.template)")
            }
            run.report.add(result, truth: truth, template: template)
            for (id, reading) in result.fields where reading.inkValue != nil {
                run.readFromSums.append(("\(name) \(id)", reading.value == truth.fields[id] ?? .empty))
            }
        }
        return run
    }

    /// A fresh temporary folder, removed by the caller's `defer`.
    static func temporaryFolder() throws -> String {
        let path = NSTemporaryDirectory() + "statsheet-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { throw FixtureError("cannot write \(path)") }
    }

    /// A known game, consistent on paper: what the round-trip tests write and expect back.
    static let game: [String: FieldValue] = {
        var values: [String: FieldValue] = ["date": .string("2025-04-11"), "context.hs": .boolean(true),
                                            "context.club": .boolean(false), "conference.conf": .boolean(false),
                                            "conference.nonconf": .boolean(true)]
        let periods = [("q1", 9, 2, 3), ("q2", 12, 1, 0), ("q3", 4, 0, 5), ("q4", 17, 3, 11)]
        for (row, saves, goals, clears) in periods {
            values["\(row).shots"] = .integer(saves + goals)
            values["\(row).saves"] = .integer(saves)
            values["\(row).goals"] = .integer(goals)
            values["\(row).clears"] = .integer(clears)
        }
        for column in ["shots", "saves", "goals", "clears"] { values["ot.\(column)"] = .empty }
        values["total.shots"] = .integer(48); values["total.saves"] = .integer(42)
        values["total.goals"] = .integer(6); values["total.clears"] = .integer(19)
        return values
    }()

    /// Renders the blank sheet at `dpi` and writes `values` into it with Leptonica's bitmap font: digits
    /// one per comb box, right-aligned; checkboxes filled. An independent hand from the reader's.
    static func filledSheet(_ template: SheetTemplate, values: [String: FieldValue], dpi: Int = 200) throws -> Image {
        let page = try SheetRenderer(template: template, dpi: dpi).render()
        let scale = Double(dpi) / 72
        // Leptonica draws its bitmap fonts for 300 ppi: size 20 prints digits about 14 points tall at
        // 300 dpi, so the size scales with the resolution to keep that height.
        let font = try BitmapFont(size: Int(20.0 * Double(dpi) / 300))
        func px(_ v: Double) -> Int { Int((v * scale).rounded()) }
        for field in template.fields {
            guard let value = values[field.id] else { continue }
            let characters: [Character]
            switch value {
            case .integer(let n): characters = Array(String(n))
            case .string(let s) where field.kind == .date:
                let parts = s.split(separator: "-").map(String.init)   // YYYY-MM-DD → MMDDYY
                characters = Array(parts[1] + parts[2] + parts[0].suffix(2))
            case .boolean(true):
                let inner = field.rect.insetBy(3, 3)
                try page.fill(PixelRect(x: px(inner.x), y: px(inner.y), width: px(inner.width), height: px(inner.height)), color: .black)
                continue
            default: continue
            }
            let boxes = field.boxes.suffix(characters.count)
            for (character, box) in zip(characters, boxes) {
                let text = String(character)
                let x = px(box.center.x) - font.width(of: text) / 2
                page.drawText(text, x: x, baseline: px(box.maxY - box.height * 0.25), font: font)
            }
        }
        return page
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
