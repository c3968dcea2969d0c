#!/usr/bin/env python3
"""Score a draft template (`statsheet template new`) against the truth template of the same form.

  python3 Tools/score_drafts.py --tolerance-mm 1 TRUTH.json DRAFT.json [TRUTH.json DRAFT.json ...]

A truth field is found when one draft box has all four edges within the tolerance of the field's rect, or
when a row of draft boxes side by side (a comb's digit boxes, each found on its own) does, taken together.
Draft boxes used by no found field are extras. The page is right when the draft's page size is the truth's.
Prints one line per pair and a total line; with --json, one JSON object for the total.
"""
import argparse
import json
import sys

POINTS_PER_MM = 72 / 25.4


def edges(rect):
    x, y, w, h = rect
    return (x, y, x + w, y + h)


def close(a, b, tol):
    return all(abs(p - q) <= tol for p, q in zip(a, b))


def union(rects):
    boxes = [edges(r) for r in rects]
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def find(field, boxes, tol):
    """The indices of the draft boxes that make up `field`, or None."""
    want = edges(field)
    for i, box in enumerate(boxes):
        if close(edges(box), want, tol):
            return [i]
    # A row of boxes: those inside the field's rect (with the tolerance), side by side, spanning it.
    inside = [i for i, box in enumerate(boxes)
              if edges(box)[0] >= want[0] - tol and edges(box)[2] <= want[2] + tol
              and abs(edges(box)[1] - want[1]) <= tol and abs(edges(box)[3] - want[3]) <= tol]
    if len(inside) < 2:
        return None
    inside.sort(key=lambda i: boxes[i][0])
    for a, b in zip(inside, inside[1:]):
        if abs(edges(boxes[a])[2] - edges(boxes[b])[0]) > tol:
            return None
    return inside if close(union([boxes[i] for i in inside]), want, tol) else None


def score(truth, draft, tol):
    boxes = [f["rect"] for f in draft["fields"]]
    used = set()
    found = 0
    for field in truth["fields"]:
        parts = find(field["rect"], boxes, tol)
        if parts is not None:
            found += 1
            used.update(parts)
    page = (round(draft["page"]["width"]), round(draft["page"]["height"])) == \
           (round(truth["page"]["width"]), round(truth["page"]["height"]))
    return {"fields": len(truth["fields"]), "found": found, "extras": len(boxes) - len(used), "page_right": page}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tolerance-mm", type=float, default=1.0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("pairs", nargs="+", help="TRUTH.json DRAFT.json, repeated; a missing draft counts as nothing found")
    args = ap.parse_args()
    if len(args.pairs) % 2:
        ap.error("give the files in pairs: TRUTH.json DRAFT.json")
    tol = args.tolerance_mm * POINTS_PER_MM
    total = {"forms": 0, "fields": 0, "found": 0, "extras": 0, "page_right": 0, "no_draft": 0}
    for truth_path, draft_path in zip(args.pairs[::2], args.pairs[1::2]):
        truth = json.load(open(truth_path))
        try:
            draft = json.load(open(draft_path))
        except (OSError, ValueError):
            draft = None
        if draft is None:
            result = {"fields": len(truth["fields"]), "found": 0, "extras": 0, "page_right": False}
            total["no_draft"] += 1
        else:
            result = score(truth, draft, tol)
        total["forms"] += 1
        for key in ("fields", "found", "extras"):
            total[key] += result[key]
        total["page_right"] += int(result["page_right"])
        if not args.json:
            print(f"{draft_path}: {result['found']}/{result['fields']} within {args.tolerance_mm:g} mm, "
                  f"{result['extras']} extra, page {'right' if result['page_right'] else 'WRONG'}"
                  + ("" if draft is not None else " (no draft)"))
    share = 100 * total["found"] / max(1, total["fields"])
    if args.json:
        print(json.dumps(dict(total, tolerance_mm=args.tolerance_mm, found_percent=round(share, 2))))
    else:
        print(f"total: {total['found']}/{total['fields']} ({share:.1f}%) within {args.tolerance_mm:g} mm, "
              f"{total['extras']} extra, page right {total['page_right']}/{total['forms']}, no draft {total['no_draft']}")


if __name__ == "__main__":
    sys.exit(main())
