#!/usr/bin/env bash
# Fits what each reader's confidence is worth for the fields no rule weighs (ReaderCalibration) and writes the
# shipped table, Sources/SheetPipeline/Calibration/reader-calibration.json. The sets are made for calibration
# only (seeds 5001–5012: never used to report accuracy; docs/accuracy.md's sets are others), under OUT
# (default /tmp/statsheet-calibration), about 40 minutes on one core:
#
#   Tools/fit-calibration.sh [OUT]
#
# 5021 (--slip-rate 0.05: totals written off by the stat keeper) is made too: with 5001 it is where
# `statsheet eval --rule-slip P` compares slip priors by their Brier score (docs/decisions.md).
# Needs what Tools/make_eval_sets.sh needs (Tools/requirements.txt, the handwriting fonts).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-/tmp/statsheet-calibration}"
today=2026-11-23
. Tools/sets-common.sh "$out"

# folder(=seed)  template  sheets  profile  writers  fill  slip rate
sets=(
    "5001 lacrosse-goalie 40 phone mixed hand 0"
    "5002 hockey-goalie 20 mixed mixed hand 0"
    "5003 soccer-keeper 20 mixed mixed hand 0"
    "5004 basketball-box 10 phone mixed hand 0"
    "5011 lacrosse-goalie 30 mixed mixed printed 0"
    "5012 basketball-box 6 mixed mixed printed 0"
    "5021 lacrosse-goalie 40 phone mixed hand 0.05"
)
for row in "${sets[@]}"; do
    read -r seed template count profile writers fill slip <<< "$row"
    [ -f "$out/$seed/.complete" ] && continue
    "$python" Tools/make_test_sheets.py --template "Templates/$template.json" --blank "$out/blanks/$template.png" \
        --dpi 300 --out "$out/$seed" --count "$count" --seed "$seed" --profile "$profile" --fill "$fill" \
        --writers "$writers" --slip-rate "$slip" > /dev/null
    touch "$out/$seed/.complete"
done

# Hand-filled sets read as handwriting, printed ones as print: each table is fitted on its own reader's readings.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
.build/release/statsheet eval "$out/5001" "$out/5002" "$out/5003" "$out/5004" --writing hand --today "$today" \
    --fit-calibration "$work/hand.json" > /dev/null
.build/release/statsheet eval "$out/5011" "$out/5012" --writing print --today "$today" \
    --fit-calibration "$work/print.json" > /dev/null
"$python" - "$work/hand.json" "$work/print.json" > Sources/SheetPipeline/Calibration/reader-calibration.json <<'PY'
import json, sys
hand, printed = (json.load(open(p)) for p in sys.argv[1:3])
tables = {k: v for k, v in hand["tables"].items() if k.startswith("hand.")}
tables.update({k: v for k, v in printed["tables"].items() if k.startswith("print.")})
names = [p.rsplit("/", 1)[-1] for p in hand["fittedOn"] + printed["fittedOn"]]
print(json.dumps({"tables": tables, "fittedOn": names}, indent=2, sort_keys=True))
PY
echo "wrote Sources/SheetPipeline/Calibration/reader-calibration.json"
