import Foundation
import SheetModel

/// One handwritten number's characters as the digit network saw them at scan time (`digit_embeddings`).
public struct StoredDigitEmbeddings: Sendable, Equatable {
    public var field: String
    /// `DigitNetwork.identity` of the network that made them.
    public var network: String
    /// One per character, in reading order, all of one width.
    public var embeddings: [[Float]]

    public init(field: String, network: String, embeddings: [[Float]]) {
        self.field = field; self.network = network; self.embeddings = embeddings
    }

    /// The embeddings as stored: float32, little-endian, one character after another.
    var bytes: Data {
        var data = Data(capacity: embeddings.reduce(0) { $0 + $1.count } * 4)
        for value in embeddings.joined() { withUnsafeBytes(of: value.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    /// Embeddings read back from `bytes` of `digits` characters; nil when the bytes do not divide so.
    static func embeddings(_ data: Data, digits: Int) -> [[Float]]? {
        guard digits > 0, data.count % (4 * digits) == 0 else { return nil }
        let floats: [Float] = data.withUnsafeBytes { raw in
            (0..<(data.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
        let width = floats.count / digits
        return (0..<digits).map { Array(floats[($0 * width)..<(($0 + 1) * width)]) }
    }
}

/// The statements of digit examples (issue 40), shared by both backends.
extension StoreSQL {
    static let insertDigitEmbeddings = "INSERT INTO digit_embeddings (sheet_id, field, network, digits, embeddings) VALUES (?, ?, ?, ?, ?)"

    static func digitEmbeddingRows(_ numbers: [StoredDigitEmbeddings], sheetID: Int64) -> [[SQLValue]] {
        numbers.filter { !$0.embeddings.isEmpty }.sorted { $0.field < $1.field }.map {
            [.int(sheetID), .text($0.field), .text($0.network), .int($0.embeddings.count), .bytes($0.bytes)]
        }
    }

    static let digitEmbeddings = "SELECT field, network, digits, embeddings FROM digit_embeddings WHERE sheet_id = ? ORDER BY field"

    /// Each number with embeddings and its latest live correction (a confirmation is a correction to the
    /// value read), most recently corrected first.
    static let labelledDigits = """
        SELECT e.network, e.digits, e.embeddings, r.kind, c.new_value
        FROM digit_embeddings e
        JOIN field_readings r ON r.sheet_id = e.sheet_id AND r.field = e.field
        JOIN corrections c ON c.sheet_id = e.sheet_id AND c.field = e.field AND c.undone_at IS NULL
        WHERE NOT EXISTS (SELECT 1 FROM corrections later WHERE later.sheet_id = c.sheet_id AND later.field = c.field
                          AND later.undone_at IS NULL AND later.id > c.id)
        ORDER BY c.id DESC
        """

    /// Each count read sure (`DigitExample.balancedSheetBar` and up, the first parameter) and shown as its ink
    /// read it, on a sheet whose ink breaks no rule, on which no count is flagged and which no person rejected,
    /// that no person has corrected or confirmed: its sums vouch for it. Most recently stored first, at most the
    /// second parameter of them (`DigitExample.mostKept`).
    static let balancedDigits = """
        SELECT e.network, e.digits, e.embeddings, r.kind, r.value AS new_value
        FROM digit_embeddings e
        JOIN sheets s ON s.id = e.sheet_id
        JOIN field_readings r ON r.sheet_id = e.sheet_id AND r.field = e.field
        WHERE s.rule_failures = '[]' AND r.kind = 'count' AND r.flagged = 0 AND r.ink_value IS NULL AND r.confidence >= ?
          AND NOT EXISTS (SELECT 1 FROM field_readings f WHERE f.sheet_id = e.sheet_id AND f.kind = 'count' AND f.flagged <> 0)
          AND NOT EXISTS (SELECT 1 FROM corrections c WHERE c.sheet_id = e.sheet_id AND c.field = e.field AND c.undone_at IS NULL)
          AND NOT EXISTS (SELECT 1 FROM review_decisions d WHERE d.sheet_id = e.sheet_id AND d.decision = 'rejected')
        ORDER BY e.sheet_id DESC, e.field
        LIMIT ?
        """
}

extension StoreRows {
    static func digitEmbeddings(_ row: SQLRow) -> StoredDigitEmbeddings? {
        guard let data = row.data("embeddings"), let embeddings = StoredDigitEmbeddings.embeddings(data, digits: row.int("digits") ?? 0) else { return nil }
        return StoredDigitEmbeddings(field: row.text("field"), network: row.text("network"), embeddings: embeddings)
    }

    /// A `labelledDigits` (or `balancedDigits`) row's characters, each with the digit its value gives it; none when the value
    /// has another number of digits than were read (a mark read as a digit, two digits read as one).
    static func digitExamples(_ row: SQLRow, source: DigitExample.Source) -> [DigitExample] {
        guard let kind = FieldKind(rawValue: row.text("kind")), let value: FieldValue = JSON.decode(row.string("new_value")),
              let digits = DigitExample.writtenDigits(of: value, kind: kind),
              let data = row.data("embeddings"), let embeddings = StoredDigitEmbeddings.embeddings(data, digits: row.int("digits") ?? 0),
              embeddings.count == digits.count else { return [] }
        let network = row.text("network")
        return zip(digits, embeddings).map { DigitExample(digit: $0, embedding: $1, network: network, source: source) }
    }
}
