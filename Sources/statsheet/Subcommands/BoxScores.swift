import ArgumentParser
import Foundation
import SheetModel
import SheetStore

/// `statsheet box-scores`: one row per player per approved box score, as the `box_score_lines` view
/// gives them.
struct BoxScores: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "box-scores",
        abstract: "Show the players' lines of the approved box scores in the store.",
        discussion: """
            One row per player per game, in the usual box-score order: Date, Opponent, Player, Number, Points, \
            FGM, FGA, FG%, 3PM, 3PA, 3P%, FTM, FTA, FT%, REB, AST, STL, BLK, TO, PF. Field goals are 2PT and 3PT \
            together; a percentage is made/attempted × 100 with one decimal, empty without an attempt. json \
            gives every line's numbers under the store's box_score_lines column names, with the game log id, \
            team and sheet path (docs/store-schema.md).
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, csv, json }

    @OptionGroup var store: StoreOptions
    @Option(help: ArgumentHelp("Only this team (case does not matter).", valueName: "name")) var team: String?
    @OptionGroup var dates: DateRangeOptions
    @Option(help: "csv, table or json.") var format: Format = .csv

    func run() async throws {
        let lines = try await store.openExisting().boxScoreLines(GameLogFilter(athlete: team, from: dates.from, to: dates.to))
        switch format {
        case .csv:
            print(BoxScoreColumns.all.map(\.title).joined(separator: ","))
            for line in lines { print(BoxScoreColumns.all.map { CSV.field($0.value(line)) }.joined(separator: ",")) }
        case .json:
            let objects = lines.map { line in
                Dictionary(uniqueKeysWithValues: BoxScoreColumns.json.map { ($0.title, $0.value(line) ?? NSNull()) })
            }
            let data = try JSONSerialization.data(withJSONObject: objects, options: [.sortedKeys, .withoutEscapingSlashes])
            print(TerminalText.asciiSafeJSON(String(decoding: data, as: UTF8.self)))
        case .table:
            // Names read from sheets are untrusted text: shown escaped (TerminalText).
            print(table(lines).split(separator: "\n", omittingEmptySubsequences: false).map { TerminalText.escaped(String($0)) }.joined(separator: "\n"))
        }
    }

    func table(_ lines: [BoxScoreLine]) -> String {
        guard !lines.isEmpty else { return "no approved box scores" + (team == nil && dates.isEmpty ? "" : " match") }
        let columns = BoxScoreColumns.all
        let rows = lines.map { line in columns.map { column in column.value(line).map { "\($0)" } ?? "—" } }
        let widths = columns.indices.map { i in max(columns[i].title.count, rows.map { $0[i].count }.max() ?? 0) }
        func text(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                i < 3 ? cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[i] - cell.count) + cell
            }.joined(separator: "  ")
        }
        let games = Set(lines.map(\.gameLogID)).count
        return ([text(columns.map(\.title))] + rows.map(text) + ["\(lines.count) player line\(lines.count == 1 ? "" : "s") in \(games) game\(games == 1 ? "" : "s")"])
            .joined(separator: "\n")
    }
}

/// The box-score columns in the usual order (CSV and table), and the view's columns for json.
enum BoxScoreColumns {
    struct Column: Sendable {
        let title: String
        let value: @Sendable (BoxScoreLine) -> Any?
        init(title: String, _ value: @escaping @Sendable (BoxScoreLine) -> Any?) { self.title = title; self.value = value }
        init(_ title: String, _ value: @escaping @Sendable (BoxScoreLine) -> Any?) { self.title = title; self.value = value }
    }

    /// A percentage as box scores print it: one decimal, nothing without an attempt.
    static func percent(_ value: Double?) -> String? { value.map { String(format: "%.1f", $0) } }

    static let all: [Column] = [
        Column(title: "Date") { $0.date }, Column(title: "Opponent") { $0.opponent }, Column(title: "Player") { $0.player },
        Column(title: "Number") { $0.number }, Column(title: "Points") { $0.points },
        Column(title: "FGM") { $0.fieldGoalsMade }, Column(title: "FGA") { $0.fieldGoalsAttempted },
        Column(title: "FG%") { percent($0.fieldGoalPercent) },
        Column(title: "3PM") { $0.threesMade }, Column(title: "3PA") { $0.threesAttempted }, Column(title: "3P%") { percent($0.threePercent) },
        Column(title: "FTM") { $0.freeThrowsMade }, Column(title: "FTA") { $0.freeThrowsAttempted },
        Column(title: "FT%") { percent($0.freeThrowPercent) },
        Column(title: "REB") { $0.rebounds }, Column(title: "AST") { $0.assists }, Column(title: "STL") { $0.steals },
        Column(title: "BLK") { $0.blocks }, Column(title: "TO") { $0.turnovers }, Column(title: "PF") { $0.fouls },
        Column(title: "Team") { $0.team }, Column(title: "Opp. score") { $0.opponentPoints },
    ]

    static let json: [Column] = [
        Column("game_log_id") { $0.gameLogID }, Column("game_date") { $0.date }, Column("team") { $0.team }, Column("opponent") { $0.opponent },
        Column("sheet_path") { $0.sheetPath }, Column("line") { $0.line }, Column("number") { $0.number }, Column("player") { $0.player },
        Column("pts") { $0.points }, Column("fgm") { $0.fieldGoalsMade }, Column("fga") { $0.fieldGoalsAttempted }, Column("fg_pct") { $0.fieldGoalPercent },
        Column("fg3m") { $0.threesMade }, Column("fg3a") { $0.threesAttempted }, Column("fg3_pct") { $0.threePercent },
        Column("ftm") { $0.freeThrowsMade }, Column("fta") { $0.freeThrowsAttempted }, Column("ft_pct") { $0.freeThrowPercent },
        Column("fg2m") { $0.twosMade }, Column("fg2a") { $0.twosAttempted }, Column("reb") { $0.rebounds }, Column("ast") { $0.assists },
        Column("stl") { $0.steals }, Column("blk") { $0.blocks }, Column("tov") { $0.turnovers }, Column("pf") { $0.fouls },
        Column("opponent_points") { $0.opponentPoints },
    ]
}
