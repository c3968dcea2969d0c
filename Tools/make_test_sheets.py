#!/usr/bin/env python3
"""Generate synthetic filled-in stat sheets with ground truth.

Independent of the Swift code: it reads only the template JSON and a blank
rendered sheet PNG (made by `statsheet template render ... --dpi D`), fills the
fields with printed (DejaVu) text, distorts the whole page like a flatbed scan
or a hand-held phone photo, and writes the image plus a `.truth.json`.

See Tools/README.md for the profiles and the truth schema.
"""
import argparse
import datetime
import json
import math
import os
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu"
FONTS = ["DejaVuSans", "DejaVuSans-Bold", "DejaVuSerif", "DejaVuSansMono"]

ATHLETES = [
    "Jordan Smith", "Avery Johnson", "Riley Chen", "Morgan Davis", "Casey Brooks",
    "Taylor Nguyen", "Quinn Walker", "Jamie Ortiz", "Drew Patel", "Reese Miller",
    "Cameron Lee", "Parker Hayes", "Logan Rivera", "Sam Okafor", "Emerson Kelly",
]
OPPONENTS = [
    "Lincoln High", "Eastside LC", "Westfield Academy", "North Valley", "Central Catholic",
    "Riverside Prep", "Oak Hill", "Lakeview HS", "Summit Lacrosse", "Bayside Storm",
    "Jefferson High", "Mountain View", "Harbor City LC", "Pine Ridge", "Granite Bay",
]
PERIODS = ["q1", "q2", "q3", "q4", "ot"]
STATS = ["shots", "saves", "goals", "clears"]


# ----------------------------------------------------------------------------
# game content

def invent_game(rng):
    f = {}
    for p in ["q1", "q2", "q3", "q4"]:
        shots = int(rng.integers(0, 20))
        # goals 0..shots, skewed low (goalies save most shots)
        goals = int(min(shots, rng.binomial(shots, rng.uniform(0.15, 0.6)))) if shots else 0
        f[p + ".shots"] = shots
        f[p + ".goals"] = goals
        f[p + ".saves"] = shots - goals
        f[p + ".clears"] = int(rng.integers(0, 16))
    if rng.random() < 0.70:
        for s in STATS:
            f["ot." + s] = None
    else:
        shots = int(rng.integers(0, 6))
        goals = int(rng.integers(0, min(shots, 1) + 1))
        f["ot.shots"] = shots
        f["ot.goals"] = goals
        f["ot.saves"] = shots - goals
        f["ot.clears"] = int(rng.integers(0, 5))
    for s in STATS:
        f["total." + s] = sum((f[p + "." + s] or 0) for p in PERIODS)
    f["athlete"] = str(rng.choice(ATHLETES))
    f["opponent"] = str(rng.choice(OPPONENTS))
    d0 = datetime.date(2024, 1, 1)
    days = (datetime.date(2026, 12, 31) - d0).days
    f["date"] = (d0 + datetime.timedelta(days=int(rng.integers(0, days + 1)))).isoformat()
    hs = bool(rng.random() < 0.6)
    f["context.hs"] = hs
    f["context.club"] = not hs
    conf = nonconf = False
    if hs:
        r = rng.random()
        if r < 0.4:
            conf = True
        elif r < 0.8:
            nonconf = True
    f["conference.conf"] = conf
    f["conference.nonconf"] = nonconf
    return f


def conform_to_template(values, template):
    """Every template field id gets a value; ids unknown to the game logic get null/false."""
    out = {}
    for fld in template["fields"]:
        fid = fld["id"]
        if fid in values:
            out[fid] = values[fid]
        else:
            out[fid] = False if fld["kind"] == "checkbox" else None
    return out


# ----------------------------------------------------------------------------
# filling

class Filler:
    def __init__(self, rng, page_img, sx, sy, font_path, ink_rgb, density):
        self.rng = rng
        self.base = page_img
        self.sx, self.sy = sx, sy
        self.mask = Image.new("L", page_img.size, 0)
        self.draw = ImageDraw.Draw(self.mask)
        self.font_path = font_path
        self.ink = ink_rgb
        self.density = density
        self._fonts = {}
        self.digit_frac = rng.uniform(0.55, 0.75)   # digit ink height / box height
        self.text_frac = rng.uniform(0.42, 0.56)    # cap height / text rect height
        self.leading_zero_p = float(rng.choice([0.0, 0.2, 0.5], p=[0.4, 0.4, 0.2]))
        self.leading_zero_fields = []
        self.check_style = str(rng.choice(["x", "check", "fill"]))
        self.problems = []

    def font(self, size):
        size = max(4, int(round(size)))
        if size not in self._fonts:
            self._fonts[size] = ImageFont.truetype(self.font_path, size)
        return self._fonts[size]

    def px(self, x, y):
        return x * self.sx, y * self.sy

    def glyph(self, ch, box, frac):
        """Draw one character centred in box (pixels: x0,y0,x1,y1)."""
        x0, y0, x1, y1 = box
        bw, bh = x1 - x0, y1 - y0
        ref = self.font(100)
        l, t, r, b = ref.getbbox("0123456789", anchor="ls")
        digit_h = -t  # digits sit on the baseline
        size = 100 * frac * bh / digit_h
        f = self.font(size)
        gl, gt, gr, gb = f.getbbox(ch, anchor="ls")
        margin = 0.10 * bw
        if gr - gl > bw - 2 * margin:  # too wide: shrink
            size *= (bw - 2 * margin) / (gr - gl)
            f = self.font(size)
            gl, gt, gr, gb = f.getbbox(ch, anchor="ls")
        gw, gh = gr - gl, gb - gt
        jx_max = max(0.0, min(0.07 * bw, (bw - gw) / 2 - margin))
        jy_max = max(0.0, min(0.07 * bh, (bh - gh) / 2 - 0.10 * bh))
        jx = self.rng.uniform(-jx_max, jx_max)
        jy = self.rng.uniform(-jy_max, jy_max)
        cx, cy = (x0 + x1) / 2 + jx, (y0 + y1) / 2 + jy
        ox = cx - (gl + gr) / 2
        oy = cy - (gt + gb) / 2
        self.draw.text((ox, oy), ch, fill=255, font=f, anchor="ls")
        # sanity: drawn glyph bbox lies inside the box
        if not (ox + gl >= x0 + 2 and ox + gr <= x1 - 2 and oy + gt >= y0 + 2 and oy + gb <= y1 - 2):
            self.problems.append("glyph %r overflows box %s" % (ch, box))

    def comb_boxes(self, fld):
        x, y, w, h = fld["rect"]
        n = fld.get("combs") or 1
        return [(self.px(x + w * i / n, y) + self.px(x + w * (i + 1) / n, y + h)) for i in range(n)]

    def fill_count(self, fld, value):
        if value is None:
            return
        boxes = self.comb_boxes(fld)
        n = len(boxes)
        s = str(value)
        if len(s) < n and self.rng.random() < self.leading_zero_p:
            s = s.rjust(n, "0")
            self.leading_zero_fields.append(fld["id"])
        if len(s) > n:
            raise ValueError("%s=%s does not fit %d combs" % (fld["id"], value, n))
        for ch, box in zip(s, boxes[n - len(s):]):  # right-aligned
            self.glyph(ch, box, self.digit_frac)

    def fill_date(self, fld, iso):
        if iso is None:
            return
        d = datetime.date.fromisoformat(iso)
        s = d.strftime("%m%d%y")
        boxes = self.comb_boxes(fld)
        if len(boxes) != len(s):
            raise ValueError("date field needs 6 combs")
        for ch, box in zip(s, boxes):
            self.glyph(ch, box, self.digit_frac)

    def fill_text(self, fld, text):
        if not text:
            return
        x, y, w, h = fld["rect"]
        x0, y0 = self.px(x, y)
        x1, y1 = self.px(x + w, y + h)
        bw, bh = x1 - x0, y1 - y0
        ref = self.font(100)
        cap = -ref.getbbox("H", anchor="ls")[1]
        size = 100 * self.text_frac * bh / cap
        pad = self.rng.uniform(0.012, 0.03) * bw
        f = self.font(size)
        l, t, r, b = f.getbbox(text, anchor="ls")
        if r - l > bw - 2 * pad:
            size *= (bw - 2 * pad) / (r - l)
            f = self.font(size)
            l, t, r, b = f.getbbox(text, anchor="ls")
        capf = -f.getbbox("H", anchor="ls")[1]
        jy = self.rng.uniform(-0.06, 0.06) * bh
        base_y = (y0 + y1) / 2 + capf / 2 + jy
        # keep ascenders/descenders of this string inside the rect
        m = 0.08 * bh
        base_y = min(base_y, y1 - m - b)
        base_y = max(base_y, y0 + m - t)
        self.draw.text((x0 + pad - l, base_y), text, fill=255, font=f, anchor="ls")
        if not (base_y + t >= y0 + 1 and base_y + b <= y1 - 1):
            self.problems.append("text %r overflows %s" % (text, fld["id"]))

    def fill_checkbox(self, fld, on):
        if not on:
            return
        x, y, w, h = fld["rect"]
        x0, y0 = self.px(x, y)
        x1, y1 = self.px(x + w, y + h)
        bw, bh = x1 - x0, y1 - y0
        lw = max(2, int(round(0.11 * min(bw, bh))))
        j = lambda: self.rng.uniform(-0.03, 0.03) * bw
        if self.check_style == "x":
            ins = self.rng.uniform(0.18, 0.26)
            a = (x0 + ins * bw + j(), y0 + ins * bh + j())
            b = (x1 - ins * bw + j(), y1 - ins * bh + j())
            c = (x1 - ins * bw + j(), y0 + ins * bh + j())
            d = (x0 + ins * bw + j(), y1 - ins * bh + j())
            self.draw.line([a, b], fill=255, width=lw)
            self.draw.line([c, d], fill=255, width=lw)
        elif self.check_style == "check":
            pts = [(x0 + 0.20 * bw + j(), y0 + 0.52 * bh + j()),
                   (x0 + 0.42 * bw + j(), y0 + 0.76 * bh + j()),
                   (x0 + 0.80 * bw + j(), y0 + 0.22 * bh + j())]
            self.draw.line(pts, fill=255, width=lw, joint="curve")
        else:
            ins = self.rng.uniform(0.16, 0.24)
            self.draw.rectangle([x0 + ins * bw, y0 + ins * bh, x1 - ins * bw, y1 - ins * bh], fill=255)

    def composite(self):
        """Multiply the ink onto the blank (printed lines under ink stay dark)."""
        base = np.asarray(self.base, dtype=np.float32)
        a = np.asarray(self.mask, dtype=np.float32)[..., None] / 255.0 * self.density
        ink = np.array(self.ink, dtype=np.float32) / 255.0
        out = base * (1.0 - a * (1.0 - ink))
        return Image.fromarray(np.clip(out + 0.5, 0, 255).astype(np.uint8), "RGB")


# ----------------------------------------------------------------------------
# geometry helpers (continuous pixel coordinates, pixel (i,j) covers [i,i+1)x[j,j+1))

def homography_from_points(src, dst):
    A, bvec = [], []
    for (x, y), (u, v) in zip(src, dst):
        A.append([x, y, 1, 0, 0, 0, -u * x, -u * y]); bvec.append(u)
        A.append([0, 0, 0, x, y, 1, -v * x, -v * y]); bvec.append(v)
    h = np.linalg.solve(np.array(A, float), np.array(bvec, float))
    return np.append(h, 1.0).reshape(3, 3)


def apply_h(H, pts):
    pts = np.asarray(pts, float)
    p = np.c_[pts, np.ones(len(pts))] @ H.T
    return p[:, :2] / p[:, 2:3]


def warp(img, H, size, fill):
    """Warp img with forward homography H (img px -> out px) into an image of `size`."""
    Hi = np.linalg.inv(H)
    Hi = Hi / Hi[2, 2]
    coeffs = tuple(Hi.flatten()[:8])
    return img.transform(size, Image.PERSPECTIVE, coeffs, Image.BICUBIC, fillcolor=fill)


def rot_about(theta_deg, cx, cy):
    t = math.radians(theta_deg)
    c, s = math.cos(t), math.sin(t)
    # positive theta = counter-clockwise as seen on screen (y axis points down)
    R = np.array([[c, s, 0], [-s, c, 0], [0, 0, 1.0]])
    T1 = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1.0]])
    T2 = np.array([[1, 0, cx], [0, 1, cy], [0, 0, 1.0]])
    return T2 @ R @ T1


def translate(tx, ty):
    return np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1.0]])


def quarter_turn_matrix(k, w, h):
    """k clockwise quarter turns of a w x h image."""
    k %= 4
    if k == 0:
        return np.eye(3)
    if k == 1:
        return np.array([[0, -1, h], [1, 0, 0], [0, 0, 1.0]])
    if k == 2:
        return np.array([[-1, 0, w], [0, -1, h], [0, 0, 1.0]])
    return np.array([[0, 1, 0], [-1, 0, w], [0, 0, 1.0]])


def smooth_field(rng, w, h, cells):
    """Low-frequency random field in [0,1], size w x h."""
    g = rng.random((cells[1], cells[0])).astype(np.float32)
    im = Image.fromarray(g, "F").resize((w, h), Image.BICUBIC)
    a = np.asarray(im, dtype=np.float32)
    a = (a - a.min()) / max(1e-6, a.max() - a.min())
    return a


# ----------------------------------------------------------------------------
# profiles

def downscale(page, k):
    w, h = page.size
    nw, nh = max(1, round(w * k)), max(1, round(h * k))
    if (nw, nh) == (w, h):
        return page, 1.0, 1.0
    return page.resize((nw, nh), Image.LANCZOS), nw / w, nh / h


def add_noise(rng, arr, sigma):
    if sigma > 0:
        arr = arr + rng.normal(0, sigma, arr.shape).astype(np.float32)
    return arr


def profile_clean(rng, page, gen):
    gen.update(dict(dpi=gen["blank_dpi"], rotation_deg=0.0, quarter_turns=0, format="png"))
    return page, np.eye(3), "png", {}


def profile_scan(rng, page, gen, blank_dpi):
    # 150..300 dpi, skewed low to keep committed sets small
    dpi = int(round(150 + 150 * rng.random() ** 2))
    page_s, kx, ky = downscale(page, dpi / blank_dpi)
    pw, ph = page_s.size
    theta = float(rng.uniform(-2, 2))
    R = rot_about(theta, pw / 2, ph / 2)
    corners = apply_h(R, [(0, 0), (pw, 0), (pw, ph), (0, ph)])
    m = rng.uniform(0.0, 0.2, 4) * dpi  # margins in px (up to 0.2 inch)
    mn = corners.min(0)
    mx = corners.max(0)
    M = translate(m[0] - mn[0], m[1] - mn[1]) @ R
    size = (int(math.ceil(mx[0] - mn[0] + m[0] + m[2])), int(math.ceil(mx[1] - mn[1] + m[1] + m[3])))
    # scanner lid: usually white (clips to paper white), sometimes light gray (page edge visible)
    lid = int(rng.integers(246, 256)) if rng.random() < 0.75 else int(rng.integers(200, 232))
    img = warp(page_s, M, size, (lid, lid, lid))
    img = img.convert("L")
    blur = float(rng.uniform(0.0, 0.6))  # scanner optics
    if blur > 0.05:
        img = img.filter(ImageFilter.GaussianBlur(blur))
    arr = np.asarray(img, dtype=np.float32)
    noise = float(rng.uniform(0.5, 1.8))
    arr = add_noise(rng, arr, noise)
    # scanner auto-levels: paper clips to white, ink stretched a little
    white = float(rng.uniform(230, 244))
    black = float(rng.uniform(0, 25))
    arr = (arr - black) * 255.0 / (white - black)
    img = Image.fromarray(np.clip(arr + 0.5, 0, 255).astype(np.uint8), "L")
    r = rng.random()
    if r < 0.55:
        fmt, save = "png", {"optimize": True}
    elif r < 0.80:
        fmt, save = "tif", {"compression": "tiff_adobe_deflate"}
    else:
        q = int(rng.integers(85, 96))
        fmt, save = "jpg", {"quality": q, "optimize": True}
        gen["jpeg_quality"] = q
    save["dpi"] = (dpi, dpi)
    gen.update(dict(dpi=dpi, rotation_deg=round(theta, 3), quarter_turns=0, format=fmt,
                    noise_sigma=round(noise, 2), blur_sigma=round(blur, 2),
                    levels=[round(black, 1), round(white, 1)], lid_gray=lid, color="gray"))
    K = np.diag([kx, ky, 1.0])
    return img, M @ K, fmt, save


def background(rng, w, h):
    kind = str(rng.choice(["wood", "table", "dark", "fabric"]))
    if kind == "wood":
        base = np.array([rng.uniform(90, 140), rng.uniform(60, 95), rng.uniform(35, 60)])
    elif kind == "table":
        base = np.array([rng.uniform(110, 150)] * 3) + rng.uniform(-10, 10, 3)
    elif kind == "dark":
        base = np.array([rng.uniform(35, 70)] * 3) + rng.uniform(-8, 8, 3)
    else:
        base = np.array([rng.uniform(40, 90), rng.uniform(50, 100), rng.uniform(70, 130)])
    low = smooth_field(rng, w, h, (5, 6)) - 0.5
    bg = base[None, None, :] * (1 + 0.25 * low[..., None])
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "wood":
        wob = smooth_field(rng, w, h, (3, 12)) * 10
        grain = np.sin((xx / max(w, 1)) * rng.uniform(40, 90) + wob)
        bg = bg * (1 + 0.10 * grain[..., None])
    elif kind == "fabric":
        weave = np.sin(xx * 0.9) * np.sin(yy * 0.9)
        bg = bg * (1 + 0.03 * weave[..., None])
    bg = bg + rng.normal(0, 1.0, (h, w, 1)).astype(np.float32)
    return bg.astype(np.float32), kind


def profile_phone(rng, page, gen, blank_dpi):
    # effective dpi 150..300, skewed low (smaller files; phones are often shared downscaled)
    dpi = int(round(150 + 150 * rng.random() ** 2.5))
    page_s, kx, ky = downscale(page, dpi / blank_dpi)
    pw, ph = page_s.size
    theta = float(rng.uniform(-8, 8))
    R = rot_about(theta, pw / 2, ph / 2)
    src = [(0, 0), (pw, 0), (pw, ph), (0, ph)]
    quad = apply_h(R, src)
    jit = rng.uniform(-0.04, 0.04, (4, 2)) * np.array([pw, ph])
    quad = quad + jit
    mn, mx = quad.min(0), quad.max(0)
    m = rng.uniform(0.04, 0.12, 4) * np.array([pw, ph, pw, ph])
    w = mx[0] - mn[0] + m[0] + m[2]
    h = mx[1] - mn[1] + m[1] + m[3]
    off = np.array([m[0] - mn[0], m[1] - mn[1]])
    # phone photos are 3:4 portrait: pad the short side
    if w / h < 0.75:
        extra = 0.75 * h - w
        off[0] += extra * rng.uniform(0.2, 0.8)
        w += extra
    else:
        extra = w / 0.75 - h
        off[1] += extra * rng.uniform(0.2, 0.8)
        h += extra
    W, Hh = int(math.ceil(w)), int(math.ceil(h))
    quad = quad + off
    M = homography_from_points(src, quad)

    warped = np.asarray(warp(page_s, M, (W, Hh), (0, 0, 0)), dtype=np.float32)
    mask_img = warp(Image.new("L", page_s.size, 255), M, (W, Hh), 0)
    mask = np.asarray(mask_img, dtype=np.float32)[..., None] / 255.0
    bg, bg_kind = background(rng, W, Hh)
    # soft drop shadow
    sh_r = max(2.0, 0.012 * pw)
    shadow = np.asarray(mask_img.filter(ImageFilter.GaussianBlur(sh_r)), dtype=np.float32)[..., None] / 255.0
    sdx, sdy = (int(v) for v in rng.integers(-int(sh_r), int(sh_r) + 1, 2))
    shadow = np.roll(shadow, (sdy, sdx), axis=(0, 1))
    bg = bg * (1 - 0.45 * shadow)
    img = bg * (1 - mask) + warped  # warped is already premultiplied by the mask (fill 0)

    # uneven lighting: gradient + vignette + blotches, normalised over the page
    yy, xx = np.mgrid[0:Hh, 0:W].astype(np.float32)
    ang = rng.uniform(0, 2 * math.pi)
    grad = (xx * math.cos(ang) + yy * math.sin(ang)) / max(W, Hh)
    vc = np.array([rng.uniform(0.3, 0.7) * W, rng.uniform(0.3, 0.7) * Hh])
    vig = ((xx - vc[0]) ** 2 + (yy - vc[1]) ** 2) / (0.5 * (W ** 2 + Hh ** 2))
    blot = smooth_field(rng, W, Hh, (3, 4))
    light = (rng.uniform(0.4, 1.0) * grad + rng.uniform(0.3, 1.0) * vig + rng.uniform(0.0, 0.5) * blot)
    on_page = mask[..., 0] > 0.5
    lo_, hi_ = light[on_page].min(), light[on_page].max()
    t = (light - lo_) / max(1e-6, hi_ - lo_)
    min_bright = float(rng.uniform(0.65, 0.85))
    bright = 1.0 - (1.0 - min_bright) * t  # 1.0 brightest .. min_bright darkest on the page
    bright = np.clip(bright, 0.45, 1.05)
    tint = np.array([1.0, rng.uniform(0.95, 1.0), rng.uniform(0.86, 0.98)], dtype=np.float32)
    if rng.random() < 0.3:
        tint = tint[::-1].copy()  # cool (daylight/LED) instead of warm
    exposure = float(rng.uniform(0.88, 1.0))
    img = img * bright[..., None] * tint[None, None, :] * exposure

    noise = float(rng.uniform(0.5, 1.8))
    # mostly luminance noise plus a little chroma noise
    img = img + rng.normal(0, noise, img.shape[:2] + (1,)).astype(np.float32)
    img = img + rng.normal(0, noise * 0.4, img.shape).astype(np.float32)
    img = Image.fromarray(np.clip(img + 0.5, 0, 255).astype(np.uint8), "RGB")
    blur = float(rng.uniform(0.0, 1.2))
    if blur > 0.05:
        img = img.filter(ImageFilter.GaussianBlur(blur))

    k = 0
    if rng.random() < 1 / 8:
        k = int(rng.integers(1, 4))
    Q = quarter_turn_matrix(k, W, Hh)
    if k:
        img = img.transpose({1: Image.ROTATE_270, 2: Image.ROTATE_180, 3: Image.ROTATE_90}[k])
    q = int(rng.integers(70, 91))
    gen.update(dict(dpi=dpi, rotation_deg=round(theta, 3), quarter_turns=k, format="jpg", jpeg_quality=q,
                    corner_jitter_px=np.round(jit, 1).tolist(), background=bg_kind,
                    min_brightness=round(min_bright, 3), exposure=round(exposure, 3),
                    tint=[round(float(v), 3) for v in tint], noise_sigma=round(noise, 2), blur_sigma=round(blur, 2),
                    color="rgb"))
    K = np.diag([kx, ky, 1.0])
    return img, Q @ M @ K, "jpg", {"quality": q, "optimize": True, "progressive": True}


# ----------------------------------------------------------------------------

def make_sheet(index, args, template, blank, sx, sy):
    rng = np.random.default_rng([args.seed, index])
    profile = args.profile
    if profile == "mixed":
        profile = "scan" if rng.random() < 0.4 else "phone"
    values = conform_to_template(invent_game(rng), template)

    font_name = str(rng.choice(FONTS))
    font_path = os.path.join(args.font_dir, font_name + ".ttf")
    if rng.random() < 0.25:
        ink_name = "blue"
        ink = tuple(int(v) for v in np.clip(np.array([20, 40, 160]) + rng.integers(-15, 16, 3), 0, 255))
    else:
        ink_name = "black"
        g = int(rng.integers(0, 40))
        ink = (g, g, g + int(rng.integers(0, 10)))
    density = float(rng.uniform(0.88, 1.0))
    filler = Filler(rng, blank, sx, sy, font_path, ink, density)
    for fld in template["fields"]:
        v = values[fld["id"]]
        kind = fld["kind"]
        if kind in ("count", "digits"):
            if kind == "digits" and v is not None:
                v = str(v)
            filler.fill_count(fld, v)
        elif kind == "date":
            filler.fill_date(fld, v)
        elif kind == "text":
            filler.fill_text(fld, v)
        elif kind == "checkbox":
            filler.fill_checkbox(fld, v)
        else:
            raise ValueError("unknown field kind %r" % kind)
    if filler.problems:
        print("warning: sheet %d: %s" % (index, "; ".join(filler.problems)), file=sys.stderr)
    page = filler.composite()

    gen = {"seed": args.seed, "index": index, "profile": profile, "font": font_name,
           "ink": ink_name, "ink_rgb": list(ink), "ink_density": round(density, 3),
           "digit_height_frac": round(filler.digit_frac, 3), "checkbox_mark": filler.check_style,
           "blank_dpi": args.dpi}
    if profile == "clean":
        img, H, fmt, save = profile_clean(rng, page, gen)
        save = {"optimize": True, "dpi": (args.dpi, args.dpi)}
    elif profile == "scan":
        img, H, fmt, save = profile_scan(rng, page, gen, args.dpi)
    elif profile == "phone":
        img, H, fmt, save = profile_phone(rng, page, gen, args.dpi)
    else:
        raise ValueError(profile)
    gen["leading_zero_fields"] = filler.leading_zero_fields

    # page points -> final image pixels
    Hp = H @ np.diag([sx, sy, 1.0])
    Hp = Hp / Hp[2, 2]
    pwpt, phpt = template["page"]["width"], template["page"]["height"]
    corners = apply_h(Hp, [(0, 0), (pwpt, 0), (pwpt, phpt), (0, phpt)])
    gen["image_size"] = list(img.size)
    gen["page_corners_px"] = np.round(corners, 2).tolist()
    gen["page_to_image"] = [[float("%.8g" % v) for v in row] for row in Hp]

    name = "sheet-%03d.%s" % (index, fmt)
    img.save(os.path.join(args.out, name), **save)
    truth = {"template": template["id"], "image": name, "fields": values, "generator": gen}
    with open(os.path.join(args.out, "sheet-%03d.truth.json" % index), "w") as fh:
        json.dump(truth, fh, indent=2)
        fh.write("\n")
    if args.overlay:
        write_overlay(os.path.join(args.out, "sheet-%03d.overlay.png" % index), img, Hp, template)
    return name, profile


def write_overlay(path, img, Hp, template):
    """Debug view: template rects mapped through page_to_image, drawn in red."""
    o = img.convert("RGB")
    d = ImageDraw.Draw(o)
    lw = max(1, o.size[0] // 600)
    for fld in template["fields"]:
        x, y, w, h = fld["rect"]
        q = apply_h(Hp, [(x, y), (x + w, y), (x + w, y + h), (x, y + h)])
        d.line([tuple(p) for p in q] + [tuple(q[0])], fill=(255, 0, 0), width=lw)
    for x, y in [(24, 24), (564, 24), (564, 744), (24, 744)]:
        q = apply_h(Hp, [(x, y), (x + 24, y), (x + 24, y + 24), (x, y + 24)])
        d.line([tuple(p) for p in q] + [tuple(q[0])], fill=(0, 200, 0), width=lw)
    scale = 900 / max(o.size)
    if scale < 1:
        o = o.resize((round(o.size[0] * scale), round(o.size[1] * scale)), Image.LANCZOS)
    o.save(path)


def main():
    ap = argparse.ArgumentParser(description="Generate synthetic filled stat sheets with ground truth.")
    ap.add_argument("--template", required=True, help="template JSON (e.g. Templates/lacrosse-goalie.json)")
    ap.add_argument("--blank", required=True, help="blank sheet PNG rendered from the template")
    ap.add_argument("--dpi", type=float, default=300, help="dpi the blank was rendered at (default 300)")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--count", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=1, help="first sheet number (default 1)")
    ap.add_argument("--profile", choices=["mixed", "scan", "phone", "clean"], default="mixed")
    ap.add_argument("--font-dir", default=FONT_DIR)
    ap.add_argument("--overlay", action="store_true",
                    help="also write sheet-NNN.overlay.png (debug: mapped field rects; do not commit)")
    args = ap.parse_args()

    template = json.load(open(args.template))
    blank = Image.open(args.blank)
    if blank.mode in ("RGBA", "LA", "P", "PA"):
        blank = blank.convert("RGBA")
        bg = Image.new("RGBA", blank.size, (255, 255, 255, 255))
        blank = Image.alpha_composite(bg, blank)
    blank = blank.convert("RGB")
    pwpt, phpt = template["page"]["width"], template["page"]["height"]
    sx, sy = blank.size[0] / pwpt, blank.size[1] / phpt
    want = args.dpi / 72.0
    if abs(sx - want) / want > 0.01 or abs(sy - want) / want > 0.01:
        sys.exit("error: blank is %dx%d px but page %gx%g pt at %g dpi should be %dx%d; pass the right --dpi"
                 % (blank.size[0], blank.size[1], pwpt, phpt, args.dpi, round(pwpt * want), round(phpt * want)))
    os.makedirs(args.out, exist_ok=True)
    for i in range(args.start, args.start + args.count):
        name, prof = make_sheet(i, args, template, blank, sx, sy)
        size = os.path.getsize(os.path.join(args.out, name))
        print("%s  %-5s  %6.0f KB" % (name, prof, size / 1024))


if __name__ == "__main__":
    main()
