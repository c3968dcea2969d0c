import Foundation
import SheetModel
import Testing
@testable import SheetPipeline

/// Handwritten names read against the club's names on committed hand-filled sheets (names drawn in handwriting
/// fonts, photographed like a phone): Tesseract's characters and their candidates, weighed by `NameReadingModel`.
@Suite struct NameReadingPipelineTests {
    static let set = Fixtures.testImages.appendingPathComponent("lacrosse-goalie/handwritten-phone").path
    static let sheets = ["sheet-012", "sheet-015", "sheet-016", "sheet-020", "sheet-021", "sheet-004"]

    /// The set's athletes and opponents, as a club's roster and schedule would give them.
    static func roster() throws -> [KnownName] {
        let files = try FileManager.default.contentsOfDirectory(atPath: set).filter { $0.hasSuffix(".truth.json") }
        var names: [KnownName] = []
        for file in files {
            let truth = try GroundTruth.load(set + "/" + file)
            for kind in [NameKind.athlete, .opponent] {
                if case .string(let name) = truth.fields[kind.rawValue] { names.append(KnownName(kind: kind, name: name)) }
            }
        }
        return names
    }

    /// Sheets whose athlete Tesseract misread on its own ("Emerson Felly" at 19, "Qree Patel" at 14, "Morqan Davis",
    /// "Quinn Wafker", "Drew. Patel"), each flagged today: read against the roster, each is its name, and sure.
    @Test func namesMisreadAloneAreReadRightAgainstTheRoster() throws {
        var options = ScanOptions(writing: .hand, today: Fixtures.scanDay)
        options.knownNames = try Self.roster()
        let scanner = try SheetScanner(library: try Fixtures.library(), options: options)
        for sheet in Self.sheets {
            let truth = try GroundTruth.load("\(Self.set)/\(sheet).truth.json")
            let result = scanner.scan("\(Self.set)/\(sheet).jpg")
            for id in ["athlete", "opponent"] {
                let reading = try #require(result.reading(id))
                #expect(reading.value == truth.fields[id], "\(sheet) \(id): \(reading)")
                #expect(!reading.flagged && reading.confidence >= 95, "\(sheet) \(id): \(reading)")
            }
        }
    }

    /// A name the roster lacks is shown as Tesseract read it, flagged as a new name, however sure Tesseract was.
    @Test func aNameTheRosterLacksIsFlaggedAsWritten() throws {
        var options = ScanOptions(writing: .hand, today: Fixtures.scanDay)
        options.knownNames = try Self.roster().filter { $0.name != "Emerson Kelly" }
        let scanner = try SheetScanner(library: try Fixtures.library(), options: options)
        let result = scanner.scan("\(Self.set)/sheet-004.jpg")
        let athlete = try #require(result.reading("athlete"))
        #expect(athlete.value == .string(athlete.text) && athlete.text == "Emerson Kelly", "\(athlete)")
        #expect(athlete.flagged)
        #expect(athlete.doubts.contains { if case .unknownName(.athlete, _, _, _) = $0 { true } else { false } }, "\(athlete.doubts)")
        #expect(result.reading("opponent")?.flagged == false)
    }
}
