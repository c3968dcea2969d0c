import Foundation
import SheetModel
import SheetStore

/// The review screen's behaviour, without a terminal: keys in, `state` out. Every change is written
/// to the store the moment it is made (one transaction, checked against the sheet's revision), and
/// the rules are run again on the values that result.
public final class ReviewSession {
    public enum Outcome: Sendable, Equatable { case continuing, quit }

    public private(set) var state: ReviewState
    private let store: any SheetStore
    private let templates: @Sendable (_ id: String, _ version: Int) -> SheetTemplate?
    private let images: any CellImageSource
    private let now: @Sendable () -> Date
    private var imageCache: [String: CellPixels?] = [:]

    public init(store: any SheetStore, reviewer: String, images: any CellImageSource,
                templates: @escaping @Sendable (_ id: String, _ version: Int) -> SheetTemplate?,
                now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.templates = templates
        self.images = images
        self.now = now
        state = ReviewState(reviewer: reviewer)
    }

    /// Loads the queue and its first sheet.
    public func start() async throws {
        try await reloadQueue(selecting: nil)
        if state.queue.isEmpty { say("Nothing waits for review.") }
    }

    // MARK: Keys

    public func handle(_ key: Key) async throws -> Outcome {
        if key == .interrupt || key == .endOfInput { return .quit }
        switch state.mode {
        case .help:
            state.mode = .browsing
        case .editing(let text):
            if let typed = edit(text, key, rewrap: ReviewState.Mode.editing) { try await commitEdit(typed) }
        case .rejecting(let text):
            if let typed = edit(text, key, rewrap: ReviewState.Mode.rejecting) { try await reject(reason: typed) }
        case .overriding(let text):
            if let typed = edit(text, key, rewrap: ReviewState.Mode.overriding) { try await approve(overrideReason: typed) }
        case .browsing:
            return try await browse(key)
        }
        return .continuing
    }

    /// Line editing in a prompt; the finished text on Enter, nil otherwise (Esc cancels).
    private func edit(_ text: String, _ key: Key, rewrap: (String) -> ReviewState.Mode) -> String? {
        switch key {
        case .enter: return text
        case .escape:
            state.mode = .browsing
            say("Cancelled.")
        case .backspace: state.mode = rewrap(String(text.dropLast()))
        case .character(let c): state.mode = rewrap(text + String(c))
        default: break
        }
        return nil
    }

    private func browse(_ key: Key) async throws -> Outcome {
        guard state.review != nil else { return key == .character("q") ? .quit : .continuing }
        switch key {
        case .up, .character("k"): try await moveField(by: -1)
        case .down, .character("j"): try await moveField(by: 1)
        case .tab, .character("n"):
            if try await !nextUnsettledField() { say(Self.allSettled) }
        case .left, .character("h"): try await moveSheet(by: -1)
        case .right, .character("l"): try await moveSheet(by: 1)
        case .enter: try await acceptAsRead()
        case .character("e"): state.mode = .editing(""); state.message = nil
        case .character("s"): try await takeSuggestion()
        case .character("u"): try await undo()
        case .character("a"): try await approve(overrideReason: nil)
        case .character("r"): state.mode = .rejecting(""); state.message = nil
        case .character("?"): state.mode = .help
        case .character("q"): return .quit
        default: break
        }
        return .continuing
    }

    // MARK: Moving

    private func moveField(by step: Int) async throws {
        guard let count = state.review?.fields.count, count > 0 else { return }
        state.fieldIndex = (state.fieldIndex + step + count) % count
        state.message = nil
        await loadImage()
    }

    /// The next flagged (or rule-failing) field nobody has settled, after the current one; false
    /// (and a word on what is left to do) when there is none.
    @discardableResult
    private func nextUnsettledField() async throws -> Bool {
        guard let fields = state.review?.fields, !fields.isEmpty else { return false }
        let failing = state.failingFields
        for offset in 1...fields.count {
            let i = (state.fieldIndex + offset) % fields.count
            let f = fields[i]
            if (f.stored.reading.flagged || failing.contains(f.field)) && !ReviewState.isSettled(f) {
                state.fieldIndex = i
                await loadImage()
                return true
            }
        }
        return false
    }

    private func moveSheet(by step: Int) async throws {
        let count = state.queue.count
        guard count > 1 else { say("This is the only sheet waiting."); return }
        state.position = (state.position + step + count) % count
        try await loadSheet(chooseField: true)
        say(step > 0 ? "Skipped to the next sheet; the skipped one stays in the queue." : "Back to the previous sheet.")
    }

    private func reloadQueue(selecting id: Int64?) async throws {
        let queue = try await store.reviewQueue()
        state.queue = queue
        if let id, let i = queue.firstIndex(where: { $0.id == id }) { state.position = i }
        state.position = queue.isEmpty ? 0 : min(state.position, queue.count - 1)
        try await loadSheet(chooseField: true)
    }

    private func loadSheet(chooseField: Bool) async throws {
        guard state.queue.indices.contains(state.position) else {
            state.review = nil; state.template = nil; state.image = nil; state.failures = []; state.suggestion = nil
            return
        }
        let review = try await store.sheetReview(sheetID: state.queue[state.position].id)
        state.review = review
        state.template = templates(review.sheet.templateID, review.sheet.templateVersion)
        rerunRules()
        if chooseField {
            let failing = state.failingFields
            let fields = review.fields
            // Where a person is needed first: an open flag, then a change of theirs that rules still
            // reject (a resumed session lands there), then any field of a failing rule.
            state.fieldIndex = fields.firstIndex { $0.stored.reading.flagged && !ReviewState.isSettled($0) }
                ?? fields.firstIndex { $0.correction != nil && failing.contains($0.field) }
                ?? fields.firstIndex { failing.contains($0.field) }
                ?? fields.firstIndex { $0.stored.reading.flagged } ?? 0
        }
        state.fieldIndex = min(state.fieldIndex, max(0, review.fields.count - 1))
        await loadImage()
    }

    /// Rules and suggestion on the current values: corrected fields are fixed (no alternatives).
    private func rerunRules() {
        guard let review = state.review else { return }
        guard let template = state.template else {
            state.failures = review.sheet.ruleFailures
            state.suggestion = nil
            state.suggestionNote = "template \(review.sheet.templateID) v\(review.sheet.templateVersion) is not installed: rules as read at scan time"
            return
        }
        let judge = judge(of: review, template: template)
        state.failures = judge.failures(review.values)
        state.suggestion = nil
        state.suggestionNote = nil
        suggestionPending = false
        guard !state.failures.isEmpty else { return }
        // Nothing changed since the scan: its suggestion stands, and the search (up to seconds on a
        // hand-filled sheet with many doubtful digits) is not run again on the way to the screen.
        if !review.corrections.contains(where: \.isLive) {
            state.suggestion = review.suggestions.first { !$0.changes.isEmpty }
            if let suggestion = state.suggestion {
                state.suggestionNote = leftBroken(by: suggestion, values: review.values, judge: judge)
            } else {
                state.suggestionNote = "none found at scan time"
            }
            return
        }
        // After a change the search runs again, but after the screen is drawn (`searchSuggestion`):
        // on a hand-filled sheet with many doubtful digits it can take longer than a redraw should.
        state.suggestionNote = "searching…"
        suggestionPending = true
    }

    /// The rules a suggestion leaves failing, shown under it: no plausible alternatives satisfy them.
    static func beyondRepairNote(_ rules: [String]) -> String {
        "\(rules.joined(separator: ", ")): no fix found"
    }

    /// True when a change left the suggestion to be searched for again.
    public private(set) var suggestionPending = false

    /// Searches the alternatives for a set under which every rule holds, with the current values:
    /// corrected fields are fixed. The terminal loop calls it after each redraw.
    public func searchSuggestion() {
        guard suggestionPending, let review = state.review, let template = state.template else { return }
        suggestionPending = false
        let judge = judge(of: review, template: template)
        state.suggestionNote = nil
        let judged = judge.rejudge(review.fields.map { (id: $0.field, reading: $0.stored.reading) },
                                   settled: Dictionary(uniqueKeysWithValues: review.fields.compactMap { f in f.correction.map { (f.field, $0.newValue) } }))
        switch judged.outcome {
        case .suggestion(let s) where !s.changes.isEmpty, .partial(let s, _) where !s.changes.isEmpty:
            state.suggestion = s
            state.suggestionNote = leftBroken(by: s, values: review.values, judge: judge)
        case .inconsistent: state.suggestionNote = "no plausible alternatives satisfy the rules"
        default: state.suggestionNote = "none"
        }
    }

    /// The judge of the sheet under review: its template, the review line it was read with, today.
    private func judge(of review: SheetReview, template: SheetTemplate) -> SheetJudge {
        SheetJudge(template: template, policy: .standard.withReviewLine(review.sheet.reviewLine ?? ReviewLine.standard), today: now())
    }

    /// The note under a suggestion that mends only some broken rules (`SuggestionOutcome.partial`): the
    /// rules (errors, not warnings such as a sixth foul) that still fail once it is taken, or nil. Worked
    /// out the same way for a suggestion stored at scan time and for one searched after a change.
    private func leftBroken(by suggestion: Suggestion, values: [String: FieldValue], judge: SheetJudge) -> String? {
        let left = judge.leftBroken(by: suggestion, values: values)
        return left.isEmpty ? nil : Self.beyondRepairNote(left)
    }

    private func loadImage() async {
        guard let review = state.review, let field = state.currentField else { state.image = nil; return }
        let cacheKey = "\(review.sheet.id):\(field.field)"
        if let cached = imageCache[cacheKey] { state.image = cached; return }
        let image = await images.cellImage(sheet: SheetImageKey(sheetID: review.sheet.id, path: review.sheet.path,
                                                                templateID: review.sheet.templateID), field: field.field)
        imageCache[cacheKey] = image
        state.image = image
    }

    // MARK: Changes

    private func commitEdit(_ typed: String) async throws {
        guard let field = state.currentField else { return }
        let kind = field.stored.kind
        var valueText = typed
        var note: String?
        if let hash = typed.range(of: "#") {
            valueText = String(typed[..<hash.lowerBound])
            note = typed[hash.upperBound...].trimmingCharacters(in: .whitespaces)
            if note?.isEmpty == true { note = nil }
        }
        switch kind.value(parsing: valueText) {
        case .failure(let error):
            warn("\(error.message) — type again, or Esc to cancel.")
        case .success(let value):
            state.mode = .browsing
            if let saved = try await correct(field.field, to: value, note: note) {
                report(saved, "\(field.field): \(field.value) → \(value) saved.")
            }
        }
    }

    private func acceptAsRead() async throws {
        guard let field = state.currentField else { return }
        let read = field.stored.reading.value
        let note = field.stored.reading.inkValue != nil ? "accepted the value the sums chose" : "accepted as read"
        if let saved = try await correct(field.field, to: read, note: note) {
            let moved = try await nextUnsettledField()
            report(saved, "\(field.field): \(read) accepted as read." + (moved ? "" : " " + Self.allSettled))
        }
    }

    private func takeSuggestion() async throws {
        searchSuggestion()
        guard let suggestion = state.suggestion else {
            warn(state.suggestionNote.map { "No suggestion: \($0)." } ?? "No suggestion for this sheet.")
            return
        }
        var applied: [String] = []
        var outcome = Saved.plainly
        for change in suggestion.changes {
            let note = "suggestion (\(Int((change.probability * 100).rounded()))%)"
            guard let saved = try await correct(change.field, to: change.to, note: note) else { return }
            if saved == .onTopOfAnother { outcome = saved }
            applied.append("\(change.field) \(change.from) → \(change.to)")
        }
        report(outcome, "Suggestion taken: " + applied.joined(separator: ", ") + ".")
    }

    enum Saved { case plainly, onTopOfAnother }

    /// Saves one correction. On a conflict the sheet is reloaded: if the other reviewer left this
    /// field alone the correction is saved on top of theirs (both changes kept, and the user is told);
    /// if they changed it, theirs stands and the user is shown it. Nil when not saved.
    private func correct(_ field: String, to value: FieldValue, note: String?) async throws -> Saved? {
        guard let review = state.review else { return nil }
        let seen = review.values[field]
        var revision = review.revision
        var merged = false
        for _ in 0..<3 {
            do {
                _ = try await store.addCorrection(NewCorrection(sheetID: review.sheet.id, field: field, newValue: value,
                                                                reviewer: state.reviewer, at: now(), note: note, expectedRevision: revision))
                try await loadSheet(chooseField: false)
                return merged ? .onTopOfAnother : .plainly
            } catch is ReviewConflict {
                try await loadSheet(chooseField: false)
                guard let reloaded = state.review, reloaded.values[field] == seen else {
                    let who = state.review?.corrections.last { $0.field == field }?.reviewer ?? "someone else"
                    warn("\(who) changed \(field) to \(state.review?.values[field]?.description ?? "?") meanwhile: yours is not saved; look again.")
                    return nil
                }
                revision = reloaded.revision
                merged = true
            } catch let error as StoreError {
                warn(error.message)
                return nil
            }
        }
        warn("This sheet keeps changing under you: try again.")
        return nil
    }

    private func report(_ saved: Saved, _ text: String) {
        if saved == .onTopOfAnother {
            warn(text + " On top of someone else's change, now shown.")
        } else {
            say(text)
        }
    }

    private func undo() async throws {
        guard let review = state.review else { return }
        try await decide {
            if let undone = try await self.store.undoLastCorrection(UndoRequest(sheetID: review.sheet.id, expectedRevision: review.revision,
                                                                                reviewer: self.state.reviewer, at: self.now())) {
                try await self.loadSheet(chooseField: false)
                let back = self.state.review?.values[undone.field]?.description ?? "?"
                self.say("Undone: \(undone.field) \(undone.newValue) (by \(undone.reviewer)); it is \(back) again.")
            } else {
                self.say("Nothing to undo on this sheet.")
            }
        }
    }

    private func approve(overrideReason: String?) async throws {
        guard let review = state.review else { return }
        let reason = overrideReason?.trimmingCharacters(in: .whitespaces)
        // A number the ink did not give (the sums chose it, or the scan filled in the suggestion) is stored
        // only once a person confirmed it (Enter or a new value) or said why not.
        if (!state.failures.isEmpty || !state.unconfirmedNotFromInk.isEmpty) && (reason ?? "").isEmpty {
            state.mode = .overriding("")
            if reason != nil {
                warn(state.failures.isEmpty ? "A reason is required to approve numbers the ink did not give unconfirmed (Esc cancels)."
                                            : "A reason is required to approve while rules fail (Esc cancels).")
            }
            return
        }
        if state.template == nil, review.corrections.contains(where: \.isLive) {
            warn("Template \(review.sheet.templateID) is not installed: corrected numbers cannot be turned into a game log here.")
            return
        }
        state.mode = .browsing
        // Said of this sheet's rules, before the queue moves on to the next sheet.
        let over = state.failures.isEmpty ? "with unconfirmed numbers the ink did not give" : "over failing rules"
        try await decide {
            try await self.store.approveSheet(SheetApproval(
                sheetID: review.sheet.id, expectedRevision: review.revision, reviewer: self.state.reviewer, at: self.now(),
                gameLog: self.state.template?.gameLog?.draft(from: review.values), ruleFailures: self.state.failures,
                overrideReason: reason))
            let name = (review.sheet.source.description as NSString).lastPathComponent
            try await self.reloadQueue(selecting: nil)
            self.say("Approved \(name)" + (reason.map { " \(over) (\($0))" } ?? "") + (review.gameLog == nil ? "." : ": its game log holds the corrected numbers."))
        }
    }

    private func reject(reason: String) async throws {
        guard let review = state.review else { return }
        guard !reason.trimmingCharacters(in: .whitespaces).isEmpty else {
            warn("A reason is required to reject (Esc cancels).")
            return
        }
        state.mode = .browsing
        try await decide {
            try await self.store.rejectSheet(SheetRejection(sheetID: review.sheet.id, expectedRevision: review.revision,
                                                            reviewer: self.state.reviewer, at: self.now(), reason: reason))
            try await self.reloadQueue(selecting: nil)
            self.say("Rejected \((review.sheet.source.description as NSString).lastPathComponent): \(reason).")
        }
    }

    /// Runs a sheet-wide write; on a conflict reloads the sheet and says so (the user decides again
    /// on what is now there); a refusal from the store is shown, not thrown.
    private func decide(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch is ReviewConflict {
            state.mode = .browsing
            try await loadSheet(chooseField: false)
            warn("Someone else changed this sheet meanwhile: reloaded, nothing of yours saved; look again.")
        } catch let error as StoreError {
            warn(error.message)
        }
    }


    static let allSettled = "Every flagged field on this sheet is settled: approve (a) or reject (r)."

    private func say(_ text: String) { state.message = text; state.messageIsWarning = false }
    private func warn(_ text: String) { state.message = text; state.messageIsWarning = true }
}
