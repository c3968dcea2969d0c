#!/usr/bin/env bash
# How well `statsheet template new` drafts forms it has never seen: draws COUNT marker-less forms with
# Tools/make_forms.py (seeded, each with the truth template of every cell and a phone photo of the blank),
# drafts a template from each flat 300-dpi scan and from each photo, and scores every draft against the
# truth with Tools/score_drafts.py: fields found within 1 mm from the scans, within 2 mm from the photos,
# boxes that are no field, and the page size (Letter or A4) told right.
#
#   Tools/forms-figure.sh OUT [COUNT] [SEED]      # default 16 forms, seed 5601
#
# CAMERA=pinhole photographs the blanks through a phone's camera tilted up to 30 degrees (make_forms.py
# --camera pinhole) rather than the default jitter of each corner: the page size is then told from the
# page's true proportions, which a real camera's perspective keeps and the jitter does not.
#
# STATSHEET names the binary (default: a release build made here). VERBOSE=1 prints each draft's line.
# Seeds used so far are listed in Tools/README.md: a seed tuned on is never reported as held out.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: Tools/forms-figure.sh OUT [COUNT] [SEED]}
count=${2:-16}
seed=${3:-5601}
python=${PYTHON:-python3}
[ -x Tools/.venv/bin/python ] && python=Tools/.venv/bin/python
if [ -z "${STATSHEET:-}" ]; then
    swift build -c release --product statsheet >/dev/null
    STATSHEET=.build/release/statsheet
fi

rm -rf "$out" && mkdir -p "$out/drafts"
"$python" Tools/make_forms.py --out "$out/forms" --count "$count" --seed "$seed" --photo --camera "${CAMERA:-jitter}" >/dev/null
scans=() photos=()
for n in $(seq 1 "$count"); do
    "$STATSHEET" template new --from-scan "$out/forms/form-$n.png" --id "scan-$n" --out "$out/drafts/scan-$n.json" \
        >/dev/null 2>"$out/drafts/scan-$n.err" || true
    "$STATSHEET" template new --from-scan "$out/forms/photos/form-$n-photo.jpg" --id "photo-$n" \
        --out "$out/drafts/photo-$n.json" >/dev/null 2>"$out/drafts/photo-$n.err" || true
    scans+=("$out/forms/form-$n.json" "$out/drafts/scan-$n.json")
    photos+=("$out/forms/form-$n.json" "$out/drafts/photo-$n.json")
done
show() { if [ "${VERBOSE:-0}" = 1 ]; then cat; else tail -n 1; fi; }
echo "== seed $seed, $count forms: flat 300-dpi scans"
"$python" Tools/score_drafts.py --tolerance-mm 1 "${scans[@]}" | show
echo "== phone photos of the same blanks (${CAMERA:-jitter} camera)"
"$python" Tools/score_drafts.py --tolerance-mm 2 "${photos[@]}" | show
