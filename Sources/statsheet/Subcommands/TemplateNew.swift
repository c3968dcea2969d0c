import ArgumentParser
import Foundation
import OCRKit
import SheetModel
import SheetPipeline

extension TemplateCommand {
    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Draft a template from a photo or scan of a blank form printed elsewhere.",
            discussion: """
                Finds the page (a flat scan, or the paper in a photo), straightens it, finds its printed boxes and \
                table cells and writes them as fields box-1, box-2, … (by row, then column) of a template printed \
                elsewhere, with the form's lines as landmarks, and a preview PNG beside it (ID.preview.png). \
                Check the draft against the preview, then give the fields their ids and kinds.
                """)
        @Option(name: .customLong("from-scan"), help: ArgumentHelp("Photo or scan of the blank form (any format scan reads; a PDF's first page).", valueName: "file"))
        var fromScan: String
        @Option(help: "The new template's id: lowercase letters, digits and '-'.") var id: String
        @Option(name: .shortAndLong, help: ArgumentHelp("Template file to write (.json).", valueName: "file")) var out: String
        @Option(help: ArgumentHelp("The paper's size, when you know it: letter or a4 (default: the nearest to the page's proportions).",
                                   valueName: "size"))
        var paper: PaperChoice?

        /// The sizes a person can name; a form of its own size is measured, never named.
        enum PaperChoice: String, ExpressibleByArgument, CaseIterable {
            case letter, a4
            var size: PaperSize { self == .letter ? .letter : .a4 }
        }

        func validate() throws {
            guard !id.isEmpty, id.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }) else {
                throw ValidationError("--id must be lowercase letters, digits and '-', not '\(id)'")
            }
            guard (out as NSString).pathExtension.lowercased() == "json" else {
                throw ValidationError("--out must end in .json, not '\(out)'")
            }
        }

        func run() throws {
            let loader = ImageLoader(jpegLongSide: 4000)
            let image: Image
            do {
                let contents = try ImageLoader.readFile(fromScan)
                let pages = try loader.pageCount(path: fromScan, contents: contents)
                image = try loader.load(fromScan, contents: contents, page: pages == nil ? nil : 1).image
            } catch let error as ImageLoadFailure {
                throw RuntimeError("\(error)")
            } catch let error as ImageLoadError {
                throw RuntimeError("\(fromScan): \(error.message)")
            } catch {
                throw RuntimeError("\(fromScan): \(error)")
            }
            let engine: TesseractEngine
            do { engine = try TesseractEngine(useDictionary: true, alternatives: false) } catch { throw RuntimeError("\(error)") }
            let title = "Draft from " + (fromScan as NSString).lastPathComponent
            let form: DiscoveredForm
            do {
                form = try FormDiscovery().discover(image, id: id, title: title, engine: engine, paper: paper?.size)
            } catch {
                throw RuntimeError("\(fromScan): \(error)")
            }
            let problems = form.template.problems()
            guard problems.isEmpty else {
                throw RuntimeError("the draft is not a usable template:\n" + problems.map { "  " + $0 }.joined(separator: "\n"))
            }
            let json = try form.template.formattedJSON()
            guard FileManager.default.createFile(atPath: out, contents: json) else { throw RuntimeError("cannot write \(out)") }
            let preview = (out as NSString).deletingPathExtension + ".preview.png"
            guard FileManager.default.createFile(atPath: preview, contents: Data(try form.preview().encoded(as: .png))) else {
                throw RuntimeError("cannot write \(preview)")
            }
            let t = form.template
            print("wrote \(out) (\(t.fields.count) field\(t.fields.count == 1 ? "" : "s"), \((t.landmarks ?? []).count) landmarks, \(form.paper)) and \(preview)")
            if form.paperInDoubt, let other = form.paper.other {
                let standard = [PaperSize.letter, .a4].compactMap { paper in
                    paper.proportions(landscape: form.aspect > 1).map { "\(paper) \(String(format: "%.3f", $0))" }
                }.joined(separator: ", ")
                print("""
                    note: the paper's proportions found in the photo (\(String(format: "%.3f", form.aspect)); \(standard)) fit \(other) nearly as well as \(form.paper): \
                    a photo gives them only to a few percent. If the paper is \(other), run again with --paper \(other.rawValue).
                    """)
            }
        }
    }
}
