#!/usr/bin/env python3
"""DEVELOPMENT-ONLY stand-in for `statsheet template render`.

Draws a crude blank sheet from a template JSON: white page, black field
rectangles, comb dividers, four 24pt corner squares and the template labels.
It exists only so Tools/make_test_sheets.py can be exercised before the Swift
renderer is available.  Committed test images must be generated from the real
render (`statsheet template render <id> --out blank.png --dpi 300`).
"""
import argparse
import json

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--template", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--dpi", type=float, default=300)
    a = ap.parse_args()

    t = json.load(open(a.template))
    s = a.dpi / 72.0
    w, h = round(t["page"]["width"] * s), round(t["page"]["height"] * s)
    im = Image.new("L", (w, h), 255)
    d = ImageDraw.Draw(im)
    lw = max(1, round(1.0 * s))
    for x, y in [(24, 24), (564, 24), (564, 744), (24, 744)]:
        d.rectangle([x * s, y * s, (x + 24) * s - 1, (y + 24) * s - 1], fill=0)
    for f in t["fields"]:
        x, y, fw, fh = f["rect"]
        d.rectangle([x * s, y * s, (x + fw) * s, (y + fh) * s], outline=0, width=lw)
        n = f.get("combs") or 0
        for i in range(1, n):
            cx = (x + fw * i / n) * s
            d.line([cx, y * s, cx, (y + fh) * s], fill=0, width=lw)
        if f.get("label") and f["kind"] != "checkbox":
            d.text((x * s, (y - 14) * s), f["label"], fill=0, font=ImageFont.truetype(FONT, round(10 * s)))
        elif f.get("label"):
            d.text(((x + fw + 4) * s, y * s), f["label"], fill=0, font=ImageFont.truetype(FONT, round(10 * s)))
    for lab in t.get("labels", []):
        d.text((lab["at"][0] * s, lab["at"][1] * s), lab["text"], fill=0,
               font=ImageFont.truetype(FONT, round(lab.get("size", 12) * s)))
    d.text((72 * s, 60 * s), t.get("title", ""), fill=0, font=ImageFont.truetype(FONT, round(18 * s)))
    im.save(a.out, dpi=(a.dpi, a.dpi))


if __name__ == "__main__":
    main()
