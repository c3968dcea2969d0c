/// Turns a digit's ink, as cut from a comb box, into the network's input the way MNIST was made: the
/// ink's bounding box scaled so its longer side is 20 pixels (aspect kept), then placed in a 28×28
/// image with its centre of mass at the centre.
public enum DigitNormalizer {
    /// - Parameters:
    ///   - ink: row-major ink amounts, 0 (paper) … 1 (full ink), `width × height`.
    /// - Returns: 784 values, or nil when there is no ink at all.
    public static func normalize(ink: [Float], width: Int, height: Int) -> [Float]? {
        precondition(ink.count == width * height, "ink must have width × height values")
        var minX = width, minY = height, maxX = -1, maxY = -1
        for y in 0..<height {
            for x in 0..<width where ink[y * width + x] > 0.05 {
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
            }
        }
        guard maxX >= 0 else { return nil }
        let boxW = maxX - minX + 1, boxH = maxY - minY + 1
        let scale = 20.0 / Float(max(boxW, boxH))
        let outW = max(1, Int((Float(boxW) * scale).rounded())), outH = max(1, Int((Float(boxH) * scale).rounded()))

        // Area-average resampling of the bounding box into outW × outH: each output pixel is the mean
        // ink over the source area it covers (exact for shrinking, bilinear-like for enlarging).
        var small = [Float](repeating: 0, count: outW * outH)
        let sx = Float(boxW) / Float(outW), sy = Float(boxH) / Float(outH)
        for oy in 0..<outH {
            let y0 = Float(oy) * sy, y1 = y0 + sy
            for ox in 0..<outW {
                let x0 = Float(ox) * sx, x1 = x0 + sx
                var sum: Float = 0, area: Float = 0
                var yy = Int(y0)
                while Float(yy) < y1 && yy < boxH {
                    let wy = min(y1, Float(yy + 1)) - max(y0, Float(yy))
                    var xx = Int(x0)
                    while Float(xx) < x1 && xx < boxW {
                        let wx = min(x1, Float(xx + 1)) - max(x0, Float(xx))
                        sum += ink[(minY + yy) * width + minX + xx] * wx * wy
                        area += wx * wy
                        xx += 1
                    }
                    yy += 1
                }
                small[oy * outW + ox] = area > 0 ? sum / area : 0
            }
        }

        // Centre of mass of the scaled digit goes to (14, 14).
        var mass: Float = 0, cx: Float = 0, cy: Float = 0
        for y in 0..<outH {
            for x in 0..<outW {
                let v = small[y * outW + x]
                mass += v; cx += v * (Float(x) + 0.5); cy += v * (Float(y) + 0.5)
            }
        }
        guard mass > 0 else { return nil }
        let offX = Int((14 - cx / mass).rounded()), offY = Int((14 - cy / mass).rounded())
        var out = [Float](repeating: 0, count: 28 * 28)
        for y in 0..<outH {
            let ty = y + offY
            guard ty >= 0, ty < 28 else { continue }
            for x in 0..<outW {
                let tx = x + offX
                if tx >= 0, tx < 28 { out[ty * 28 + tx] = min(1, small[y * outW + x]) }
            }
        }
        return out
    }
}
