import Foundation
import Testing
@testable import SheetPipeline

@Suite struct ImageFilesTests {
    /// Folders are walked (even one named like an image), image extensions kept in any case, GIF among
    /// them, and every other file counted by its extension so that the summary can say so.
    @Test func folderWalkKeepsImagesAndCountsTheRest() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/scans.jpg", withIntermediateDirectories: false)
        for name in ["a.png", "B.JPG", "scans.jpg/c.gif", "notes.txt", "README", "scan.pdf", "more.pdf"] {
            try Fixtures.write([1], to: folder + "/" + name)
        }
        let expansion = ImageFiles.expand([folder, "/given/as/is.txt"])
        #expect(expansion.files == ["B.JPG", "a.png", "scans.jpg/c.gif"].map { folder + "/" + $0 } + ["/given/as/is.txt"])
        #expect(expansion.skipped == ["txt": 1, "": 1, "pdf": 2])
        #expect(expansion.skippedCount == 4)
    }
}
