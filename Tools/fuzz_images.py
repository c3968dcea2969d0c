#!/usr/bin/env python3
"""Seeded random damage to valid sheet images of each format, scanned by statsheet (not run in CI).

For each format (PNG, JPEG, TIFF, WebP, GIF) it writes N damaged copies of a printed test sheet —
bytes flipped, spans zeroed or repeated, random bytes inserted, the file cut short, header fields
overwritten — scans them with `statsheet scan --dry-run --json`, and reports per format:
  - crash: the scan ended by a signal;
  - hang: the scan outlived --timeout (per format), or a file took longer than --slow seconds
    (named; each format's JSON lines are kept in WORK/EXT.jsonl);
  - stray stderr: any stderr line (statsheet writes none with --json and without -v);
  - lines: one JSON line per file;
  - outcome counts (failed by reason, needs_review, clean), and of the clean ones how many read a
    value different from the sheet's truth (damage silently accepted: the figure that must be 0).
Formats without checksums over their pixels (TIFF, GIF, WebP) can lose a few pixels and still hold the
same numbers: a clean read with the truth's values is the right answer there.

    python3 Tools/fuzz_images.py --count 1000 --seed 1 --binary .build/debug/statsheet --work /tmp/fuzz
"""
import argparse
import collections
import io
import json
import os
import random
import shutil
import subprocess
import sys
import time

from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(ROOT, "TestImages/lacrosse-goalie/clean-300dpi/sheet-001.png")
FORMATS = {"png": ("PNG", {}), "jpg": ("JPEG", {"quality": 85}), "tif": ("TIFF", {"compression": "tiff_lzw"}),
           "webp": ("WEBP", {"quality": 90}), "gif": ("GIF", {})}


def damage(valid, rng):
    """One to three random injuries, each kind as likely as the others; never the valid file itself
    (two flips of the same bit, zeros over zeros)."""
    while True:
        damaged = injure(valid, rng)
        if damaged != valid:
            return damaged


def injure(data, rng):
    data = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(["flip", "zero", "repeat", "insert", "cut", "header"])
        n = len(data)
        if n < 16:
            break
        if kind == "flip":
            for _ in range(rng.randint(1, 16)):
                data[rng.randrange(n)] ^= 1 << rng.randrange(8)
        elif kind == "zero":
            start = rng.randrange(n)
            data[start:start + rng.randint(1, 4096)] = bytes(min(4096, n - start))[: rng.randint(1, 4096)]
        elif kind == "repeat":
            start = rng.randrange(n)
            span = data[start:start + rng.randint(1, 2048)]
            at = rng.randrange(n)
            data[at:at] = span
        elif kind == "insert":
            at = rng.randrange(n)
            data[at:at] = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 256)))
        elif kind == "cut":
            del data[rng.randrange(8, n):]
        else:  # a header field: one of the first 64 bytes set to an extreme
            data[rng.randrange(min(64, n))] = rng.choice([0x00, 0xFF, 0x7F, 0x80])
    return bytes(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=1000, help="damaged images per format")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/debug/statsheet"))
    parser.add_argument("--work", default="/tmp/statsheet-fuzz")
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--dpi", type=int, default=100, help="the source sheet is scaled to this (from 300)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per format before it counts as a hang")
    parser.add_argument("--slow", type=float, default=30, help="seconds for one file before it counts as a hang")
    args = parser.parse_args()

    truth = json.load(open(SOURCE.rsplit(".", 1)[0] + ".truth.json"))["fields"]
    sheet = Image.open(SOURCE).convert("L")
    sheet = sheet.resize((sheet.width * args.dpi // 300, sheet.height * args.dpi // 300), Image.Resampling.LANCZOS)
    rng = random.Random(args.seed)
    failures = 0
    for ext in args.formats.split(","):
        fmt, options = FORMATS[ext]
        out = io.BytesIO()
        sheet.save(out, fmt, **options)
        valid = out.getvalue()
        folder = os.path.join(args.work, ext)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        for i in range(args.count):
            with open(os.path.join(folder, f"{i:04d}.{ext}"), "wb") as f:
                f.write(damage(valid, rng))
        start = time.time()
        try:
            run = subprocess.run([args.binary, "scan", "--dry-run", "--json", "--jobs", str(args.jobs), folder],
                                 capture_output=True, timeout=args.timeout)
            hung, code = False, run.returncode
            stdout, stderr = run.stdout.decode("utf-8", "replace"), run.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired as e:
            hung, code = True, None
            stdout = (e.stdout or b"").decode("utf-8", "replace")
            stderr = (e.stderr or b"").decode("utf-8", "replace")
        seconds = time.time() - start
        with open(os.path.join(args.work, f"{ext}.jsonl"), "w") as f:
            f.write(stdout)
        outcomes = collections.Counter()
        wrong_clean = []
        slow = 0
        lines = stdout.splitlines()
        for line in lines:
            obj = json.loads(line)
            if obj.get("milliseconds", 0) > args.slow * 1000:
                slow += 1
                print(f"    slow: {os.path.basename(obj['file'])} took {obj['milliseconds'] / 1000:.0f} s")
            if obj["status"] == "failed":
                error = obj.get("error") or ""
                reason = error.split(":")[0].split(" (")[0]
                outcomes["failed: " + ("image over the megapixel limit" if reason.startswith("image is ") else reason)] += 1
            else:
                outcomes[obj["status"]] += 1
                if obj["status"] == "clean":
                    values = {k: v.get("value") for k, v in obj.get("fields", {}).items()}
                    if any(values.get(k) != v for k, v in truth.items() if k in values):
                        wrong_clean.append(os.path.basename(obj["file"]))
        crashed = code is not None and code < 0
        stray = [l for l in stderr.splitlines() if l.strip()]
        bad = crashed or hung or slow or stray or len(lines) != args.count or wrong_clean
        failures += bool(bad)
        print(f"{fmt}: {args.count} damaged, {len(lines)} lines, exit {code}, {seconds:.0f} s; "
              f"crash {int(crashed)}, hang {int(hung) + slow}, stray stderr lines {len(stray)}, "
              f"clean with a wrong value {len(wrong_clean)}")
        for outcome, n in outcomes.most_common():
            print(f"    {n:5d}  {outcome}")
        for l in stray[:5]:
            print("    stderr:", l)
        for name in wrong_clean[:5]:
            print("    read clean, wrong:", name)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
