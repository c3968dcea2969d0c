import Foundation
import SheetModel
@testable import SheetStore
import Testing

/// Runs the conformance suite on SQLite files in a temporary folder, one new file per case.
@Suite struct SQLiteConformanceTests {
    @Test(arguments: StoreConformance.cases)
    func conformance(_ testCase: StoreConformance.Case) async throws {
        try await TemporaryStore.with { store in try await testCase.run(store) }
    }

    @Test(arguments: StoreConformance.copyCases)
    func copy(_ testCase: StoreConformance.CopyCase) async throws {
        try await TemporaryStore.with { source in try await TemporaryStore.with { target in try await testCase.run(source, target) } }
    }
}

enum TemporaryStore {
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("statsheet-store-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func with(_ body: (SQLiteSheetStore) async throws -> Void) async throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try await body(try SQLiteSheetStore(path: dir.appendingPathComponent("store.sqlite").path))
    }
}

@Suite struct SQLiteStoreTests {
    /// Stores opened at once on a new file (as two `scan` processes may) all succeed and end up
    /// with one schema. The moment of contention is short, so it is tried on many new files.
    @Test func concurrentOpensOfANewFileAllSucceed() async throws {
        let dir = try TemporaryStore.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        for round in 0..<30 {
            let path = dir.appendingPathComponent("new-\(round).sqlite").path
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 { group.addTask { _ = try SQLiteSheetStore(path: path) } }
                try await group.waitForAll()
            }
            let store = try SQLiteSheetStore(path: path)
            #expect(try await store.sheets(status: nil).isEmpty)
        }
    }

    /// The open's and the migration's retry: as many calls as it is allowed, only for the errors it is
    /// told to retry, and the value of the first call that succeeds.
    @Test func retryingStopsAtItsAttemptsAndRetriesOnlyWhatItIsTold() throws {
        struct Flaky: Error {}
        var calls = 0
        #expect(throws: Flaky.self) {
            try SQLiteSheetStore.retrying(attempts: 3, while: { $0 is Flaky }) { () throws -> Int in calls += 1; throw Flaky() }
        }
        #expect(calls == 3)
        calls = 0
        #expect(throws: Flaky.self) {
            try SQLiteSheetStore.retrying(attempts: 3, while: { _ in false }) { () throws -> Int in calls += 1; throw Flaky() }
        }
        #expect(calls == 1)
        calls = 0
        let value = try SQLiteSheetStore.retrying(attempts: 3, while: { _ in true }) { () throws -> Int in
            calls += 1
            if calls < 2 { throw Flaky() }
            return 7
        }
        #expect(value == 7)
        #expect(calls == 2)
    }

    /// Data survives closing and reopening; reopening runs no migration twice.
    @Test func reopenKeepsSheets() async throws {
        let dir = try TemporaryStore.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.sqlite").path
        do {
            let store = try SQLiteSheetStore(path: path)
            _ = try await store.record(StoreConformance.sheet(hash: "a"), policy: ApprovalPolicy(), replace: false)
        }
        let again = try SQLiteSheetStore(path: path)
        #expect(try await again.sheets(status: nil).count == 1)
        #expect(try await again.goalieGameLogs(GameLogFilter()).count == 1)
    }

    /// A store made before known names (schema v4) learns, when it is opened, the names of the game logs
    /// already approved in it, and of no other.
    @Test func aStoreBeforeKnownNamesLearnsItsApprovedGameLogsNamesWhenOpened() async throws {
        let dir = try TemporaryStore.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.sqlite").path
        do {
            let store = try SQLiteSheetStore(path: path)
            _ = try await store.record(StoreConformance.sheet(hash: "a", athlete: "Zoë Fernández", opponent: "St. Mary's"),
                                       policy: ApprovalPolicy(), replace: false)
            _ = try await store.record(StoreConformance.sheet(hash: "b", athlete: "Sam Okafor", status: .needsReview), policy: ApprovalPolicy(), replace: false)
            // Back to v4: no known names, the v5 migration not run.
            try await store.write { session in
                try await session.execute("DROP TABLE known_names")
                try await session.execute("DELETE FROM grdb_migrations WHERE identifier = 'v5'")
            }
        }
        let migrated = try SQLiteSheetStore(path: path)
        #expect(try await migrated.knownNames(kind: nil).map(\.name) == [KnownName(kind: .athlete, name: "Zoë Fernández"),
                                                                          KnownName(kind: .opponent, name: "St. Mary's")])
        #expect(try await migrated.knownNames(kind: nil).allSatisfy { $0.source == .sheet && $0.addedAt == Date(timeIntervalSince1970: 1_790_000_000) })
    }

    @Test func unopenableStoreNamesThePath() throws {
        #expect(throws: StoreError.self) { _ = try SQLiteSheetStore(path: "/nonexistent-folder/x/store.sqlite") }
    }

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func sha256MatchesTheStandardVectors(_ input: String, _ digest: String) {
        #expect(SheetDigest.hex(of: Data(input.utf8)) == digest)
    }

    /// Lengths around the 55/56/64-byte padding boundaries, against a million 'a's' known digest.
    @Test func sha256OfLongAndBoundaryInputs() {
        #expect(SheetDigest.hex(of: Data(repeating: 0x61, count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(SheetDigest.hex(of: Data(repeating: 0x61, count: 55)) == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
        #expect(SheetDigest.hex(of: Data(repeating: 0x61, count: 64)) == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
        // Bytes as the loader holds them: the same digest as Data.
        #expect(SheetDigest.hex(of: [UInt8](repeating: 0x61, count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// A committed sheet's digest, as `sha256sum` gives it: a store finds a rerun's sheet by this digest,
    /// so it must not change with the hash's implementation.
    @Test func digestOfACommittedSheetIsTheOneStoresHold() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let bytes = try Data(contentsOf: root.appendingPathComponent("TestImages/lacrosse-goalie/printed/sheet-001.jpg"))
        #expect(SheetDigest.hex(of: bytes) == "f29de21ea1c65c2ab4617295999c59737f0d1179af3184bfaba8d42e2b6cfe58")
    }
}
