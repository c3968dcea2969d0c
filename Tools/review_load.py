#!/usr/bin/env python3
"""How much review the flags ask for: as shipped, and under two rules the team could choose instead.

    statsheet scan DIR --writing hand --today 2026-11-23 --dry-run --json > run.jsonl   # one or more DIRs
    python3 Tools/review_load.py run.jsonl [more.jsonl ...]

Issue 3 counts flagged numbers (at most 5% of them). Two product rules keep numbers flagged that a
different rule could let through, and this prints, per folder and over all, the share of numbers a person
is asked to look at under each:

- "as shipped": every flagged number (eval's "numeric" flag rate, on the same fields).
- "sums' values taken": a value the sums chose over the ink's first choice (note "the digits alone read
  N (confidence C); the sums make V likelier", confidence 70 or more by construction) is taken unflagged
  when two sums read the number and nothing else was noted of it. Today it stays a person's to confirm,
  because the ink's first choice was another number. The column "wrong taken" counts those that would
  pass unflagged and wrong.
- "one item a broken sum": the numbers the reader was sure of (70 or more on its own, as
  `FieldReading.flagCause` reads it from the notes) that broken rules flagged (a bare note "in failing
  rule R") count as one review item per sheet and set of failing rules that flagged them, not one each:
  a person checks the sum, not every number in it.
- "both": the two together.

Only numeric fields count (template kinds count, date and digits), each right only when equal to the
truth (as eval's `matches`), and a failed sheet's numbers all flagged, as eval counts them; so "as
shipped" is eval's "numeric" flag rate over the same sheets. The truth is each image's NAME.truth.json
beside it. This reads the scan's notes, so it measures what the shipped code flagged,
not a rebuilt rule: the alternatives are what-ifs for a product decision, not behaviour. Standard library
only.
"""
import argparse
import collections
import fnmatch
import functools
import json
import os
import re

from compare_scans import TEMPLATES, numeric_fields, truth_file

READ_FROM_SUMS = "the digits alone read"   # SumCorroboration.readFromSumsNote: a value the ink did not give
CHOSEN = re.compile("^" + READ_FROM_SUMS + r" .*; the sums make .* likelier$")
WITH_THE_SUMS = re.compile(r"^confidence [\d.]+ with the sums, ([\d.]+) alone$")
WITH_RULE_BROKEN = re.compile(r"^confidence [\d.]+ with the rule broken, ([\d.]+) alone$")
# Only the bare note flags: "…, which X alone explains" and "…, which a misread of … could explain" do not.
FAILING = re.compile(r"^in failing rule (\S+)$")
LINE = 70
FIELD = re.compile(r"[a-z][a-z0-9]*\*?\.[a-z0-9]+")


@functools.cache
def read_by_two_sums(template_id):
    """The fields two or more of the template's sums read, as `SuggestionSearch.readByTwoSums` has it:
    a sum is an error rule whose top operator is `==`. (A `count(…) == 1` is one too, but it reads
    checkboxes, which never count here; warnings never get that far in the Swift.)"""
    with open(os.path.join(TEMPLATES, template_id + ".json")) as f:
        template = json.load(f)
    ids = [fld["id"] for fld in template["fields"]]
    sums = collections.Counter()
    for rule in template["rules"]:
        check = rule["check"]
        if rule.get("severity") == "warning" or "==" not in check or "&&" in check or "||" in check:
            continue
        read = {i for name in FIELD.findall(check) for i in ids if fnmatch.fnmatchcase(i, name)}
        sums.update(read)
    return frozenset(i for i, n in sums.items() if n >= 2)


def confidence_alone(reading):
    """The reader's own confidence, as `FieldReading.flagCause` reads it: from the note the sums left
    ("confidence 7 with the sums, 97 alone"), else from a broken rule's, else the confidence."""
    def first(pattern):
        return next((float(m.group(1)) for m in map(pattern.match, reading.get("notes", [])) if m), None)

    confidence = reading.get("confidence", 0)
    with_the_sums, with_rule_broken = first(WITH_THE_SUMS), first(WITH_RULE_BROKEN)
    if with_the_sums is not None:
        return with_the_sums
    return confidence if with_rule_broken is None else max(with_rule_broken, confidence)


def tally(sheet, counts):
    beside = truth_file(sheet["file"])
    # A failed sheet's scan names no template; its truth does.
    truth, template = beside["fields"], sheet.get("template") or beside["template"]
    groups = set()
    for field in numeric_fields(template):
        # As eval: a failed sheet, or a field it has no reading of, is all flagged, each its own item.
        reading = sheet.get("fields", {}).get(field) if sheet.get("status") != "failed" else None
        reading = reading or {"flagged": True, "value": None, "confidence": 0}
        counts["numbers"] += 1
        if not reading.get("flagged"):
            continue
        counts["flagged"] += 1
        notes = reading.get("notes", [])
        from_sums = any(n.startswith(READ_FROM_SUMS) for n in notes)
        taken = (len(notes) == 1 and CHOSEN.match(notes[0]) is not None
                 and field in read_by_two_sums(template))
        rules = tuple(sorted(m.group(1) for m in map(FAILING.match, notes) if m))
        grouped = bool(rules) and not from_sums and confidence_alone(reading) >= LINE
        counts["taken"] += taken
        counts["wrong taken"] += taken and reading.get("value") != truth.get(field)
        if grouped:
            groups.add(rules)
        else:
            counts["items"] += 1
            counts["items, taken"] += not taken
    counts["items"] += len(groups)
    counts["items, taken"] += len(groups)


def shown(folder):
    """A folder by its last two names (basketball-box/handwritten-phone), which tell the sets apart."""
    return folder if folder == "all" else os.path.join(*folder.split(os.sep)[-2:])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", help="statsheet scan --json output, one sheet a line")
    args = parser.parse_args()
    by_folder = collections.defaultdict(collections.Counter)
    for path in args.runs:
        with open(path) as f:
            for sheet in map(json.loads, filter(str.strip, f)):
                tally(sheet, by_folder[os.path.dirname(sheet["file"])])
    total = sum(by_folder.values(), collections.Counter())
    print("%-34s %8s %11s %19s %11s %21s %8s" % ("folder", "numbers", "as shipped", "sums' values taken",
                                                  "wrong taken", "one item a broken sum", "both"))
    for name, c in sorted(by_folder.items()) + [("all", total)]:
        share = lambda k: "%.2f%%" % (100.0 * k / c["numbers"]) if c["numbers"] else "-"
        print("%-34s %8d %11s %19s %11d %21s %8s" % (shown(name), c["numbers"], share(c["flagged"]),
                                                     share(c["flagged"] - c["taken"]), c["wrong taken"],
                                                     share(c["items"]), share(c["items, taken"])))


if __name__ == "__main__":
    main()
