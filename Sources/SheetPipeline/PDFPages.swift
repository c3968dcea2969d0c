import Foundation

/// A PDF read through Poppler's command-line tools (`poppler-utils`: `pdfinfo`, `pdfimages`, `pdftoppm`), each
/// run as its own process with a timeout. Poppler is GPL: kept outside statsheet's binary, it stays a tool the
/// user installs, not code statsheet ships (docs/decisions.md). The tools read the file from its path.
struct PDFPages {
    let path: String
    /// Seconds each tool may run before it is killed.
    let timeout: Double

    /// A page's visible area (its CropBox) in points, and the quarter turns a viewer shows it at.
    struct PageBox: Equatable {
        var width: Double
        var height: Double
        var rotation: Int

        /// The size `pdftoppm -cropbox -r dpi` renders it at, turned as a viewer shows it.
        func pixels(dpi: Int) -> (width: Int, height: Int) {
            let w = Int((width * Double(dpi) / 72).rounded()), h = Int((height * Double(dpi) / 72).rounded())
            return rotation % 180 == 0 ? (w, h) : (h, w)
        }
    }

    /// How many pages the document has: `pdfinfo`'s count, which Poppler checks against the objects the file
    /// holds (a `/Count 100000` over one page object is refused by Poppler itself as having no pages).
    func pageCount() throws(ImageLoadError) -> Int {
        let run = try tool("pdfinfo", [path])
        guard run.status == 0 else { throw Self.openFailure(run) }
        let fields = Self.fields(run.stdout)
        guard let pages = fields["Pages"].flatMap({ Int($0) }) else {
            throw .damaged(.pdf, reason: run.stderr.last ?? "pdfinfo gave no page count")
        }
        guard pages > 0 else { throw .noPages(reason: nil) }
        return pages
    }

    /// Page `number`'s CropBox and rotation.
    func box(page number: Int) throws(ImageLoadError) -> PageBox {
        let run = try tool("pdfinfo", ["-box", "-f", "\(number)", "-l", "\(number)", path])
        guard run.status == 0 else { throw Self.openFailure(run) }
        var box: [Double]?, rotation = 0
        for line in String(decoding: run.stdout, as: UTF8.self).split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count >= 4, words[0] == "Page", Int(words[1]) == number else { continue }
            if words[2] == "CropBox:" { box = words.dropFirst(3).compactMap { Double($0) } }
            if words[2] == "rot:", let r = Int(words[3]) { rotation = ((r % 360) + 360) % 360 }
        }
        guard let box, box.count == 4, abs(box[2] - box[0]) >= 1, abs(box[3] - box[1]) >= 1 else {
            throw .damaged(.pdf, reason: "page \(number) has no size")
        }
        return PageBox(width: abs(box[2] - box[0]), height: abs(box[3] - box[1]), rotation: rotation)
    }

    /// The resolution of the scan that makes up page `number`, when the page is one: an image (`pdfimages -list`)
    /// that covers at least 80% of the page. Nil for a page drawn as text and lines.
    func scanResolution(page number: Int, box: PageBox) throws(ImageLoadError) -> Double? {
        let run = try tool("pdfimages", ["-f", "\(number)", "-l", "\(number)", "-list", path])
        guard run.status == 0 else { throw Self.openFailure(run) }
        // page num type width height color comp bpc enc interp object ID x-ppi y-ppi size ratio
        var best: (area: Double, ppi: Double)?
        for line in String(decoding: run.stdout, as: UTF8.self).split(separator: "\n") {
            let c = line.split(separator: " ")
            guard c.count >= 14, Int(c[0]) == number, c[2] == "image",
                  let w = Double(c[3]), let h = Double(c[4]), let xppi = Double(c[12]), let yppi = Double(c[13]),
                  xppi > 0, yppi > 0 else { continue }
            let area = (w / xppi * 72) * (h / yppi * 72)
            if area > (best?.area ?? 0) { best = (area, max(xppi, yppi)) }
        }
        guard let best, best.area >= 0.8 * box.width * box.height else { return nil }
        return best.ppi
    }

    /// Page `number` rendered as 8-bit gray at `dpi`: a binary PGM.
    func render(page number: Int, dpi: Int) throws(ImageLoadError) -> (pgm: [UInt8], messages: [String]) {
        let run = try tool("pdftoppm", ["-f", "\(number)", "-l", "\(number)", "-gray", "-cropbox", "-r", "\(dpi)", path])
        guard run.status == 0, !run.stdout.isEmpty else {
            throw .damaged(.pdf, reason: run.stderr.last ?? "pdftoppm rendered nothing for page \(number)")
        }
        return ([UInt8](run.stdout), run.stderr)
    }

    private func tool(_ name: String, _ arguments: [String]) throws(ImageLoadError) -> ToolProcess {
        do {
            return try ToolProcess.run(name, arguments, timeout: timeout)
        } catch {
            switch error {
            case .notFound(let tool): throw .toolMissing(tool)
            case .timedOut(let tool, let seconds): throw .toolTimedOut(tool, seconds: Int(seconds.rounded(.up)))
            case .couldNotRun(let tool, let reason): throw .toolFailed(tool, reason: reason)
            }
        }
    }

    /// Why pdfinfo or pdfimages could not open the file, from Poppler's own words on stderr (it has no other
    /// channel: its exit status is 1 for any file it cannot open).
    private static func openFailure(_ run: ToolProcess) -> ImageLoadError {
        if run.stderr.contains(where: { $0.contains("Incorrect password") }) { return .encrypted }
        if let count = run.stderr.first(where: { $0.localizedCaseInsensitiveContains("page count") }) {
            return .noPages(reason: count)
        }
        if run.stderr.contains(where: { $0.contains("Wrong page range") }) { return .noPages(reason: nil) }
        let errors = run.stderr.filter { !$0.hasPrefix("Syntax Warning") }
        return .damaged(.pdf, reason: errors.first ?? run.stderr.first ?? "pdfinfo exit status \(run.status)")
    }

    /// `pdfinfo`'s "Key: value" lines.
    private static func fields(_ stdout: Data) -> [String: String] {
        var fields: [String: String] = [:]
        for line in String(decoding: stdout, as: UTF8.self).split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }
}

/// Whether PDFs can be read here, for `statsheet doctor`.
public enum PDFSupport {
    /// Poppler's version as its `pdfinfo -v` says it ("pdfinfo version 22.12.0"), or nil when poppler-utils is missing.
    public static func popplerVersion() -> String? {
        guard ToolProcess.find("pdftoppm") != nil, let run = try? ToolProcess.run("pdfinfo", ["-v"], timeout: 10) else { return nil }
        let said = run.stderr + String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        return said.first { $0.contains("version") }.map { $0.replacingOccurrences(of: "pdfinfo version ", with: "") } ?? "found"
    }
}
