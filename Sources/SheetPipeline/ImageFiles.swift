import Foundation

/// Expands folders into the image files inside them.
public enum ImageFiles {
    public static let extensions: Set<String> = ["png", "jpg", "jpeg", "tif", "tiff", "webp", "gif", "heic", "heif", "pdf"]

    /// The files to read, and how many files in folders were left out for their extension.
    public struct Expansion: Equatable, Sendable {
        public var files: [String] = []
        /// Files inside folders whose extension is not an image's, by extension in lower case
        /// ("" for none): counted so that nothing vanishes without a word.
        public var skipped: [String: Int] = [:]
        public var skippedCount: Int { skipped.values.reduce(0, +) }
    }

    /// Files are kept as given (even with other extensions, so their error is reported); folders are
    /// searched recursively for image extensions, sorted by path. Folders inside folders are walked,
    /// never read, even when named like an image (`scans.jpg/`).
    public static func expand(_ paths: [String]) -> Expansion {
        var expansion = Expansion()
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                expansion.files.append(path)
                continue
            }
            var found: [String] = []
            for case let relative as String in FileManager.default.enumerator(atPath: path) ?? NSEnumerator() {
                let full = (path as NSString).appendingPathComponent(relative)
                var info = stat()
                if lstat(full, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { continue }
                let ext = (relative as NSString).pathExtension.lowercased()
                if extensions.contains(ext) {
                    found.append(relative)
                } else {
                    expansion.skipped[ext, default: 0] += 1
                }
            }
            expansion.files += found.sorted().map { (path as NSString).appendingPathComponent($0) }
        }
        return expansion
    }
}
