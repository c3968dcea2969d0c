#!/usr/bin/env python3
"""How well a photographed page's proportions are recovered from its four corners (the method of
Sources/SheetPipeline/FormDiscovery/PageProportions.swift, written again here in numpy), on simulated phone photos:
Letter and A4 pages seen through a pinhole camera (3:4 frame, principal point at its centre) tilted 0-30 degrees
toward any side, turned up to 8 degrees, the page filling 60-85% of the frame's height, each corner found 1.5
pixels off at random. Prints, per lens, how far the recovered proportions are from the paper's with and without
`leastTilt` (the bar on both axes' tilt for believing the focal length the corners give), and the sides' own.
This is where `PageProportions.leastTilt` was chosen (seed 11, the default).

    python3 Tools/page_proportions_sim.py [--seed 11] [--count 1000]
"""
import argparse
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_test_sheets as mts  # noqa: E402  (reused: the phone's pinhole camera, homographies)

TYPICAL_FOCAL = 0.6       # PageProportions.typicalFocal, in image diagonals
BELIEVED = (0.25, 2.5)    # PageProportions.believedFocal


def photographed(rng, page_w, page_h, f35):
    """The page's corners (TL, TR, BR, BL) in a 1512 x 2016 frame, and the frame's size."""
    W, H = 1512, 2016
    f = f35 / 43.27 * math.hypot(W, H)
    tilt, az, roll = math.radians(rng.uniform(0, 30)), rng.uniform(0, 2 * math.pi), math.radians(rng.uniform(-8, 8))
    aim = np.array([page_w / 2, page_h / 2, 0.0])
    d = f * page_h / (rng.uniform(0.6, 0.85) * H)
    lens = aim + d * np.array([math.sin(tilt) * math.cos(az), math.sin(tilt) * math.sin(az), -math.cos(tilt)])
    M = mts.pinhole_homography(aim, lens, roll, f, W, H)
    corners = [(x + rng.normal(0, 1.5), y + rng.normal(0, 1.5))
               for x, y in mts.apply_h(M, [(0, 0), (page_w, 0), (page_w, page_h), (0, page_h)])]
    return corners, W, H


def proportions(corners, W, H, least_tilt):
    D = math.hypot(W, H)
    m = [np.array([(x - W / 2) / D, (y - H / 2) / D, 1.0]) for x, y in corners]
    m1, m2, m4, m3 = m
    m14 = np.cross(m1, m4)
    k2 = m14 @ m3 / (np.cross(m2, m4) @ m3)
    k3 = m14 @ m2 / (np.cross(m3, m4) @ m2)
    n2, n3 = k2 * m2 - m1, k3 * m3 - m1
    f2 = TYPICAL_FOCAL ** 2
    tilt = min(abs(n2[2]) / math.hypot(n2[0], n2[1]), abs(n3[2]) / math.hypot(n3[0], n3[1]))
    if abs(n2[2] * n3[2]) > 1e-12 and tilt > least_tilt:
        g2 = -(n2[0] * n3[0] + n2[1] * n3[1]) / (n2[2] * n3[2])
        if g2 > 0 and BELIEVED[0] <= math.sqrt(g2) <= BELIEVED[1]:
            f2 = g2
    return math.sqrt((n2[0] ** 2 + n2[1] ** 2 + f2 * n2[2] ** 2) / (n3[0] ** 2 + n3[1] ** 2 + f2 * n3[2] ** 2))


def sides(corners):
    c = [np.array(p) for p in corners]
    return (np.linalg.norm(c[0] - c[1]) + np.linalg.norm(c[3] - c[2])) / (np.linalg.norm(c[0] - c[3]) + np.linalg.norm(c[1] - c[2]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--count", type=int, default=1000)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    print("lens (35 mm)   | corners, no bar: p95, max, >4.6% | corners, leastTilt 0.02 | sides' lengths")
    for name, lo, hi, runs in [("main 24-28", 24, 28, 3), ("wide 13-14", 13, 14, 1), ("2x 48-52", 48, 52, 1), ("3x 70-77", 70, 77, 1)]:
        errors = {0.0: [], 0.02: [], "sides": []}
        for i in range(args.count * runs):
            w, h = (612, 792) if i % 2 else (595, 842)
            corners, W, H = photographed(rng, w, h, rng.uniform(lo, hi))
            for bar in (0.0, 0.02):
                errors[bar].append(abs(proportions(corners, W, H, bar) / (w / h) - 1))
            errors["sides"].append(abs(sides(corners) / (w / h) - 1))
        cells = []
        for key in (0.0, 0.02, "sides"):
            e = np.array(errors[key])
            cells.append("%.3f %.3f %4d of %d" % (np.percentile(e, 95), e.max(), (e > 0.046).sum(), len(e)))
        print("%-14s | %s" % (name, " | ".join(cells)))


if __name__ == "__main__":
    main()
