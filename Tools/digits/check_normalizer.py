#!/usr/bin/env python3
"""Check that train.py's preprocess() equals DigitNormalizer.swift.

    python3 Tools/digits/check_normalizer.py

swift_normalize() below is a line-by-line transliteration of
DigitNormalizer.normalize(ink:width:height:) (Sources/DigitNet/DigitNormalizer.swift)
with every Float value kept in np.float32 and the loops in the same order.
It is compared with the vectorised float64 preprocess() on random blobs of
many sizes (shrinking and enlarging, tall and wide, faint and empty).
Exits non-zero if they differ by 1e-5 or more.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train import preprocess  # noqa: E402

f32 = np.float32


def swift_rounded(v):  # Float.rounded(): to nearest, ties away from zero
    v = float(v)
    return int(np.floor(v + 0.5)) if v >= 0 else -int(np.floor(-v + 0.5))


def swift_normalize(ink, width, height):
    ink = [f32(v) for v in ink]
    assert len(ink) == width * height
    minX, minY, maxX, maxY = width, height, -1, -1
    for y in range(height):
        for x in range(width):
            if ink[y * width + x] > f32(0.05):
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
    if maxX < 0:
        return None
    boxW, boxH = maxX - minX + 1, maxY - minY + 1
    scale = f32(20.0) / f32(max(boxW, boxH))
    outW = max(1, swift_rounded(f32(boxW) * scale))
    outH = max(1, swift_rounded(f32(boxH) * scale))

    small = [f32(0)] * (outW * outH)
    sx, sy = f32(boxW) / f32(outW), f32(boxH) / f32(outH)
    for oy in range(outH):
        y0 = f32(oy) * sy
        y1 = y0 + sy
        for ox in range(outW):
            x0 = f32(ox) * sx
            x1 = x0 + sx
            s, area = f32(0), f32(0)
            yy = int(y0)
            while f32(yy) < y1 and yy < boxH:
                wy = min(y1, f32(yy + 1)) - max(y0, f32(yy))
                xx = int(x0)
                while f32(xx) < x1 and xx < boxW:
                    wx = min(x1, f32(xx + 1)) - max(x0, f32(xx))
                    s = s + ink[(minY + yy) * width + minX + xx] * wx * wy
                    area = area + wx * wy
                    xx += 1
                yy += 1
            small[oy * outW + ox] = s / area if area > 0 else f32(0)

    mass, cx, cy = f32(0), f32(0), f32(0)
    for y in range(outH):
        for x in range(outW):
            v = small[y * outW + x]
            mass = mass + v
            cx = cx + v * (f32(x) + f32(0.5))
            cy = cy + v * (f32(y) + f32(0.5))
    if not mass > 0:
        return None
    offX = swift_rounded(f32(14) - cx / mass)
    offY = swift_rounded(f32(14) - cy / mass)
    out = [f32(0)] * (28 * 28)
    for y in range(outH):
        ty = y + offY
        if not (0 <= ty < 28):
            continue
        for x in range(outW):
            tx = x + offX
            if 0 <= tx < 28:
                out[ty * 28 + tx] = min(f32(1), small[y * outW + x])
    return np.array(out, dtype=np.float32).reshape(28, 28)


def random_blob(rng):
    h, w = int(rng.integers(1, 90)), int(rng.integers(1, 90))
    im = np.zeros((h, w))
    yy, xx = np.mgrid[0:h, 0:w]
    for _ in range(int(rng.integers(1, 5))):
        cy, cx = rng.uniform(0, h), rng.uniform(0, w)
        sy, sx = rng.uniform(0.3, max(0.5, h / 3)), rng.uniform(0.3, max(0.5, w / 3))
        im += rng.uniform(0.1, 1.2) * np.exp(-((yy - cy) ** 2 / (2 * sy * sy) + (xx - cx) ** 2 / (2 * sx * sx)))
    im += rng.uniform(0, 0.04) * rng.random((h, w))          # faint paper noise
    im = np.clip(im, 0, 1)
    if rng.random() < 0.05:
        im *= 0.04                                            # nothing above 0.05: empty
    return im.astype(np.float32)


def main():
    rng = np.random.default_rng(20240607)
    n, worst, empties, sizes = 300, 0.0, 0, set()
    for _ in range(n):
        im = random_blob(rng)
        h, w = im.shape
        a = preprocess(im)
        b = swift_normalize(im.ravel().tolist(), w, h)
        if b is None:
            empties += 1
            b = np.zeros((28, 28), np.float32)
        worst = max(worst, float(np.abs(a - b).max()))
        sizes.add((h, w))
    print(f"{n} random blobs ({len(sizes)} sizes 1..89 px, {empties} without ink): "
          f"max |preprocess - swift transliteration| = {worst:.2e}")
    if not worst < 1e-5:
        sys.exit("MISMATCH")
    print("OK")


if __name__ == "__main__":
    main()
