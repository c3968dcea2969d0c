import ArgumentParser
import Foundation
import SheetModel
import SheetPipeline
import SheetReport
import SheetStore

/// `statsheet report`: the season as one HTML page, for the people who read charts rather than tables.
struct Report: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the season's charts and the store's review state to one HTML file.",
        discussion: """
            By sport (the templates' sport key), then athlete or team, then season. Per goalie: save % game by game \
            with each season to date, shots, saves, goals against and clears, each period, High School against Club, \
            conference splits, opponents, and the differences in save % bigger than the shot counts allow by chance. \
            Per team: score and result of each game, the season's line, every player's season (totals, per-game \
            averages, FG/3P/FT %, STL, BLK, TO, PF). Then the store: sheets read, waiting and why, failed files, \
            fields flagged by cause, values reviewers changed or confirmed. The page switches between All, High \
            School, Club and conference games and between seasons with CSS alone: no script, nothing fetched when it \
            opens, and every game shown where the switches do not work. A season is the school year from August 1 \
            (2025-26) unless --seasons names windows. --athlete alone leaves out box scores, --team alone goalie games.
            """)

    @OptionGroup var store: StoreOptions
    @Option(help: ArgumentHelp("Only this goalie's games (case does not matter).", valueName: "name")) var athlete: String?
    @Option(help: ArgumentHelp("Only this team's box scores (case does not matter).", valueName: "name")) var team: String?
    @Option(help: ArgumentHelp("Only this season's games (2025-26, or a name from --seasons).", valueName: "name")) var season: String?
    @Option(help: ArgumentHelp(#"A JSON file of a club's seasons: {"seasons": [{"sport", "name", "from", "to"}]}."#, valueName: "file"))
    var seasons: String?
    @OptionGroup var dates: DateRangeOptions
    @OptionGroup var templates: TemplateOptions
    @Option(help: ArgumentHelp("The HTML file to write.", valueName: "file")) var out: String = "report.html"

    func run() async throws {
        let calendar: SeasonCalendar
        if let seasons {
            guard let data = FileManager.default.contents(atPath: seasons) else { throw RuntimeError("cannot read \(seasons)") }
            calendar = try SeasonCalendar.load(data, file: seasons)
        } else {
            calendar = SeasonCalendar()
        }
        // Each template's sport; a store read with templates no longer found still reports, by template id.
        let library = try? templates.library()
        let sports = Dictionary((library?.templates ?? []).compactMap { t in t.sport.map { (t.id, $0) } }, uniquingKeysWith: { a, _ in a })
        let opened = try await store.openExisting()
        let filters = ReportData.Filters(athlete: athlete, team: team, from: dates.from, to: dates.to, season: season)
        let data: ReportData
        do {
            data = try await ReportData.load(from: opened, storeName: store.displayName, filters: filters, at: Date(), sports: sports, calendar: calendar)
        } catch let unknown as UnknownName {
            await StoreLocator.close(opened)
            throw RuntimeError(unknown.description)
        }
        await StoreLocator.close(opened)
        let url = URL(fileURLWithPath: out)
        do {
            try Data(ReportPage.render(data).utf8).write(to: url, options: .atomic)
        } catch {
            throw RuntimeError("cannot write \(out): \(error.localizedDescription)")
        }
        let boxScores = Set(data.boxScoreLines.map(\.gameLogID)).count
        print("wrote \(url.standardizedFileURL.path) (\(data.goalieGames.count) goalie game\(data.goalieGames.count == 1 ? "" : "s"), "
              + "\(boxScores) box score\(boxScores == 1 ? "" : "s"), "
              + "\(data.sheets.count) sheet\(data.sheets.count == 1 ? "" : "s") in the store)")
    }
}
