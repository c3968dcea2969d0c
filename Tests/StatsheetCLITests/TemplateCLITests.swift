import Foundation
import Testing

/// The template files as a user meets them through the built binary: `template check` on every file,
/// and hockey and soccer sheets scanned into a store, becoming game logs with no code of their own.
@Suite struct TemplateCLITests {
    static let templates = CLITests.root.appendingPathComponent("Templates")

    @Test func everyTemplateFilePassesCheck() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.templates.path)
            .filter { $0.hasSuffix(".json") }.sorted().map { "Templates/" + $0 }
        #expect(files.count >= 3)
        let check = try CLITests.run(["template", "check"] + files)
        #expect(check.status == 0, "\(check.stdout)")
        for file in files { #expect(check.stdout.contains("\(file): ok — "), "\(check.stdout)") }
    }

    /// A template without a `gameLog` (the basketball box score) is scanned and stored with its readings,
    /// and makes no game log.
    @Test func aSheetWithoutGameLogIsStoredWithoutOne() throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sheet = CLITests.root.appendingPathComponent("TestImages/basketball-box/printed/sheet-005.jpg")
        let db = folder.appendingPathComponent("store.sqlite").path
        let scan = try CLITests.run(["scan", "--db", db, sheet.path])
        #expect(scan.status == 0, "\(scan.stderr)")
        #expect(scan.stdout.contains("1 new sheet, 0 game logs"), "\(scan.stdout)")
    }

    /// Scanned without `--template`, every clean printed sheet becomes a game log whose periods are the
    /// ones the issue names (hockey periods 1–3 → p1–p3, soccer halves → p1–p2, OT and extra time →
    /// ot), with the sheet's ground truth in them; the columns the sport has no row for stay empty.
    @Test(arguments: [("hockey-goalie", [("p1", "p1"), ("p2", "p2"), ("p3", "p3"), ("ot", "ot")]),
                      ("soccer-keeper", [("p1", "h1"), ("p2", "h2"), ("ot", "et")])])
    func printedSheetsBecomeGameLogs(template: String, periods: [(String, String)]) throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let samples = CLITests.root.appendingPathComponent("TestImages/\(template)/printed")
        let db = folder.appendingPathComponent("store.sqlite").path
        let scan = try CLITests.run(["scan", "--db", db, samples.path])
        #expect(scan.status == 0, "\(scan.stderr)")
        let json = try CLITests.run(["games", "--db", db, "--format", "json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])

        // The not-future rule allows a day's slack, so sheets dated today or tomorrow are left out.
        func day(_ offset: Double) -> String {
            ISO8601DateFormatter.string(from: Date(timeIntervalSinceNow: offset * 86_400), timeZone: .current, formatOptions: [.withFullDate])
        }
        let (today, tomorrow) = (day(0), day(1))
        var pastSheets = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: samples.path) where name.hasSuffix(".truth.json") {
            let truth = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: samples.appendingPathComponent(name))) as? [String: Any])
            let fields = try #require(truth["fields"] as? [String: Any])
            #expect(truth["template"] as? String == template)
            let image = try #require(truth["image"] as? String)
            let logged = rows.first { ($0["sheet_path"] as? String)?.hasSuffix("/" + image) == true }
            let date = try #require(fields["date"] as? String)
            if date > tomorrow { #expect(logged == nil, "\(image) is dated \(date): it waits for review"); continue }
            guard date < today else { continue }
            pastSheets += 1
            let row = try #require(logged, "\(image) read clean and has a game log")
            #expect(row["athlete"] as? String == fields["athlete"] as? String, "\(image)")
            #expect(row["game_date"] as? String == fields["date"] as? String, "\(image)")
            for (stat, column) in [("shots", "shots"), ("saves", "saves"), ("goals", "goals_allowed")] {
                #expect(row[column] as? Int == fields["total.\(stat)"] as? Int, "\(image) total \(stat)")
                for (stored, rowPrefix) in periods {
                    #expect(row["\(stored)_\(column)"] as? Int == fields["\(rowPrefix).\(stat)"] as? Int, "\(image) \(stored) \(stat)")
                }
                for stored in ["p1", "p2", "p3", "p4", "ot"] where !periods.contains(where: { $0.0 == stored }) {
                    #expect(row["\(stored)_\(column)"] == nil || row["\(stored)_\(column)"] is NSNull, "\(image) \(stored) should be empty")
                }
            }
            #expect(row["clears"] == nil || row["clears"] is NSNull, "\(image): no clears on this sheet")
        }
        #expect(pastSheets >= 5, "most samples are dated in the past")
    }
}
