import OCRKit
import SheetModel

extension GrayBuffer {
    /// Bilinear sample at a pixel position (pixel centres at +0.5); outside the image reads as white.
    @inlinable
    public func sample(_ x: Double, _ y: Double) -> Double {
        let fx = x - 0.5, fy = y - 0.5
        let x0 = Int(fx.rounded(.down)), y0 = Int(fy.rounded(.down))
        guard x0 >= 0, y0 >= 0, x0 + 1 < width, y0 + 1 < height else {
            let xi = Int(x), yi = Int(y)
            return xi >= 0 && yi >= 0 && xi < width && yi < height ? Double(self[xi, yi]) : 255
        }
        let ax = fx - Double(x0), ay = fy - Double(y0)
        return pixels.withUnsafeBufferPointer { p in
            let i = y0 * width + x0
            let top = Double(p[i]) * (1 - ax) + Double(p[i + 1]) * ax
            let bottom = Double(p[i + width]) * (1 - ax) + Double(p[i + width + 1]) * ax
            return top * (1 - ay) + bottom * ay
        }
    }

    /// The template rectangle `rect` grown by `margin` points, resampled upright at `scale` pixels per
    /// point through `homography` (template points → this image's pixels).
    ///
    /// Written here rather than with Leptonica's `pixProjective*`: those warp a whole image to its own
    /// size, while statsheet needs only the field cells, each at one chosen resolution — a few percent of
    /// the pixels of a full-page warp.
    public func resample(_ rect: Rect, margin: Double, scale: Double, through homography: Homography) -> GrayBuffer {
        resample(rect, margin: margin, scale: scale, through: PageMapping(homography: homography))
    }

    /// The same through a mapping that may bend: the page's correction is taken as linear along each
    /// row of the cell (it is smooth over inches, a row spans one field), so the homography's stepping
    /// along the row stays exact for the corrected points; a row a crease crosses is two such pieces.
    public func resample(_ rect: Rect, margin: Double, scale: Double, through mapping: PageMapping) -> GrayBuffer {
        let homography = mapping.homography
        let outer = rect.insetBy(-margin, -margin)
        let w = max(1, Int((outer.width * scale).rounded())), h = max(1, Int((outer.height * scale).rounded()))
        var out = [UInt8](repeating: 255, count: w * h)
        let m = homography.h
        let width = self.width, height = self.height
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                // The homography's numerators and denominator are linear along a row: step them instead
                // of recomputing each from scratch.
                let step = 1 / scale
                for j in 0..<h {
                    let py = outer.y + (Double(j) + 0.5) * step, px0 = outer.x + 0.5 * step
                    var nx = 0.0, ny = 0.0, d = 1.0, dnx = 0.0, dny = 0.0, dd = 0.0
                    if mapping.isFlat {
                        nx = m[0] * px0 + m[1] * py + m[2]; ny = m[3] * px0 + m[4] * py + m[5]; d = m[6] * px0 + m[7] * py + 1
                        dnx = m[0] * step; dny = m[3] * step; dd = m[6] * step
                    }
                    // A crease's kink is not linear along a row that crosses it: such a row is stepped in two
                    // pieces, each linear, the second starting at the first pixel beyond the crease.
                    var split = w
                    if let crease = mapping.crease, abs(crease.normal.x) > 1e-9 {
                        let cross = ((crease.through.x - px0) * crease.normal.x + (crease.through.y - py) * crease.normal.y)
                            / crease.normal.x / step
                        if cross > 0 && cross < Double(w - 1) { split = Int(cross.rounded(.up)) }
                    }
                    var start = 0
                    while start < w {
                        let end = start == 0 ? split : w
                        if !mapping.isFlat {
                            let first = mapping.corrected(Point(x: px0 + Double(start) * step, y: py))
                            let last = mapping.corrected(Point(x: px0 + Double(max(start + 1, end - 1)) * step, y: py))
                            let span = Double(max(1, end - 1 - start))
                            let sx = (last.x - first.x) / span, sy = (last.y - first.y) / span
                            nx = m[0] * first.x + m[1] * first.y + m[2]; ny = m[3] * first.x + m[4] * first.y + m[5]
                            d = m[6] * first.x + m[7] * first.y + 1
                            dnx = m[0] * sx + m[1] * sy; dny = m[3] * sx + m[4] * sy; dd = m[6] * sx + m[7] * sy
                        }
                        for i in start..<end {
                            let r = 1 / d
                            let fx = nx * r - 0.5, fy = ny * r - 0.5
                            nx += dnx; ny += dny; d += dd
                            guard fx >= 0, fy >= 0 else { continue }  // off the image: white
                            let x0 = Int(fx), y0 = Int(fy)
                            guard x0 + 1 < width, y0 + 1 < height else { continue }
                            let ax = fx - Double(x0), ay = fy - Double(y0)
                            let k = y0 * width + x0
                            let top = Double(src[k]) + (Double(src[k + 1]) - Double(src[k])) * ax
                            let bottom = Double(src[k + width]) + (Double(src[k + width + 1]) - Double(src[k + width])) * ax
                            dst[j * w + i] = UInt8(top + (bottom - top) * ay + 0.5)
                        }
                        start = end
                    }
                }
            }
        }
        return GrayBuffer(width: w, height: h, pixels: out)
    }

    /// The value below which `fraction` of the pixels lie (0.9 → the paper's brightness in a cell).
    /// The gray level under which a pixel is ink: `ratio` of the paper's brightness (the 90th
    /// percentile), so shadows and uneven light across a sheet do not matter within one cell.
    public func inkThreshold(ratio: Double) -> Int {
        max(1, min(255, Int(Double(percentile(0.9)) * ratio)))
    }

    public func percentile(_ fraction: Double) -> Int {
        var histogram = [Int](repeating: 0, count: 256)
        for p in pixels { histogram[Int(p)] += 1 }
        let target = Int(Double(pixels.count) * fraction)
        var seen = 0
        for (value, count) in histogram.enumerated() {
            seen += count
            if seen > target { return value }
        }
        return 255
    }
}
