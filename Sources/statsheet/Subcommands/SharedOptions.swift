import ArgumentParser
import SheetPipeline

/// Where templates come from; shared by every command that needs them.
struct TemplateOptions: ParsableArguments {
    @Option(name: .customLong("templates"), help: ArgumentHelp(
        "A folder of template JSON files, searched before the bundled ones (repeatable; also STATSHEET_TEMPLATES).",
        valueName: "dir"))
    var folders: [String] = []

    func library() throws -> TemplateLibrary {
        try TemplateLibrary.load(folders: TemplateLibrary.defaultFolders(explicit: folders))
    }

    func template(_ id: String, in library: TemplateLibrary) throws -> SheetModelTemplate {
        guard let template = library.template(id: id) else {
            let known = library.templates.map(\.id).joined(separator: ", ")
            throw ValidationError("unknown template '\(id)'" + (known.isEmpty ? "; no templates were found" : "; known: \(known)"))
        }
        return template
    }
}

extension Writing: ExpressibleByArgument {}

/// How numbers are read: a choice shared by `scan` and `eval`.
struct WritingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Numbers are handwritten (hand), printed (print), or decided per sheet (auto).",
                               valueName: "auto|print|hand"))
    var writing: Writing = .auto
}
