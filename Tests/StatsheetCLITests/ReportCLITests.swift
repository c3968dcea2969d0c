import Foundation
import GRDB
import OCRKit
import SheetModel
import SheetStore
import Testing

/// `statsheet report` end to end: a store filled from the bundled sample sheets, its report opened in
/// headless Chromium, and what the browser drew held against `games`, `box-scores` and `sheets`.
@Suite struct ReportCLITests {
    static let hostileAthlete = "<img src=x onerror=alert(1)>"
    static let hostileOpponent = "</script><script>alert(\"x\")</script> & O'Brien"
    static let reviewer = "coach <b>Kim</b>"

    /// A store of the printed and hand-filled samples of all four sports (100 sheets over three seasons) and a
    /// file that is no picture, with a hostile athlete and opponent written into two games; and its report.
    /// Scanning the samples is most of the time: one store serves every check, run one after the other.
    @Test(.enabled(if: Chromium.enabled, Comment(rawValue: Chromium.disabledReason)))
    func theSamplesReportInChromium() async throws {
        let (folder, db, report) = try await Self.sampleStoreAndReport()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.chartsAndTablesHoldTheStoresNumbers(db: db, report: report, folder: folder)
        for width in [390, 1280] { try Self.theLayoutHoldsAt(width, report: report, folder: folder) }
        try Self.noRequestLeavesThePage(report, folder: folder)
        try Self.theScreenshotIsNotBlank(report, folder: folder)
    }

    /// Without a browser: the options, the default file and where it is said to be, a store with no game, the mistakes.
    @Test func reportWritesWhereItSaysAndRefusesMistakes() throws {
        let help = try CLITests.run(["report", "--help"])
        for option in ["--db", "--athlete", "--team", "--season", "--seasons", "--from", "--to", "--out"] { #expect(help.stdout.contains(option), "\(option) missing") }
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("store.sqlite").path
        let missing = try CLITests.run(["report", "--db", db], in: folder)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no store at \(db)"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("report.html").path))

        try Data("not a picture".utf8).write(to: folder.appendingPathComponent("broken.png"))
        #expect(try CLITests.run(["scan", "--db", db, folder.path]).status == 1)
        let r = try CLITests.run(["report", "--db", db], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        let written = folder.appendingPathComponent("report.html").resolvingSymlinksInPath().path
        #expect(r.stdout == "wrote \(written) (0 goalie games, 0 box scores, 0 sheets in the store)\n", "\(r.stdout)")
        let html = try String(contentsOfFile: written, encoding: .utf8)
        #expect(html.contains("No approved goalie games."))
        #expect(html.contains("broken.png"), "the failed file is listed")

        let nobody = try CLITests.run(["report", "--db", db, "--athlete", "Nobody", "--out", folder.appendingPathComponent("n.html").path])
        #expect(nobody.status == 1)
        #expect(nobody.stderr.contains("no athlete named Nobody in the store"), "\(nobody.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("n.html").path), "no empty page written")
        let badDate = try CLITests.run(["report", "--db", db, "--to", "11/04/2026"])
        #expect(badDate.status == 64)
        #expect(badDate.stderr.contains("--to must be a date YYYY-MM-DD"))
        let unwritable = try CLITests.run(["report", "--db", db, "--out", folder.appendingPathComponent("no/such/folder.html").path])
        #expect(unwritable.status == 1)
        #expect(unwritable.stderr.contains("cannot write"), "\(unwritable.stderr)")
    }

    static func sampleStoreAndReport() async throws -> (folder: URL, db: String, report: URL) {
        let folder = try CLITests.temporaryFolder()
        let db = folder.appendingPathComponent("store.sqlite").path
        try Data("not a picture".utf8).write(to: folder.appendingPathComponent("sheet-999.png"))
        // 100 sheets: printed and hand-filled phone photos of all four sports, some waiting for review.
        let sets = ["lacrosse-goalie", "hockey-goalie", "soccer-keeper", "basketball-box"].flatMap { sport in
            ["printed", "handwritten-phone"].map { CLITests.root.appendingPathComponent("TestImages/\(sport)/\($0)").path }
        }
        let scan = try CLITests.run(["scan", "--db", db, "--jobs", "2"] + sets)
        #expect(scan.status == 0, "\(scan.stderr)")
        #expect(scan.stdout.contains("100 sheets"), "\(scan.stdout)")
        #expect(try CLITests.run(["scan", "--db", db, folder.path]).status == 1, "the broken file fails")
        let queue = try DatabaseQueue(path: db)
        try await queue.write { db in
            try db.execute(sql: "UPDATE game_logs SET athlete = ? WHERE id = (SELECT MIN(game_log_id) FROM goalie_game_logs)",
                           arguments: [hostileAthlete])
            try db.execute(sql: "UPDATE game_logs SET opponent = ? WHERE id = (SELECT MAX(game_log_id) FROM goalie_game_logs)",
                           arguments: [hostileOpponent])
            // An athlete of two sports: a hockey game of the lacrosse samples' busiest goalie.
            try db.execute(sql: """
                UPDATE game_logs SET athlete = (SELECT athlete FROM goalie_game_logs g JOIN sheets s ON s.sha256 = g.sheet_sha256
                                                WHERE s.template_id = 'lacrosse-goalie' AND athlete <> ? GROUP BY athlete ORDER BY COUNT(*) DESC LIMIT 1)
                WHERE id = (SELECT MIN(g.id) FROM game_logs g JOIN sheets s ON s.id = g.sheet_id WHERE s.template_id = 'hockey-goalie' AND g.approved_at IS NOT NULL)
                """, arguments: [hostileAthlete])
        }
        try queue.close()
        // A reviewer's change, as the review screen records it.
        let store = try SQLiteSheetStore(path: db)
        let waiting = try #require(try await store.sheets(status: .needsReview).first { $0.templateID == "lacrosse-goalie" })
        _ = try await store.addCorrection(NewCorrection(sheetID: waiting.id, field: "q1.shots", newValue: .integer(9), reviewer: reviewer,
                                                        at: Date()))
        let report = folder.appendingPathComponent("report.html")
        let r = try CLITests.run(["report", "--db", db, "--out", report.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("wrote \(report.path) ("), "\(r.stdout)")
        return (folder, db, report)
    }

    /// What the probe script measured in the rendered page.
    struct Probe: Decodable {
        struct Chart: Decodable {
            var id: String
            var width: Double, height: Double, viewWidth: Double, viewHeight: Double
            var marks: Int, drawn: Int, outside: Int, noData: Int
            var title: String, desc: String
        }
        var charts: [Chart]
        var tables: [String: [[String: String?]]]
        var text: String
        var images: Int
        var elementsWithHandlers: Int
    }

    /// Reads the rendered DOM from inside the browser: each chart's laid-out size and how many of its marks
    /// have a non-empty box inside it, and every data table's cells. The report itself has no script and
    /// forbids one; this copy of it adds one and allows it, and writes what it found into the page as base64.
    static let probe = """
        <script>(function(){
        const r={charts:[],tables:{},text:document.body.innerText,images:document.images.length,elementsWithHandlers:0};
        for(const e of document.querySelectorAll('*'))for(const a of e.attributes)if(a.name.startsWith('on'))r.elementsWithHandlers++;
        for(const svg of document.querySelectorAll('svg.chart')){
          const b=svg.getBoundingClientRect(),vb=svg.viewBox.baseVal;let drawn=0,outside=0;
          for(const m of svg.querySelectorAll('.mark')){const k=m.getBBox();
            if(k.width+k.height>0)drawn++;
            if(k.x<-1||k.y<-1||k.x+k.width>vb.width+1||k.y+k.height>vb.height+1)outside++;}
          const named=(svg.getAttribute('aria-labelledby')||'').split(' ').map(i=>((document.getElementById(i)||{}).textContent||'').trim());
          r.charts.push({id:svg.id,width:b.width,height:b.height,viewWidth:vb.width,viewHeight:vb.height,
            marks:svg.querySelectorAll('.mark').length,drawn:drawn,outside:outside,noData:svg.querySelectorAll('.no-data').length,
            title:named[0]||'',desc:named[1]||''});}
        for(const t of document.querySelectorAll('table[data-table]')){const rows=r.tables[t.dataset.table]||(r.tables[t.dataset.table]=[]);
          for(const tr of t.tBodies[0].rows){const o={row:tr.dataset.row||null};for(const td of tr.cells)o[td.dataset.col]=td.textContent;rows.push(o);}}
        const pre=document.createElement('pre');pre.id='statsheet-probe';
        pre.textContent=btoa(unescape(encodeURIComponent(JSON.stringify(r))));document.body.appendChild(pre);})();</script>
        """

    static func probed(_ report: URL) throws -> Probe {
        let html = try String(contentsOf: report, encoding: .utf8)
        let probePage = report.deletingLastPathComponent().appendingPathComponent("probe.html")
        try html.replacingOccurrences(of: "default-src 'none';", with: "default-src 'none'; script-src 'unsafe-inline';")
            .replacingOccurrences(of: "</body>", with: probe + "</body>").write(to: probePage, atomically: true, encoding: .utf8)
        let dom = try Chromium.dumpDOM(probePage).dom
        let start = try #require(dom.range(of: "<pre id=\"statsheet-probe\">"), "the probe did not run")
        let end = try #require(dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex))
        let data = try #require(Data(base64Encoded: String(dom[start.upperBound..<end.lowerBound])))
        return try JSONDecoder().decode(Probe.self, from: data)
    }

    static func chartsAndTablesHoldTheStoresNumbers(db: String, report: URL, folder: URL) throws {
        let html = try String(contentsOf: report, encoding: .utf8)
        #expect(!html.contains("http://") && !html.contains("https://"), "an address in the file")
        let probe = try probed(report)

        // The charts are drawn: each laid out at the size it was written, its marks inside it.
        #expect(probe.charts.count == html.components(separatedBy: "<svg class=\"chart\"").count - 1)
        #expect(probe.charts.count >= 10, "\(probe.charts.count) charts")
        #expect(probe.charts.filter { $0.marks > 0 }.count > probe.charts.count * 9 / 10, "most charts have something to draw")
        for chart in probe.charts {
            #expect(abs(chart.width - chart.viewWidth) < 0.5 && abs(chart.height - chart.viewHeight) < 0.5, "\(chart.id): \(chart.width)×\(chart.height)")
            // A chart with nothing to draw (a period without a shot) says so instead.
            #expect(chart.marks > 0 ? chart.drawn > 0 : chart.noData == 1, "\(chart.id) draws nothing")
            #expect(chart.outside == 0, "\(chart.id): \(chart.outside) marks outside the chart")
            #expect(!chart.title.isEmpty && chart.desc.count >= 10, "\(chart.id) has no text alternative")
        }

        // The games tables hold what `statsheet games` gives.
        let games = try #require(try JSONSerialization.jsonObject(with: Data(CLITests.run(["games", "--db", db, "--format", "json"]).stdout.utf8))
                                 as? [[String: Any]])
        #expect(games.count >= 30, "most samples are clean games")
        let rows = Dictionary(grouping: probe.tables["games"] ?? []) { ($0["row"] ?? nil) ?? "" }
        #expect(Set(rows.keys) == Set(games.map { "\($0["game_log_id"] ?? "")" }))
        for game in games {
            func text(_ key: String) -> String { (game[key] as? NSNumber).map { "\($0)" } ?? (game[key] as? String) ?? "—" }
            let shots = game["shots"] as? Int, saves = game["saves"] as? Int
            let labels = ["high_school": "High School", "club": "Club", "conference": "Conference", "non_conference": "Non-conference"]
            let context = [game["context"] as? String, game["conference"] as? String].compactMap { $0.map { labels[$0] ?? $0 } }
            var expected: [String: String] = [
                "game_date": text("game_date"), "opponent": text("opponent"), "shots": text("shots"), "saves": text("saves"),
                "goals_allowed": text("goals_allowed"),
                "save_pct": shots.map { $0 > 0 ? String(format: "%.1f", 100 * Double(saves ?? 0) / Double($0)) : "—" } ?? "—",
                "context": context.isEmpty ? "—" : context.joined(separator: ", "),
            ]
            for row in rows[text("game_log_id")] ?? [] {
                if row.keys.contains("clears") { expected["clears"] = text("clears") }
                for (key, value) in expected { #expect(row[key] ?? nil == value, "game \(text("game_log_id")) \(key)") }
            }
        }

        // The players' lines hold what `statsheet box-scores` gives.
        let lines = try #require(try JSONSerialization.jsonObject(with: Data(CLITests.run(["box-scores", "--db", db, "--format", "json"]).stdout.utf8))
                                 as? [[String: Any]])
        #expect(!lines.isEmpty, "the basketball samples give box scores")
        let drawnLines = Dictionary(grouping: probe.tables["box-lines"] ?? []) { ($0["row"] ?? nil) ?? "" }
        #expect(drawnLines.count == lines.count)
        for line in lines {
            let key = "\(line["game_log_id"] ?? "")-\(line["line"] ?? "")"
            let row = try #require(drawnLines[key]?.first, "no line \(key)")
            for stat in ["pts", "reb", "ast", "stl", "blk", "tov", "pf"] {
                #expect(row[stat] ?? nil == ((line[stat] as? Int).map(String.init) ?? "—"), "\(key) \(stat)")
            }
        }
        // Each game's score and result: the players' points against the opponent's score `box-scores` gives.
        let teamGames = Dictionary(grouping: probe.tables["team-games"] ?? []) { ($0["row"] ?? nil) ?? "" }
        let byGame = Dictionary(grouping: lines) { "\($0["game_log_id"] ?? "")" }
        #expect(teamGames.count == byGame.count)
        for (game, gameLines) in byGame {
            let row = try #require(teamGames[game]?.first, "no game \(game)")
            let points = gameLines.compactMap { $0["pts"] as? Int }.reduce(0, +)
            let theirs = try #require(gameLines.first?["opponent_points"] as? Int, "the printed box scores give the opponent's score")
            #expect(row["pts"] ?? nil == "\(points)" && row["opp_pts"] ?? nil == "\(theirs)", "game \(game)")
            #expect(row["result"] ?? nil == "\(points > theirs ? "W" : points < theirs ? "L" : "T") \(points)–\(theirs)", "game \(game)")
        }

        // The store's state is what `statsheet sheets` says.
        let waiting = try CLITests.run(["sheets", "--db", db, "--status", "waiting", "--json"]).stdout.split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(Set((probe.tables["waiting"] ?? []).compactMap { $0["row"] ?? nil }) == Set(waiting.map { "\($0["game_log_id"] ?? "")" }))
        let failed = probe.tables["failures"] ?? []
        #expect(failed.count == 1)
        #expect(failed.first?["path"] ?? nil == "sheet-999.png", "the file's name, not where it lies")
        #expect((failed.first?["error"] ?? nil)?.contains("not an image") == true)

        let corrections = probe.tables["corrections"] ?? []
        #expect(corrections.count == 1)
        #expect(corrections.first?["field"] ?? nil == "q1.shots")
        #expect(corrections.first?["changed"] ?? nil == "9")
        #expect(corrections.first?["reviewer"] ?? nil == reviewer)

        // The hostile names are text: shown as written, no element made of them.
        #expect(probe.text.contains(hostileAthlete))
        #expect(probe.text.contains(hostileOpponent))
        #expect(probe.images == 0)
        #expect(probe.elementsWithHandlers == 0)
    }

    /// What the wrapper page measured of the report framed at one width.
    struct Layout: Decodable {
        var scrollWidth: Double, clientWidth: Double
        var minFont: Double, minFontText: String
        var charts: Int, labelled: Int
        var gameRows: Int, keyStatOff: Int, keyStatOffText: String
        var shownAll: Int, shownClub: Int, shownSeason: Int, articlesAll: Int, articlesSeason: Int
        var sportSections: [String]
    }

    /// Frames the report in an iframe `width` px wide and measures it from the wrapper (the report itself holds
    /// no script): page overflow, the smallest text as drawn (SVG text scaled by its chart), charts without a
    /// name, each game's date, opponent and save % inside the frame, and what the switches leave shown.
    static func layout(_ report: URL, width: Int) throws -> Layout {
        let wrapper = report.deletingLastPathComponent().appendingPathComponent("frame-\(width).html")
        try """
            <!DOCTYPE html><html><body style="margin:0"><iframe id="f" src="\(report.lastPathComponent)" style="width:\(width)px;height:4000px;border:0"></iframe>
            <pre id="statsheet-layout"></pre><script>
            const f=document.getElementById('f');
            f.addEventListener('load',()=>{const d=f.contentDocument,w=f.contentWindow,r={};
              const shown=e=>e.getClientRects().length>0;
              r.scrollWidth=d.documentElement.scrollWidth;r.clientWidth=d.documentElement.clientWidth;
              r.minFont=1e9;r.minFontText='';
              for(const e of d.body.querySelectorAll('*')){
                if(!shown(e)||![...e.childNodes].some(n=>n.nodeType===3&&n.textContent.trim()))continue;
                let size=parseFloat(w.getComputedStyle(e).fontSize);const svg=e.closest('svg');
                if(svg&&svg.viewBox&&svg.viewBox.baseVal&&svg.viewBox.baseVal.width>0)size*=svg.getBoundingClientRect().width/svg.viewBox.baseVal.width;
                if(size<r.minFont){r.minFont=size;r.minFontText=e.textContent.trim().slice(0,40);}}
              const charts=[...d.querySelectorAll('svg.chart')];r.charts=charts.length;
              r.labelled=charts.filter(s=>(s.getAttribute('aria-labelledby')||'').split(' ').every(i=>((d.getElementById(i)||{}).textContent||'').trim().length>0)).length;
              const rows=()=>[...d.querySelectorAll('table[data-table=games] tbody tr')].filter(shown);
              r.gameRows=rows().length;r.keyStatOff=0;r.keyStatOffText='';
              for(const tr of rows())for(const c of ['game_date','opponent','save_pct']){const b=tr.querySelector('td[data-col='+c+']').getBoundingClientRect();
                if(b.right>w.innerWidth+0.5){r.keyStatOff++;r.keyStatOffText=c+' '+b.right;}}
              const articles=()=>[...d.querySelectorAll('article')].filter(shown).length;
              r.shownAll=rows().length;r.articlesAll=articles();
              d.getElementById('show-club').checked=true;r.shownClub=rows().length;
              d.getElementById('show-all').checked=true;
              const s0=d.getElementById('season-s0');if(s0){s0.checked=true;}r.shownSeason=rows().length;r.articlesSeason=articles();
              d.getElementById('season-all')&&(d.getElementById('season-all').checked=true);
              r.sportSections=[...d.querySelectorAll('section.sport h2')].map(h=>h.textContent);
              document.getElementById('statsheet-layout').textContent=btoa(unescape(encodeURIComponent(JSON.stringify(r))));});
            </script></body></html>
            """.write(to: wrapper, atomically: true, encoding: .utf8)
        let dom = try Chromium.run(wrapper, ["--window-size=1400,1000", "--allow-file-access-from-files", "--virtual-time-budget=5000", "--dump-dom"]).stdout
        let start = try #require(dom.range(of: "<pre id=\"statsheet-layout\">"), "no wrapper")
        let end = try #require(dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex))
        let data = try #require(Data(base64Encoded: String(dom[start.upperBound..<end.lowerBound])), "the wrapper measured nothing: \(dom.prefix(300))")
        return try JSONDecoder().decode(Layout.self, from: data)
    }

    static func theLayoutHoldsAt(_ width: Int, report: URL, folder: URL) throws {
        let m = try layout(report, width: width)
        #expect(m.scrollWidth <= m.clientWidth, "\(width) px: the page is \(m.scrollWidth) px wide in \(m.clientWidth)")
        #expect(m.minFont >= 10, "\(width) px: text of \(m.minFont) px: \(m.minFontText)")
        #expect(m.charts >= 10 && m.labelled == m.charts, "\(width) px: \(m.charts - m.labelled) of \(m.charts) charts unnamed")
        #expect(m.gameRows >= 30 && m.keyStatOff == 0, "\(width) px: \(m.keyStatOff) cells off screen (\(m.keyStatOffText))")
        #expect(m.sportSections == ["Lacrosse", "Hockey", "Soccer", "Basketball"])
        // The switches change what is shown: club games are fewer than all, one season fewer than all seasons.
        #expect(m.shownClub > 0 && m.shownClub < m.shownAll, "club \(m.shownClub) of \(m.shownAll)")
        #expect(m.shownSeason > 0 && m.shownSeason < m.shownAll, "one season \(m.shownSeason) of \(m.shownAll)")
        #expect(m.articlesSeason <= m.articlesAll)
    }

    /// The report makes no request when it opens, and tries none the policy would have to refuse.
    static func noRequestLeavesThePage(_ report: URL, folder: URL) throws {
        let log = folder.appendingPathComponent("net.json")
        let console = try Chromium.dumpDOM(report, netLog: log).console
        #expect(try Chromium.pageRequests(netLog: log) == [])
        #expect(!console.contains("Content Security Policy"), "the page tried to load something: \(console)")
    }

    /// The check itself: a page that loads an image from the network is seen doing so.
    @Test(.enabled(if: Chromium.enabled, Comment(rawValue: Chromium.disabledReason)))
    func aPageThatMakesARequestIsCaught() throws {
        let folder = try CLITests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let leaky = folder.appendingPathComponent("leaky.html"), leakyLog = folder.appendingPathComponent("leaky.json")
        try "<!DOCTYPE html><p>x<img src=\"http://statsheet.invalid/x.png\">".write(to: leaky, atomically: true, encoding: .utf8)
        _ = try Chromium.dumpDOM(leaky, netLog: leakyLog)
        #expect(try Chromium.pageRequests(netLog: leakyLog) == ["http://statsheet.invalid/x.png"])
    }

    /// A screenshot of the report: the size asked for, and not blank.
    static func theScreenshotIsNotBlank(_ report: URL, folder: URL) throws {
        let png = folder.appendingPathComponent("report.png")
        try Chromium.screenshot(report, to: png, width: 1100, height: 1500)
        let bytes = [UInt8](try Data(contentsOf: png))
        let header = try ImageHeader.read(bytes)
        #expect((header.width, header.height) == (1100, 1500))
        let gray = try Image.decode(bytes, format: .png).image.grayBuffer()
        var histogram = [Int](repeating: 0, count: 256)
        for p in gray.pixels { histogram[Int(p)] += 1 }
        let background = histogram.firstIndex(of: histogram.max() ?? 0) ?? 255
        let inked = gray.pixels.count - histogram[max(background - 8, 0)...min(background + 8, 255)].reduce(0, +)
        #expect(Double(inked) / Double(gray.pixels.count) > 0.03, "\(inked) pixels differ from the background")
        #expect(histogram.filter { $0 > 50 }.count > 20, "too few shades for text and charts")
    }
}
