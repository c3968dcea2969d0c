import ArgumentParser
import SheetModel

/// The root command holds only configuration; each subcommand lives in Subcommands/.
struct Statsheet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "statsheet",
        abstract: "Read photos and scans of paper stat sheets into checked game data.",
        discussion: """
            Print a blank sheet with 'statsheet template render', fill it in at the game, then photograph \
            or scan it and run 'statsheet scan'. Fields read with confidence under \(Int(ReviewLine.standard)) are flagged for review; \
            clean sheets become game logs in the store ('statsheet games'), the rest wait ('statsheet sheets'); \
            'statsheet report' writes the season's charts and the review state to one HTML page.
            """,
        version: "0.1.0",
        subcommands: [Scan.self, Review.self, Games.self, BoxScores.self, Report.self, Sheets.self, Names.self, StoreCommand.self, Eval.self, TemplateCommand.self, Doctor.self]
    )
}
