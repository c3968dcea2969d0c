#!/usr/bin/env python3
"""Write the NAMES file a person would write for a draft (`statsheet template name`), from the form's truth.

  python3 Tools/names_from_truth.py TRUTH.json DRAFT.json --tolerance-mm 2 > names.json

Each truth field is looked for among the draft's boxes as Tools/score_drafts.py looks (one box, or a row of
boxes side by side, within the tolerance) and named after it with the truth's kind, combs, range and names;
boxes no field uses are dropped (null). The truth's id, title, sport, rules and gameLog are copied. A field
not found is named nowhere, so the named template lacks it and its rules fail `template check`: the draft
was not good enough, which is what a measurement wants to know. Used to measure reading through templates
made by `template new`, as a club would make them, against the same forms' drawn truth.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from score_drafts import POINTS_PER_MM, find  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("truth")
    ap.add_argument("draft")
    ap.add_argument("--tolerance-mm", type=float, default=2.0)
    args = ap.parse_args()
    truth = json.load(open(args.truth))
    draft = json.load(open(args.draft))
    ids = [f["id"] for f in draft["fields"]]
    rects = [f["rect"] for f in draft["fields"]]
    fields, used, missing = {}, set(), []
    for field in truth["fields"]:
        parts = find(field["rect"], rects, args.tolerance_mm * POINTS_PER_MM)
        if parts is None or used.intersection(parts):
            missing.append(field["id"])
            continue
        used.update(parts)
        naming = {"id": field["id"], "kind": field["kind"], "label": field.get("label")}
        for key in ("combs", "range", "names"):
            if key in field:
                naming[key] = field[key]
        fields["+".join(ids[i] for i in parts)] = naming
    for i, box in enumerate(ids):
        if i not in used:
            fields[box] = None
    names = {key: truth[key] for key in ("id", "title", "sport", "rules", "gameLog") if key in truth}
    names["fields"] = fields
    json.dump(names, sys.stdout, indent=1)
    print()
    if missing:
        print(f"not found in the draft: {', '.join(missing)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
