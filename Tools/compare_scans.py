#!/usr/bin/env python3
"""Compare two `statsheet scan --json` runs over the same sheets, field by field, against their truth.

    statsheet scan DIR --writing hand --dry-run --json > before.jsonl    # on the old build
    statsheet scan DIR --writing hand --dry-run --json > after.jsonl     # on the new one
    python3 Tools/compare_scans.py before.jsonl after.jsonl

`statsheet eval` gives a run's totals; this says which fields a change moved, and whether each move was
for the better: a wrong value made right, or a right value no longer flagged, is better; the reverse,
or a wrong value that loses its flag, is worse. Only numeric fields count (template kinds count, date
and digits), as in eval's "numeric" row. The truth is each image's NAME.truth.json beside it (the
`file` the scan names) and the templates are read from Templates/. Exit status 1 when any field got
worse, so a script can stop on it. Standard library only.
"""
import argparse
import functools
import json
import os
import sys

NUMERIC = {"count", "date", "digits"}
TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Templates")


def load(path):
    """The run's sheets by image path: one JSON object per line."""
    with open(path) as f:
        return {d["file"]: d for d in map(json.loads, filter(str.strip, f))}


@functools.cache
def numeric_fields(template_id):
    with open(os.path.join(TEMPLATES, template_id + ".json")) as f:
        return frozenset(fld["id"] for fld in json.load(f)["fields"] if fld["kind"] in NUMERIC)


def truth_file(image):
    """NAME.truth.json beside the image: its fields and the template it names."""
    with open(os.path.splitext(image)[0] + ".truth.json") as f:
        return json.load(f)


def truth_of(image):
    return truth_file(image)["fields"]


# How good a field's outcome is, worst first: wrong and unflagged, wrong and flagged, right and flagged,
# right. A move up this order is better, down it worse, along it (one wrong value for another) other.
RANK = {(False, False): 0, (False, True): 1, (True, True): 2, (True, False): 3}


def state(reading, expected):
    """(right, flagged) of one field; an empty reading is right for an empty truth."""
    value = reading.get("value")
    right = value == expected or (value in (None, "") and expected in (None, ""))
    return right, bool(reading.get("flagged"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--quiet", action="store_true", help="totals only, no list of changed fields")
    args = ap.parse_args()
    before, after = load(args.before), load(args.after)
    missing = sorted(set(before) ^ set(after))
    if missing:
        sys.exit(f"the runs read different sheets: {missing[:3]}")

    totals = {"before": [0, 0, 0, 0], "after": [0, 0, 0, 0]}  # fields, right, flagged, wrong and unflagged
    moves = {"better": [], "worse": [], "other": []}
    for image in sorted(before):
        b, a = before[image], after[image]
        if "fields" not in b or "fields" not in a:
            continue  # a sheet that failed to load or align in either run
        truth = truth_of(image)
        for fid in sorted(numeric_fields(b["template"]) & truth.keys()):
            expected = truth[fid]
            states = {}
            for name, run in (("before", b), ("after", a)):
                right, flagged = states[name] = state(run["fields"].get(fid, {}), expected)
                t = totals[name]
                t[0] += 1; t[1] += right; t[2] += flagged; t[3] += (not right and not flagged)
            old, new = b["fields"].get(fid, {}), a["fields"].get(fid, {})
            if (old.get("value"), states["before"][1]) == (new.get("value"), states["after"][1]):
                continue
            step = RANK[states["after"]] - RANK[states["before"]]
            kind = "better" if step > 0 else "worse" if step < 0 else "other"
            shown = [f"{r.get('value')!r} ({r.get('confidence')}{', flagged' if states[name][1] else ''})"
                     for name, r in (("before", old), ("after", new))]
            moves[kind].append(f"{os.path.basename(image)} {fid}: truth {expected!r}, {shown[0]} -> {shown[1]}")
    for name, (n, right, flagged, silent) in totals.items():
        print(f"{name:6}  {n} numeric fields, right {100 * right / max(n, 1):.2f}% ({right}), "
              f"flagged {100 * flagged / max(n, 1):.2f}% ({flagged}), wrong and unflagged {silent}")
    print(f"changed {sum(map(len, moves.values()))}: better {len(moves['better'])}, "
          f"worse {len(moves['worse'])}, other {len(moves['other'])}")
    if not args.quiet:
        for kind, lines in moves.items():
            for line in lines:
                print(f"  {kind:6} {line}")
    return 1 if moves["worse"] else 0


if __name__ == "__main__":
    sys.exit(main())
