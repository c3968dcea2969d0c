import ArgumentParser
import DigitNet
import Foundation
import OCRKit
import SheetPipeline

struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check that Tesseract, Leptonica, HEIC and PDF support, language data, the digit network and templates are in place.",
        discussion: "Exits with status 1 and a hint for each problem found.")

    @OptionGroup var templates: TemplateOptions

    func run() throws {
        var problems: [String] = []
        print("statsheet \(Statsheet.configuration.version)")
        let report = EngineCheck.run()
        print("Tesseract \(report.tesseractVersion)")
        print("\(report.leptonicaVersion) (\(report.imageLibraries))")
        if let engineError = report.engineError {
            problems.append("\(engineError)\n    fix: apt-get install tesseract-ocr tesseract-ocr-eng (or set TESSDATA_PREFIX to a folder holding eng.traineddata)")
        } else {
            print("tessdata: \(report.dataPath ?? "?")  languages: \(report.languages.joined(separator: ", "))")
        }
        for format in ["jpeg", "png", "tiff", "webp"] where !report.imageLibraries.lowercased().contains("lib\(format)") {
            problems.append("Leptonica was built without lib\(format): \(format.uppercased()) files cannot be read\n    fix: install Debian's libleptonica-dev, which has all four")
        }
        if HEIFSupport.decodesHEVC {
            print("HEIC/HEIF photos: \(HEIFSupport.description)")
        } else {
            problems.append("HEIC photos cannot be read: \(HEIFSupport.description)\n    fix: apt-get install libheif1 libde265-0")
        }
        if let poppler = PDFSupport.popplerVersion() {
            print("PDF documents: Poppler \(poppler) (pdfinfo, pdfimages, pdftoppm, run as separate programs)")
        } else {
            problems.append("PDF documents cannot be read: Poppler's tools (pdfinfo, pdfimages, pdftoppm) are not on PATH\n    fix: apt-get install poppler-utils")
        }
        print("TIFF: every page of a multi-page TIFF")
        if OpenMPThreads.limited {
            print("OpenMP: one thread per Tesseract engine (set on each reading thread)")
        } else {
            print("OpenMP: not loaded (this Tesseract was built without it)")
        }
        do {
            let network = try DigitNetwork.bundled()
            print("handwritten digits: network loaded, temperature \(network.temperature)")
        } catch {
            problems.append("\(error)\n    fix: keep the statsheet_DigitNet.resources folder beside the statsheet executable (swift build puts it there)")
        }
        do {
            let library = try templates.library()
            if library.entries.isEmpty {
                problems.append("no templates found in \(library.searchedFolders.isEmpty ? "any template folder" : library.searchedFolders.joined(separator: ", "))\n    fix: run from the statsheet folder, or pass --templates DIR / set STATSHEET_TEMPLATES")
            } else {
                print("templates: " + library.entries.map { "\($0.template.id) v\($0.template.version) (\($0.path))" }.joined(separator: ", "))
            }
        } catch {
            problems.append("\(error)")
        }
        if problems.isEmpty {
            print("all good")
        } else {
            for problem in problems { print("problem: \(problem)") }
            throw ExitCode(1)
        }
    }
}
