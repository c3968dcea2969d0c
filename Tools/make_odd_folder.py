#!/usr/bin/env python3
"""Make a folder of odd and broken inputs for `statsheet scan`, as a new user's folder might hold.

Every kind named in issue 38: empty files, text/HTML/PDF under image names, truncated and corrupted
images, a header claiming 60,000×60,000 pixels, a directory named like an image, a FIFO, a symlink loop,
pages with no sheet on them (one pixel, blank, black, noise, half a sheet), valid sheets in every format
and depth statsheet must read (CMYK JPEG, progressive JPEG, 16-bit gray and RGB PNG and
TIFF, palette, RGBA, GIF, WebP, TIFF), hostile and unusual names, EXIF orientations 3/6/8, pages
upside down and sideways, 100 and 600 dpi.

Beside the files it writes `expected.json` (outside the folder): for each file name the outcome a scan
must give — "read" (clean or needs_review), or "failed: <start of the error>" — and `check` compares a
`statsheet scan --dry-run --json` of the folder against it:

    python3 Tools/make_odd_folder.py --out /tmp/odd --seed 1
    .build/debug/statsheet scan --dry-run --json /tmp/odd/files > /tmp/odd/scan.jsonl 2> /tmp/odd/scan.err
    python3 Tools/make_odd_folder.py check /tmp/odd

The source sheet is a printed test sheet (300 dpi); everything else is made from it with a seeded
random generator, so a seed gives the same folder every time.
"""
import argparse
import io
import json
import os
import random
import struct
import sys
import zlib

import numpy as np
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SOURCE = os.path.join(ROOT, "TestImages/lacrosse-goalie/clean-300dpi/sheet-001.png")

READ = "read"
NO_SHEET = "failed: no alignment markers"   # the start shared by the refusals of pages with no sheet


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png_bytes(samples, color_type, bit_depth):
    """A PNG written by hand, for what Pillow cannot write (16-bit RGB) or must not check (huge headers)."""
    height, width = samples.shape[:2]
    raw = samples.astype(">u2" if bit_depth == 16 else "u1").reshape(height, -1).tobytes()
    stride = len(raw) // height
    rows = b"".join(b"\x00" + raw[y * stride:(y + 1) * stride] for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", header) + png_chunk(b"IDAT", zlib.compress(rows, 6)) + png_chunk(b"IEND", b"")


def tiff16_bytes(samples):
    """A baseline uncompressed little-endian TIFF of 16-bit samples, gray or RGB (Pillow writes no 16-bit RGB)."""
    height, width = samples.shape[:2]
    spp = 1 if samples.ndim == 2 else samples.shape[2]
    data = samples.astype("<u2").tobytes()
    bits = struct.pack("<" + "H" * spp, *([16] * spp)) if spp > 1 else b""
    data_offset = 8 + len(bits)
    ifd_offset = data_offset + len(data)
    short, long = 3, 4
    entries = [(256, long, 1, width), (257, long, 1, height), (258, short, spp, 8 if spp > 1 else 16),
               (259, short, 1, 1), (262, short, 1, 2 if spp == 3 else 1), (273, long, 1, data_offset),
               (277, short, 1, spp), (278, long, 1, height), (279, long, 1, len(data)), (284, short, 1, 1)]
    ifd = struct.pack("<H", len(entries))
    for tag, kind, count, value in entries:
        inline = struct.pack("<HH", value, 0) if kind == short and count == 1 else struct.pack("<I", value)
        ifd += struct.pack("<HHI", tag, kind, count) + inline
    return b"II*\x00" + struct.pack("<I", ifd_offset) + bits + data + ifd + struct.pack("<I", 0)


def encoded(image, fmt, **options):
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def jpeg_with_orientation(image, orientation):
    """`image` stored so that applying EXIF `orientation` shows it upright."""
    stored = {3: image.transpose(Image.Transpose.ROTATE_180),
              6: image.transpose(Image.Transpose.ROTATE_90),     # viewer turns it 90° clockwise
              8: image.transpose(Image.Transpose.ROTATE_270)}[orientation]
    exif = Image.Exif()
    exif[0x0112] = orientation
    return encoded(stored, "JPEG", quality=85, exif=exif.tobytes())


def make(out, source, seed):
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    files = os.path.join(out, "files")
    os.makedirs(files, exist_ok=True)
    expected = {}

    def put(name, data, outcome):
        with open(os.path.join(files, name), "wb") as f:
            f.write(data)
        expected[name] = outcome

    sheet = Image.open(source).convert("L")            # 300 dpi
    w, h = sheet.size
    sheet150 = sheet.resize((w // 2, h // 2), Image.Resampling.LANCZOS)
    png = encoded(sheet150, "PNG")
    jpeg = encoded(sheet150, "JPEG", quality=85)

    # Not images at all, or not the image their name says.
    put("empty.jpg", b"", "failed: the file is empty")
    put("notes.png", b"game notes: 12 saves, 3 goals\n", "failed: not an image")
    put("page.jpg", b"<!DOCTYPE html><html><body><img src='sheet.jpg'></body></html>\n", "failed: not an image")
    put("scan.pdf.png", b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n", "failed: PDF is not supported")
    put("random.jpg", bytes(rng.getrandbits(8) for _ in range(5000)), "failed: not an image")

    # Damaged images.
    put("truncated-header.png", png[:30], "failed: truncated PNG")
    put("truncated-data.jpg", jpeg[: len(jpeg) * 2 // 3], "failed: truncated JPEG")
    damaged = bytearray(png)
    idat = damaged.find(b"IDAT")
    damaged[idat + 200] ^= 0xFF
    put("bad-crc.png", bytes(damaged), "failed: damaged PNG")
    huge = (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", 60000, 60000, 8, 0, 0, 0, 0))
            + png_chunk(b"IDAT", zlib.compress(b"\x00" * 1000)) + png_chunk(b"IEND", b""))
    put("huge-header.png", huge, "failed: image is 60000×60000")

    # Entries that are not regular files.
    os.makedirs(os.path.join(files, "folder.jpg"), exist_ok=True)   # walked into, never read: no line
    fifo = os.path.join(files, "fifo.jpg")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    expected["fifo.jpg"] = "failed: cannot be read: it is a named pipe"
    loop = os.path.join(files, "loop.jpg")
    if not os.path.lexists(loop):
        os.symlink("loop.jpg", loop)
    expected["loop.jpg"] = "failed: cannot be read: Too many levels of symbolic links"

    # Images with no sheet on them.
    put("one-pixel.png", encoded(Image.new("L", (1, 1), 255), "PNG"), NO_SHEET)
    put("blank.png", encoded(Image.new("L", (1275, 1650), 255), "PNG"), NO_SHEET)
    put("black.png", encoded(Image.new("L", (1275, 1650), 0), "PNG"), NO_SHEET)
    put("noise.png", encoded(Image.fromarray(nrng.integers(0, 256, (1100, 850), dtype=np.uint8)), "PNG"), NO_SHEET)
    put("half-sheet.png", encoded(sheet150.crop((0, 0, w // 2, h // 4)), "PNG"), "failed: found 2 of the 4 corner markers")

    # Valid sheets in every format and depth.
    rgb = sheet150.convert("RGB")
    put("cmyk.jpg", encoded(sheet150.convert("CMYK"), "JPEG", quality=85), READ)
    put("progressive.jpg", encoded(sheet150, "JPEG", quality=85, progressive=True), READ)
    gray16 = np.asarray(sheet150, dtype=np.uint16) * 257
    put("gray16.png", png_bytes(gray16, 0, 16), READ)
    put("rgb16.png", png_bytes(np.stack([gray16] * 3, axis=-1), 2, 16), READ)
    put("gray16.tif", encoded(Image.fromarray(gray16.astype(np.uint16)), "TIFF", compression="tiff_adobe_deflate"), READ)
    put("rgb16.tif", tiff16_bytes(np.stack([gray16] * 3, axis=-1)), READ)
    put("palette.png", encoded(rgb.quantize(16), "PNG"), READ)
    rgba = rgb.convert("RGBA")
    rgba.putalpha(255)
    put("rgba.png", encoded(rgba, "PNG"), READ)
    put("sheet.gif", encoded(sheet150, "GIF"), READ)
    put("sheet.webp", encoded(sheet150, "WEBP", quality=90), READ)
    put("sheet.tif", encoded(sheet150, "TIFF", compression="tiff_lzw"), READ)
    put("UPPER.JPG", jpeg, READ)
    put("spaces and accénts é.png", png, READ)
    for orientation in (3, 6, 8):
        put(f"exif-{orientation}.jpg", jpeg_with_orientation(sheet150, orientation), READ)
    put("100dpi.png", encoded(sheet.resize((w // 3, h // 3), Image.Resampling.LANCZOS), "PNG"), READ)
    put("600dpi.png", encoded(sheet.resize((w * 2, h * 2), Image.Resampling.BICUBIC), "PNG"), READ)
    put("png-named.jpg", png, READ)
    put("evil\x1b[2J\x1b]0;pwned\x07\nname.jpg", jpeg, READ)

    # Pages turned with no EXIF to say so: the outcome is what statsheet can do, recorded by `check`.
    put("upside-down.png", encoded(sheet150.transpose(Image.Transpose.ROTATE_180), "PNG"), "read or failed")
    put("sideways.png", encoded(sheet150.transpose(Image.Transpose.ROTATE_90), "PNG"), "read or failed")

    # Left out of the walk by extension, and counted in the summary.
    put("notes.txt", b"bring the spare sheets\n", "skipped")

    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, ensure_ascii=False, indent=1, sort_keys=True)
    print(f"{len(expected)} entries in {files} (+ folder.jpg/); expected outcomes in {out}/expected.json")


def check(out):
    expected = json.load(open(os.path.join(out, "expected.json")))
    lines = open(os.path.join(out, "scan.jsonl"), encoding="utf-8").read().splitlines()
    stderr = open(os.path.join(out, "scan.err"), encoding="utf-8", errors="replace").read().splitlines()
    seen = {}
    problems = []
    for line in lines:
        obj = json.loads(line)
        name = os.path.relpath(obj["file"], os.path.join(out, "files"))
        if name in seen:
            problems.append(f"{name!r}: more than one line")
        seen[name] = obj
    for name, want in sorted(expected.items()):
        obj = seen.get(name)
        if want == "skipped":
            if obj is not None:
                problems.append(f"{name!r}: read, but its extension should skip it")
            continue
        if obj is None:
            problems.append(f"{name!r}: no line")
            continue
        status, error = obj["status"], obj.get("error") or ""
        got = "read" if status in ("clean", "needs_review") else f"failed: {error}"
        ok = (want == "read or failed" or (want == READ and got == READ)
              or (want.startswith("failed: ") and got.startswith(want)))
        print(f"{'ok  ' if ok else 'FAIL'} {name!r}: {got}" + ("" if ok else f"   (expected {want})"))
        if not ok:
            problems.append(f"{name!r}: {got} (expected {want})")
    for name in seen:
        if name not in expected:
            problems.append(f"{name!r}: a line for a file not in the folder")
    if stderr:
        problems.append(f"{len(stderr)} stderr lines, first: {stderr[0]!r}")
    print(f"{len(seen)} lines for {sum(1 for v in expected.values() if v != 'skipped')} files; "
          f"{len(stderr)} stderr lines; {len(problems)} problems")
    for p in problems:
        print("problem:", p)
    return 1 if problems else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", nargs="?", choices=["make", "check"], default="make")
    parser.add_argument("folder", nargs="?", help="for check: the --out folder")
    parser.add_argument("--out", help="folder to create (the files go in OUT/files)")
    parser.add_argument("--source", default=DEFAULT_SOURCE, help="a 300-dpi sheet image to derive the valid sheets from")
    parser.add_argument("--seed", type=int, default=38)
    args = parser.parse_args()
    if args.command == "check":
        sys.exit(check(args.folder or args.out))
    if not args.out:
        parser.error("--out is required")
    make(args.out, args.source, args.seed)


if __name__ == "__main__":
    main()
