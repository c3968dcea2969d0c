import Foundation
import SheetModel

/// Migration v4: readings stored before doubts were typed carry only sentences (`notes`). This is the one
/// place that reads them, once, when a store is migrated: each sentence an earlier statsheet wrote becomes
/// the typed doubt it stood for, or, when it is none, is kept as it was written (`ReadingDoubt.earlierNote`).
/// The ink's own value and confidence, which those sentences carried, become their columns.
enum EarlierNotes {
    /// Field readings whose doubts the migration has not typed yet.
    static let untyped = "SELECT sheet_id, field, notes FROM field_readings WHERE doubts IS NULL"
    static let update = "UPDATE field_readings SET doubts = ?, ink_value = ?, ink_confidence = ? WHERE sheet_id = ? AND field = ?"

    /// The update's arguments for one row of `untyped`.
    static func arguments(_ row: SQLRow) -> [SQLValue] {
        let converted = convert(JSON.decode(row.string("notes")) ?? [])
        return [.text(JSON.string(converted.doubts)), SQLValue(converted.inkValue.map(JSON.string)), SQLValue(converted.inkConfidence),
                .int(row.int64("sheet_id") ?? 0), .text(row.text("field"))]
    }

    /// The fixed sentences statsheet wrote before doubts were typed (store versions 1–3), frozen as they were
    /// written then: today's `ReadingDoubt.words` may be reworded freely (the date's has been) without an old
    /// store's notes going untyped.
    static let sentences: [String: ReadingDoubt] = [
        "a crossed-out or unreadable mark among the digits": .unreadableMark,
        "struck out in the boxes; read the number written beside them": .struckOutCorrection,
        "a mark much smaller than the sheet's other digits": .smallMark,
        "a mark as wide as two digits read as one": .wideMark,
        "ink in the boxes, but no digit was read": .noDigits,
        "no digits read in the ink": .noDigits,
        "faint marks in an empty-looking field": .faintMarksInEmptyField,
        "ink in the field, but no text was read": .noTextRead,
        "the line and the single boxes read differently": .lineAndBoxesDisagree,
        "read by the handwriting reader alone": .handwritingReaderAlone,
        "handwriting Tesseract read under 95% sure is right about 4 times in 5": .uncheckedHandwriting(.name),
        "a handwritten number no sum checks, under 95% sure, is right about 9 times in 10": .uncheckedHandwriting(.digitString),
        "a handwritten date under 80% sure is right about 19 times in 20": .uncheckedHandwriting(.date),
        "a handwritten count no rule checks, read under 95% sure": .uncheckedHandwriting(.count),
    ]

    static func convert(_ notes: [String]) -> (doubts: [ReadingDoubt], inkValue: FieldValue?, inkConfidence: Double?) {
        var doubts: [ReadingDoubt] = []
        var inkValue: FieldValue?
        var inkConfidence: Double?
        for note in notes {
            if let doubt = sentences[note] { doubts.append(doubt); continue }
            // "the digits alone read 7 (confidence 62); the sums make 1 likelier", or "…; filled in from the
            // sheet's suggestion: 1": the value shown was not the ink's.
            if let read = match(note, #"^the digits alone read (.+?) \(confidence (\d+)\)"#) {
                inkValue = read[0] == "empty" ? .empty : Int(read[0]).map(FieldValue.integer) ?? .string(read[0])
                inkConfidence = Double(read[1])
            } else if let moved = match(note, #"^confidence \d+ with the (?:sums|rule broken), (\d+) alone$"#) {
                inkConfidence = inkConfidence ?? Double(moved[0])
            } else if let line = match(note, #"^confidence \d+ is under (\d+)$"#), let value = Double(line[0]) {
                doubts.append(.underTheLine(value))
            } else if let rule = match(note, #"^in failing rule ([^ ,]+)$"#) {
                doubts.append(.inFailingRule(rule[0]))
            } else if let stray = match(note, #"^(\d+) stray marks? ignored$"#) {
                doubts.append(.strayMarks(count: Int(stray[0]) ?? 1))
            } else {
                doubts.append(.earlierNote(note))
            }
        }
        return (doubts, inkValue, inkConfidence)
    }

    /// The capture groups of `pattern` in `text`, or nil when it does not match.
    private static func match(_ text: String, _ pattern: String) -> [String]? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let found = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else { return nil }
        return (1..<found.numberOfRanges).compactMap { Range(found.range(at: $0), in: text).map { String(text[$0]) } }
    }
}
