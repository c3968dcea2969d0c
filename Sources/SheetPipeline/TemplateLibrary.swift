import Foundation
import SheetModel

/// The templates statsheet knows, gathered from template folders. A template in an earlier folder
/// wins over one with the same id in a later folder, so a club can override a bundled sheet.
public struct TemplateLibrary: Sendable {
    public struct Entry: Sendable {
        public let template: SheetTemplate
        public let path: String
    }

    public let entries: [Entry]
    /// Folders that were searched, in order.
    public let searchedFolders: [String]

    public init(entries: [Entry], searchedFolders: [String] = []) {
        self.entries = entries
        self.searchedFolders = searchedFolders
    }

    public var templates: [SheetTemplate] { entries.map(\.template) }

    public func template(id: String) -> SheetTemplate? { entries.first { $0.template.id == id }?.template }

    /// The template whose mark (id hash and version) was read from a sheet.
    public func template(markHash: UInt16, version: Int) -> SheetTemplate? {
        entries.first { $0.template.hasMarkers && TemplateMark.idHash($0.template.id) == markHash && $0.template.version == version }?.template
    }

    /// A template with that id hash but another version, for a precise error message.
    public func template(markHash: UInt16) -> SheetTemplate? {
        entries.first { $0.template.hasMarkers && TemplateMark.idHash($0.template.id) == markHash }?.template
    }

    /// Loads every `*.json` in the folders. A template file that does not decode or check is an error
    /// naming the file: a broken sheet definition must not be skipped silently.
    public static func load(folders: [String]) throws(TemplateLoadError) -> TemplateLibrary {
        var entries: [Entry] = []
        var searched: [String] = []
        for folder in folders {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else { continue }
            searched.append(folder)
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
            for name in names {
                let path = (folder as NSString).appendingPathComponent(name)
                let template = try loadFile(path)
                if !entries.contains(where: { $0.template.id == template.id }) {
                    entries.append(Entry(template: template, path: path))
                }
            }
        }
        return TemplateLibrary(entries: entries, searchedFolders: searched)
    }

    /// Decodes and checks one template file.
    public static func loadFile(_ path: String) throws(TemplateLoadError) -> SheetTemplate {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TemplateLoadError(path: path, problems: ["cannot be read"])
        }
        do {
            return try SheetTemplate.decode(data)
        } catch {
            throw TemplateLoadError(path: path, problems: error.problems)
        }
    }

    /// Where templates are looked for: `explicit` folders, then `STATSHEET_TEMPLATES` (colon-separated),
    /// then `./Templates`, then a `Templates` folder beside the executable or above it (a source
    /// checkout), then the shared install folders.
    public static func defaultFolders(explicit: [String] = [], environment: [String: String] = ProcessInfo.processInfo.environment,
                                      executable: URL? = Bundle.main.executableURL) -> [String] {
        var folders = explicit
        if let env = environment["STATSHEET_TEMPLATES"] {
            folders += env.split(separator: ":").map(String.init)
        }
        folders.append(FileManager.default.currentDirectoryPath + "/Templates")
        if var dir = executable?.resolvingSymlinksInPath().deletingLastPathComponent() {
            while dir.path != "/" {
                folders.append(dir.appendingPathComponent("Templates").path)
                dir = dir.deletingLastPathComponent()
            }
        }
        folders += ["/usr/local/share/statsheet/templates", "/usr/share/statsheet/templates"]
        var seen: Set<String> = []
        return folders.filter { seen.insert(($0 as NSString).standardizingPath).inserted }
    }
}

public struct TemplateLoadError: Error, Equatable, Sendable, CustomStringConvertible {
    public let path: String
    public let problems: [String]
    public var description: String { "template \(path): " + problems.joined(separator: "; ") }
}
