import Foundation

/// Expands folders into the image files inside them.
public enum ImageFiles {
    public static let extensions: Set<String> = ["png", "jpg", "jpeg", "tif", "tiff", "webp"]

    /// Files are kept as given (even with other extensions, so their error is reported); folders are
    /// searched recursively for image extensions, sorted by path.
    public static func expand(_ paths: [String]) -> [String] {
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
