#!/usr/bin/env python3
"""Write a `statsheet review --apply` file from the truth files beside a SQLite store's sheets.

    Tools/corrections_from_truth.py STORE.sqlite OUT.json [--wrong N] [--seed S]

For every stored sheet whose image has a NAME.truth.json beside it (Tools/make_test_sheets.py writes them), every
number (count, digit string or date field) that is flagged or read wrong, and not yet corrected, gets an entry with
its true value: what a careful reviewer does in `statsheet review` (a flagged number read right is confirmed, which
labels its digits as well as a correction does). Sheets a reviewer already approved or rejected are left out
(`review --apply` refuses them).

--wrong N makes N of the entries wrong on purpose (a reviewer's slip: one digit of the true value changed, the
number of digits kept so that it labels digits), chosen with --seed: how the adaptation's bound on bad corrections is
measured (Tools/adaptation-figure.sh). Standard library only; reads the store, writes nothing to it.
"""
import argparse
import json
import os
import random
import sqlite3
import sys

NUMBER_KINDS = ("count", "digits", "date")


def truth_path(image):
    return os.path.splitext(image)[0] + ".truth.json"


def slipped(value, kind, rng):
    """The true value with one digit changed, as many digits as before (a count's first digit never becomes 0)."""
    if kind == "date":
        # Any other digit could make an impossible day or month, which the field's kind refuses: the year's last.
        year, month, day = value.split("-")
        return f"{year[:3]}{(int(year[3]) + rng.randrange(1, 10)) % 10}-{month}-{day}"
    digits = list(str(value))
    i = rng.randrange(len(digits))
    choices = [d for d in "0123456789" if d != digits[i] and not (kind == "count" and i == 0 and d == "0" and len(digits) > 1)]
    digits[i] = rng.choice(choices)
    return int("".join(digits)) if kind == "count" else "".join(digits)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", help="a statsheet SQLite store")
    parser.add_argument("out", help="the --apply file to write")
    parser.add_argument("--wrong", type=int, default=0, help="entries made wrong on purpose (default 0)")
    parser.add_argument("--seed", type=int, default=1, help="chooses the wrong entries (default 1)")
    args = parser.parse_args()

    db = sqlite3.connect(f"file:{args.store}?mode=ro", uri=True)
    sheets = db.execute(
        "SELECT id, path FROM sheets s WHERE NOT EXISTS (SELECT 1 FROM review_decisions d WHERE d.sheet_id = s.id) ORDER BY id"
    ).fetchall()
    entries, kinds = [], []
    without_truth = 0
    for sheet_id, path in sheets:
        if not os.path.exists(truth_path(path)):
            without_truth += 1
            continue
        with open(truth_path(path)) as f:
            truth = json.load(f)["fields"]
        corrected = {row[0] for row in db.execute(
            "SELECT field FROM corrections WHERE sheet_id = ? AND undone_at IS NULL", (sheet_id,))}
        rows = db.execute(
            "SELECT field, kind, value, flagged FROM field_readings WHERE sheet_id = ? ORDER BY position", (sheet_id,))
        for field, kind, value, flagged in rows:
            if kind not in NUMBER_KINDS or field in corrected or field not in truth:
                continue
            expected = truth[field]
            read = json.loads(value)
            if expected == "":
                expected = None
            if kind == "digits" and isinstance(expected, int):
                expected = str(expected)
            if flagged or read != expected:
                entries.append({"sheet": sheet_id, "field": field, "value": expected})
                kinds.append(kind)
    rng = random.Random(args.seed)
    labelled = [i for i, e in enumerate(entries) if e["value"] not in (None, "")]
    for i in rng.sample(labelled, min(args.wrong, len(labelled))):
        entries[i]["value"] = slipped(entries[i]["value"], kinds[i], rng)
        entries[i]["note"] = "wrong on purpose (corrections_from_truth --wrong)"
    with open(args.out, "w") as f:
        json.dump(entries, f, indent=1)
    wrong = min(args.wrong, len(labelled))
    print(f"{len(entries)} corrections for {len(sheets) - without_truth} sheets"
          + (f", {wrong} wrong on purpose" if wrong else "")
          + (f" ({without_truth} sheets without a truth file skipped)" if without_truth else ""), file=sys.stderr)


if __name__ == "__main__":
    main()
