import ArgumentParser
import Foundation
import SheetModel
import SheetStore

/// `statsheet sheets`: what is in the store, the review queue and the files that failed.
struct Sheets: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the sheets in the store: the review queue and the files that failed.",
        discussion: """
            Each stored sheet with its status and what became of its game log (approved, or waiting and \
            why). --status failed lists the files that could not be read; the next scan of them tries again.
            """)

    enum Status: String, ExpressibleByArgument, CaseIterable {
        case clean, needsReview = "needs_review", failed, waiting
    }

    @OptionGroup var store: StoreOptions
    @Option(help: ArgumentHelp("clean, needs_review, failed, or waiting (sheets whose game log waits for review).", valueName: "status"))
    var status: Status?
    @Flag(help: "One JSON object per sheet per line.") var json = false

    func run() async throws {
        let store = try await store.openExisting()
        if status == .failed {
            for f in try await store.failures() {
                if json {
                    emit(["path": f.path, "page": f.page ?? NSNull(), "sha256": f.sha256 ?? NSNull(), "status": "failed", "error": f.error, "attempts": f.attempts,
                          "last_failed_at": f.lastFailedAt.formatted(.iso8601)])
                } else {
                    print(TerminalText.escaped("\(f.source): FAILED — \(f.error) (\(f.attempts) attempt\(f.attempts == 1 ? "" : "s"))"))
                }
            }
            return
        }
        let filter: SheetStatus? = switch status {
        case .clean: .clean
        case .needsReview: .needsReview
        default: nil
        }
        let logs = Dictionary(try await store.gameLogs(sheetID: nil).map { ($0.sheetID, $0) }, uniquingKeysWith: { a, _ in a })
        var shown = 0
        for sheet in try await store.sheets(status: filter) {
            let log = logs[sheet.id]
            if status == .waiting, log?.approvedAt != nil || log == nil { continue }
            shown += 1
            let state = log.map { $0.approvedAt == nil ? "waiting: \($0.pendingReason ?? "not approved")" : "game log \($0.id) approved" } ?? "no game log"
            if json {
                emit(["sheet_id": sheet.id, "path": sheet.path, "page": sheet.page ?? NSNull(), "sha256": sheet.sha256, "status": sheet.status.rawValue,
                      "template": sheet.templateID, "template_version": sheet.templateVersion, "flagged_fields": sheet.flaggedFields,
                      "rule_failures": sheet.ruleFailures.map(\.rule), "game_log_id": log?.id ?? NSNull(),
                      "approved": log?.approvedAt != nil, "pending_reason": log?.pendingReason ?? NSNull()])
            } else {
                var line = "\(sheet.id)  \(sheet.source)  \(sheet.status.rawValue)  \(state)"
                if sheet.flaggedFields > 0 { line += "; \(sheet.flaggedFields) field\(sheet.flaggedFields == 1 ? "" : "s") flagged" }
                if !sheet.ruleFailures.isEmpty { line += "; rules: " + sheet.ruleFailures.map(\.rule).joined(separator: ", ") }
                print(TerminalText.escaped(line))
            }
        }
        if !json && status == nil {
            let failures = try await store.failures().count
            print("\(shown) sheet\(shown == 1 ? "" : "s")" + (failures > 0 ? "; \(failures) failed file\(failures == 1 ? "" : "s") (--status failed)" : ""))
        }
    }

    private func emit(_ object: [String: Any]) {
        if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) {
            print(TerminalText.asciiSafeJSON(String(decoding: data, as: UTF8.self)))
        }
    }
}
