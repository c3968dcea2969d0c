import ArgumentParser
import Foundation
import SheetModel

extension TemplateCommand {
    /// Step two of a template from a photo of a blank form: the draft `template new --from-scan` found the
    /// boxes; a person says what each is in a NAMES file, and never types a coordinate.
    struct Name: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Name a draft template's boxes (box-1, box-2, …) from a NAMES file, keeping their positions.",
            discussion: """
                With --list, prints the draft's boxes (id, kind, rect, combs, label) to write NAMES from, beside \
                the draft's preview image. With --names, writes the named template to --out if it passes \
                `template check`; otherwise prints each problem and writes nothing. NAMES is described in \
                Templates/README.md ("Naming a draft's boxes").
                """)
        @Argument(help: ArgumentHelp("The draft template (from template new --from-scan).", valueName: "draft.json")) var draft: String
        @Option(help: ArgumentHelp("JSON file naming the draft's boxes.", valueName: "file")) var names: String?
        @Option(name: .shortAndLong, help: ArgumentHelp("Where to write the named template.", valueName: "file")) var out: String?
        @Flag(help: "List the draft's boxes instead of naming them.") var list = false

        func validate() throws {
            if list {
                guard names == nil, out == nil else { throw ValidationError("--list prints the draft's boxes: give it without --names and --out") }
            } else {
                guard names != nil else { throw ValidationError("give --names FILE and --out FILE to name the boxes, or --list to see them") }
                guard out != nil else { throw ValidationError("--names needs --out FILE: where to write the named template") }
            }
        }

        func run() throws {
            let template = try Self.load(draft, SheetTemplate.decodeUnchecked)
            guard let names, let out else { return printList(template) }
            let naming = try Self.load(names, FieldNames.decode)
            let named: NamedDraft
            do throws(TemplateError) {
                named = try template.named(by: naming)
            } catch {
                Self.report(error.problems, file: names)
                throw ExitCode(1)
            }
            let problems = named.problems()
            let result = named.template
            if !problems.isEmpty {
                var lines = problems
                if let guidance = result.draftIDGuidance { lines.append("warning: \(guidance)") }
                Self.report(lines, file: names)
                print(TerminalText.escaped("\(out): not written"))
                throw ExitCode(1)
            }
            guard FileManager.default.createFile(atPath: out, contents: try result.formattedJSON()) else {
                throw RuntimeError("cannot write \(out)")
            }
            print("wrote \(out) — \(result.summary)")
            if let guidance = result.draftIDGuidance { print("warning: \(guidance)") }
        }

        /// One line per box, in the draft's order (row by row): what a person reads beside the preview image.
        private func printList(_ template: SheetTemplate) {
            let rows = template.fields.map { f in
                [f.id, f.kind.rawValue, f.rect.description, f.combs.map(String.init) ?? "", TerminalText.escaped(f.label ?? "")]
            }
            let header = ["box", "kind", "rect", "combs", "label"]
            let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
            for row in [header] + rows {
                print(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
                    .joined(separator: "  ").trimmingCharacters(in: .whitespaces))
            }
            print("\(template.fields.count) boxes in \(TerminalText.escaped(template.id)); name them in a NAMES file (Templates/README.md)")
        }

        private static func load<T>(_ path: String, _ decode: (Data) throws(TemplateError) -> T) throws -> T {
            guard let data = FileManager.default.contents(atPath: path) else { throw RuntimeError("\(path): cannot be read") }
            do {
                return try decode(data)
            } catch {
                report(error.problems, file: path)
                throw ExitCode(1)
            }
        }

        /// Problems listed as `template check` lists them: one per line naming the file, on standard output.
        private static func report(_ problems: [String], file: String) {
            for problem in problems { print(TerminalText.escaped("\(file): \(problem)")) }
        }
    }
}
