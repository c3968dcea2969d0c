#!/usr/bin/env python3
"""Turn a set of test sheets into the files a club's sheets arrive as, to measure reading them against the originals.

    python3 Tools/make_arrivals.py make TestImages/lacrosse-goalie/handwritten-phone /tmp/arrivals
    statsheet scan TestImages/lacrosse-goalie/handwritten-phone --dry-run --json --writing hand > /tmp/jpeg.jsonl
    statsheet scan /tmp/arrivals --dry-run --json --writing hand | python3 Tools/make_arrivals.py remap /tmp/arrivals > /tmp/arrived.jsonl
    python3 Tools/compare_scans.py /tmp/jpeg.jsonl /tmp/arrived.jsonl --quiet

`make` writes, from the set's images in order: the first two as HEIC photos (one turned sideways, 10-bit from a
16-bit PNG, through libheif's `heif-enc`), then three-page PDFs of photos (the JPEGs themselves, as a scanner app
wraps them; other images re-encoded by Pillow) and three-page TIFFs in turn, and
`arrivals.json`, which says which original image each file and page is. `remap` rewrites a scan's JSON lines
so that each page names its original image (and drops the page), so that `compare_scans.py` compares every
page with the same image read as it was. Tools/arrivals-figure.sh runs the four commands.

Needs Pillow (Tools/requirements.txt), ImageMagick's `convert` and `heif-enc` (Debian's libheif-examples).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

from PIL import Image

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".tif", ".tiff")


def originals(folder):
    return sorted(os.path.join(folder, n) for n in os.listdir(folder)
                  if n.lower().endswith(IMAGE_EXTENSIONS) and os.path.exists(os.path.join(folder, os.path.splitext(n)[0] + ".truth.json")))


def heic(image, out, sideways):
    """A 10-bit HEIC from a 16-bit PNG, turned a quarter when `sideways` (as a phone held sideways stores it)."""
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "page.png")
        subprocess.run(["convert", image] + (["-rotate", "90"] if sideways else []) + ["-colorspace", "sRGB", "-type", "TrueColor", "-depth", "16", png], check=True)
        subprocess.run(["heif-enc", "-b", "10", "-q", "90", "-o", out, png], check=True, stdout=subprocess.DEVNULL)


def jpeg_size(data):
    """Width, height and components from a JPEG's start-of-frame marker."""
    i = 2
    while i + 9 < len(data):
        marker, length = data[i + 1], int.from_bytes(data[i + 2:i + 4], "big")
        if 0xC0 <= marker <= 0xC3:
            return int.from_bytes(data[i + 7:i + 9], "big"), int.from_bytes(data[i + 5:i + 7], "big"), data[i + 9]
        i += 2 + length
    raise ValueError("no JPEG frame header")


def jpeg_pdf(jpegs, path, dpi):
    """A PDF whose pages are the JPEG files unchanged (DCTDecode), as a phone's scanner app wraps its photos:
    the page then holds the very pixels the JPEG does, so a difference in reading is the PDF path's own."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b""]
    kids = []
    for jpeg in jpegs:
        data = open(jpeg, "rb").read()
        w, h, components = jpeg_size(data)
        pw, ph = w * 72 / dpi, h * 72 / dpi
        n = len(objects) + 1
        kids.append(f"{n} 0 R")
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw:.2f} {ph:.2f}] "
                       f"/Resources << /XObject << /Im0 {n + 2} 0 R >> >> /Contents {n + 1} 0 R >>".encode())
        content = f"q {pw:.2f} 0 0 {ph:.2f} 0 0 cm /Im0 Do Q".encode()
        objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        space = "DeviceGray" if components == 1 else "DeviceRGB"
        objects.append(f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /{space} "
                       f"/BitsPerComponent 8 /Filter /DCTDecode /Length {len(data)} >>\nstream\n".encode() + data + b"\nendstream")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(jpegs)} >>".encode()
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, obj in enumerate(objects):
        offsets.append(len(out))
        out += f"{i + 1} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for o in offsets:
        out += f"{o:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    with open(path, "wb") as f:
        f.write(out)


def make(args):
    images = originals(args.set)
    if len(images) < 5:
        sys.exit(f"{args.set}: fewer than 5 images with truth")
    os.makedirs(args.out, exist_ok=True)
    pages = {}
    for i, image in enumerate(images[:2]):
        name = f"photo-{i + 1:02d}.heic"
        heic(image, os.path.join(args.out, name), sideways=i == 1)
        pages[name] = [os.path.abspath(image)]
    rest = images[2:]
    for n, start in enumerate(range(0, len(rest), 3)):
        group = rest[start:start + 3]
        kind = "pdf" if n % 2 == 0 else "tif"
        name = f"stack-{n + 1:02d}.{kind}"
        frames = [Image.open(p).convert("L" if kind == "pdf" else "RGB") for p in group]
        path = os.path.join(args.out, name)
        if kind == "pdf" and all(p.lower().endswith((".jpg", ".jpeg")) for p in group):
            jpeg_pdf(group, path, dpi=frames[0].width / 8.5)
        elif kind == "pdf":
            # A copier stores each page as a JPEG at the page's size: 8.5 inches across, whatever its pixels.
            dpi = frames[0].width / 8.5
            frames[0].save(path, save_all=True, append_images=frames[1:], resolution=dpi, quality=90)
        else:
            frames[0].save(path, save_all=True, append_images=frames[1:], compression="tiff_lzw")
        pages[name] = [os.path.abspath(p) for p in group]
    with open(os.path.join(args.out, "arrivals.json"), "w") as f:
        json.dump(pages, f, indent=1)
    print(f"{len(pages)} files, {sum(map(len, pages.values()))} pages in {args.out}")


def remap(args):
    with open(os.path.join(args.out, "arrivals.json")) as f:
        pages = json.load(f)
    for line in sys.stdin:
        if not line.strip():
            continue
        sheet = json.loads(line)
        originals_of = pages.get(os.path.basename(sheet["file"]))
        if originals_of is None:
            continue
        sheet["file"] = originals_of[sheet.get("page", 1) - 1]
        sheet.pop("page", None)
        print(json.dumps(sheet))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make", help="write the HEIC photos, PDFs and TIFFs")
    m.add_argument("set")
    m.add_argument("out")
    r = sub.add_parser("remap", help="name each page of a scan's JSON lines by its original image")
    r.add_argument("out")
    args = ap.parse_args()
    make(args) if args.command == "make" else remap(args)


if __name__ == "__main__":
    main()
