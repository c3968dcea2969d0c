import ArgumentParser
import Foundation
import SheetModel
import SheetStore

/// `statsheet names`: the names a club uses (its roster, its opponents), imported from a file or
/// learnt from approved sheets.
struct Names: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import and list the names the club uses: athletes, opponents, players and teams.",
        discussion: """
            The store keeps the club's names by kind. 'names import' adds them from a CSV file (the roster, \
            the schedule's opponents); every sheet approved adds its athlete or team, opponent and players.
            """,
        subcommands: [Import.self, List.self])
}

extension NameKind: ExpressibleByArgument {}

extension Names {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add the names of a CSV file to the store.",
            discussion: """
                The file is UTF-8 with a header row naming its columns: kind and name, optionally number and \
                team, e.g. 'kind,name,number,team'. Kind is athlete, opponent, player or team; number and team \
                belong to athletes and players. Quote a field that holds a comma or a quote ("O'Neill, Pat"; \
                a quote inside is doubled). A file with any problem (wrong columns, bytes that are not UTF-8, an \
                empty name, an unknown kind, a name twice) is reported line by line and nothing is imported. A \
                name already known (the same letters whatever their case, spacing or apostrophe) is not added \
                again, so importing a file twice adds nothing.
                """)

        @OptionGroup var store: StoreOptions
        @Argument(help: ArgumentHelp("The CSV file of names.", valueName: "file.csv")) var file: String

        func run() async throws {
            guard let data = FileManager.default.contents(atPath: file) else { throw RuntimeError("cannot read \(file)") }
            let names: [KnownName]
            do {
                names = try NameList.parse(data)
            } catch {
                let lines = error.problems.map { "\(file):\($0.line): \(Self.describe($0.issue))" }
                throw RuntimeError((lines + ["nothing imported: \(error.problems.count) problem\(error.problems.count == 1 ? "" : "s") in \(file)"])
                    .joined(separator: "\n"))
            }
            let opened = try await store.open()
            let now = Date()
            let added = try await opened.addKnownNames(names.map { StoredKnownName(name: $0, source: .imported, addedAt: now) })
            await StoreLocator.close(opened)
            print("imported \(added) name\(added == 1 ? "" : "s") from \(TerminalText.escaped(file)) into \(TerminalText.escaped(store.displayName))"
                  + (names.count > added ? " (\(names.count - added) already known)" : ""))
        }

        static func describe(_ issue: NameListProblem.Issue) -> String {
            func quoted(_ text: String) -> String { "'\(TerminalText.escaped(text))'" }
            let kinds = NameKind.allCases.map(\.rawValue).joined(separator: ", ")
            return switch issue {
            case .notUTF8: "not UTF-8 text (save the file as UTF-8)"
            case .noHeader: "no header row; the first row names the columns: kind,name[,number][,team]"
            case .missingColumn(let column): "the header has no '\(column)' column"
            case .unknownColumn(let column): "unknown column \(quoted(column)); the columns are \(NameList.columns.joined(separator: ", "))"
            case .repeatedColumn(let column): "column '\(column)' is named twice"
            case .fieldCount(let found, let expected): "\(found) field\(found == 1 ? "" : "s"), the header has \(expected)"
            case .unterminatedQuote: "a quoted field is not closed before the end of the file"
            case .strayQuote: "a quote inside a field: quote the whole field and double the quote inside (\"\"\"The Hawks\"\" Club\")"
            case .unknownKind(let kind): kind.isEmpty ? "no kind; one of \(kinds)" : "unknown kind \(quoted(kind)); one of \(kinds)"
            case .emptyName: "empty name"
            case .controlCharacter(let column): "the \(column) holds a control character"
            case .numberNotDigits(let number): "number \(quoted(number)) is not digits"
            case .notFor(let kind, let column): "a\(kind == .athlete || kind == .opponent ? "n" : "") \(kind.rawValue) has no \(column)"
            case .duplicate(let line): "the same name as line \(line)"
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the names the store knows, with where each came from (import or sheet).")

        enum Format: String, ExpressibleByArgument, CaseIterable { case table, csv }

        @OptionGroup var store: StoreOptions
        @Option(help: ArgumentHelp("Only names of this kind: athlete, opponent, player or team.", valueName: "kind")) var kind: NameKind?
        @Option(help: "table, or csv (the columns 'names import' reads, and source).") var format: Format = .table

        func run() async throws {
            let opened = try await store.openExisting()
            let names = try await opened.knownNames(kind: kind)
            await StoreLocator.close(opened)
            switch format {
            case .csv:
                print((NameList.columns + ["source"]).joined(separator: ","))
                for n in names {
                    print([n.name.kind.rawValue, n.name.name, n.name.number, n.name.team, n.source.rawValue].map { CSV.field($0) }.joined(separator: ","))
                }
            case .table:
                guard !names.isEmpty else {
                    print(kind.map { "no known \($0.rawValue) names" } ?? "no known names: statsheet names import FILE.csv, or approve sheets")
                    return
                }
                let header = ["kind", "name", "number", "team", "source"]
                let rows = names.map { n in
                    [n.name.kind.rawValue, n.name.name, n.name.number ?? "", n.name.team ?? "", n.source.rawValue].map(TerminalText.escaped)
                }
                let widths = header.indices.map { i in max(header[i].count, rows.map { $0[i].count }.max() ?? 0) }
                for cells in [header] + rows {
                    print(cells.enumerated().map { i, cell in cell.padding(toLength: widths[i], withPad: " ", startingAt: 0) }
                        .joined(separator: "  ").trimmingCharacters(in: .whitespaces))
                }
                print("\(names.count) name\(names.count == 1 ? "" : "s")")
            }
        }
    }
}
