#!/usr/bin/env python3
"""Draw marker-less paper forms "printed elsewhere" (a club's own goalie tally card) with their templates.

Each form N is drawn in one of four styles, chosen per form from the seed:

  ruled   a ruled table with shared cell walls (rows Q1-Q4, OT, Total x columns Shots/Saves/Goals/Clears)
  boxes   separate boxes with thin lines, headings above and row names beside them
  shaded  a ruled table whose header row is shaded grey
  logo    a form with a logo block and a long paragraph of instructions (and a ruled table)

Every form has a header (Athlete box, Date box of six digit boxes, Opponent box, High School / Club
checkboxes, sometimes Conference / Non-conference checkboxes), the goalie table, an outer frame, and
sometimes a rule under the title and a signature line. The page is Letter or A4.

Per form N, into --out:
  form-N.png        the flat blank at --dpi (default 300)
  form-N.json       a valid statsheet template: format 1, "printedElsewhere": true, the printed lines as
                    landmarks (points, top-left origin, y down), fields with the lacrosse sheet's ids
                    (athlete, date, opponent, context.hs, context.club, conference.*, q1.shots ... total.clears)
                    and its rules and gameLog. It is the truth of every cell.
  photos/form-N-photo.jpg  with --photo: the blank photographed by a phone (perspective, rotation, sometimes a
                    quarter turn, uneven light, a background, blur, JPEG), by make_test_sheets.py's phone
                    profile; photos/form-N-photo.json records its draws and the page's corners in the photo
                    (a folder of their own: --templates OUT reads every JSON beside the templates as one).

Fill a form by hand with make_test_sheets.py, giving it the template and the blank:
  python3 Tools/make_test_sheets.py --template OUT/form-1.json --blank OUT/form-1.png --dpi 300 \
      --out OUT/filled --count 10 --seed 5601 --profile phone --fill hand --writers mnist

Output is deterministic: form N depends only on (--seed, N), --dpi and the numpy/Pillow versions.
"""
import argparse
import copy
import json
import os
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFont

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_test_sheets as mts  # noqa: E402  (reused: the phone profile, homographies, warps)

FONT_DIR = "/usr/share/fonts/truetype/dejavu"
STYLES = ["ruled", "boxes", "shaded", "logo"]
PAGES = {"letter": (612.0, 792.0), "a4": (595.28, 841.89)}
CLUBS = ["Riverside Lacrosse Club", "North Valley Youth Lacrosse", "Harbor City LC", "Granite Bay Lacrosse",
         "Summit Lacrosse Association", "Eastside Lacrosse", "Pine Ridge Raiders LC", "Bayside Storm Lacrosse"]
TITLES = ["Goalie Tally Card", "Goalkeeper Game Record", "Goalie Stat Sheet", "Goalie Scorebook Page",
          "Goalie Game Tally"]
INSTRUCTIONS = (
    "Fill in one card per goalie per game. Write one digit per box in dark ink, numbers right-aligned; "
    "leave a period empty if the goalie did not play it. Saves plus goals allowed must equal shots on goal "
    "in every period and in the total. A clear is a successful clear started by the goalie. Mark exactly "
    "one of High School or Club, and for a high school game whether it counted in the conference. Hand "
    "the card to the team manager after the game; cards are collected at the end of each week and kept "
    "for the season report. Questions: ask your coach or the club's statistics volunteer.")
ROWS = [("q1", "Q1"), ("q2", "Q2"), ("q3", "Q3"), ("q4", "Q4"), ("ot", "OT"), ("total", "Total")]
COLUMNS = [("shots", ["Shots", "Shots on goal", "SOG"]), ("saves", ["Saves", "Saves", "SV"]),
           ("goals", ["Goals", "Goals against", "GA"]), ("clears", ["Clears", "Clears", "CLR"])]


def q(v):
    """v to the nearest quarter point, exact in binary floating point."""
    return round(float(v) * 4) / 4


def lacrosse_template():
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "Templates", "lacrosse-goalie.json"), encoding="utf-8") as fh:
        return json.load(fh)


class Form:
    """One form: its layout in points, drawn into an image and written as a template."""

    def __init__(self, rng, style, page, ident, title):
        self.rng, self.style, self.ident, self.title = rng, style, ident, title
        self.page = page
        self.W, self.H = PAGES[page]
        self.lines = []     # (x0, y0, x1, y1, width pt): every printed line
        self.landmarks = []  # (x0, y0, x1, y1): the lines given to the template
        self.fills = []     # (x, y, w, h, grey) shaded areas, drawn first
        self.texts = []     # (text, x, baseline y, size pt, font name)
        self.ellipses = []  # (x, y, w, h, width pt)
        self.fields = []
        g = int(rng.integers(0, 45))
        self.ink = (g, g, g) if rng.random() < 0.7 else tuple(int(v) for v in [(20, 30, 95), (15, 70, 35),
                                                                               (95, 20, 25)][int(rng.integers(0, 3))])
        self.font = str(rng.choice(["DejaVuSans", "DejaVuSerif", "DejaVuSansCondensed"]))
        self.bold = self.font + "-Bold"

    # drawing records ---------------------------------------------------------------------------------
    def line(self, x0, y0, x1, y1, width, landmark=True):
        self.lines.append((x0, y0, x1, y1, width))
        if landmark and max(abs(x1 - x0), abs(y1 - y0)) >= 12:
            self.landmarks.append((x0, y0, x1, y1))

    def box(self, x, y, w, h, width, landmark=True):
        self.line(x, y, x + w, y, width, landmark)
        self.line(x, y + h, x + w, y + h, width, landmark)
        self.line(x, y, x, y + h, width, landmark)
        self.line(x + w, y, x + w, y + h, width, landmark)

    def text(self, s, x, y, size, bold=False):
        self.texts.append((s, x, y, size, self.bold if bold else self.font))

    def text_width(self, s, size, bold=False):
        font = ImageFont.truetype(os.path.join(FONT_DIR, (self.bold if bold else self.font) + ".ttf"), 100)
        return font.getlength(s) * size / 100.0

    def field(self, fid, kind, rect, label, **extra):
        f = {"id": fid, "kind": kind, "label": label, "rect": [round(v, 2) for v in rect]}
        f.update(extra)
        self.fields.append(f)
        return f

    # layout ------------------------------------------------------------------------------------------
    def lay_out(self, conference):
        rng, W, H = self.rng, self.W, self.H
        m = float(rng.uniform(36, 58))            # frame inset from the page edge
        top = float(rng.uniform(36, 60))
        pad = float(rng.uniform(12, 18))
        frame_w = float(rng.uniform(1.0, 2.0))
        x_in, x_out = m + pad, W - m - pad        # the form's inner left and right edges
        y = top + pad

        # title block
        club = str(rng.choice(CLUBS))
        title_size = float(rng.uniform(15, 19))
        tx = x_in
        if self.style == "logo":
            d = float(rng.uniform(48, 60))
            self.ellipses.append((x_in, y, d, d, float(rng.uniform(1.5, 2.5))))
            initials = "".join(w[0] for w in club.split()[:3]).upper()
            size = d * 0.32
            self.text(initials, x_in + d / 2 - self.text_width(initials, size, True) / 2, y + d / 2 + size * 0.36,
                      size, True)
            tx = x_in + d + 14
            self.text(club, tx, y + 20, title_size, True)
            self.text(self.title, tx, y + 20 + title_size + 6, title_size * 0.75)
            y += d + 10
        else:
            self.text(club, tx, y + title_size, title_size, True)
            self.text(self.title, tx, y + title_size + title_size * 0.75 + 6, title_size * 0.75)
            y += title_size + title_size * 0.75 + 16
        if rng.random() < 0.5:
            self.line(m, y, W - m, y, float(rng.uniform(0.8, 1.5)))
            y += float(rng.uniform(10, 16))
        instructions_top = self.style == "logo" and rng.random() < 0.6
        if instructions_top:
            y = self.paragraph(INSTRUCTIONS, x_in, y + 4, x_out - x_in, float(rng.uniform(8, 9.5))) + 8

        # header: athlete and date, opponent and context, conference
        above = rng.random() < 0.55                 # labels above the boxes, else to their left
        lab = float(rng.uniform(9, 11))
        hh = float(rng.uniform(24, 30))             # text box height
        comb = float(rng.uniform(21, 26))
        dw = 6 * comb
        cb = float(rng.uniform(12, 15))
        c2_off = max(self.text_width("High School", lab), self.text_width("Conference", lab)) + cb + 14
        right_w = max(dw, c2_off + cb + 5 + self.text_width("Non-conference" if conference else "Club", lab))
        dx = x_out - right_w
        left_label = 0.0 if above else max(self.text_width(s + ":", lab) for s in ("Athlete", "Opponent")) + 8
        ax = x_in + left_label
        aw = min(float(rng.uniform(210, 280)), dx - 24 - ax - (0 if above else self.text_width("Date:", lab) + 8))
        lw = float(rng.uniform(0.7, 1.2))
        gap = float(rng.uniform(10, 16))
        if above:
            y += lab + 4
        self.text_box("athlete", "Athlete", ax, y, aw, hh, lab, above, lw, names="athlete")
        self.field("date", "date", (dx, y, dw, hh), "Date (MM DD YY)", combs=6)
        self.box(dx, y, dw, hh, lw)
        for i in range(1, 6):
            self.line(dx + i * comb, y, dx + i * comb, y + hh,
                      lw * (1.0 if i % 2 == 0 else 0.6), landmark=False)
        if above:
            self.text("Date (MM DD YY)", dx, y - 4, lab)
        else:
            self.text("Date:", dx - self.text_width("Date:", lab) - 6, y + hh / 2 + lab * 0.36, lab)
        y += hh + gap + (lab + 4 if above else 0)
        self.text_box("opponent", "Opponent", ax, y, aw, hh, lab, above, lw, names="opponent")
        c2 = dx + c2_off
        cy = y + (hh - cb) / 2
        self.checkbox("context.hs", "High School", dx, cy, cb, lab, lw)
        self.checkbox("context.club", "Club", c2, cy, cb, lab, lw)
        y += hh
        if conference:
            cy = y + gap * 0.8
            self.checkbox("conference.conf", "Conference", dx, cy, cb, lab, lw)
            self.checkbox("conference.nonconf", "Non-conference", c2, cy, cb, lab, lw)
            if c2 + cb + 4 + self.text_width("Non-conference", lab) > x_out:
                raise ValueError("checkbox labels past the frame")
            y = cy + cb
        y += float(rng.uniform(22, 36))

        # the goalie table
        y = self.table(x_in, x_out, y)

        # bottom: instructions, signature line, frame
        if self.style == "logo" and not instructions_top:
            y = self.paragraph(INSTRUCTIONS, x_in, y + 14, x_out - x_in, float(rng.uniform(8, 9.5)))
        elif self.style != "logo" and rng.random() < 0.5:
            y = self.paragraph("Write one digit per box. Saves + goals allowed = shots.", x_in, y + 14,
                               x_out - x_in, 9)
        if rng.random() < 0.5:
            y += 34
            self.text("Coach signature", x_in, y + 11, 9)
            self.line(x_in + self.text_width("Coach signature", 9) + 8, y + 12, x_in + 300, y + 12, 0.8)
            y += 12
        bottom = y + pad + float(rng.uniform(4, 20))
        if bottom > H - 24:
            raise ValueError("form runs off the page")
        self.box(m, top, W - 2 * m, bottom - top, frame_w)

    def paragraph(self, s, x, y, width, size):
        words, lines, cur = s.split(), [], ""
        for w in words:
            t = (cur + " " + w).strip()
            if self.text_width(t, size) > width and cur:
                lines.append(cur)
                cur = w
            else:
                cur = t
        lines.append(cur)
        lead = size * 1.3
        for i, ln in enumerate(lines):
            self.text(ln, x, y + size + i * lead, size)
        return y + size + (len(lines) - 1) * lead + size * 0.3

    def text_box(self, fid, label, x, y, w, h, lab, above, lw, names):
        self.field(fid, "text", (x, y, w, h), label, names=names)
        self.box(x, y, w, h, lw)
        if above:
            self.text(label, x, y - 4, lab)
        else:
            self.text(label + ":", x - self.text_width(label + ":", lab) - 8, y + h / 2 + lab * 0.36, lab)

    def checkbox(self, fid, label, x, y, s, lab, lw):
        self.field(fid, "checkbox", (x, y, s, s), label)
        self.box(x, y, s, s, lw)
        self.text(label, x + s + 5, y + s / 2 + lab * 0.36, lab)

    def table(self, x_in, x_out, y):
        rng, style = self.rng, self.style
        names = int(rng.integers(0, 3))
        heads = [c[1][names] for c in COLUMNS]
        hsize = float(rng.uniform(9.5, 11.5))
        rsize = float(rng.uniform(10, 13))
        # Every length a quarter point: cells that share a wall then share it exactly (no overlap by rounding).
        label_w = q(rng.uniform(58, 84))
        cw = float(rng.uniform(64, 80) if style == "boxes" else rng.uniform(58, 78))
        cw = q(min(cw, (x_out - x_in - label_w) / 4 - 0.25))
        rh = q(rng.uniform(32, 38) if style == "boxes" else rng.uniform(30, 36))
        head_h = q(rng.uniform(20, 28))
        x0 = q(x_in + float(rng.uniform(0, max(0.0, x_out - x_in - label_w - 4 * cw))))
        y = q(y)
        cx = [x0 + label_w + i * cw for i in range(5)]   # column walls of the count columns
        if style == "boxes":
            g = q(rng.uniform(8, 14))
            lw = float(rng.uniform(0.5, 0.8))
            total_gap = q(rng.uniform(8, 18))
            for j, h in enumerate(heads):
                size = min(hsize, hsize * (cw - 4) / self.text_width(h, hsize, True))
                self.text(h, cx[j] + g / 2, y + head_h - 6, size, True)
            ry = y + head_h
            for r, (rid, rname) in enumerate(ROWS):
                if rid == "total":
                    ry += total_gap
                self.text(rname, x0, ry + rh / 2 + rsize * 0.36, rsize, rid == "total")
                for j, (cid, _) in enumerate(COLUMNS):
                    rect = (cx[j] + g / 2, ry + g / 2, cw - g, rh - g)
                    self.count(rid, cid, rect, heads[j], rname)
                    self.box(*rect, lw)
                    self.line(rect[0] + rect[2] / 2, rect[1], rect[0] + rect[2] / 2, rect[1] + rect[3], lw * 0.8,
                              landmark=False)
                ry += rh
            return ry
        # a ruled table with shared walls: a header row, six rows, a heavier rule above Total
        lw = float(rng.uniform(0.7, 1.2))
        heavy = lw * float(rng.uniform(1.6, 2.4))
        x1 = cx[4]
        ys = [y, y + head_h] + [y + head_h + (r + 1) * rh for r in range(len(ROWS))]
        if style == "shaded":
            grey = int(rng.integers(200, 226))
            self.fills.append((x0, y, x1 - x0, head_h, grey))
        for i, yy in enumerate(ys):
            width = heavy if i in (0, len(ys) - 1, len(ys) - 2) else lw
            self.line(x0, yy, x1, yy, width)
        for i, xx in enumerate([x0] + cx):
            self.line(xx, y, xx, ys[-1], heavy if i in (0, 5) else lw)
        self.text("Period", x0 + 5, y + head_h / 2 + hsize * 0.36, hsize, True)
        for j, h in enumerate(heads):
            size = min(hsize, hsize * (cw - 8) / self.text_width(h, hsize, True))
            tw = self.text_width(h, size, True)
            self.text(h, cx[j] + (cw - tw) / 2, y + head_h / 2 + size * 0.36, size, True)
        for r, (rid, rname) in enumerate(ROWS):
            ry = ys[r + 1]
            self.text(rname, x0 + 6, ry + rh / 2 + rsize * 0.36, rsize, rid == "total")
            for j, (cid, _) in enumerate(COLUMNS):
                rect = (cx[j], ry, cw, rh)
                self.count(rid, cid, rect, heads[j], rname)
                # the two digit boxes: a thin divider, not a landmark (handwriting crosses it)
                self.line(cx[j] + cw / 2, ry + rh * 0.18, cx[j] + cw / 2, ry + rh * 0.82, lw * 0.6, landmark=False)
        return ys[-1]

    def count(self, rid, cid, rect, head, rname):
        self.field("%s.%s" % (rid, cid), "count", rect, "%s %s" % (rname, head), combs=2,
                   range=[0, 99] if rid == "total" else [0, 49])

    # output ------------------------------------------------------------------------------------------
    def render(self, dpi, supersample=2):
        k = dpi / 72.0 * supersample
        out = (int(round(self.W * dpi / 72.0)), int(round(self.H * dpi / 72.0)))
        img = Image.new("RGB", (out[0] * supersample, out[1] * supersample), (255, 255, 255))
        d = ImageDraw.Draw(img)
        for x, y, w, h, grey in self.fills:
            d.rectangle([x * k, y * k, (x + w) * k, (y + h) * k], fill=(grey, grey, grey))
        for x0, y0, x1, y1, w in self.lines:
            h = w / 2
            d.rectangle([(min(x0, x1) - h) * k, (min(y0, y1) - h) * k, (max(x0, x1) + h) * k - 1,
                         (max(y0, y1) + h) * k - 1], fill=self.ink)
        for x, y, w, h, lw in self.ellipses:
            d.ellipse([x * k, y * k, (x + w) * k, (y + h) * k], outline=self.ink, width=max(1, int(lw * k)))
        fonts = {}
        for s, x, y, size, name in self.texts:
            key = (name, size)
            if key not in fonts:
                fonts[key] = ImageFont.truetype(os.path.join(FONT_DIR, name + ".ttf"), max(1, int(round(size * k))))
            d.text((x * k, y * k), s, font=fonts[key], fill=self.ink, anchor="ls")
        return img.resize(out, Image.LANCZOS)

    def template(self, conference):
        lax = lacrosse_template()
        rules = [r for r in lax["rules"] if conference or not r["id"].startswith("conference.")]
        game_log = copy.deepcopy(lax["gameLog"])
        if not conference:
            game_log.pop("conference", None)
        r2 = lambda v: round(float(v), 2)  # noqa: E731
        return {
            "format": 1,
            "id": self.ident,
            "version": 1,
            "title": self.title,
            "sport": "lacrosse",
            "page": {"width": self.W, "height": self.H},
            "printedElsewhere": True,
            "landmarks": [{"from": [r2(a), r2(b)], "to": [r2(c), r2(d)]} for a, b, c, d in self.landmarks],
            "fields": self.fields,
            "labels": [{"text": s, "at": [r2(x), r2(y)], "size": r2(size)} for s, x, y, size, _ in self.texts],
            "rules": rules,
            "gameLog": game_log,
        }


def make_form(seed, n, args):
    rng = np.random.default_rng([seed, n])
    style = args.style or STYLES[int(rng.integers(0, len(STYLES)))]
    page = args.page or ("letter" if rng.random() < 0.6 else "a4")
    conference = rng.random() < 0.6
    title = str(rng.choice(TITLES))
    ident = args.id.format(n=n)
    form = Form(rng, style, page, ident, title)
    form.lay_out(conference)
    return form, style, page, conference


def write_form(n, args):
    form, style, page, conference = make_form(args.seed, n, args)
    blank = form.render(args.dpi)
    base = os.path.join(args.out, "form-%d" % n)
    blank.save(base + ".png", optimize=True, dpi=(args.dpi, args.dpi))
    with open(base + ".json", "w", encoding="utf-8") as fh:
        json.dump(form.template(conference), fh, indent=1)
        fh.write("\n")
    line = "form-%d  %-6s %-6s conference=%-5s %3d fields %3d landmarks" % (
        n, style, page, conference, len(form.fields), len(form.landmarks))
    if args.photo:
        # The phone profile of make_test_sheets.py, its generator of its own so the form stays the same.
        prng = np.random.default_rng([args.seed, n, 7])
        gen = {"seed": args.seed, "form": n, "profile": "phone", "blank_dpi": args.dpi}
        img, H, fmt, save = mts.profile_phone(prng, blank, gen, args.dpi, camera=args.camera)
        s = args.dpi / 72.0
        Hp = H @ np.diag([s, s, 1.0])
        Hp = Hp / Hp[2, 2]
        corners = mts.apply_h(Hp, [(0, 0), (form.W, 0), (form.W, form.H), (0, form.H)])
        gen["image_size"] = list(img.size)
        gen["page_corners_px"] = np.round(corners, 2).tolist()
        gen["page_to_image"] = [[float("%.8g" % v) for v in row] for row in Hp]
        # In a folder of their own: a JSON beside the templates would be taken for one (--templates DIR).
        photos = os.path.join(args.out, "photos")
        os.makedirs(photos, exist_ok=True)
        pbase = os.path.join(photos, "form-%d-photo" % n)
        img.save(pbase + "." + fmt, **save)
        with open(pbase + ".json", "w", encoding="utf-8") as fh:
            json.dump({"template": form.ident, "image": "form-%d-photo.%s" % (n, fmt), "generator": gen}, fh,
                      indent=2)
            fh.write("\n")
        line += "  + photo"
    print(line)


def main():
    ap = argparse.ArgumentParser(description="Draw marker-less club goalie forms with their statsheet templates.")
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--count", type=int, default=4)
    ap.add_argument("--start", type=int, default=1, help="first form number (default 1)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dpi", type=float, default=300, help="dpi of the blank PNG (default 300)")
    ap.add_argument("--style", choices=STYLES, help="draw every form in this style (default: chosen per form)")
    ap.add_argument("--page", choices=sorted(PAGES), help="page size (default: chosen per form, 60%% Letter)")
    ap.add_argument("--id", default="club-form-{n}", help="template id; {n} is the form number (default club-form-{n})")
    ap.add_argument("--photo", action="store_true",
                    help="also write photos/form-N-photo.jpg, the blank photographed by a phone (make_test_sheets.py's "
                         "phone profile: perspective, rotation, quarter turns, light, background, blur, JPEG)")
    ap.add_argument("--camera", choices=["jitter", "pinhole"], default="jitter",
                    help="the photo's geometry: jitter (default; a rotation and each corner moved at random, as "
                         "make_test_sheets.py's sheets) or pinhole (a phone camera tilted up to 30 degrees: the "
                         "perspective a page's true proportions are recovered from)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for n in range(args.start, args.start + args.count):
        write_form(n, args)


if __name__ == "__main__":
    main()
