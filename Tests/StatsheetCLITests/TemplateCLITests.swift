import Foundation
import SheetModel
import SheetStore
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

    /// A template without a `gameLog` (here the box score's, its section removed, in a folder searched
    /// before the bundled one) is scanned and stored with its readings, and makes no game log.
    @Test func aSheetWithoutGameLogIsStoredWithoutOne() throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var template = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.templates.appendingPathComponent("basketball-box.json"))) as? [String: Any])
        template["gameLog"] = nil
        let templates = folder.appendingPathComponent("templates")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: template).write(to: templates.appendingPathComponent("basketball-box.json"))
        let sheet = CLITests.root.appendingPathComponent("TestImages/basketball-box/printed/sheet-005.jpg")
        let db = folder.appendingPathComponent("store.sqlite").path
        let scan = try CLITests.run(["scan", "--templates", templates.path, "--db", db, sheet.path])
        #expect(scan.status == 0, "\(scan.stderr)")
        #expect(scan.stdout.contains("1 new sheet, 0 game logs"), "\(scan.stdout)")
    }

    /// The printed box scores, scanned and reviewed, come out of `box-scores` as their ground truth:
    /// one CSV row per player written in, in the usual box-score order, field goals 2PT + 3PT,
    /// percentages with one decimal and empty without an attempt. The review is a person's: only
    /// the fields flagged are corrected (to the truth), so a wrong number left unflagged fails here.
    @Test func printedBoxScoresExportTheirGroundTruth() async throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let samples = CLITests.root.appendingPathComponent("TestImages/basketball-box/printed")
        let db = folder.appendingPathComponent("store.sqlite").path
        let scan = try CLITests.run(["scan", "--db", db, samples.path])
        #expect(scan.status == 0, "\(scan.stderr)")
        let template = try SheetTemplate.decode(try Data(contentsOf: Self.templates.appendingPathComponent("basketball-box.json")))
        let store = try SQLiteSheetStore(path: db)
        var corrected = 0
        for sheet in try await store.reviewQueue() {
            let truth = try Self.truth(of: sheet.path)
            for field in try await store.sheetReview(sheetID: sheet.id).fields where field.stored.reading.flagged {
                _ = try await store.addCorrection(NewCorrection(sheetID: sheet.id, field: field.field, newValue: truth[field.field] ?? .empty,
                                                                reviewer: "test", at: Date()))
                corrected += 1
            }
            let review = try await store.sheetReview(sheetID: sheet.id)
            let failures = RuleCheck(template: template, values: review.values).failures()
            try await store.approveSheet(SheetApproval(sheetID: sheet.id, expectedRevision: review.revision, reviewer: "test", at: Date(),
                                                       gameLog: template.gameLog?.draft(from: review.values), ruleFailures: failures,
                                                       overrideReason: failures.isEmpty ? nil : "as written"))
        }
        #expect(corrected < 20, "a printed sheet needs few corrections")
        let csv = try CLITests.run(["box-scores", "--db", db, "--format", "csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        var rows = csv.stdout.split(separator: "\n").map(String.init)
        #expect(rows.removeFirst() == "Date,Opponent,Player,Number,Points,FGM,FGA,FG%,3PM,3PA,3P%,FTM,FTA,FT%,REB,AST,STL,BLK,TO,PF,Team,Opp. score")

        var expected: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: samples.path) where name.hasSuffix(".truth.json") {
            let truth = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: samples.appendingPathComponent(name))) as? [String: Any])
            let fields = try #require(truth["fields"] as? [String: Any])
            for row in (1...12).map({ String(format: "p%02d", $0) }) {
                guard let number = fields["\(row).num"] as? String else { continue }
                func n(_ column: String) -> Int { fields["\(row).\(column)"] as? Int ?? -1 }
                func percent(_ made: Int, _ attempted: Int) -> String {
                    attempted == 0 ? "" : String(format: "%.1f", 100 * Double(made) / Double(attempted))
                }
                let (fgm, fga) = (n("fg2m") + n("fg3m"), n("fg2a") + n("fg3a"))
                let cells: [Any] = [fields["date"] as? String ?? "", fields["opponent"] as? String ?? "", fields["\(row).name"] as? String ?? "",
                                    number, n("pts"), fgm, fga, percent(fgm, fga), n("fg3m"), n("fg3a"), percent(n("fg3m"), n("fg3a")),
                                    n("ftm"), n("fta"), percent(n("ftm"), n("fta")), n("reb"), n("ast"), n("stl"), n("blk"), n("to"), n("pf"),
                                    fields["team"] as? String ?? "", fields["opp.score"].map { "\($0)" } ?? ""]
                expected.append(cells.map { "\($0)" }.joined(separator: ","))
            }
        }
        #expect(expected.count >= 50, "six sheets of 8–12 players")
        #expect(rows.sorted() == expected.sorted())
        #expect(rows.contains { $0.hasPrefix("2024-07-29,Summit Lacrosse,Casey Brooks,47,5,2,3,66.7,1,2,50.0,0,0,,3,2,1,0,0,2,") },
                "sheet-001's first player, worked out by hand")
        let games = try CLITests.run(["games", "--db", db])
        #expect(games.stdout.contains("no approved goalie game logs; \(expected.count) box-score player lines: statsheet box-scores"),
                "a store of box scores does not look empty: \(games.stdout)")
    }

    /// A sheet's ground truth (`NAME.truth.json` beside it) as field values.
    static func truth(of image: String) throws -> [String: FieldValue] {
        let url = URL(fileURLWithPath: image).deletingPathExtension().appendingPathExtension("truth.json")
        let truth = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let fields = try #require(truth["fields"] as? [String: Any])
        return fields.mapValues { value in
            switch value {
            case let b as Bool where type(of: value) == type(of: NSNumber(value: true)): .boolean(b)
            case let i as Int: .integer(i)
            case let s as String: .string(s)
            default: .empty
            }
        }
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
