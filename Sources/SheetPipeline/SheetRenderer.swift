import OCRKit
import SheetModel

/// Draws a template's blank paper sheet: markers, template mark, boxes, combs and labels. The same
/// template then reads the filled sheet, so what is printed and what is read cannot drift apart.
///
/// A template of paper printed elsewhere is drawn for checking, not printing: its boxes, labels and
/// landmarks (as lines), without markers, mark or title, which the club's own paper does not carry.
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
        let line = max(1, px(1))
        let small = try font(points: 8), body = try font(points: 10), title = try font(points: 16)
        if template.hasMarkers {
            let frame = SheetFrame(page: template.page)
            for marker in frame.markers { try page.fill(pixels(marker), color: .black) }
            try page.fill(pixels(frame.ringHole), color: .white)
            for (cell, bit) in zip(frame.markCells, TemplateMark.bits(id: template.id, version: template.version)) where bit {
                try page.fill(pixels(cell), color: .black)
            }
            // The mark in words, centred under the mark: clear of the markers' quiet zones.
            let cells = frame.markCells
            let name = "\(template.id) v\(template.version)"
            let centre = (px(cells.first!.x) + px(cells.last!.maxX)) / 2
            page.drawText(name, x: centre - small.width(of: name) / 2, baseline: px(cells[0].maxY + 9), font: small)
            page.drawText(template.title, x: px(72), baseline: px(84), font: title)
        }
        for landmark in template.landmarks ?? [] where landmark.from.count == 2 && landmark.to.count == 2 {
            try drawLine(on: page, from: Point(x: landmark.from[0], y: landmark.from[1]), to: Point(x: landmark.to[0], y: landmark.to[1]), width: line)
        }

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

    /// A horizontal or vertical line `width` pixels thick, centred on the points' line as a box's edge is.
    private func drawLine(on page: Image, from a: Point, to b: Point, width: Int) throws(ImagingError) {
        let x0 = px(min(a.x, b.x)), x1 = px(max(a.x, b.x)), y0 = px(min(a.y, b.y)), y1 = px(max(a.y, b.y))
        let rect = a.y == b.y ? PixelRect(x: x0, y: y0 - width / 2, width: max(width, x1 - x0), height: width)
                              : PixelRect(x: x0 - width / 2, y: y0, width: width, height: max(width, y1 - y0))
        try page.fill(rect, color: .black)
    }

    private func pixels(_ rect: Rect) -> PixelRect {
        let x = px(rect.x), y = px(rect.y)
        return PixelRect(x: x, y: y, width: px(rect.maxX) - x, height: px(rect.maxY) - y)
    }

    /// Leptonica's bitmap fonts are drawn for 300 ppi; pick the size that prints `points` tall here.
    private func font(points: Double) throws(ImagingError) -> BitmapFont {
        try BitmapFont(size: Int((points * Double(dpi) / 300).rounded()))
    }
}
