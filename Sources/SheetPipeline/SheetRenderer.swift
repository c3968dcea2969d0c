import OCRKit
import SheetModel

/// Draws a template's blank paper sheet: markers, template mark, boxes, combs and labels. The same
/// template then reads the filled sheet, so what is printed and what is read cannot drift apart.
public struct SheetRenderer {
    public let template: SheetTemplate
    public let dpi: Int

    public init(template: SheetTemplate, dpi: Int = 300) {
        self.template = template
        self.dpi = dpi
    }

    /// Pixels per point at this resolution: a field at x points lands at x × dpi / 72 pixels.
    public var scale: Double { Double(dpi) / 72 }

    public func render() throws(ImagingError) -> Image {
        let page = try Image.blank(width: px(template.page.width), height: px(template.page.height))
        page.setResolution(dpi: dpi)
        let frame = SheetFrame(page: template.page)

        for marker in frame.markers { try page.fill(pixels(marker), color: .black) }
        try page.fill(pixels(frame.ringHole), color: .white)
        for (cell, bit) in zip(frame.markCells, TemplateMark.bits(id: template.id, version: template.version)) where bit {
            try page.fill(pixels(cell), color: .black)
        }

        let line = max(1, px(1))
        let small = try font(points: 8), body = try font(points: 10), title = try font(points: 16)
        // The mark in words, centred under the mark: clear of the markers' quiet zones.
        let cells = frame.markCells
        let name = "\(template.id) v\(template.version)"
        let centre = (px(cells.first!.x) + px(cells.last!.maxX)) / 2
        page.drawText(name, x: centre - small.width(of: name) / 2, baseline: px(cells[0].maxY + 9), font: small)
        page.drawText(template.title, x: px(72), baseline: px(84), font: title)

        for field in template.fields {
            let rect = pixels(field.rect)
            try page.strokeRect(rect, lineWidth: line, color: .black)
            if let combs = field.combs, combs > 1 {
                for i in 1..<combs {
                    let x = px(field.rect.slice(i, of: combs).x)
                    // Dates group as MM DD YY: a heavier line between the groups.
                    let heavy = field.kind == .date && i % 2 == 0
                    let w = heavy ? line * 2 : line
                    try page.fill(PixelRect(x: x - w / 2, y: rect.y, width: w, height: rect.height), color: .black)
                }
            }
            if let label = field.label, let at = field.labelOrigin {
                page.drawText(label, x: px(at.x), baseline: px(at.y), font: body)
            }
        }
        for label in template.labels ?? [] where label.at.count == 2 {
            page.drawText(label.text, x: px(label.at[0]), baseline: px(label.at[1]), font: try font(points: label.size ?? 10))
        }
        return page
    }

    /// PNG bytes, or a one-page PDF of the page's size when `pdf` is true.
    public func encoded(pdf: Bool) throws(ImagingError) -> [UInt8] {
        let page = try render()
        return pdf ? try page.pdfData(dpi: dpi, title: template.title) : try page.encoded(as: .png)
    }

    private func px(_ points: Double) -> Int { Int((points * scale).rounded()) }

    private func pixels(_ rect: Rect) -> PixelRect {
        let x = px(rect.x), y = px(rect.y)
        return PixelRect(x: x, y: y, width: px(rect.maxX) - x, height: px(rect.maxY) - y)
    }

    /// Leptonica's bitmap fonts are drawn for 300 ppi; pick the size that prints `points` tall here.
    private func font(points: Double) throws(ImagingError) -> BitmapFont {
        try BitmapFont(size: Int((points * Double(dpi) / 300).rounded()))
    }
}
