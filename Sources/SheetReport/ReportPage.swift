import Foundation
import SheetModel
import SheetStore

/// The report as one HTML document: styles and charts inline, no script, and a Content-Security-Policy
/// that forbids every load, so opening the file never reaches the network.
public enum ReportPage {
    public static func render(_ data: ReportData) -> String {
        let athletes = data.filters.includesGoalies ? data.athleteSeasons : []
        let teams = data.filters.includesBoxScores ? data.teamSeasons : []
        let state = StoreState(data)
        let seasonKeys = SeasonKeys(athletes.flatMap(\.seasonNames) + teams.flatMap(\.seasonNames))
        let sheets = data.sheetOfGameLog
        var body = header(data, seasons: athletes, teams: teams, state: state, keys: seasonKeys)
        let sports = (athletes.map(\.sport) + teams.map(\.sport)).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        if data.filters.includesGoalies && athletes.isEmpty {
            body += "<section id=\"goalies\"><h2>Goalies</h2><p class=\"empty\">No approved goalie games\(data.filters.isEmpty ? "" : " match these filters").</p></section>"
        }
        if data.filters.includesBoxScores && teams.isEmpty {
            body += "<section id=\"box-scores\"><h2>Box scores</h2><p class=\"empty\">No approved box scores\(data.filters.isEmpty ? "" : " match these filters").</p></section>"
        }
        for (s, sport) in sports.enumerated() {
            let goalies = athletes.enumerated().filter { $0.element.sport == sport }
            let sportTeams = teams.enumerated().filter { $0.element.sport == sport }
            let id = HTML.id("sport", sport, s)
            let keys = Set(goalies.flatMap { $0.element.seasonNames } + sportTeams.flatMap { $0.element.seasonNames }).compactMap { seasonKeys.key($0) }.sorted()
            body += "<section class=\"sport\" id=\"\(id)\" data-seasons=\"\(keys.joined(separator: " "))\"><h2>\(HTML.escape(sportLabel(sport)))</h2>"
            for (i, season) in goalies { body += athlete(season, index: i, keys: seasonKeys, sheets: sheets) }
            for (i, team) in sportTeams { body += self.team(team, index: i, keys: seasonKeys) }
            body += "</section>"
        }
        body += store(state)
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="color-scheme" content="light dark">
            <title>\(HTML.escape(title(data)))</title>
            <style>\(stylesheet)\(filterRules(seasonKeys))</style></head>
            <body>\(SVG.definitions)<main>\(body)</main>
            <footer>Written by statsheet from \(HTML.escape(data.storeName)) on \(HTML.escape(stamp(data.generatedAt))). \
            Only approved games are counted; the store's state covers every sheet.</footer></body></html>

            """
    }

    /// Season names as safe attribute values (`s0`, `s1`, …), in name order: a club's season names are its own text.
    struct SeasonKeys {
        var names: [String]
        init(_ names: [String]) { self.names = Set(names).sorted() }
        func key(_ name: String) -> String? { names.firstIndex(of: name).map { "s\($0)" } }
    }

    /// The filters' CSS: a checked radio button hides what it does not select. No script, so the page reads in
    /// full wherever CSS (or `:has`) is missing: every row shows.
    static func filterRules(_ keys: SeasonKeys) -> String {
        var rules = ""
        for context in ["high_school", "club", "conference"] {
            rules += "body:has(#show-\(context):checked) [data-ctx]:not([data-ctx~=\"\(context)\"]){display:none}"
        }
        for (i, _) in keys.names.enumerated() {
            rules += "body:has(#season-s\(i):checked) [data-season]:not([data-season=\"s\(i)\"]),"
                + "body:has(#season-s\(i):checked) [data-seasons]:not([data-seasons~=\"s\(i)\"]){display:none}"
        }
        return rules
    }

    /// "Season report", with the athlete or team asked for as the store spells them (the filter ignores case).
    static func title(_ data: ReportData) -> String {
        let athlete = data.filters.athlete.map { a in data.goalieGames.first?.athlete ?? a }
        let team = data.filters.team.map { t in data.boxScoreLines.first?.team ?? t }
        let who = [athlete, team].compactMap { $0 }.joined(separator: ", ")
        return (who.isEmpty ? "Season report" : "Season report: \(who)")
    }

    /// A time as people read it, in UTC: `2026-11-22 15:04 UTC`.
    static func stamp(_ date: Date) -> String {
        String(date.formatted(.iso8601).replacingOccurrences(of: "T", with: " ").prefix(16)) + " UTC"
    }

    // MARK: Header

    static func header(_ data: ReportData, seasons: [AthleteSeason], teams: [TeamSeason], state: StoreState, keys: SeasonKeys) -> String {
        var filters: [String] = []
        if let a = data.filters.athlete { filters.append("athlete \(a)") }
        if let t = data.filters.team { filters.append("team \(t)") }
        if let s = data.filters.season { filters.append("season \(s)") }
        if let f = data.filters.from { filters.append("from \(f)") }
        if let t = data.filters.to { filters.append("to \(t)") }
        let goalieGames = seasons.reduce(0) { $0 + $1.games.count }
        let all = seasons.reduce((0, 0)) { ($0.0 + $1.totals.shots, $0.1 + $1.totals.saves) }
        var out = "<header><h1>\(HTML.escape(title(data)))</h1><p class=\"meta\">\(HTML.escape(data.storeName))"
            + (filters.isEmpty ? " · every game" : " · " + HTML.escape(filters.joined(separator: ", "))) + "</p>"
        out += "<dl class=\"tiles\">"
        if data.filters.includesGoalies {
            out += tile("Goalie games", "\(goalieGames)", "\(Number.plural(Set(seasons.map { $0.displayName.lowercased() }).count, "athlete"))")
            out += tile("Save %", Number.percent(savePercent(saves: all.1, shots: all.0)), "\(all.1) saves of \(all.0) shots")
        }
        if data.filters.includesBoxScores {
            out += tile("Box scores", "\(teams.reduce(0) { $0 + $1.games.count })", Number.plural(teams.count, "team"))
        }
        out += tile("Waiting for review", "\(state.waiting.count)", "of \(Number.plural(state.sheets, "sheet")) read")
        out += tile("Failed files", "\(state.failures.count)", state.failures.isEmpty ? "none" : "see the store's state")
        out += "</dl>"
        out += filterForm(keys, hasConference: seasons.contains { $0.games.contains { $0.conference == "conference" } })
        var links: [String] = []
        for (i, s) in seasons.enumerated() {
            links.append("<a href=\"#\(HTML.id("athlete", s.displayName + " " + s.sport, i))\">\(HTML.escape(s.displayName))"
                         + (s.sport.isEmpty ? "" : " <span class=\"sport-tag\">\(HTML.escape(sportLabel(s.sport)))</span>") + "</a>")
        }
        for (i, t) in teams.enumerated() { links.append("<a href=\"#\(HTML.id("team", t.displayName + " " + t.sport, i))\">\(HTML.escape(t.displayName))</a>") }
        links.append("<a href=\"#store\">The store's state</a>")
        return out + "<nav aria-label=\"Contents\">" + links.joined(separator: " ") + "</nav></header>"
    }

    /// Radio buttons the stylesheet reads (`filterRules`): which games, which season. Hidden in print.
    static func filterForm(_ keys: SeasonKeys, hasConference: Bool) -> String {
        var out = "<form class=\"filters\" aria-label=\"What the page shows\"><fieldset><legend>Games</legend>"
        let contexts = [("all", "All"), ("high_school", "High School"), ("club", "Club")] + (hasConference ? [("conference", "Conference")] : [])
        for (value, label) in contexts {
            out += "<label class=\"opt\"><input type=\"radio\" name=\"show\" id=\"show-\(value)\" value=\"\(value)\"\(value == "all" ? " checked" : "")>"
                + "\(label)</label>"
        }
        out += "</fieldset>"
        if keys.names.count > 1 {
            out += "<fieldset><legend>Season</legend><label class=\"opt\"><input type=\"radio\" name=\"season\" id=\"season-all\" value=\"all\" checked>All</label>"
            for (i, name) in keys.names.enumerated() {
                out += "<label class=\"opt\"><input type=\"radio\" name=\"season\" id=\"season-s\(i)\" value=\"s\(i)\">\(HTML.escape(name))</label>"
            }
            out += "</fieldset>"
        }
        return out + "</form>"
    }

    static func tile(_ label: String, _ value: String, _ note: String) -> String {
        "<div class=\"tile\"><dt>\(HTML.escape(label))</dt><dd><span class=\"big\">\(HTML.escape(value))</span>"
            + "<span class=\"small\">\(HTML.escape(note))</span></dd></div>"
    }

    /// The words of a game's context and conference as its row's `data-ctx`.
    static func contextTokens(_ g: GoalieGameLog) -> String {
        [g.context, g.conference].compactMap { $0 }.joined(separator: " ")
    }

    // MARK: Goalies

    static func athlete(_ season: AthleteSeason, index: Int, keys: SeasonKeys, sheets: [Int64: SheetSummary]) -> String {
        let id = HTML.id("athlete", season.displayName + " " + season.sport, index)
        let games = season.games, labels = games.map { $0.date ?? "no date" }
        let totals = season.totals
        let pct = season.savePercents, toDate = season.seasonToDate
        let seasonNames = season.seasonNames
        let seasonAttr = seasonNames.compactMap { keys.key($0) }.joined(separator: " ")
        var out = "<article class=\"athlete\" id=\"\(id)\" data-seasons=\"\(seasonAttr)\"><h3>\(HTML.escape(season.displayName))"
            + (season.sport.isEmpty ? "" : " <span class=\"sport-tag\">\(HTML.escape(sportLabel(season.sport)))</span>") + "</h3>"
        out += "<p class=\"lede\">\(Number.plural(games.count, "game")) in \(Number.plural(seasonNames.count, "season")) · "
            + "\(totals.saves) saves of \(totals.shots) shots · save % \(Number.percent(savePercent(saves: totals.saves, shots: totals.shots))) · "
            + "\(Number.decimal(Double(totals.goals) / Double(max(games.count, 1)))) goals against per game"
            + (season.clears.map { " · \(Number.plural($0, "clear"))" } ?? "") + "</p>"

        let valid = pct.compactMap { $0 }
        let saveSummary = valid.isEmpty ? "No game of \(season.displayName) has a shot recorded."
            : "Save percentage of \(season.displayName) in \(Number.plural(valid.count, "game")): from \(Number.percent(valid.min())) to "
                + "\(Number.percent(valid.max())); season to date after the last game \(Number.percent(toDate.last ?? nil))."
                + (season.boundaries.isEmpty ? "" : " New seasons start at " + season.boundaries.map { "\(labels[$0.index]) (\($0.label))" }.joined(separator: ", ") + ".")
        let saveChart = GameChart(id: "\(id)-save", title: "Save % game by game", summary: saveSummary, labels: labels,
                                  series: [Series(name: "Save % in the game", style: .a, values: pct),
                                           Series(name: "Season to date", style: .c, values: toDate)],
                                  kind: .lines, yMax: 100, yTitle: "save %", width: 360, boundaries: season.boundaries)
        out += "<div class=\"pair\">" + saveChart.figure(table: DataTable(
            kind: "save-percent", caption: "Save % game by game, \(season.displayName)",
            columns: [.init("date", "Date"), .init("opponent", "Opponent"), .init("save_pct", "Save %", numeric: true),
                      .init("shots", "Shots", numeric: true), .init("season_pct", "Season to date", numeric: true)],
            rows: games.indices.map { i in (String(games[i].id), [labels[i], games[i].opponent ?? "—", Number.percent(pct[i]),
                                                                  Number.count(games[i].totals.shots), Number.percent(toDate[i])]) },
            fewCells: Set(games.indices.filter { (games[$0].totals.shots ?? 0) < DataTable.fewShots }.map { [$0, 2] })))

        let counts: [(String, Series.Style, (GoalieStats) -> Int?)] = [("Shots", .b, \.shots), ("Saves", .a, \.saves), ("Goals against", .c, \.goalsAllowed)]
        let countChart = GameChart(
            id: "\(id)-counts", title: "Shots, saves and goals against per game",
            summary: "Per game, \(season.displayName) faced \(Number.decimal(Double(totals.shots) / Double(max(games.count, 1)))) shots, "
                + "saved \(Number.decimal(Double(totals.saves) / Double(max(games.count, 1)))) and let in "
                + "\(Number.decimal(Double(totals.goals) / Double(max(games.count, 1)))) on average.",
            labels: labels, series: counts.map { name, style, stat in Series(name: name, style: style, values: games.map { stat($0.totals).map(Double.init) }) },
            kind: games.count <= GameChart.maxBarGames ? .bars : .lines, yMax: nil, yTitle: "per game", width: 360,
            format: { String(Int($0)) }, boundaries: season.boundaries)
        out += countChart.figure(table: DataTable(
            kind: "counts", caption: "Shots, saves and goals against, \(season.displayName)",
            columns: [.init("date", "Date"), .init("opponent", "Opponent"), .init("shots", "Shots", numeric: true),
                      .init("saves", "Saves", numeric: true), .init("goals_allowed", "Goals against", numeric: true)],
            rows: games.map { g in (String(g.id), [g.date ?? "—", g.opponent ?? "—", Number.count(g.totals.shots), Number.count(g.totals.saves),
                                                   Number.count(g.totals.goalsAllowed)]) })) + "</div>"

        let periods = season.periods
        if !periods.isEmpty {
            out += "<h4>By period</h4><p class=\"note\">\(HTML.escape(periodNote(season.sport))) Each panel has the same scale.</p><div class=\"multiples\">"
            let goalMax = Double(games.flatMap { g in periods.compactMap { g.periods[$0]?.goalsAllowed } }.max() ?? 0)
            for period in periods {
                let stats = games.map { $0.periods[period] ?? GoalieStats() }
                let p = stats.map { savePercent(saves: $0.saves, shots: $0.shots) }
                let shots = stats.reduce(0) { $0 + ($1.shots ?? 0) }, saves = stats.reduce(0) { $0 + ($1.saves ?? 0) }
                let label = periodLabel(period)
                out += GameChart(id: "\(id)-\(period)-save", title: "\(label): save % \(Number.percent(savePercent(saves: saves, shots: shots))) of \(Number.plural(shots, "shot"))",
                                 summary: "Save % in the \(label) period, game by game: \(saves) saves of \(shots) shots over the season.",
                                 labels: labels, series: [Series(name: "Save %", style: .a, values: p)], kind: .lines, yMax: 100, yTitle: "save %",
                                 width: 184, height: 130, noData: "no shots in this period", boundaries: season.boundaries).panel
            }
            out += "</div><div class=\"multiples\">"
            for period in periods {
                let goals = games.map { $0.periods[period]?.goalsAllowed }
                let label = periodLabel(period)
                out += GameChart(id: "\(id)-\(period)-goals", title: "\(label): \(Number.plural(goals.compactMap { $0 }.reduce(0, +), "goal")) against",
                                 summary: "Goals against in the \(label) period, game by game.", labels: labels,
                                 series: [Series(name: "Goals against", style: .c, values: goals.map { $0.map(Double.init) })],
                                 kind: games.count <= GameChart.maxBarGames ? .bars : .lines, yMax: max(goalMax, 1), yTitle: "goals",
                                 width: 184, height: 130, format: { String(Int($0)) }, boundaries: season.boundaries).panel
            }
            out += "</div>"
        }

        let contexts = season.contexts
        if contexts.count > 1 {
            out += "<h4>High School and Club</h4><div class=\"multiples compare\">"
            out += BarList(id: "\(id)-ctx-games", title: "Games", summary: "Games by context: " + contexts.map { "\($0.label) \($0.games)" }.joined(separator: ", "),
                           rows: contexts.map { ($0.label, Double($0.games), "\($0.games)") }, style: .b, width: 240).panel
            out += BarList(id: "\(id)-ctx-save", title: "Save %",
                           summary: "Save % by context: " + contexts.map { "\($0.label) \(Number.percent($0.savePercent)) of \($0.shots) shots" }.joined(separator: ", "),
                           rows: contexts.map { ($0.label, $0.savePercent ?? 0, "\(Number.percent($0.savePercent)) of \($0.shots)") }, style: .a, width: 240, max: 100).panel
            out += BarList(id: "\(id)-ctx-ga", title: "Goals against per game",
                           summary: "Goals against per game by context: " + contexts.map { "\($0.label) \(Number.decimal($0.goalsAgainstPerGame))" }.joined(separator: ", "),
                           rows: contexts.map { ($0.label, $0.goalsAgainstPerGame, Number.decimal($0.goalsAgainstPerGame)) }, style: .c, width: 240).panel
            out += "</div>"
        }

        for name in seasonNames.reversed() {
            out += seasonBlock(season.only(season: name), name: name, key: keys.key(name) ?? "", id: id, sheets: sheets)
        }
        return out + "</article>"
    }

    static func periodNote(_ sport: String) -> String {
        switch sport.lowercased() {
        case "lacrosse", "basketball": "Quarters."
        case "hockey": "Periods."
        case "soccer": "Halves."
        default: "The sheet's periods."
        }
    }

    /// One season of one athlete: the season's lines (all games and each split, which the filters pick from),
    /// what stands out beyond chance, the periods, the opponents, the games.
    static func seasonBlock(_ season: AthleteSeason, name: String, key: String, id: String, sheets: [Int64: SheetSummary]) -> String {
        let sid = "\(id)-\(key)"
        let hasClears = season.clears != nil
        var out = "<section class=\"season\" data-season=\"\(key)\" id=\"\(sid)\"><h4>Season \(HTML.escape(name))</h4>"
        var splits: [(String, ContextSplit)] = [("all", season.split("all", season.games))]
        splits += season.contexts.map { ($0.context, $0) } + season.conferences.map { ($0.context, $0) }
        func line(_ s: ContextSplit, label: String) -> [String] {
            [label, "\(s.games)", Number.percent(s.savePercent), "\(s.shots)", "\(s.saves)", "\(s.goals)", Number.decimal(s.goalsAgainstPerGame)]
                + (hasClears ? [Number.count(s.clears)] : [])
        }
        let lineColumns: [DataTable.Column] = [.init("split", "Games"), .init("games", "G", numeric: true), .init("save_pct", "Save %", numeric: true),
                                                .init("shots", "Shots", numeric: true), .init("saves", "Saves", numeric: true),
                                                .init("goals_allowed", "GA", numeric: true), .init("ga_per_game", "GA/G", numeric: true)]
            + (hasClears ? [.init("clears", "Clears", numeric: true)] : [])
        out += DataTable(kind: "season-lines", caption: "Season \(name), \(season.displayName): every game, then each split",
                         columns: lineColumns,
                         rows: splits.map { (ctx, s) in (ctx, line(s, label: ctx == "all" ? "All games" : s.label)) },
                         rowAttributes: Dictionary(uniqueKeysWithValues: splits.indices.map { ($0, [("data-ctx", splits[$0].0 == "all" ? "all" : splits[$0].0)]) }),
                         fewCells: Set(splits.indices.filter { splits[$0].1.shots < DataTable.fewShots }.map { [$0, 2] })).html

        let insights = season.insights
        if !insights.isEmpty {
            out += "<div class=\"insights\"><p class=\"note\">Bigger than chance:</p><ul>"
            for insight in insights {
                out += "<li>\(HTML.escape(insight.sentence)). <span class=\"small\">\(HTML.escape(insight.evidence)).</span></li>"
            }
            out += "</ul></div>"
        }

        let periods = season.periods
        if !periods.isEmpty {
            out += DataTable(
                kind: "periods", caption: "By period, \(season.displayName), season \(name)",
                columns: [.init("period", "Period"), .init("save_pct", "Save %", numeric: true), .init("shots", "Shots", numeric: true),
                          .init("saves", "Saves", numeric: true), .init("goals_allowed", "GA", numeric: true)]
                    + (hasClears ? [.init("clears", "Clears", numeric: true)] : []),
                rows: periods.map { period in
                    let s = season.games.compactMap { $0.periods[period] }
                    let shots = s.reduce(0) { $0 + ($1.shots ?? 0) }, saves = s.reduce(0) { $0 + ($1.saves ?? 0) }
                    let clears = s.compactMap(\.clears)
                    return (period, [periodLabel(period), Number.percent(savePercent(saves: saves, shots: shots)), "\(shots)", "\(saves)",
                                     "\(s.reduce(0) { $0 + ($1.goalsAllowed ?? 0) })"] + (hasClears ? [clears.isEmpty ? "—" : "\(clears.reduce(0, +))"] : []))
                },
                fewCells: Set(periods.indices.filter { i in season.games.compactMap { $0.periods[periods[i]]?.shots }.reduce(0, +) < DataTable.fewShots }.map { [$0, 1] })
            ).folded("By period")
        }

        let opponents = season.opponents
        out += DataTable(
            kind: "opponents", caption: "By opponent, \(season.displayName), season \(name)",
            columns: [.init("opponent", "Opponent"), .init("games", "G", numeric: true), .init("save_pct", "Save %", numeric: true),
                      .init("shots", "Shots", numeric: true), .init("goals_allowed", "GA", numeric: true)],
            rows: opponents.map { (nil, [$0.label, "\($0.games)", Number.percent($0.savePercent), "\($0.shots)", "\($0.goals)"]) },
            fewCells: Set(opponents.indices.filter { opponents[$0].shots < DataTable.fewShots }.map { [$0, 2] })).folded("By opponent")

        out += gamesTable(season, sheets: sheets).html
        out += "<details><summary>Sheets these games were read from</summary><ul class=\"sheets\">"
            + season.games.map { g in "<li>\(HTML.escape(g.date ?? "—")) \(HTML.escape(g.opponent ?? "—")): \(HTML.escape(fileName(g.sheetPath)))</li>" }.joined()
            + "</ul></details>"
        return out + "</section>"
    }

    /// What marks a game approved although its sheet failed a rule: the rules' messages.
    static func overRule(_ id: Int64, sheets: [Int64: SheetSummary]) -> String? {
        guard let failures = sheets[id]?.ruleFailures, !failures.isEmpty else { return nil }
        return "approved over: " + failures.map(\.message).joined(separator: "; ")
    }

    /// One row per game: date, opponent and save % first (what a phone keeps on screen), then the numbers
    /// `statsheet games` gives; the table scrolls inside itself, never the page.
    static func gamesTable(_ season: AthleteSeason, sheets: [Int64: SheetSummary] = [:]) -> DataTable {
        let hasClears = season.clears != nil
        let games = season.games
        return DataTable(
            kind: "games", caption: "Games of \(season.displayName)",
            columns: [.init("game_date", "Date"), .init("opponent", "Opponent"), .init("save_pct", "Save %", numeric: true),
                      .init("shots", "Shots", numeric: true), .init("saves", "Saves", numeric: true), .init("goals_allowed", "GA", numeric: true)]
                + (hasClears ? [.init("clears", "Clears", numeric: true)] : [])
                + [.init("context", "Context"), .init("note", "Note")],
            rows: games.map { g in
                (String(g.id), [g.date ?? "—", g.opponent ?? "—", Number.percent(savePercent(saves: g.totals.saves, shots: g.totals.shots)),
                                Number.count(g.totals.shots), Number.count(g.totals.saves), Number.count(g.totals.goalsAllowed)]
                    + (hasClears ? [Number.count(g.totals.clears)] : [])
                    + [[g.context, g.conference].compactMap { $0.map(ContextSplit.label(of:)) }.joined(separator: ", ").ifEmpty("—"),
                       overRule(g.id, sheets: sheets) ?? ""])
            },
            rowAttributes: Dictionary(uniqueKeysWithValues: games.indices.map { i in
                (i, [("data-ctx", contextTokens(games[i]))] + (overRule(games[i].id, sheets: sheets) != nil ? [("class", "over-rule")] : []))
            }),
            fewCells: Set(games.indices.filter { (games[$0].totals.shots ?? 0) < DataTable.fewShots }.map { [$0, 2] }))
    }

    // MARK: Box scores

    static func team(_ team: TeamSeason, index: Int, keys: SeasonKeys) -> String {
        let id = HTML.id("team", team.displayName + " " + team.sport, index)
        let labels = team.games.map { $0.first?.date ?? "no date" }
        let kind: GameChart.Kind = team.games.count <= GameChart.maxBarGames ? .bars : .lines
        let seasonNames = team.seasonNames
        let record = team.record
        var out = "<article class=\"team\" id=\"\(id)\" data-seasons=\"\(seasonNames.compactMap { keys.key($0) }.joined(separator: " "))\">"
            + "<h3>\(HTML.escape(team.displayName))</h3>"
            + "<p class=\"lede\">\(Number.plural(team.games.count, "game")) · \(Number.plural(team.players.count, "player"))"
            + (record.decided > 0 ? " · \(record.wins)–\(record.losses)" + (record.ties > 0 ? "–\(record.ties)" : "") : "") + "</p>"

        let shooting = team.shooting
        let fgValues = shooting.compactMap(\.fg)
        out += "<figure class=\"chart-figure\" id=\"fig-\(id)-shooting\"><figcaption>Shooting game by game</figcaption>"
        let shootingChart = GameChart(
            id: "\(id)-shooting", title: "Shooting game by game",
            summary: fgValues.isEmpty ? "No field goal was attempted." : "Team field goal % from \(Number.percent(fgValues.min())) to \(Number.percent(fgValues.max())).",
            labels: labels, series: [Series(name: "FG%", style: .a, values: shooting.map(\.fg)), Series(name: "3P%", style: .b, values: shooting.map(\.three)),
                                     Series(name: "FT%", style: .c, values: shooting.map(\.ft))],
            kind: .lines, yMax: 100, yTitle: "%", width: 360, boundaries: team.boundaries)
        out += SVG.legend(shootingChart.series) + "<div class=\"chart-box\">" + shootingChart.svg + "</div></figure>"

        for name in seasonNames.reversed() {
            out += teamSeasonBlock(team.only(season: name), name: name, key: keys.key(name) ?? "", id: id)
        }

        out += "<h4>Points, rebounds and assists</h4><div class=\"multiples\">"
        let stats: [(String, Series.Style, KeyPath<BoxScoreLine, Int?>)] = [("PTS", .a, \.points), ("REB", .b, \.rebounds), ("AST", .c, \.assists)]
        let top = Double(team.games.joined().flatMap { l in stats.compactMap { l[keyPath: $0.2] } }.max() ?? 0)
        for (p, player) in team.players.enumerated() {
            let lines = team.lines(of: player)
            let points = lines.compactMap { $0?.points }.reduce(0, +)
            out += GameChart(id: "\(id)-p\(p)", title: "\(player): \(Number.plural(points, "point"))",
                             summary: "Points, rebounds and assists of \(player) in each of \(team.displayName)'s games.", labels: labels,
                             series: stats.map { name, style, key in Series(name: name, style: style, values: lines.map { $0?[keyPath: key].map(Double.init) }) },
                             kind: kind, yMax: max(top, 1), yTitle: "", width: 184, height: 130, format: { String(Int($0)) }).panel
        }
        out += "</div>" + SVG.legend(stats.map { Series(name: $0.0, style: $0.1, values: []) })
        out += DataTable(
            kind: "box-lines", caption: "Players' lines, \(team.displayName)",
            columns: [.init("game_date", "Date"), .init("opponent", "Opponent"), .init("player", "Player"), .init("pts", "PTS", numeric: true),
                      .init("number", "No."), .init("reb", "REB", numeric: true), .init("ast", "AST", numeric: true),
                      .init("stl", "STL", numeric: true), .init("blk", "BLK", numeric: true), .init("tov", "TO", numeric: true),
                      .init("pf", "PF", numeric: true),
                      .init("fg", "FGM–FGA", numeric: true), .init("fg3", "3PM–3PA", numeric: true), .init("ft", "FTM–FTA", numeric: true)],
            rows: team.games.joined().map { l in
                ("\(l.gameLogID)-\(l.line)", [l.date ?? "—", l.opponent ?? "—", TeamSeason.player(l), Number.count(l.points), l.number ?? "—",
                                              Number.count(l.rebounds), Number.count(l.assists), Number.count(l.steals), Number.count(l.blocks),
                                              Number.count(l.turnovers), Number.count(l.fouls),
                                              "\(Number.count(l.fieldGoalsMade))–\(Number.count(l.fieldGoalsAttempted))",
                                              "\(Number.count(l.threesMade))–\(Number.count(l.threesAttempted))",
                                              "\(Number.count(l.freeThrowsMade))–\(Number.count(l.freeThrowsAttempted))"])
            }).folded("Every player's line")
        return out + "</article>"
    }

    static func pct(_ made: Int, _ attempted: Int) -> String {
        attempted > 0 ? "\(Number.percent(shootingPercent(made: made, attempted: attempted))) (\(made)/\(attempted))" : "—"
    }

    /// One season of a team: its line, its games with score and result, and each player's season.
    static func teamSeasonBlock(_ team: TeamSeason, name: String, key: String, id: String) -> String {
        var out = "<section class=\"season\" data-season=\"\(key)\" id=\"\(id)-\(key)\"><h4>Season \(HTML.escape(name))</h4>"
        let record = team.record, ppg = team.pointsPerGame, t = team.shootingTotals
        out += DataTable(
            kind: "team-season", caption: "Season \(name), \(team.displayName)",
            columns: [.init("games", "G", numeric: true), .init("record", "W–L", numeric: true), .init("ppg", "PTS/G", numeric: true),
                      .init("opp_ppg", "Opp. PTS/G", numeric: true), .init("fg_pct", "FG%", numeric: true), .init("fg3_pct", "3P%", numeric: true),
                      .init("ft_pct", "FT%", numeric: true)],
            rows: [(nil, ["\(team.games.count)", record.decided > 0 ? "\(record.wins)–\(record.losses)" + (record.ties > 0 ? "–\(record.ties)" : "") : "—",
                          Number.decimal(ppg.for), Number.decimal(ppg.against), pct(t.fgm, t.fga), pct(t.threes, t.threesTried), pct(t.ftm, t.fta)])]).html

        out += DataTable(
            kind: "team-games", caption: "Games of \(team.displayName), season \(name)",
            columns: [.init("game_date", "Date"), .init("opponent", "Opponent"), .init("result", "Score"), .init("pts", "PTS", numeric: true),
                      .init("opp_pts", "Opp.", numeric: true), .init("fg_pct", "FG%", numeric: true), .init("fg3_pct", "3P%", numeric: true),
                      .init("ft_pct", "FT%", numeric: true), .init("sheet", "Sheet file")],
            rows: team.games.map { game in
                let first = game.first
                func sum(_ k: KeyPath<BoxScoreLine, Int?>) -> Int { game.reduce(0) { $0 + ($1[keyPath: k] ?? 0) } }
                let ours = BoxScoreLine.teamPoints(game), theirs = first?.opponentPoints
                let score = BoxScoreLine.result(game).map { "\($0) \(ours ?? 0)–\(theirs ?? 0)" } ?? "—"
                return (first.map { String($0.gameLogID) }, [first?.date ?? "—", first?.opponent ?? "—", score, Number.count(ours), Number.count(theirs),
                                                             pct(sum(\.fieldGoalsMade), sum(\.fieldGoalsAttempted)),
                                                             pct(sum(\.threesMade), sum(\.threesAttempted)), pct(sum(\.freeThrowsMade), sum(\.freeThrowsAttempted)),
                                                             first.map { fileName($0.sheetPath) } ?? "—"])
            }).html

        let players = team.playerTotals
        out += DataTable(
            kind: "player-season", caption: "Players, season \(name), \(team.displayName)",
            columns: [.init("player", "Player"), .init("games", "G", numeric: true), .init("ppg", "PTS/G", numeric: true),
                      .init("pts", "PTS", numeric: true), .init("rpg", "REB/G", numeric: true), .init("apg", "AST/G", numeric: true),
                      .init("reb", "REB", numeric: true), .init("ast", "AST", numeric: true), .init("stl", "STL", numeric: true),
                      .init("blk", "BLK", numeric: true), .init("tov", "TO", numeric: true), .init("pf", "PF", numeric: true),
                      .init("fg_pct", "FG%", numeric: true), .init("fg3_pct", "3P%", numeric: true), .init("ft_pct", "FT%", numeric: true)],
            rows: players.map { p in
                (p.player, [p.player + (p.number.map { " #\($0)" } ?? ""), "\(p.games)", Number.decimal(p.perGame(p.points)), "\(p.points)",
                            Number.decimal(p.perGame(p.rebounds)), Number.decimal(p.perGame(p.assists)), "\(p.rebounds)", "\(p.assists)",
                            "\(p.steals)", "\(p.blocks)", "\(p.turnovers)", "\(p.fouls)",
                            pct(p.fgm, p.fga), pct(p.threes, p.threesTried), pct(p.ftm, p.fta)])
            }).html

        var byOpponent: [String: [[BoxScoreLine]]] = [:]
        for game in team.games { byOpponent[game.first?.opponent ?? "—", default: []].append(game) }
        out += DataTable(
            kind: "team-opponents", caption: "By opponent, \(team.displayName), season \(name)",
            columns: [.init("opponent", "Opponent"), .init("games", "G", numeric: true), .init("record", "W–L", numeric: true),
                      .init("pts", "PTS", numeric: true), .init("opp_pts", "Opp.", numeric: true)],
            rows: byOpponent.sorted { ($0.value.count, $1.key) > ($1.value.count, $0.key) }.map { opponent, games in
                let results = games.compactMap(BoxScoreLine.result)
                return (nil, [opponent, "\(games.count)", results.isEmpty ? "—" : "\(results.filter { $0 == "W" }.count)–\(results.filter { $0 == "L" }.count)",
                              "\(games.compactMap(BoxScoreLine.teamPoints).reduce(0, +))", "\(games.compactMap { $0.first?.opponentPoints }.reduce(0, +))"])
            }).folded("By opponent")
        return out + "</section>"
    }

    // MARK: The store

    /// The line or lines the sheets' fields were flagged under, and how many sheets predate the stored line.
    static func reviewLineNote(_ s: StoreState) -> String {
        let lines = s.reviewLines.map { String(Int($0.rounded())) }
        var note = lines.count > 1 ? "Fields are flagged under the review line each sheet was read with: \(lines.joined(separator: ", "))."
            : "Fields are flagged under the review line \(lines.first ?? String(Int(ReviewLine.standard)))."
        if s.unrecordedLines > 0 {
            note += " \(s.unrecordedLines) sheet\(s.unrecordedLines == 1 ? " was" : "s were") stored before the line was kept: "
                + "scan's default \(Int(ReviewLine.standard)) stands for theirs."
        }
        return note
    }

    static func store(_ s: StoreState) -> String {
        var out = "<section id=\"store\"><h2>The store's state</h2><dl class=\"tiles\">"
        out += tile("Sheets read", "\(s.sheets)", "\(s.clean) clean, \(s.needsReview) need review")
        out += tile("Game logs waiting", "\(s.waiting.count)", "for a reviewer")
        out += tile("Failed files", "\(s.failures.count)", "a later scan tries them again")
        out += tile("Fields flagged", "\(s.flaggedFields)", s.trustCauses.filter { $0.fields > 0 }.map { "\($0.fields) \($0.cause.label)" }.joined(separator: ", ").ifEmpty("none"))
        out += tile("Values changed", "\(s.valuesChanged)", "by reviewers; \(s.valuesConfirmed) confirmed as read")
        out += "</dl><p class=\"note\">" + reviewLineNote(s) + "</p>"

        out += "<h3>Fields flagged, by cause</h3>"
        if s.flagCauses.isEmpty {
            out += "<p class=\"empty\">No field is flagged.</p>"
        } else {
            out += DataTable(kind: "trust-causes", caption: "Flagged fields by what raised the flag",
                             columns: [.init("cause", "Cause"), .init("fields", "Fields", numeric: true)],
                             rows: s.trustCauses.map { (String(describing: $0.cause.rawValue), [$0.cause.label, "\($0.fields)"]) }).html
            out += "<figure class=\"chart-figure\" id=\"fig-flag-causes\"><figcaption>In the reader's words</figcaption><div class=\"chart-box\">"
                + BarList(id: "flag-causes", title: "Flagged fields by cause",
                          summary: "\(Number.plural(s.flaggedFields, "field")) flagged; the most common cause: \(s.flagCauses[0].cause) "
                            + "(\(s.flagCauses[0].fields)).",
                          rows: s.flagCauses.prefix(12).map { ($0.cause, Double($0.fields), "\($0.fields)") }, style: .b, width: 360,
                          labelWidth: 200).svg + "</div>"
                + DataTable(kind: "flag-causes", caption: "Flagged fields by cause",
                            columns: [.init("cause", "Cause"), .init("fields", "Fields", numeric: true)],
                            rows: s.flagCauses.map { (nil, [$0.cause, "\($0.fields)"]) }).folded("The numbers") + "</figure>"
        }

        out += "<h3>Waiting for review</h3>" + DataTable(
            kind: "waiting", caption: "Game logs waiting for review",
            columns: [.init("athlete", "Athlete or team"), .init("game_date", "Date"), .init("reason", "Why it waits"), .init("sheet", "Sheet file")],
            rows: s.waiting.map { w in
                (String(w.log.id), [w.log.athlete ?? "—", w.log.date ?? "—", s.reasons(w), w.sheet.map { fileName($0.source.description) } ?? "sheet \(w.log.sheetID)"])
            }, empty: "Nothing waits for review.").html

        out += "<h3>Failed files</h3>" + DataTable(
            kind: "failures", caption: "Files that could not be read",
            columns: [.init("path", "File"), .init("error", "Why"), .init("attempts", "Attempts", numeric: true), .init("last", "Last tried")],
            rows: s.failures.map { f in (nil, [fileName(f.source.description), f.error, "\(f.attempts)", stamp(f.lastFailedAt)]) }, empty: "No file failed.").html

        let shown = Array(s.corrections.suffix(200).reversed())
        out += "<h3>Values reviewers changed or confirmed</h3>"
        if s.corrections.count > shown.count { out += "<p class=\"note\">The latest \(shown.count) of \(s.corrections.count) corrections.</p>" }
        out += DataTable(
            kind: "corrections", caption: "Corrections, latest first",
            columns: [.init("field", "Field"), .init("read", "Read as"), .init("changed", "Now"), .init("state", "State"),
                      .init("reviewer", "Reviewer"), .init("at", "When"), .init("sheet", "Sheet file")],
            rows: shown.map { c in
                (String(c.id), [c.field, c.original.value.description, c.newValue.description,
                                (StoreState.isConfirmation(c) ? "confirmed" : "changed") + (c.isLive ? "" : ", undone by \(c.undoneBy ?? "a reviewer")"),
                                c.reviewer, stamp(c.at), s.sheetPaths[c.sheetID].map(fileName) ?? "sheet \(c.sheetID)"])
            }, empty: "No reviewer has changed a value.").html
        return out + "</section>"
    }
}

extension String {
    func ifEmpty(_ other: String) -> String { isEmpty ? other : self }
}

extension GameChart {
    /// A small multiple: the chart under its title, no legend or table of its own (its section has them).
    var panel: String { "<figure class=\"panel\"><figcaption>\(HTML.escape(title))</figcaption>\(svg)</figure>" }
}

extension BarList {
    var panel: String { "<figure class=\"panel\"><figcaption>\(HTML.escape(title))</figcaption>\(svg)</figure>" }
}

extension DataTable {
    /// The table folded under a summary line (open it to read; printed open).
    func folded(_ summary: String) -> String { "<details><summary>\(HTML.escape(summary))</summary>\(html)</details>" }
}
