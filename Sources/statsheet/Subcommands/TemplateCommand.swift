import ArgumentParser
import Foundation
import SheetModel
import SheetPipeline

typealias SheetModelTemplate = SheetTemplate

struct TemplateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "template",
        abstract: "List, inspect and print sheet templates.",
        subcommands: [List.self, Show.self, Render.self, Check.self, New.self, Name.self]
    )
}

extension TemplateCommand {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the templates statsheet knows.")
        @OptionGroup var templates: TemplateOptions

        func run() throws {
            let library = try templates.library()
            if library.entries.isEmpty {
                throw RuntimeError("no templates found; searched: " + TemplateLibrary.defaultFolders(explicit: templates.folders).joined(separator: ", "))
            }
            for entry in library.entries {
                let t = entry.template
                print("\(t.id)  v\(t.version)  \(t.title)  (\(t.fields.count) fields)  \(entry.path)")
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a template's fields.")
        @OptionGroup var templates: TemplateOptions
        @Argument(help: "Template id, e.g. lacrosse-goalie.") var id: String
        @Flag(help: "Print the template JSON.") var json = false

        func run() throws {
            let template = try templates.template(id, in: try templates.library())
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(template), as: UTF8.self))
                return
            }
            print("\(template.title) — \(template.id) v\(template.version)")
            print("page \(Int(template.page.width))×\(Int(template.page.height)) points, \(template.fields.count) fields")
            let width = template.fields.map(\.id.count).max() ?? 0
            for f in template.fields {
                var line = f.id.padding(toLength: width + 2, withPad: " ", startingAt: 0)
                line += f.kind.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
                line += "rect \(f.rect)"
                if let combs = f.combs { line += "  combs \(combs)" }
                if let range = f.allowedRange { line += "  range \(range.lowerBound)–\(range.upperBound)" }
                if let names = f.names { line += "  names \(names.rawValue)" }
                print(line)
            }
        }
    }

    struct Render: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render a template's blank sheet for printing.",
            discussion: "Writes PNG, or a one-page PDF when the file name ends in .pdf. Print at 100% scale.")
        @OptionGroup var templates: TemplateOptions
        @Argument(help: "Template id, e.g. lacrosse-goalie.") var id: String
        @Option(name: .shortAndLong, help: ArgumentHelp("Output file (.png or .pdf).", valueName: "file")) var out: String
        @Option(help: "Resolution in dots per inch (72–1200).") var dpi = 300

        func validate() throws {
            guard (72...1200).contains(dpi) else { throw ValidationError("--dpi must be between 72 and 1200, not \(dpi)") }
            let ext = (out as NSString).pathExtension.lowercased()
            guard ["png", "pdf"].contains(ext) else { throw ValidationError("--out must end in .png or .pdf, not '\(out)'") }
        }

        func run() throws {
            let template = try templates.template(id, in: try templates.library())
            let pdf = (out as NSString).pathExtension.lowercased() == "pdf"
            let bytes = try SheetRenderer(template: template, dpi: dpi).encoded(pdf: pdf)
            guard FileManager.default.createFile(atPath: out, contents: Data(bytes)) else {
                throw RuntimeError("cannot write \(out)")
            }
            print("wrote \(out) (\(template.id) v\(template.version), \(dpi) dpi\(pdf ? ", PDF" : ""))")
        }
    }
}

extension TemplateCommand {
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a template file: structure, fields, and rules.",
            discussion: "Prints each problem on its own line, naming the field or rule, and exits with status 1 if there are any.")
        @Argument(help: "Template JSON files.") var files: [String]

        func run() throws {
            var failed = false
            for file in files {
                do {
                    let t = try TemplateLibrary.loadFile(file)
                    print("\(file): ok — \(t.summary)")
                    // Usable as it is, so not a failure: a draft can be scanned to try it before naming it.
                    if let guidance = t.draftIDGuidance { print("\(file): warning: \(guidance)") }
                } catch {
                    failed = true
                    for problem in error.problems { print("\(file): \(problem)") }
                }
            }
            if failed { throw ExitCode(1) }
        }
    }
}

/// A failure while running a command (as opposed to a usage mistake, which is a ValidationError).
/// A runtime failure for the user. Its lines are escaped one by one: messages name files and quote
/// what was read, which must not reach the terminal as control sequences (TerminalText).
struct RuntimeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) {
        self.description = description.split(separator: "\n", omittingEmptySubsequences: false)
            .map { TerminalText.escaped(String($0)) }.joined(separator: "\n")
    }
}

extension SheetTemplate {
    /// What `template check` and `template name` say of a usable template: `club-tally v1, 31 fields, 22 rules,
    /// printed elsewhere: 55 landmarks`.
    var summary: String {
        "\(id) v\(version), \(fields.count) fields, \((rules ?? []).count) rules"
            + (hasMarkers ? "" : ", printed elsewhere: \((landmarks ?? []).count) landmarks")
    }
}
