import ArgumentParser
import Foundation
import SheetReport
import SheetStore

/// `statsheet report`: the season as one HTML page, for the people who read charts rather than tables.
struct Report: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the season's charts and the store's review state to one HTML file.",
        discussion: """
            Per goalie: save % game by game with the season to date, shots, saves and goals against, each period, \
            High School against Club, and the games with the sheet each came from. Per team: points, rebounds and \
            assists of every player, and the team's shooting. Then the store: sheets read, clean, waiting for review, \
            failed and why, fields flagged by cause, values reviewers changed. Every chart has its numbers in a table \
            beside it. The file is self-contained (no script, nothing fetched when it opens) and prints well. \
            --athlete alone leaves out box scores, --team alone goalie games.
            """)

    @OptionGroup var store: StoreOptions
    @Option(help: ArgumentHelp("Only this goalie's games (case does not matter).", valueName: "name")) var athlete: String?
    @Option(help: ArgumentHelp("Only this team's box scores (case does not matter).", valueName: "name")) var team: String?
    @OptionGroup var dates: DateRangeOptions
    @Option(help: ArgumentHelp("The HTML file to write.", valueName: "file")) var out: String = "report.html"

    func run() async throws {
        let opened = try await store.openExisting()
        let filters = ReportData.Filters(athlete: athlete, team: team, from: dates.from, to: dates.to)
        let data = try await ReportData.load(from: opened, storeName: store.displayName, filters: filters, at: Date())
        await StoreLocator.close(opened)
        let url = URL(fileURLWithPath: out)
        do {
            try Data(ReportPage.render(data).utf8).write(to: url, options: .atomic)
        } catch {
            throw RuntimeError("cannot write \(out): \(error.localizedDescription)")
        }
        print("wrote \(url.standardizedFileURL.path) (\(data.goalieGames.count) goalie game\(data.goalieGames.count == 1 ? "" : "s"), "
              + "\(Set(data.boxScoreLines.map(\.gameLogID)).count) box score\(Set(data.boxScoreLines.map(\.gameLogID)).count == 1 ? "" : "s"), "
              + "\(data.sheets.count) sheet\(data.sheets.count == 1 ? "" : "s") in the store)")
    }
}
