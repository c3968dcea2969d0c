import Foundation

/// Differences in an athlete's save % that the shot counts do not explain by chance.
///
/// Each comparison is a 2×2 table (saves and goals in one part of the games against another: two periods,
/// High School against Club, conference against non-conference) tested with Fisher's exact test, two-sided:
/// exact at the small counts a season gives, where a z-test's normal approximation is not. An athlete's
/// comparisons are corrected together by Holm's step-down method, so looking at ten pairs of periods does
/// not find a "difference" one time in two.
struct Insight: Sendable, Equatable {
    /// One side of a comparison: its name and its saves of shots.
    struct Side: Sendable, Equatable {
        var label: String
        var saves: Int
        var shots: Int
        var percent: Double { shots > 0 ? 100 * Double(saves) / Double(shots) : 0 }
    }

    /// Fewer games than this give no insight: a gap within one or two games is one opponent's, not the athlete's.
    static let minimumGames = 3

    var better: Side
    var worse: Side
    var games: Int
    /// Fisher's two-sided p-value, before the correction.
    var p: Double
    /// The number of comparisons it was corrected over.
    var comparisons: Int

    var sentence: String {
        "Saves \(Int(better.percent.rounded()))% \(better.label) (\(better.saves) of \(better.shots) shots) against "
            + "\(Int(worse.percent.rounded()))% \(worse.label) (\(worse.saves) of \(worse.shots)) over \(Number.plural(games, "game"))"
    }

    var evidence: String {
        "Fisher's exact test p = \(p < 0.001 ? "< 0.001" : String(format: "%.3f", p)), held against α = 0.05 after Holm's correction over "
            + Number.plural(comparisons, "comparison")
    }

    /// The comparisons whose difference survives Holm's correction at `alpha`, largest gap first. Pairs where a
    /// side has no shot are not compared.
    static func significant(_ pairs: [(Side, Side)], games: Int, alpha: Double = 0.05) -> [Insight] {
        let tested = pairs.filter { $0.0.shots > 0 && $0.1.shots > 0 }.map { a, b in
            (a: a, b: b, p: Fisher.twoSided(a.saves, a.shots - a.saves, b.saves, b.shots - b.saves))
        }
        let m = tested.count
        var found: [Insight] = []
        // Holm: the k-th smallest p (from 0) must be under alpha / (m - k); the first that is not stops the search.
        for (k, t) in tested.sorted(by: { $0.p < $1.p }).enumerated() {
            guard t.p <= alpha / Double(m - k) else { break }
            let (better, worse) = t.a.percent >= t.b.percent ? (t.a, t.b) : (t.b, t.a)
            found.append(Insight(better: better, worse: worse, games: games, p: t.p, comparisons: m))
        }
        return found.sorted { ($0.better.percent - $0.worse.percent) > ($1.better.percent - $1.worse.percent) }
    }
}

/// Fisher's exact test on a 2×2 table, through log-factorials so that hundreds of shots do not overflow.
enum Fisher {
    /// Two-sided p: the probability, with the margins fixed, of every table no more likely than the one seen.
    static func twoSided(_ a: Int, _ b: Int, _ c: Int, _ d: Int) -> Double {
        let row1 = a + b, col1 = a + c, n = a + b + c + d
        guard n > 0 else { return 1 }
        func logP(_ x: Int) -> Double {
            logChoose(col1, x) + logChoose(n - col1, row1 - x) - logChoose(n, row1)
        }
        let seen = logP(a)
        var p = 0.0
        for x in max(0, row1 + col1 - n)...min(row1, col1) {
            let l = logP(x)
            // A relative tolerance, so that tables as likely as the one seen count despite rounding.
            if l <= seen + 1e-7 { p += exp(l) }
        }
        return min(p, 1)
    }

    static func logChoose(_ n: Int, _ k: Int) -> Double {
        lgamma(Double(n + 1)) - lgamma(Double(k + 1)) - lgamma(Double(n - k + 1))
    }
}
