import Foundation
import Testing
@testable import SheetPipeline

@Suite struct ImageFilesTests {
    /// Folders are walked (even one named like an image), image extensions kept in any case, GIF, HEIC and
    /// PDF among them, and every other file counted by its extension so that the summary can say so.
    @Test func folderWalkKeepsImagesAndCountsTheRest() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/scans.jpg", withIntermediateDirectories: false)
        for name in ["a.png", "B.JPG", "scans.jpg/c.gif", "photo.HEIC", "x.heif", "scan.pdf", "notes.txt", "README", "sheet.docx", "more.docx"] {
            try Fixtures.write([1], to: folder + "/" + name)
        }
        let expansion = ImageFiles.expand([folder, "/given/as/is.txt"])
        #expect(expansion.files == ["B.JPG", "a.png", "photo.HEIC", "scan.pdf", "scans.jpg/c.gif", "x.heif"].map { folder + "/" + $0 } + ["/given/as/is.txt"])
        #expect(expansion.skipped == ["txt": 1, "": 1, "docx": 2])
        #expect(expansion.skippedCount == 4)
    }
}
