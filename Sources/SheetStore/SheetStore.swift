import Foundation
import SheetModel

/// Where read sheets, their readings, corrections and game logs are kept. The scan pipeline and the
/// `games`/`sheets` commands talk only to this protocol; SQLite (`SQLiteSheetStore`) is the embedded
/// default and PostgreSQL (`PostgresSheetStore`) the shared server, both held to the same
/// `StoreConformance` suite.
///
/// Every method that writes is one transaction: a process killed at any moment leaves each sheet
/// either wholly stored or not at all. A sheet is identified by the SHA-256 of its file's bytes and its
/// page (`SheetKey`): a PDF or a multi-page TIFF is one sheet per page, a photo one sheet with no page.
public protocol SheetStore: Sendable {
    /// The sheets already stored, by content hash and page: a scan skips these without reading them.
    func storedSheets() async throws -> [SheetKey: StoredSheetState]

    /// Stores one read sheet with its readings and game log, in one transaction. When its key (hash and
    /// page) is already stored nothing changes (`.alreadyStored`) unless `replace` is set, which re-reads:
    /// readings are replaced and a game log not approved by a person is made again. Any failure
    /// recorded for the same page, or for the whole file, is cleared. A page below 1 is refused (`StoreError`).
    func record(_ sheet: NewSheet, policy: ApprovalPolicy, replace: Bool) async throws -> RecordOutcome

    /// Records a file, or a page of one, that could not be read; a later scan tries it again. One record per
    /// path and page: another failure of the same counts an attempt more.
    func recordFailure(_ failure: NewFailure) async throws

    /// Stored sheets, optionally only those with one status (`clean`, `needs_review`), oldest first.
    func sheets(status: SheetStatus?) async throws -> [SheetSummary]
    /// Files that could not be read and have not been read since.
    func failures() async throws -> [FailureRecord]
    /// Every reading of one sheet, in template order.
    func readings(sheetID: Int64) async throws -> [StoredReading]

    /// Approved game logs of role `goalie`, as the `goalie_game_logs` view gives them.
    func goalieGameLogs(_ filter: GameLogFilter) async throws -> [GoalieGameLog]
    /// One row per player of every approved box score (`box_score_lines`); `filter.athlete` is the team.
    func boxScoreLines(_ filter: GameLogFilter) async throws -> [BoxScoreLine]
    /// Every game log, approved or not, with why it waits.
    func gameLogs(sheetID: Int64?) async throws -> [GameLogSummary]
    /// Marks a game log approved (the review screen, issue 6).
    func approveGameLog(id: Int64, by reviewer: String, at time: Date) async throws

    /// A reviewer's correction of one field; the original reading is kept beside it. The value must
    /// have the field's kind's shape (`FieldKind.accepts`). Bumps the sheet's revision; when
    /// `correction.expectedRevision` is set and the sheet has moved on, throws `ReviewConflict`.
    func addCorrection(_ correction: NewCorrection) async throws -> Int64
    /// Every correction of the sheet, undone ones included, oldest first.
    func corrections(sheetID: Int64) async throws -> [Correction]

    // MARK: The whole store at once (the report, issue 43): one query each, however many sheets.

    /// Every flagged reading of every stored sheet, by sheet then template order: why the reader doubted them.
    func flaggedReadings() async throws -> [FlaggedReading]
    /// Every correction in the store, undone ones included, oldest first.
    func allCorrections() async throws -> [Correction]

    // MARK: Review (issue 6). Each write is one transaction that checks and bumps the sheet's revision.

    /// Sheets a person must still decide: `needs_review`, or with a game log waiting for approval,
    /// and neither approved nor rejected by a reviewer; oldest scanned first.
    func reviewQueue() async throws -> [SheetSummary]
    /// One sheet as a reviewer sees it: readings overlaid by their live corrections, its revision,
    /// game log and latest decision. Throws `StoreError` when there is no such sheet.
    func sheetReview(sheetID: Int64) async throws -> SheetReview
    /// Marks the sheet's latest live correction undone (the row stays, with who undid it and when)
    /// and returns it; nil when there is nothing to undo. Throws `ReviewConflict` on a stale revision.
    func undoLastCorrection(_ undo: UndoRequest) async throws -> Correction?
    /// Approves the sheet: its game log (if any) takes the draft's numbers and metadata (a nil
    /// metadata value keeps what is stored, e.g. given by flags) and is approved by the reviewer.
    /// `ruleFailures` are the rules that still fail on the corrected values; when there are any, a
    /// non-empty `overrideReason` is required (else `StoreError`). The decision is recorded.
    func approveSheet(_ approval: SheetApproval) async throws
    /// Rejects the sheet with a non-empty reason: it leaves the queue, its game log stays unapproved.
    func rejectSheet(_ rejection: SheetRejection) async throws
    /// Decisions taken on a sheet, oldest first.
    func decisions(sheetID: Int64) async throws -> [ReviewDecision]
    /// The grayscale PNG crop of a field's cell stored at scan time, or nil.
    func cellImage(sheetID: Int64, field: String) async throws -> Data?

    // MARK: Copying between stores (issue 7)

    /// One stored sheet whole: its row, readings, corrections, review decisions, cell images and game log with its stats, as
    /// `statsheet store copy` moves it to another store.
    func storedSheet(id: Int64) async throws -> StoredSheet
    /// Inserts a sheet copied from another store, history and approvals as they were, in one
    /// transaction. False (and nothing changes) when its key (content hash and page) is already stored.
    func insert(_ sheet: StoredSheet) async throws -> Bool
    /// Puts a failure copied from another store in place of any for the same path and page, attempts and times as they were.
    func restoreFailure(_ failure: FailureRecord) async throws

    // MARK: Known names (issue 42). Every game log approved (at once, by a reviewer, or copied approved)
    // adds its names with source `sheet`, in the approval's transaction.

    /// Adds, in one transaction, the names not yet known: a name of the same kind and `KnownName.matchKey`
    /// already stored, whatever its spelling or source, is left as it is. Returns how many were added.
    func addKnownNames(_ names: [StoredKnownName]) async throws -> Int
    /// The known names, all or of one kind, in `StoredKnownName.listOrder`.
    func knownNames(kind: NameKind?) async throws -> [StoredKnownName]

    // MARK: Digit examples (issue 40). A scan stores each handwritten number's character embeddings with its
    // sheet (`NewSheet.digitEmbeddings`); a person's live correction or confirmation of the number labels them.

    /// Every labelled digit: the characters of each number whose latest live correction gives as many digits
    /// as were read (`DigitExample.writtenDigits`), most recently corrected first; then those of each count a
    /// balanced sheet vouches for (`StoreSQL.balancedDigits`), most recently stored first.
    func digitExamples() async throws -> [DigitExample]

    /// The day and context of every approved game log that names its athlete (a box score's team) and date,
    /// by athlete: the seasons a handwritten date is weighed against (`SeasonPrior`). A log waiting for
    /// review is not counted: its date may be the misread in question.
    func seasonGames() async throws -> SeasonGames
}

/// A stored sheet with everything kept about it, independent of any store's ids.
public struct StoredSheet: Sendable, Equatable {
    public var sha256: String
    public var path: String
    /// The page of a document (from 1), nil for a file that is one image.
    public var page: Int?
    public var templateID: String
    public var templateVersion: Int
    public var status: SheetStatus
    public var alignmentQuality: Double?
    public var quarterTurns: Int?
    public var milliseconds: Double
    /// The confidence its fields were flagged under; nil for a sheet stored before the line was kept (schema v9).
    public var reviewLine: Double?
    public var ruleFailures: [RuleFailure]
    public var suggestions: [Suggestion]
    public var scannedAt: Date
    public var readings: [StoredReading]
    /// Bumped by every review write (issue 6); copied as it was.
    public var revision: Int
    /// Oldest first; `id` and `sheetID` are the source store's.
    public var corrections: [Correction]
    /// Oldest first; `id` and `sheetID` are the source store's.
    public var decisions: [ReviewDecision]
    /// Field id → the cell's PNG, as `NewSheet.cellImages`.
    public var cellImages: [String: Data]
    public var gameLog: StoredGameLog?
    /// Its handwritten numbers' character embeddings, by field.
    public var digitEmbeddings: [StoredDigitEmbeddings] = []

    /// What makes it the same sheet in every store.
    public var key: SheetKey { SheetKey(sha256: sha256, page: page) }
}

/// A game log as stored: what the sheet gave (as the scan drafted it, or a reviewer approved it),
/// who approved it and when.
public struct StoredGameLog: Sendable, Equatable {
    /// Role, metadata, metadata given by flags, and the numbers.
    public var content: GameLogDraft
    public var source: String
    /// The key (content hash and page) of the sheet whose game log this one probably duplicates (ids differ between stores).
    public var duplicateOfSheet: SheetKey?
    public var pendingReason: String?
    public var approvedAt: Date?
    public var approvedBy: String?
    public var createdAt: Date
}

/// Another reviewer changed the sheet since it was loaded: reload, show their change, try again.
public struct ReviewConflict: Error, Equatable, Sendable, CustomStringConvertible {
    public let sheetID: Int64
    public let expectedRevision: Int
    public let actualRevision: Int
    public init(sheetID: Int64, expectedRevision: Int, actualRevision: Int) {
        self.sheetID = sheetID; self.expectedRevision = expectedRevision; self.actualRevision = actualRevision
    }
    public var description: String {
        "sheet \(sheetID) was changed by someone else (revision \(actualRevision), you had \(expectedRevision))"
    }
}

public struct StoredSheetState: Sendable, Equatable {
    public var id: Int64
    public var status: SheetStatus
    public var templateID: String
    public var templateVersion: Int
    public init(id: Int64, status: SheetStatus, templateID: String, templateVersion: Int) {
        self.id = id; self.status = status; self.templateID = templateID; self.templateVersion = templateVersion
    }
}

/// A read sheet on its way into the store.
public struct NewSheet: Sendable {
    public var sha256: String
    public var path: String
    /// The page of a document (from 1) this sheet was read from; nil for a file that is one image.
    public var page: Int?
    public var scannedAt: Date
    /// A `clean` or `needs_review` result (failed ones go to `recordFailure`).
    public var result: SheetResult
    /// The template's field specs, for each reading's kind and printed box.
    public var fields: [FieldSpec]
    /// The game log the template's `gameLog` section makes of the readings, if it has one.
    public var gameLog: GameLogDraft?
    /// Field id → a small grayscale PNG of the field's cell cut from the aligned image, for review.
    public var cellImages: [String: Data]
    /// The digit network's embedding of each character of each handwritten number, by field: what a later
    /// correction of the number labels.
    public var digitEmbeddings: [StoredDigitEmbeddings] = []

    public init(sha256: String, path: String, page: Int? = nil, scannedAt: Date, result: SheetResult, fields: [FieldSpec],
                gameLog: GameLogDraft?, cellImages: [String: Data] = [:]) {
        self.sha256 = sha256; self.path = path; self.page = page; self.scannedAt = scannedAt; self.result = result
        self.fields = fields; self.gameLog = gameLog; self.cellImages = cellImages
    }

    public var key: SheetKey { SheetKey(sha256: sha256, page: page) }
    public var source: SheetSource { SheetSource(path: path, page: page) }
}

/// Which game logs are approved the moment their sheet is stored.
public struct ApprovalPolicy: Sendable, Equatable {
    /// Approve game logs of `clean` sheets at once (the default); false queues them for review too.
    public var approveClean: Bool
    /// Recorded as `approved_by` for automatic approvals.
    public var approver: String

    public init(approveClean: Bool = true, approver: String = "statsheet (clean sheet)") {
        self.approveClean = approveClean; self.approver = approver
    }
}

public enum RecordOutcome: Sendable, Equatable {
    /// Stored now, with what became of its game log.
    case stored(sheetID: Int64, gameLog: GameLogOutcome)
    /// Already stored and read again (`replace`): readings replaced, with what became of its game log.
    case replaced(sheetID: Int64, gameLog: GameLogOutcome)
    /// This content was already stored; nothing changed.
    case alreadyStored(sheetID: Int64, status: SheetStatus)
}

public enum GameLogOutcome: Sendable, Equatable {
    /// The template has no `gameLog` section.
    case none
    case approved(id: Int64)
    /// Waits for review, with why.
    case pending(id: Int64, reason: String)
}

public struct NewFailure: Sendable, Equatable {
    public var path: String
    /// The page of a document that failed (from 1); nil for a file that is one image, or a whole file that failed.
    public var page: Int?
    /// Nil when the file could not even be read.
    public var sha256: String?
    public var error: String
    public var at: Date
    public init(path: String, page: Int? = nil, sha256: String?, error: String, at: Date) {
        self.path = path; self.page = page; self.sha256 = sha256; self.error = error; self.at = at
    }
}

public struct FailureRecord: Sendable, Equatable {
    public var path: String
    /// As `NewFailure.page`.
    public var page: Int?
    public var sha256: String?
    public var error: String
    public var attempts: Int
    public var firstFailedAt: Date
    public var lastFailedAt: Date

    public var source: SheetSource { SheetSource(path: path, page: page) }
}

public struct SheetSummary: Sendable, Equatable {
    public var id: Int64
    public var sha256: String
    public var path: String
    /// The page of a document (from 1), nil for a file that is one image.
    public var page: Int?
    public var templateID: String
    public var templateVersion: Int
    public var status: SheetStatus
    public var scannedAt: Date
    public var alignmentQuality: Double?
    public var flaggedFields: Int
    public var ruleFailures: [RuleFailure]
    /// The confidence its fields were flagged under; nil for a sheet stored before the line was kept (schema v9).
    public var reviewLine: Double? = nil

    /// Where it was read from, as people name it (`scans/week3.pdf#page=2`).
    public var source: SheetSource { SheetSource(path: path, page: page) }
    public var key: SheetKey { SheetKey(sha256: sha256, page: page) }
}

public struct StoredReading: Sendable, Equatable {
    public var field: String
    public var kind: FieldKind
    public var reading: FieldReading
    /// The field's printed box on the template, in points.
    public var cell: Rect
}

public struct GameLogFilter: Sendable, Equatable {
    /// Case-insensitive exact athlete name.
    public var athlete: String?
    /// Inclusive `YYYY-MM-DD` bounds.
    public var from: String?
    public var to: String?
    public init(athlete: String? = nil, from: String? = nil, to: String? = nil) {
        self.athlete = athlete; self.from = from; self.to = to
    }
}

/// Shots, saves, goals allowed and clears of a period or a whole game; nil where the sheet had none.
public struct GoalieStats: Sendable, Equatable, Codable {
    public var shots: Int?
    public var saves: Int?
    public var goalsAllowed: Int?
    public var clears: Int?
    public init(shots: Int? = nil, saves: Int? = nil, goalsAllowed: Int? = nil, clears: Int? = nil) {
        self.shots = shots; self.saves = saves; self.goalsAllowed = goalsAllowed; self.clears = clears
    }
}

/// One row of the `goalie_game_logs` view.
public struct GoalieGameLog: Sendable, Equatable {
    public var id: Int64
    public var athlete: String?
    public var date: String?
    public var context: String?
    public var conference: String?
    public var opponent: String?
    public var source: String
    public var givenByFlags: [String]
    /// The view's `sheet_path`: the file, or its page as `path#page=N`.
    public var sheetPath: String
    public var sheetSHA256: String
    /// The view's `sheet_page`: the page of a document, nil for a file that is one image.
    public var sheetPage: Int?
    public var approvedAt: Date?
    public var approvedBy: String?
    public var totals: GoalieStats
    /// `p1`…`p4` and `ot`, the columns the view has.
    public var periods: [String: GoalieStats]
    /// The template the sheet was read with, which names the sport (the view's `template_id`, version 8).
    public var templateID: String? = nil

    /// The view's period column prefixes, in order.
    public static let periodColumns = ["p1", "p2", "p3", "p4", "ot"]
}

/// One row of the `box_score_lines` view: a player's numbers in one approved game. Field goals
/// count 2PT and 3PT together; percentages are 0–100, nil without an attempt.
public struct BoxScoreLine: Sendable, Equatable {
    public var gameLogID: Int64
    public var date: String?
    public var team: String?
    public var opponent: String?
    /// The view's `sheet_path`: the file, or its page as `path#page=N`.
    public var sheetPath: String
    /// The view's `sheet_page`: the page of a document, nil for a file that is one image.
    public var sheetPage: Int?
    /// The player's row on the sheet, from 1.
    public var line: Int
    public var number: String?
    public var player: String?
    public var points: Int?
    public var fieldGoalsMade: Int?, fieldGoalsAttempted: Int?, fieldGoalPercent: Double?
    public var threesMade: Int?, threesAttempted: Int?, threePercent: Double?
    public var freeThrowsMade: Int?, freeThrowsAttempted: Int?, freeThrowPercent: Double?
    public var twosMade: Int?, twosAttempted: Int?
    public var rebounds: Int?, assists: Int?, steals: Int?, blocks: Int?, turnovers: Int?, fouls: Int?
    /// The opponent's final score as the sheet gives it (`opponent_points`), nil when it is blank.
    public var opponentPoints: Int? = nil
    /// The template the sheet was read with, which names the sport.
    public var templateID: String? = nil

    /// The team's score: the sum of its players' points, nil when no line has points.
    public static func teamPoints(_ game: [BoxScoreLine]) -> Int? {
        let points = game.compactMap(\.points)
        return points.isEmpty ? nil : points.reduce(0, +)
    }

    /// "W", "L" or "T" from the players' points against the opponent's score; nil without both.
    public static func result(_ game: [BoxScoreLine]) -> String? {
        guard let ours = teamPoints(game), let theirs = game.first?.opponentPoints else { return nil }
        return ours > theirs ? "W" : ours < theirs ? "L" : "T"
    }
}

/// A game log, approved or waiting.
public struct GameLogSummary: Sendable, Equatable {
    public var id: Int64
    public var sheetID: Int64
    public var role: String
    public var athlete: String?
    public var date: String?
    public var opponent: String?
    public var context: String?
    public var approvedAt: Date?
    public var approvedBy: String?
    /// Set when the same athlete, date and opponent (and context) was already logged.
    public var duplicateOf: Int64?
    public var pendingReason: String?
}

/// A flagged reading of a stored sheet.
public struct FlaggedReading: Sendable, Equatable {
    public var sheetID: Int64
    public var field: String
    public var reading: FieldReading
    public init(sheetID: Int64, field: String, reading: FieldReading) {
        self.sheetID = sheetID; self.field = field; self.reading = reading
    }
}

public struct NewCorrection: Sendable, Equatable {
    public var sheetID: Int64
    public var field: String
    public var newValue: FieldValue
    public var reviewer: String
    public var at: Date
    public var note: String?
    /// The sheet revision the reviewer saw; nil writes whatever it is (still bumping it).
    public var expectedRevision: Int?
    public init(sheetID: Int64, field: String, newValue: FieldValue, reviewer: String, at: Date, note: String? = nil,
                expectedRevision: Int? = nil) {
        self.sheetID = sheetID; self.field = field; self.newValue = newValue; self.reviewer = reviewer; self.at = at; self.note = note
        self.expectedRevision = expectedRevision
    }
}

public struct Correction: Sendable, Equatable {
    public var id: Int64
    public var sheetID: Int64
    public var field: String
    /// The reading as the scan stored it, kept whatever the reviewer changes.
    public var original: FieldReading
    public var newValue: FieldValue
    public var reviewer: String
    public var at: Date
    public var note: String?
    /// Set when a reviewer undid it: it no longer counts, but stays on record.
    public var undoneAt: Date?
    public var undoneBy: String?
    public var isLive: Bool { undoneAt == nil }
}

/// The store cannot be reached, or the connection to it was lost: nothing more can be stored now, so a
/// batch stops (what was stored is kept; a rerun finishes). The message names the server, never a password.
public struct StoreUnavailableError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// What a store reports when asked for something that is not there, or given something it refuses.
public struct StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    /// A store opened to read only (`statsheet eval --db`) whose schema is older than this statsheet's: reading
    /// it would mean changing it, which a measurement must not do, so the user is told how to bring it up to date.
    static func olderSchema(store: String, version: String?, current: String) -> StoreError {
        StoreError("the store \(store) is at schema \(version ?? "none") and this statsheet reads \(current); it is read without being "
                   + "changed, so bring it up to date first with 'statsheet store migrate --db \(store)'")
    }
}
