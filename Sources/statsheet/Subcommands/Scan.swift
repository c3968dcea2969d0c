import ArgumentParser
import Foundation
import Logging
import SheetModel
import SheetPipeline

struct Scan: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read stat sheet images: every field with its value and confidence.",
        discussion: """
            PATH may be image files (PNG, JPEG, TIFF, WebP) or folders, which are searched recursively. \
            A file that cannot be read is reported with its reason and the others are still read; the \
            exit status is 1 when any file failed.
            """)

    @OptionGroup var templates: TemplateOptions
    @OptionGroup var writing: WritingOptions
    @Argument(help: ArgumentHelp("Image files or folders of them.", valueName: "path")) var paths: [String]
    @Option(help: ArgumentHelp("The sheets' template id; needed only when a sheet's printed mark cannot be read.", valueName: "id"))
    var template: String?
    @Flag(help: "One JSON object per file per line, instead of tables.") var json = false
    @Option(help: ArgumentHelp("Write an annotated copy of each sheet into this folder.", valueName: "dir")) var overlay: String?
    @Option(help: "Fields read with less confidence (0–100) are flagged for review.") var minConfidence: Double = 70
    @Option(help: "Refuse images with more megapixels than this, before decoding them.") var maxMegapixels: Double = 60
    @Flag(name: .shortAndLong, help: "Log each step on stderr.") var verbose = false

    func validate() throws {
        guard (0...100).contains(minConfidence) else { throw ValidationError("--min-confidence must be 0–100, not \(minConfidence)") }
        guard maxMegapixels > 0 else { throw ValidationError("--max-megapixels must be positive") }
    }

    func run() throws {
        LogSetup.bootstrap(verbose: verbose)
        let library = try templates.library()
        let requested = try template.map { try templates.template($0, in: library) }
        if library.templates.isEmpty && requested == nil {
            throw RuntimeError("no templates found; searched " + library.searchedFolders.joined(separator: ", "))
        }
        let files = ImageFiles.expand(paths)
        guard !files.isEmpty else { throw RuntimeError("no image files found in \(paths.joined(separator: ", "))") }

        var options = ScanOptions(minConfidence: minConfidence, overlayFolder: overlay, writing: writing.writing)
        options.loader.maxPixels = Int(maxMegapixels * 1_000_000)
        let scanner = try SheetScanner(library: library, requested: requested, options: options)
        let output = ScanOutput(json: json, library: library)
        var failed = 0, clean = 0, review = 0
        for file in files {
            let result = scanner.scan(file)
            switch result.status {
            case .failed: failed += 1
            case .clean: clean += 1
            case .needsReview: review += 1
            }
            output.show(result)
        }
        if !json {
            print("\(files.count) sheet\(files.count == 1 ? "" : "s"): \(clean) clean, \(review) need review, \(failed) failed")
        }
        if failed > 0 { throw ExitCode(1) }
    }
}

/// Expands folders into the image files inside them.
enum ImageFiles {
    static let extensions: Set<String> = ["png", "jpg", "jpeg", "tif", "tiff", "webp"]

    /// Files are kept as given (even with other extensions, so their error is reported); folders are
    /// searched recursively for image extensions, sorted by path.
    static func expand(_ paths: [String]) -> [String] {
        paths.flatMap { path -> [String] in
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return [path] }
            let found = FileManager.default.enumerator(atPath: path)?.compactMap { $0 as? String } ?? []
            return found.filter { extensions.contains(($0 as NSString).pathExtension.lowercased()) }
                .sorted()
                .map { (path as NSString).appendingPathComponent($0) }
        }
    }
}

enum LogSetup {
    /// swift-log to stderr: warnings by default, everything with --verbose.
    static func bootstrap(verbose: Bool) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = verbose ? .debug : .warning
            return handler
        }
    }
}
