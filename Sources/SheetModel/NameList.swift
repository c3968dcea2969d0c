import Foundation

/// A club's names as a CSV file (`statsheet names import`): a header row naming the columns `kind`
/// and `name`, optionally `number` and `team`, in any order; then one name a row. UTF-8 (a leading
/// byte-order mark is allowed), fields quoted as RFC 4180 says, blank lines ignored.
///
/// ```csv
/// kind,name,number,team
/// athlete,Zoë Fernández,1,Granite Bay
/// opponent,"St. Mary's",,
/// player,"O'Neill, Pat",00,Granite Bay
/// ```
///
/// The file is read whole or not at all: every problem is reported with its line, and a file with
/// any problem gives no names.
public enum NameList {
    public static let columns = ["kind", "name", "number", "team"]

    /// The names in a file's bytes, in file order, or every problem found.
    public static func parse(_ data: Data) throws(NameListError) -> [KnownName] {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        var problems: [NameListProblem] = []
        // Which lines are not UTF-8: a record on one of them is not checked further (its text is not what was meant).
        var badLines: Set<Int> = []
        for (index, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated()
        where String(validating: line, as: UTF8.self) == nil {
            badLines.insert(index + 1)
            problems.append(NameListProblem(line: index + 1, issue: .notUTF8))
        }
        let scanned = CSVRecords.scan(String(decoding: bytes, as: UTF8.self))
        problems += scanned.problems.filter { !badLines.contains($0.line) }
        let records = scanned.records.filter { record in !record.broken && !record.lines.contains { badLines.contains($0) } }
        guard let header = scanned.records.first, records.first?.lines == header.lines else {
            // No header, or one that could not be read (its problem is reported): the rows cannot be understood.
            if scanned.records.isEmpty { problems.append(NameListProblem(line: 1, issue: .noHeader)) }
            throw NameListError(inLineOrder(problems))
        }

        // The header: which column holds what.
        var position: [String: Int] = [:]
        for (index, title) in header.fields.enumerated() {
            let column = title.trimmingCharacters(in: .whitespaces).lowercased()
            if !columns.contains(column) {
                problems.append(NameListProblem(line: header.line, issue: .unknownColumn(title)))
            } else if position[column] != nil {
                problems.append(NameListProblem(line: header.line, issue: .repeatedColumn(column)))
            } else {
                position[column] = index
            }
        }
        for column in ["kind", "name"] where position[column] == nil {
            problems.append(NameListProblem(line: header.line, issue: .missingColumn(column)))
        }
        guard let kindColumn = position["kind"], let nameColumn = position["name"], problems.allSatisfy({ $0.line != header.line }) else {
            throw NameListError(inLineOrder(problems))
        }

        var names: [KnownName] = []
        var firstLine: [String: Int] = [:]
        for record in records.dropFirst() {
            func problem(_ issue: NameListProblem.Issue) { problems.append(NameListProblem(line: record.line, issue: issue)) }
            guard record.fields.count == header.fields.count else {
                problem(.fieldCount(found: record.fields.count, expected: header.fields.count))
                continue
            }
            func field(_ column: String) -> String? {
                guard let index = position[column] else { return nil }
                let value = record.fields[index].trimmingCharacters(in: .whitespaces)
                return value.isEmpty ? nil : value
            }
            let kindText = record.fields[kindColumn].trimmingCharacters(in: .whitespaces)
            let kind = NameKind(rawValue: kindText.lowercased())
            if kind == nil { problem(.unknownKind(kindText)) }
            let name = record.fields[nameColumn].trimmingCharacters(in: .whitespaces)
            if name.isEmpty { problem(.emptyName) }
            let (number, team) = (field("number"), field("team"))
            for (column, value) in [("name", name), ("team", team ?? "")] where value.unicodeScalars.contains(where: Self.isControl) {
                problem(.controlCharacter(column: column))
            }
            if let number, !number.allSatisfy({ $0.isASCII && $0.isNumber }) { problem(.numberNotDigits(number)) }
            if let kind, !kind.hasNumberAndTeam {
                if number != nil { problem(.notFor(kind, column: "number")) }
                if team != nil { problem(.notFor(kind, column: "team")) }
            }
            guard let kind, !name.isEmpty else { continue }
            let known = KnownName(kind: kind, name: name, number: number, team: team)
            let key = kind.rawValue + "\u{1E}" + known.matchKey
            if let first = firstLine[key] {
                problem(.duplicate(ofLine: first))
            } else {
                firstLine[key] = record.line
                names.append(known)
            }
        }
        guard problems.isEmpty else { throw NameListError(inLineOrder(problems)) }
        return names
    }

    /// By line; on one line, in the order found.
    static func inLineOrder(_ problems: [NameListProblem]) -> [NameListProblem] {
        problems.enumerated().sorted { ($0.element.line, $0.offset) < ($1.element.line, $1.offset) }.map(\.element)
    }

    /// Line breaks, tabs and other controls (and the bidirectional overrides that reorder what a line
    /// seems to say) have no place in a name.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }
}

/// Why a names file was refused: every problem, by line, in line order.
public struct NameListError: Error, Equatable, Sendable {
    public let problems: [NameListProblem]
    public init(_ problems: [NameListProblem]) { self.problems = problems }
}

/// One problem of a names file, at the line its record starts on.
public struct NameListProblem: Sendable, Equatable {
    public var line: Int
    public var issue: Issue

    public init(line: Int, issue: Issue) { self.line = line; self.issue = issue }

    public enum Issue: Sendable, Equatable {
        /// The line's bytes are not UTF-8 (a file saved as Latin-1 or UTF-16, say).
        case notUTF8
        /// The file holds no rows at all, not even the header.
        case noHeader
        case missingColumn(String)
        /// A header column other than `kind`, `name`, `number` and `team`, as written.
        case unknownColumn(String)
        case repeatedColumn(String)
        /// A row with another number of fields than the header.
        case fieldCount(found: Int, expected: Int)
        /// A quoted field not closed before the end of the file.
        case unterminatedQuote
        /// A `"` inside a field that does not start with one, or text after a quoted field's closing quote.
        case strayQuote
        /// The kind as written: not `athlete`, `opponent`, `player` or `team`.
        case unknownKind(String)
        case emptyName
        case controlCharacter(column: String)
        case numberNotDigits(String)
        /// A number or team given for a kind that has none (a team's or an opponent's).
        case notFor(NameKind, column: String)
        /// The same kind, name, number and team as an earlier line of the file (`KnownName.matchKey`).
        case duplicate(ofLine: Int)
    }
}

/// Records of RFC 4180 CSV text, each with the lines it spans.
///
/// Written here rather than taken from a package: the CSV readers in the package mirror (yaslab/CSV.swift
/// 2.5.2, swiftcsv/SwiftCSV 0.10.0) give rows without the line they start on, and stop at a malformed
/// quote or undecodable byte without saying where; a names file must be refused with each problem's line.
enum CSVRecords {
    struct Record: Equatable {
        var fields: [String]
        /// A quoting problem was found in it (reported once, at its first line): its fields are not what was meant.
        var broken = false
        /// The lines the record spans: more than one when a quoted field holds a line break.
        var lines: ClosedRange<Int>
        var line: Int { lines.lowerBound }
    }

    /// Every record (blank lines are none) and the quoting problems, each at the line its record starts on.
    /// Spaces around a quoted field are allowed (`a, "b"`), as people type them.
    static func scan(_ text: String) -> (records: [Record], problems: [NameListProblem]) {
        let scalars = Array(text.unicodeScalars)
        var records: [Record] = []
        var problems: [NameListProblem] = []
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var line = 1, start = 1
        var inQuotes = false, quoted = false, broken = false
        var i = 0

        /// A line break at `i` (LF, CRLF or a lone CR): its length in scalars, or 0.
        func lineBreak(at i: Int) -> Int {
            switch scalars[i] {
            case "\n": 1
            case "\r": i + 1 < scalars.count && scalars[i + 1] == "\n" ? 2 : 1
            default: 0
            }
        }
        func endField() {
            fields.append(String(field))
            field = String.UnicodeScalarView()
            quoted = false
        }
        func endRecord() {
            let blank = fields.isEmpty && !quoted && String(field).allSatisfy { $0 == " " || $0 == "\t" }
            endField()
            if !blank { records.append(Record(fields: fields, broken: broken, lines: start...max(start, line))) }
            fields = []
            broken = false
        }
        func fail(_ issue: NameListProblem.Issue) {
            if !broken { problems.append(NameListProblem(line: start, issue: issue)) }
            broken = true
        }

        while i < scalars.count {
            let c = scalars[i]
            let breakLength = lineBreak(at: i)
            if inQuotes {
                if c == "\"" {
                    if i + 1 < scalars.count && scalars[i + 1] == "\"" {
                        field.append("\"")
                        i += 2
                    } else {
                        inQuotes = false
                        i += 1
                    }
                    continue
                }
                if breakLength > 0 {
                    field.append(contentsOf: scalars[i..<(i + breakLength)])
                    line += 1
                    i += breakLength
                    continue
                }
                field.append(c)
                i += 1
                continue
            }
            if breakLength > 0 {
                endRecord()
                line += 1
                start = line
                i += breakLength
                continue
            }
            if c == "," {
                endField()
            } else if c == "\"" && !quoted && field.allSatisfy({ $0 == " " || $0 == "\t" }) {
                field = String.UnicodeScalarView()
                inQuotes = true
                quoted = true
            } else if quoted && (c == " " || c == "\t") {
                // Spaces after a closing quote, before the comma.
            } else if c == "\"" || quoted {
                // A quote inside an unquoted field, or anything but a comma or a line break after a closing quote.
                fail(.strayQuote)
            } else {
                field.append(c)
            }
            i += 1
        }
        if inQuotes { fail(.unterminatedQuote) }
        endRecord()
        return (records, problems)
    }
}
