#!/usr/bin/env python3
"""Measures how Tesseract misreads, drops and adds the characters of handwritten names: the rates of
`NameReadingModel.Rates` (Sources/SheetModel/Doubt/NameReading.swift).

Each sheet of a generated set is read alone with STATSHEET_DEBUG_CELLS, which leaves each text field's
characters and their candidates in FIELD.characters.json; each name field read is aligned with the name
the truth file holds (edit distance on the reader's first choices, names compared as `KnownName.normalized`
compares them) and the operations counted.

    Tools/name-rates.py SET_DIR... [--statsheet .build/debug/statsheet] [--today 2026-11-23]

A letter dropped is also counted by how sure the reader was of the whole name (the mean of its letters'
likeliest candidates, `NameReadingModel.quality`): a line read unsure is a hand the reader cannot follow,
and it runs letters together far more often.

Use a set made for this and nothing else: the rates are a model's parameters, and the sets accuracy is
reported on must not have fitted them. Standard library only.
"""
import argparse
import glob
import json
import os
import subprocess
import tempfile
import unicodedata

APOSTROPHES = {"\u2019", "\u2018", "\u02bc", "\u2032"}
PUNCTUATION = set(".'-,&/()")
SURE = 0.9
# The name's quality bins of `NameReadingModel.DroppedLetters`, surest first.
QUALITY_BINS = [("sure", 0.8), ("unsure", 0.5), ("lost", 0.0)]


def normalized(text):
    text = unicodedata.normalize("NFC", text).lower()
    text = "".join("'" if c in APOSTROPHES else c for c in text)
    return " ".join(text.split())


def bare(c):
    return unicodedata.normalize("NFD", c)[0]


def symbols(characters):
    """The characters read as the model sees them: candidates normalised and merged, a space where a word begins."""
    out = []
    for ch in characters:
        choices = {}
        for choice in ch["choices"]:
            t = normalized(choice["text"])
            if t:
                choices[t[0]] = choices.get(t[0], 0) + choice["probability"]
        if not choices:
            continue
        if ch.get("startsWord") and out:
            out.append({" ": 1.0})
        total = sum(choices.values())
        out.append({c: p / total for c, p in choices.items()})
    return out


def quality(read):
    """The mean of the letters' likeliest candidates' probabilities (word spaces left out)."""
    letters = [max(s.values()) for s in read if s != {" ": 1.0}]
    return sum(letters) / len(letters) if letters else 0.0


def align(written, read):
    """Edit-distance alignment of the written name with the reader's first choices: (op, w, symbol) steps."""
    tops = [max(s, key=s.get) for s in read]
    n, m = len(written), len(read)
    d = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        d[i][0] = i
    for j in range(m + 1):
        d[0][j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            sub = 0 if written[i - 1] == tops[j - 1] else 1
            d[i][j] = min(d[i - 1][j - 1] + sub, d[i - 1][j] + 1, d[i][j - 1] + 1)
    steps, i, j = [], n, m
    while i > 0 or j > 0:
        if i > 0 and j > 0 and d[i][j] == d[i - 1][j - 1] + (0 if written[i - 1] == tops[j - 1] else 1):
            steps.append(("pair", written[i - 1], read[j - 1]))
            i, j = i - 1, j - 1
        elif i > 0 and d[i][j] == d[i - 1][j] + 1:
            steps.append(("drop", written[i - 1], None))
            i -= 1
        else:
            steps.append(("add", None, read[j - 1]))
            j -= 1
    return list(reversed(steps))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sets", nargs="+", metavar="set")
    parser.add_argument("--statsheet", default=".build/debug/statsheet")
    parser.add_argument("--today", default="2026-11-23")
    args = parser.parse_args()
    counts = dict(written=0, letters=0, punct=0, accented=0, pairs_sure=0, pairs_unsure=0, misread_sure=0, misread_unsure=0,
                  unexplained_sure=0, unexplained_unsure=0, dropped=0, punct_dropped=0, added=0, accent_dropped=0, names=0)
    for name, _ in QUALITY_BINS:
        counts["letters_" + name] = counts["dropped_" + name] = 0
    with tempfile.TemporaryDirectory() as debug:
        truths = [t for s in args.sets for t in sorted(glob.glob(os.path.join(s, "*.truth.json")))]
        for truth_path in truths:
            image = next(p for p in glob.glob(truth_path.replace(".truth.json", ".*")) if not p.endswith(".json"))
            folder = os.path.join(debug, os.path.basename(os.path.dirname(image)) + "-" + os.path.basename(image))
            os.makedirs(folder)
            subprocess.run([args.statsheet, "scan", "--dry-run", "--json", "--writing", "hand", "--today", args.today, image],
                           env={**os.environ, "STATSHEET_DEBUG_CELLS": folder}, stdout=subprocess.DEVNULL, check=True)
            truth = json.load(open(truth_path))["fields"]
            for field in glob.glob(os.path.join(folder, "*.characters.json")):
                name = truth.get(os.path.basename(field).split(".")[0])
                if not name:
                    continue
                counts["names"] += 1
                written = normalized(name)
                read = symbols(json.load(open(field)))
                bin_name = next(n for n, low in QUALITY_BINS if quality(read) >= low)
                for step, w, s in align(written, read):
                    if w is not None and w != " " and w not in PUNCTUATION:
                        counts["letters_" + bin_name] += 1
                        if step == "drop":
                            counts["dropped_" + bin_name] += 1
                    if w is not None:
                        counts["written"] += 1
                        if w in PUNCTUATION:
                            counts["punct"] += 1
                        elif w != " ":
                            counts["letters"] += 1
                        if bare(w) != w:
                            counts["accented"] += 1
                    if step == "drop":
                        counts["punct_dropped" if w in PUNCTUATION else "dropped"] += 1
                    elif step == "add":
                        counts["added"] += 1
                    else:
                        top = max(s, key=s.get)
                        bin = "sure" if s[top] >= SURE else "unsure"
                        counts["pairs_" + bin] += 1
                        if top != w:
                            if bare(w) != w and top == bare(w):
                                counts["accent_dropped"] += 1
                            else:
                                counts["misread_" + bin] += 1
                                # Misread with the written character's own probability small: what the model's
                                # `misread` term, not the reader's candidates, must explain.
                                if s.get(w, 0) < 0.05:
                                    counts["unexplained_" + bin] += 1
    print(json.dumps(counts, indent=1))

    def rate(a, b):
        return a / b if b else float("nan")
    print(f"misread (written character's candidate under 5%): sure {rate(counts['unexplained_sure'], counts['pairs_sure']):.4f}"
          f" unsure {rate(counts['unexplained_unsure'], counts['pairs_unsure']):.4f}")
    print(f"dropped letter {rate(counts['dropped'], counts['letters']):.4f}, punctuation {rate(counts['punct_dropped'], counts['punct']):.4f};"
          f" added {rate(counts['added'], counts['written']):.4f}; accent dropped {rate(counts['accent_dropped'], counts['accented']):.4f}")
    print("dropped letter by the name's quality: " + ", ".join(
        f"{n} (from {low}) {counts['dropped_' + n]} of {counts['letters_' + n]}" for n, low in QUALITY_BINS))


if __name__ == "__main__":
    main()
