import Foundation
import Testing
@testable import SheetModel

@Suite struct ResultEncodingTests {
    @Test func valuesEncodeAsTheirJSONTypes() throws {
        let encoder = JSONEncoder()
        func json(_ v: FieldValue) throws -> String { String(decoding: try encoder.encode([v]), as: UTF8.self) }
        #expect(try json(.empty) == "[null]")
        #expect(try json(.integer(7)) == "[7]")
        #expect(try json(.string("2025-04-11")) == "[\"2025-04-11\"]")
        #expect(try json(.boolean(true)) == "[true]")
    }

    @Test func resultEncodesFieldsByIdAndRoundTrips() throws {
        let result = SheetResult(
            file: "a.png", template: "lacrosse-goalie", templateVersion: 1, status: .needsReview,
            alignment: AlignmentReport(quality: 0.98, quarterTurns: 1, scale: 4.17, markRead: true),
            fields: [("q1.shots", FieldReading(value: .integer(12), text: "12", confidence: 96.04)),
                     ("athlete", FieldReading(value: .string("Jo"), text: "Jo", confidence: 40, flagged: true, doubts: [.smallMark])),
                     ("date", FieldReading(value: .empty, text: "", confidence: 97))],
            milliseconds: 12.34)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(result)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"fields\":{\"athlete\":{"))
        #expect(text.contains("\"template_version\":1"))
        #expect(text.contains("\"quarter_turns\":1") && text.contains("\"mark_read\":true"))
        #expect(text.contains("\"status\":\"needs_review\""))
        #expect(text.contains("\"confidence\":96"))
        let back = try JSONDecoder().decode(SheetResult.self, from: data)
        #expect(back.reading("athlete")?.flagged == true)
        #expect(back.reading("q1.shots")?.value == .integer(12))
        #expect(back.reading("date")?.value == .empty)
    }
}
