#!/usr/bin/env bash
# The adaptation figure (issue 40): does a store learn its writers from a reviewer's corrections?
#
#   Tools/adaptation-figure.sh [--writers usps] [--hands 0] [--hands-seed 40] [--train-seed 4001] [--test-seed 4002]
#                              [--wrong 5] [OUT]
#
# Makes (once) 20 hand-filled lacrosse sheets of one population of writers (--train-seed) and 40 new ones of the same
# population (--test-seed) under OUT (default /tmp/statsheet-adapt), scans the 20 into a fresh store, corrects or
# confirms every number flagged or wrong with `statsheet review --apply` (the file written from the truth by
# Tools/corrections_from_truth.py), then reads the 40 with `statsheet eval`: without a store, with the store's
# examples (--db), and with a twin store whose corrections hold --wrong deliberately wrong values. Prints the flag
# share, the wrong-and-unflagged count and the flags by cause of each (stores and reports in OUT/SETS-TRAIN-TEST/).
# Semeion is issue 40's final exam population: tune on USPS.
# --hands N makes both sets with the same N recurring writers (make_test_sheets.py --hands, one --hands-seed),
# as a club's few stat keepers fill its sheets; 0 (default) draws every digit from the whole population.
# STATSHEET names another statsheet binary (default: a release build of this checkout).
set -euo pipefail
cd "$(dirname "$0")/.."
writers=usps hands=0 hands_seed=40 train_seed=4001 test_seed=4002 wrong=5 out=/tmp/statsheet-adapt
while [ $# -gt 0 ]; do
    case "$1" in
        --writers) writers="$2"; shift 2 ;;
        --hands) hands="$2"; shift 2 ;;
        --hands-seed) hands_seed="$2"; shift 2 ;;
        --train-seed) train_seed="$2"; shift 2 ;;
        --test-seed) test_seed="$2"; shift 2 ;;
        --wrong) wrong="$2"; shift 2 ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) out="$1"; shift ;;
    esac
done
today=2026-11-23
. Tools/figure-common.sh "$out"

make_set() {   # folder count seed
    [ -f "$1/.complete" ] && return
    "$python" Tools/make_test_sheets.py --template Templates/lacrosse-goalie.json --blank "$out/blanks/lacrosse-goalie.png" \
        --dpi 300 --out "$1" --count "$2" --seed "$3" --profile phone --fill hand --writers "$writers" \
        --hands "$hands" --hands-seed "$hands_seed" >/dev/null
    touch "$1/.complete"
}
set_name="$writers"
if [ "$hands" -gt 0 ]; then set_name="$writers-hands$hands-$hands_seed"; fi
train="$out/$set_name-$train_seed" test="$out/$set_name-$test_seed"
run="$out/$set_name-$train_seed-$test_seed"   # the stores and reports of this pair of sets
mkdir -p "$run"
make_set "$train" 20 "$train_seed"
make_set "$test" 40 "$test_seed"

learn() {   # store, wrong entries
    rm -f "$1" "$1-wal" "$1-shm"
    "$statsheet" scan "$train" --db "$1" --writing hand --today "$today" >/dev/null || [ $? -eq 1 ]   # 1: a sheet failed
    "$python" Tools/corrections_from_truth.py "$1" "$1.corrections.json" --wrong "$2"
    "$statsheet" review --apply "$1.corrections.json" --db "$1" --reviewer corrections_from_truth >/dev/null
}
learn "$run/store.sqlite" 0
learn "$run/wrong.sqlite" "$wrong"

"$statsheet" eval "$test" --writing hand --today "$today" --json > "$run/fresh.json"
"$statsheet" eval "$test" --writing hand --today "$today" --db "$run/store.sqlite" --json > "$run/adapted.json"
"$statsheet" eval "$test" --writing hand --today "$today" --db "$run/wrong.sqlite" --json > "$run/wrong.json"
"$python" - "$run" "$wrong" <<'EOF'
import json, sys
out, wrong = sys.argv[1], sys.argv[2]
rows = [("fresh store", "fresh"), ("store that learnt", "adapted"), (f"learnt, {wrong} corrections wrong", "wrong")]
print(f"{'40 new sheets read by':36} {'numbers':>7} {'right':>8} {'flagged':>8} {'wrong, unflagged':>17}")
for name, key in rows:
    n = json.load(open(f"{out}/{key}.json"))["numeric"]
    print(f"{name:36} {n['fields']:7} {100 * n['accuracy']:7.2f}% {100 * n['flag_rate']:7.2f}% {n['silent_errors']:17}")
# What the flags are made of (statsheet eval's causes): only a doubt of the ink can a digit's neighbours settle.
runs = {key: json.load(open(f"{out}/{key}.json")) for _, key in rows}
causes = sorted({c for r in runs.values() for c in r.get("flag_causes", {})})
print()
print(f"{'flags by cause (share of numbers)':36} " + " ".join(f"{c:>17}" for c in causes))
for name, key in rows:
    r = runs[key]
    fields = r["numeric"]["fields"]
    print(f"{name:36} " + " ".join(f"{100 * r['flag_causes'].get(c, {}).get('fields', 0) / fields:16.2f}%" for c in causes))
EOF
