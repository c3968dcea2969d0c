import Foundation
import SheetModel
import SheetStore

/// The report as one HTML document: styles and charts inline, no script, and a Content-Security-Policy
/// that forbids every load, so opening the file never reaches the network.
public enum ReportPage {
    public static func render(_ data: ReportData) -> String {
        let seasons = data.filters.includesGoalies ? AthleteSeason.seasons(data.goalieGames) : []
        let teams = data.filters.includesBoxScores ? TeamSeason.seasons(data.boxScoreLines) : []
        let state = StoreState(data)
        var body = header(data, seasons: seasons, teams: teams, state: state)
        if data.filters.includesGoalies {
            body += "<section id=\"goalies\"><h2>Goalies</h2>"
            body += seasons.isEmpty ? "<p class=\"empty\">No approved goalie games\(data.filters.isEmpty ? "" : " match these filters").</p>" : ""
            for (i, season) in seasons.enumerated() { body += athlete(season, index: i) }
            body += "</section>"
        }
        if data.filters.includesBoxScores {
            body += "<section id=\"box-scores\"><h2>Box scores</h2>"
            body += teams.isEmpty ? "<p class=\"empty\">No approved box scores\(data.filters.isEmpty ? "" : " match these filters").</p>" : ""
            for (i, team) in teams.enumerated() { body += self.team(team, index: i) }
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
            <style>\(stylesheet)</style></head>
            <body>\(SVG.definitions)<main>\(body)</main>
            <footer>Written by statsheet from \(HTML.escape(data.storeName)) on \(HTML.escape(stamp(data.generatedAt))). \
            Only approved games are counted; the store's state covers every sheet.</footer></body></html>

            """
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

    static func header(_ data: ReportData, seasons: [AthleteSeason], teams: [TeamSeason], state: StoreState) -> String {
        var filters: [String] = []
        if let a = data.filters.athlete { filters.append("athlete \(a)") }
        if let t = data.filters.team { filters.append("team \(t)") }
        if let f = data.filters.from { filters.append("from \(f)") }
        if let t = data.filters.to { filters.append("to \(t)") }
        let goalieGames = seasons.reduce(0) { $0 + $1.games.count }
        let all = seasons.reduce((0, 0)) { ($0.0 + $1.totals.shots, $0.1 + $1.totals.saves) }
        var out = "<header><h1>\(HTML.escape(title(data)))</h1><p class=\"meta\">\(HTML.escape(data.storeName))"
            + (filters.isEmpty ? " · every game" : " · " + HTML.escape(filters.joined(separator: ", "))) + "</p>"
        out += "<dl class=\"tiles\">"
        if data.filters.includesGoalies {
            out += tile("Goalie games", "\(goalieGames)", "\(Number.plural(seasons.count, "athlete"))")
            out += tile("Save %", Number.percent(savePercent(saves: all.1, shots: all.0)), "\(all.1) saves of \(all.0) shots")
        }
        if data.filters.includesBoxScores {
            out += tile("Box scores", "\(teams.reduce(0) { $0 + $1.games.count })", Number.plural(teams.count, "team"))
        }
        out += tile("Waiting for review", "\(state.waiting.count)", "of \(Number.plural(state.sheets, "sheet")) read")
        out += tile("Failed files", "\(state.failures.count)", state.failures.isEmpty ? "none" : "see the store's state")
        out += "</dl>"
        var links: [String] = []
        for (i, s) in seasons.enumerated() { links.append("<a href=\"#\(HTML.id("athlete", s.displayName, i))\">\(HTML.escape(s.displayName))</a>") }
        if !teams.isEmpty { links.append("<a href=\"#box-scores\">Box scores</a>") }
        links.append("<a href=\"#store\">The store's state</a>")
        return out + "<nav aria-label=\"Contents\">" + links.joined(separator: " ") + "</nav></header>"
    }

    static func tile(_ label: String, _ value: String, _ note: String) -> String {
        "<div class=\"tile\"><dt>\(HTML.escape(label))</dt><dd><span class=\"big\">\(HTML.escape(value))</span>"
            + "<span class=\"small\">\(HTML.escape(note))</span></dd></div>"
    }

    // MARK: Goalies

    static func athlete(_ season: AthleteSeason, index: Int) -> String {
        let id = HTML.id("athlete", season.displayName, index)
        let games = season.games, labels = games.map { $0.date ?? "no date" }
        let totals = season.totals
        let pct = season.savePercents, toDate = season.seasonToDate
        var out = "<article class=\"athlete\" id=\"\(id)\"><h3>\(HTML.escape(season.displayName))</h3>"
        out += "<p class=\"lede\">\(Number.plural(games.count, "game")) · \(totals.saves) saves of \(totals.shots) shots · "
            + "save % \(Number.percent(savePercent(saves: totals.saves, shots: totals.shots))) · "
            + "\(Number.decimal(Double(totals.goals) / Double(max(games.count, 1)))) goals against per game</p>"

        let valid = pct.compactMap { $0 }
        let saveSummary = valid.isEmpty ? "No game of \(season.displayName) has a shot recorded."
            : "Save percentage of \(season.displayName) in \(Number.plural(valid.count, "game")): from \(Number.percent(valid.min())) to "
                + "\(Number.percent(valid.max())); season to date after the last game \(Number.percent(toDate.last ?? nil))."
        let saveChart = GameChart(id: "\(id)-save", title: "Save % game by game", summary: saveSummary, labels: labels,
                                  series: [Series(name: "Save % in the game", style: .a, values: pct),
                                           Series(name: "Season to date", style: .c, values: toDate)],
                                  kind: .lines, yMax: 100, yTitle: "save %", width: 460)
        out += "<div class=\"pair\">" + saveChart.figure(table: DataTable(
            kind: "save-percent", caption: "Save % game by game, \(season.displayName)",
            columns: [.init("date", "Date"), .init("opponent", "Opponent"), .init("save_pct", "Save %", numeric: true),
                      .init("season_pct", "Season to date", numeric: true)],
            rows: games.indices.map { i in (String(games[i].id), [labels[i], games[i].opponent ?? "—", Number.percent(pct[i]), Number.percent(toDate[i])]) }))

        let counts: [(String, Series.Style, (GoalieStats) -> Int?)] = [("Shots", .b, \.shots), ("Saves", .a, \.saves), ("Goals against", .c, \.goalsAllowed)]
        let countChart = GameChart(
            id: "\(id)-counts", title: "Shots, saves and goals against per game",
            summary: "Per game, \(season.displayName) faced \(Number.decimal(Double(totals.shots) / Double(max(games.count, 1)))) shots, "
                + "saved \(Number.decimal(Double(totals.saves) / Double(max(games.count, 1)))) and let in "
                + "\(Number.decimal(Double(totals.goals) / Double(max(games.count, 1)))) on average.",
            labels: labels, series: counts.map { name, style, stat in Series(name: name, style: style, values: games.map { stat($0.totals).map(Double.init) }) },
            kind: games.count <= GameChart.maxBarGames ? .bars : .lines, yMax: nil, yTitle: "per game", width: 460,
            format: { String(Int($0)) })
        out += countChart.figure(table: gamesTable(season)) + "</div>"

        let periods = season.periods
        if !periods.isEmpty {
            out += "<h4>By period</h4><p class=\"note\">The sport's periods: a lacrosse game's quarters, a hockey game's periods, "
                + "a soccer game's halves. Each panel has the same scale.</p><div class=\"multiples\">"
            let goalMax = Double(games.flatMap { g in periods.compactMap { g.periods[$0]?.goalsAllowed } }.max() ?? 0)
            for period in periods {
                let stats = games.map { $0.periods[period] ?? GoalieStats() }
                let p = stats.map { savePercent(saves: $0.saves, shots: $0.shots) }
                let shots = stats.reduce(0) { $0 + ($1.shots ?? 0) }, saves = stats.reduce(0) { $0 + ($1.saves ?? 0) }
                let label = periodLabel(period)
                out += GameChart(id: "\(id)-\(period)-save", title: "\(label): save % \(Number.percent(savePercent(saves: saves, shots: shots)))",
                                 summary: "Save % in the \(label) period, game by game: \(saves) saves of \(shots) shots over the season.",
                                 labels: labels, series: [Series(name: "Save %", style: .a, values: p)], kind: .lines, yMax: 100, yTitle: "save %",
                                 width: 184, height: 130, noData: "no shots in this period").panel
            }
            out += "</div><div class=\"multiples\">"
            for period in periods {
                let goals = games.map { $0.periods[period]?.goalsAllowed }
                let label = periodLabel(period)
                out += GameChart(id: "\(id)-\(period)-goals", title: "\(label): \(Number.plural(goals.compactMap { $0 }.reduce(0, +), "goal")) against",
                                 summary: "Goals against in the \(label) period, game by game.", labels: labels,
                                 series: [Series(name: "Goals against", style: .c, values: goals.map { $0.map(Double.init) })],
                                 kind: games.count <= GameChart.maxBarGames ? .bars : .lines, yMax: max(goalMax, 1), yTitle: "goals",
                                 width: 184, height: 130, format: { String(Int($0)) }).panel
            }
            out += "</div>"
            out += DataTable(
                kind: "periods", caption: "By period, \(season.displayName): the season's numbers",
                columns: [.init("period", "Period"), .init("shots", "Shots", numeric: true), .init("saves", "Saves", numeric: true),
                          .init("goals_allowed", "Goals against", numeric: true), .init("save_pct", "Save %", numeric: true)],
                rows: periods.map { period in
                    let s = games.compactMap { $0.periods[period] }
                    let shots = s.reduce(0) { $0 + ($1.shots ?? 0) }, saves = s.reduce(0) { $0 + ($1.saves ?? 0) }
                    return (period, [periodLabel(period), "\(shots)", "\(saves)", "\(s.reduce(0) { $0 + ($1.goalsAllowed ?? 0) })",
                                     Number.percent(savePercent(saves: saves, shots: shots))])
                }).folded("The numbers by period")
        }

        let contexts = season.contexts
        if !contexts.isEmpty {
            out += "<h4>High School and Club</h4><div class=\"multiples compare\">"
            out += BarList(id: "\(id)-ctx-games", title: "Games", summary: "Games by context: " + contexts.map { "\($0.label) \($0.games)" }.joined(separator: ", "),
                           rows: contexts.map { ($0.label, Double($0.games), "\($0.games)") }, style: .b, width: 240).panel
            out += BarList(id: "\(id)-ctx-save", title: "Save %",
                           summary: "Save % by context: " + contexts.map { "\($0.label) \(Number.percent($0.savePercent))" }.joined(separator: ", "),
                           rows: contexts.map { ($0.label, $0.savePercent ?? 0, Number.percent($0.savePercent)) }, style: .a, width: 240, max: 100).panel
            out += BarList(id: "\(id)-ctx-ga", title: "Goals against per game",
                           summary: "Goals against per game by context: " + contexts.map { "\($0.label) \(Number.decimal($0.goalsAgainstPerGame))" }.joined(separator: ", "),
                           rows: contexts.map { ($0.label, $0.goalsAgainstPerGame, Number.decimal($0.goalsAgainstPerGame)) }, style: .c, width: 240).panel
            out += "</div>" + DataTable(
                kind: "contexts", caption: "High School and Club, \(season.displayName)",
                columns: [.init("context", "Context"), .init("games", "Games", numeric: true), .init("save_pct", "Save %", numeric: true),
                          .init("ga_per_game", "Goals against per game", numeric: true)],
                rows: contexts.map { ($0.context, [$0.label, "\($0.games)", Number.percent($0.savePercent), Number.decimal($0.goalsAgainstPerGame)]) }
            ).folded("The numbers by context")
        }
        out += "<h4>Games</h4>" + gamesTable(season).html
        return out + "</article>"
    }

    /// One row per game: the numbers `statsheet games` gives, and the sheet each came from.
    static func gamesTable(_ season: AthleteSeason) -> DataTable {
        DataTable(
            kind: "games", caption: "Games of \(season.displayName)",
            columns: [.init("game_date", "Date"), .init("opponent", "Opponent"), .init("context", "Context"), .init("shots", "Shots", numeric: true),
                      .init("saves", "Saves", numeric: true), .init("goals_allowed", "Goals against", numeric: true),
                      .init("save_pct", "Save %", numeric: true), .init("sheet", "Sheet")],
            rows: season.games.map { g in
                (String(g.id), [g.date ?? "—", g.opponent ?? "—", g.context.map { ContextSplit(context: $0, games: 0, goalsAgainstPerGame: 0).label } ?? "—",
                                Number.count(g.totals.shots), Number.count(g.totals.saves), Number.count(g.totals.goalsAllowed),
                                Number.percent(savePercent(saves: g.totals.saves, shots: g.totals.shots)), g.sheetPath])
            })
    }

    // MARK: Box scores

    static func team(_ team: TeamSeason, index: Int) -> String {
        let id = HTML.id("team", team.displayName, index)
        let labels = team.games.map { $0.first?.date ?? "no date" }
        let kind: GameChart.Kind = team.games.count <= GameChart.maxBarGames ? .bars : .lines
        var out = "<article class=\"team\" id=\"\(id)\"><h3>\(HTML.escape(team.displayName))</h3>"
            + "<p class=\"lede\">\(Number.plural(team.games.count, "game")) · \(Number.plural(team.players.count, "player"))</p>"
        let shooting = team.shooting
        out += GameChart(id: "\(id)-shooting", title: "Team shooting per game",
                         summary: "Field goal, three-point and free throw percentages of \(team.displayName) in each game.",
                         labels: labels, series: [Series(name: "FG%", style: .a, values: shooting.map(\.fg)),
                                                  Series(name: "3P%", style: .b, values: shooting.map(\.three)),
                                                  Series(name: "FT%", style: .c, values: shooting.map(\.ft))],
                         kind: kind, yMax: 100, yTitle: "%").figure(table: DataTable(
            kind: "shooting", caption: "Team shooting, \(team.displayName)",
            columns: [.init("game_date", "Date"), .init("opponent", "Opponent"), .init("fg_pct", "FG%", numeric: true),
                      .init("fg3_pct", "3P%", numeric: true), .init("ft_pct", "FT%", numeric: true)],
            rows: team.games.indices.map { i in
                (team.games[i].first.map { String($0.gameLogID) }, [labels[i], team.games[i].first?.opponent ?? "—", Number.percent(shooting[i].fg),
                                                                     Number.percent(shooting[i].three), Number.percent(shooting[i].ft)])
            }))
        out += "<h4>Points, rebounds and assists per game</h4>" + SVG.legend([
            Series(name: "Points", style: .a, values: []), Series(name: "Rebounds", style: .b, values: []), Series(name: "Assists", style: .c, values: [])])
        out += "<div class=\"multiples\">"
        let stats: [(String, Series.Style, KeyPath<BoxScoreLine, Int?>)] = [("Points", .a, \.points), ("Rebounds", .b, \.rebounds), ("Assists", .c, \.assists)]
        let top = Double(team.games.joined().flatMap { l in stats.compactMap { l[keyPath: $0.2] } }.max() ?? 0)
        for (p, player) in team.players.enumerated() {
            let lines = team.lines(of: player)
            let points = lines.compactMap { $0?.points }.reduce(0, +)
            out += GameChart(id: "\(id)-p\(p)", title: "\(player): \(Number.plural(points, "point"))",
                             summary: "Points, rebounds and assists of \(player) in each of \(team.displayName)'s games.", labels: labels,
                             series: stats.map { name, style, key in Series(name: name, style: style, values: lines.map { $0?[keyPath: key].map(Double.init) }) },
                             kind: kind, yMax: max(top, 1), yTitle: "", width: 184, height: 130, format: { String(Int($0)) }).panel
        }
        out += "</div>"
        out += DataTable(
            kind: "box-lines", caption: "Players' lines, \(team.displayName)",
            columns: [.init("game_date", "Date"), .init("opponent", "Opponent"), .init("player", "Player"), .init("number", "No."),
                      .init("pts", "PTS", numeric: true), .init("reb", "REB", numeric: true), .init("ast", "AST", numeric: true),
                      .init("fg", "FGM–FGA", numeric: true), .init("fg3", "3PM–3PA", numeric: true), .init("ft", "FTM–FTA", numeric: true),
                      .init("sheet", "Sheet")],
            rows: team.games.joined().map { l in
                ("\(l.gameLogID)-\(l.line)", [l.date ?? "—", l.opponent ?? "—", TeamSeason.player(l), l.number ?? "—", Number.count(l.points),
                                              Number.count(l.rebounds), Number.count(l.assists),
                                              "\(Number.count(l.fieldGoalsMade))–\(Number.count(l.fieldGoalsAttempted))",
                                              "\(Number.count(l.threesMade))–\(Number.count(l.threesAttempted))",
                                              "\(Number.count(l.freeThrowsMade))–\(Number.count(l.freeThrowsAttempted))", l.sheetPath])
            }).folded("Every player's line")
        return out + "</article>"
    }

    // MARK: The store

    static func store(_ s: StoreState) -> String {
        var out = "<section id=\"store\"><h2>The store's state</h2><dl class=\"tiles\">"
        out += tile("Sheets read", "\(s.sheets)", "\(s.clean) clean, \(s.needsReview) need review")
        out += tile("Game logs waiting", "\(s.waiting.count)", "for a reviewer")
        out += tile("Failed files", "\(s.failures.count)", "a later scan tries them again")
        out += tile("Fields flagged", "\(s.flaggedFields)", "under the confidence threshold")
        out += tile("Values changed", "\(s.valuesChanged)", "by reviewers")
        out += "</dl>"

        out += "<h3>Fields flagged, by cause</h3>"
        if s.flagCauses.isEmpty {
            out += "<p class=\"empty\">No field is flagged.</p>"
        } else {
            out += "<figure class=\"chart-figure\" id=\"fig-flag-causes\">"
                + BarList(id: "flag-causes", title: "Flagged fields by cause",
                          summary: "\(Number.plural(s.flaggedFields, "field")) flagged; the most common cause: \(s.flagCauses[0].cause) "
                            + "(\(s.flagCauses[0].fields)).",
                          rows: s.flagCauses.prefix(12).map { ($0.cause, Double($0.fields), "\($0.fields)") }, style: .b, width: 720,
                          labelWidth: 330).svg
                + DataTable(kind: "flag-causes", caption: "Flagged fields by cause",
                            columns: [.init("cause", "Cause"), .init("fields", "Fields", numeric: true)],
                            rows: s.flagCauses.map { (nil, [$0.cause, "\($0.fields)"]) }).folded("The numbers") + "</figure>"
        }

        out += "<h3>Waiting for review</h3>" + DataTable(
            kind: "waiting", caption: "Game logs waiting for review",
            columns: [.init("sheet", "Sheet"), .init("athlete", "Athlete or team"), .init("game_date", "Date"), .init("reason", "Why it waits")],
            rows: s.waiting.map { w in
                (String(w.log.id), [w.sheet?.path ?? "sheet \(w.log.sheetID)", w.log.athlete ?? "—", w.log.date ?? "—", w.log.pendingReason ?? "not approved"])
            }, empty: "Nothing waits for review.").html

        out += "<h3>Failed files</h3>" + DataTable(
            kind: "failures", caption: "Files that could not be read",
            columns: [.init("path", "File"), .init("error", "Why"), .init("attempts", "Attempts", numeric: true), .init("last", "Last tried")],
            rows: s.failures.map { f in (nil, [f.path, f.error, "\(f.attempts)", stamp(f.lastFailedAt)]) }, empty: "No file failed.").html

        let shown = Array(s.corrections.suffix(200).reversed())
        out += "<h3>Values reviewers changed</h3>"
        if s.corrections.count > shown.count { out += "<p class=\"note\">The latest \(shown.count) of \(s.corrections.count) corrections.</p>" }
        out += DataTable(
            kind: "corrections", caption: "Corrections, latest first",
            columns: [.init("sheet", "Sheet"), .init("field", "Field"), .init("read", "Read as"), .init("changed", "Changed to"),
                      .init("reviewer", "Reviewer"), .init("at", "When"), .init("state", "State")],
            rows: shown.map { c in
                (String(c.id), [s.sheetPaths[c.sheetID] ?? "sheet \(c.sheetID)", c.field, c.original.value.description, c.newValue.description, c.reviewer,
                                stamp(c.at), c.isLive ? "in force" : "undone by \(c.undoneBy ?? "a reviewer")"])
            }, empty: "No reviewer has changed a value.").html
        return out + "</section>"
    }
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
