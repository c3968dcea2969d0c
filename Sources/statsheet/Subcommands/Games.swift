import ArgumentParser
import Foundation
import SheetModel
import SheetStore

/// `statsheet games`: the approved game logs, as the `goalie_game_logs` view gives them.
struct Games: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the approved game logs in the store.",
        discussion: """
            One row per approved game: athlete, date, context, conference, opponent, totals and, in csv and \
            json, every period (p1–p4: a lacrosse sheet's quarters, a hockey sheet's periods, a soccer sheet's halves; ot: \
            overtime or extra time). The columns are \
            those of the store's goalie_game_logs view (docs/store-schema.md).
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case table, csv, json }

    @OptionGroup var store: StoreOptions
    @Option(help: ArgumentHelp("Only this athlete (case does not matter).", valueName: "name")) var athlete: String?
    @OptionGroup var dates: DateRangeOptions
    @Option(help: "table, csv or json.") var format: Format = .table

    func run() async throws {
        let opened = try await store.openExisting()
        let logs = try await opened.goalieGameLogs(GameLogFilter(athlete: athlete, from: dates.from, to: dates.to))
        switch format {
        case .json:
            let objects = logs.map { log in
                Dictionary(uniqueKeysWithValues: GameLogColumns.all.map { ($0, GameLogColumns.value($0, of: log) ?? NSNull()) })
            }
            let data = try JSONSerialization.data(withJSONObject: objects, options: [.sortedKeys, .withoutEscapingSlashes])
            print(TerminalText.asciiSafeJSON(String(decoding: data, as: UTF8.self)))
        case .csv:
            print(GameLogColumns.all.joined(separator: ","))
            for log in logs {
                print(GameLogColumns.all.map { CSV.field(GameLogColumns.value($0, of: log)) }.joined(separator: ","))
            }
        case .table:
            // A store holding only box scores should not look empty.
            let lines = logs.isEmpty && athlete == nil ? try await opened.boxScoreLines(GameLogFilter(from: dates.from, to: dates.to)).count : 0
            print(table(logs, boxScoreLines: lines))
        }
    }

    func table(_ logs: [GoalieGameLog], boxScoreLines: Int = 0) -> String {
        guard !logs.isEmpty else {
            return "no approved goalie game logs" + (athlete == nil && dates.isEmpty ? "" : " match")
                + (boxScoreLines > 0 ? "; \(boxScoreLines) box-score player lines: statsheet box-scores" : "")
        }
        let header = ["date", "athlete", "context", "conf", "opponent", "shots", "saves", "ga", "clears", "save %"]
        let rows = logs.map { log -> [String] in
            let t = log.totals
            let percent = (t.shots ?? 0) > 0 ? String(format: "%.1f", 100 * Double(t.saves ?? 0) / Double(t.shots!)) : "—"
            func n(_ v: Int?) -> String { v.map(String.init) ?? "—" }
            let flagged = log.givenByFlags.isEmpty ? "" : "*"
            return [log.date ?? "—", (log.athlete ?? "—") + (log.givenByFlags.contains("athlete") ? flagged : ""),
                    (log.context ?? "—") + (log.givenByFlags.contains("context") ? flagged : ""), log.conference ?? "—",
                    (log.opponent ?? "—") + (log.givenByFlags.contains("opponent") ? flagged : ""),
                    n(t.shots), n(t.saves), n(t.goalsAllowed), n(t.clears), percent].map(TerminalText.escaped)
        }
        let widths = header.indices.map { i in max(header[i].count, rows.map { $0[i].count }.max() ?? 0) }
        let numeric = Set(5..<header.count)
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                numeric.contains(i) ? String(repeating: " ", count: widths[i] - cell.count) + cell
                    : cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        var lines = [line(header)] + rows.map(line)
        lines.append("\(logs.count) game\(logs.count == 1 ? "" : "s")"
                     + (logs.contains { !$0.givenByFlags.isEmpty } ? "; * given on the command line, not read from the sheet" : ""))
        return lines.joined(separator: "\n")
    }
}

/// The `goalie_game_logs` view's columns, in its order, for csv and json.
enum GameLogColumns {
    static let stats = ["shots", "saves", "goals_allowed", "clears"]
    static let all = ["game_log_id", "athlete", "game_date", "context", "conference", "opponent"] + stats
        + GoalieGameLog.periodColumns.flatMap { p in stats.map { "\(p)_\($0)" } }
        + ["source", "given_by_flags", "sheet_path", "sheet_sha256", "approved_at", "approved_by"]

    static func value(_ column: String, of log: GoalieGameLog) -> Any? {
        func stat(_ s: GoalieStats, _ name: String) -> Int? {
            switch name {
            case "shots": s.shots
            case "saves": s.saves
            case "goals_allowed": s.goalsAllowed
            default: s.clears
            }
        }
        switch column {
        case "game_log_id": return log.id
        case "athlete": return log.athlete
        case "game_date": return log.date
        case "context": return log.context
        case "conference": return log.conference
        case "opponent": return log.opponent
        case "source": return log.source
        case "given_by_flags": return log.givenByFlags.isEmpty ? nil : log.givenByFlags.joined(separator: ",")
        case "sheet_path": return log.sheetPath
        case "sheet_sha256": return log.sheetSHA256
        case "approved_at": return log.approvedAt.map { $0.formatted(.iso8601) }
        case "approved_by": return log.approvedBy
        default:
            if stats.contains(column) { return stat(log.totals, column) }
            let parts = column.split(separator: "_", maxSplits: 1).map(String.init)
            return log.periods[parts[0]].flatMap { stat($0, parts[1]) }
        }
    }
}

enum CSV {
    /// RFC 4180: quoted when it holds a comma, quote or line break; nil is empty.
    static func field(_ value: Any?) -> String {
        guard let value else { return "" }
        let text = "\(value)"
        guard text.contains(where: { ",\"\n\r".contains($0) }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// `--from` and `--to`, checked: both dates, in order.
struct DateRangeOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Only games on or after this date.", valueName: "YYYY-MM-DD")) var from: String?
    @Option(help: ArgumentHelp("Only games on or before this date.", valueName: "YYYY-MM-DD")) var to: String?

    var isEmpty: Bool { from == nil && to == nil }

    func validate() throws {
        for (flag, value) in [("--from", from), ("--to", to)] {
            if let value, !DateArgument.isValid(value) { throw ValidationError("\(flag) must be a date YYYY-MM-DD, not '\(value)'") }
        }
        if let from, let to, from > to { throw ValidationError("--from \(from) is after --to \(to)") }
    }
}

enum DateArgument {
    static func isValid(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let month = Int(parts[1]), let day = Int(parts[2]), Int(parts[0]) != nil else { return false }
        return (1...12).contains(month) && (1...31).contains(day)
    }
}
