import SheetModel

/// What `StoreCopy.copy(from:to:)` moved.
public struct StoreCopyCounts: Sendable, Equatable {
    /// Sheets inserted into the destination.
    public var sheets = 0
    /// Sheets the destination already held (the same file's hash and page), left as they are.
    public var alreadyThere = 0
    /// Failures copied.
    public var failures = 0
    /// Known names the destination did not know.
    public var names = 0
}

public enum StoreCopy {
    /// Copies one store into another (`statsheet store copy`), whatever their backends: known names first (an
    /// imported name stays `import` rather than being learnt again from a copied sheet), then every sheet oldest
    /// first (so a game log's probable duplicate is in place before the log naming it), each in its own
    /// transaction and matched by its key, the file's hash and page: a sheet already there is left as it is, so a
    /// copy run twice, or again after one that stopped, stores nothing twice. Then failures, unless the
    /// destination has read that page (or, for a whole file's failure, any page of that file) since, as a stored
    /// sheet clears them (`StoreSQL.clearFailures`).
    public static func copy(from source: any SheetStore, to target: any SheetStore) async throws -> StoreCopyCounts {
        var counts = StoreCopyCounts()
        counts.names = try await target.addKnownNames(try await source.knownNames(kind: nil))
        let have = try await target.storedSheets()
        for sheet in try await source.sheets(status: nil) {
            if have[sheet.key] == nil, try await target.insert(try await source.storedSheet(id: sheet.id)) {
                counts.sheets += 1
            } else {
                counts.alreadyThere += 1
            }
        }
        let stored = try await target.sheets(status: nil)
        let (keys, sources) = (Set(stored.map(\.key)), Set(stored.map(\.source)))
        let (paths, hashes) = (Set(stored.map(\.path)), Set(stored.map(\.sha256)))
        for failure in try await source.failures() {
            let read = sources.contains(failure.source) || failure.sha256.map { keys.contains(SheetKey(sha256: $0, page: failure.page)) } ?? false
                || (failure.page == nil && (paths.contains(failure.path) || failure.sha256.map(hashes.contains) ?? false))
            guard !read else { continue }
            try await target.restoreFailure(failure)
            counts.failures += 1
        }
        return counts
    }
}
