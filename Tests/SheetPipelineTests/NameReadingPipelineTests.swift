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

    /// With no name known (a new store, nothing imported), every name is a new one, confirmed once, however
    /// sure Tesseract was: "Emerson Kelle" passed at 95.3 this way on a fresh set, wrong.
    @Test func withNoNameKnownEveryNameIsNewAndFlagged() throws {
        let scanner = try SheetScanner(library: try Fixtures.library(), options: ScanOptions(writing: .hand, today: Fixtures.scanDay))
        let result = scanner.scan("\(Self.set)/sheet-004.jpg")
        for (id, kind) in [("athlete", NameKind.athlete), ("opponent", .opponent)] {
            let reading = try #require(result.reading(id))
            #expect(reading.value == .string(reading.text) && reading.flagged, "\(id): \(reading)")
            #expect(reading.doubts.contains(.unknownName(kind: kind, known: 0, nearest: nil, nearestProbability: 0)), "\(reading.doubts)")
        }
    }
}

/// How a name's posterior becomes the field's reading.
@Suite struct NameReadingOutcomeTests {
    static func read(_ text: String) -> [ReadCharacter] {
        text.split(separator: " ").flatMap { word in
            word.enumerated().map { ReadCharacter(choices: [CharacterChoice(text: String($1), probability: 0.99)], startsWord: $0 == 0) }
        }
    }

    /// "Seán O'Brien" and "Sean O'Brien" both known, read without the accent (the reader drops one in three):
    /// the plain one is likelier, about 3 to 1, which is not sure enough to file a whole sheet under.
    @Test func twoNamesTheReaderCannotTellApartAreFlagged() throws {
        let model = NameReadingModel(knownNames: [KnownName(kind: .athlete, name: "Seán O'Brien"), KnownName(kind: .athlete, name: "Sean O'Brien"),
                                                  KnownName(kind: .athlete, name: "Drew Patel")])
        let posterior = try #require(model.weigh(Self.read("Sean O'Brien"), kind: .athlete))
        let reading = FieldReading(value: .string("Sean O'Brien"), text: "Sean O'Brien", confidence: 96)
        let line = NamePosterior.line(70, numbers: 25)
        #expect(abs(line - 98.8) < 1e-9)
        let shown = SheetJudge.name(reading, posterior, kind: .athlete, line: line)
        // The reader says why; the check stage flags it (`Flagging`).
        let check = Flagging(line: 70)
        #expect(shown.value == .string("Sean O'Brien") && check.flag(shown, failingRules: []).flagged, "\(shown)")
        #expect(shown.confidence > 60 && shown.confidence < 90, "\(shown.confidence)")
        #expect(shown.doubts.contains(.nameUnderItsLine(line: line, runnerUp: "Seán O'Brien", runnerUpProbability: posterior.known[1].probability)))
        // Read as a name of its own, it is sure and passes.
        let drew = SheetJudge.name(FieldReading(value: .string("Drew Patel"), text: "Drew Patel", confidence: 90),
                                         try #require(model.weigh(Self.read("Drew Patel"), kind: .athlete)), kind: .athlete, line: line)
        #expect(!check.flag(drew, failingRules: []).flagged && drew.confidence > line && drew.doubts.isEmpty, "\(drew)")
    }
}
