#!/usr/bin/env bash
# Reads the same sheets as they arrive from a club (HEIC photos, PDFs and multi-page TIFFs, made by
# Tools/make_arrivals.py) and as the set's own images, and compares the two field by field against the truth:
# a page of a document must read as its image does.
#
#   Tools/arrivals-figure.sh [SET...]    # default: the committed hand-filled phone and printed lacrosse sets
#
# Needs Pillow (Tools/requirements.txt), ImageMagick's `convert`, `heif-enc` (libheif-examples) and
# poppler-utils. Prints, per set, compare_scans.py's totals for the images ("before") and the documents ("after").
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
[ -x Tools/.venv/bin/python ] && python=Tools/.venv/bin/python
sets=("$@")
[ ${#sets[@]} -gt 0 ] || sets=(TestImages/lacrosse-goalie/handwritten-phone TestImages/lacrosse-goalie/printed)

swift build -c release --product statsheet >/dev/null
statsheet=.build/release/statsheet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for set in "${sets[@]}"; do
    name=$(basename "$set")
    writing=auto
    case "$name" in handwritten-*) writing=hand ;; esac
    "$python" Tools/make_arrivals.py make "$set" "$work/$name" >/dev/null
    "$statsheet" scan "$(realpath "$set")" --dry-run --json --writing "$writing" --today 2026-11-23 > "$work/$name.images.jsonl" || true
    "$statsheet" scan "$work/$name" --dry-run --json --writing "$writing" --today 2026-11-23 \
        | "$python" Tools/make_arrivals.py remap "$work/$name" > "$work/$name.arrived.jsonl" || true
    echo "== $set ($(wc -l < "$work/$name.arrived.jsonl") pages from $(ls "$work/$name" | grep -vc arrivals.json) files; before = the images, after = the documents)"
    python3 Tools/compare_scans.py "$work/$name.images.jsonl" "$work/$name.arrived.jsonl" ${COMPARE_FLAGS:---quiet} || true
done
