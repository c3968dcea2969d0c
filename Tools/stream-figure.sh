#!/usr/bin/env bash
# The streaming figure (issue 59): does a store learn its writers from its own balanced sheets, with no person?
#
#   Tools/stream-figure.sh [--writers usps] [--hands 3] [--hands-seed 59] [--seed 5950] [OUT]
#
# Makes (once) a season of 60 hand-filled lacrosse sheets written by --hands recurring writers of one population
# (make_test_sheets.py --hands) under OUT (default /tmp/statsheet-stream), reads sheets 1-40 in order into one fresh
# store with no corrections (`statsheet scan`), then reads sheets 41-60 with `statsheet eval`: fresh (no store) and
# with what the store learnt (--db). Prints right, flagged and wrong-and-unflagged for both, and how many digits the
# store's balanced sheets labelled and how many of those labels are wrong (against the truth).
# Semeion is the final exam population: tune on USPS. STATSHEET names another statsheet binary (default: a release
# build of this checkout).
set -euo pipefail
cd "$(dirname "$0")/.."
writers=usps hands=3 hands_seed=59 seed=5950 out=/tmp/statsheet-stream
while [ $# -gt 0 ]; do
    case "$1" in
        --writers) writers="$2"; shift 2 ;;
        --hands) hands="$2"; shift 2 ;;
        --hands-seed) hands_seed="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) out="$1"; shift ;;
    esac
done
today=2026-11-23
. Tools/figure-common.sh "$out"

season="$out/$writers-hands$hands-$hands_seed-$seed"
if [ ! -f "$season/.complete" ]; then
    "$python" Tools/make_test_sheets.py --template Templates/lacrosse-goalie.json --blank "$out/blanks/lacrosse-goalie.png" \
        --dpi 300 --out "$season" --count 60 --seed "$seed" --profile phone --fill hand --writers "$writers" \
        --hands "$hands" --hands-seed "$hands_seed" >/dev/null
    touch "$season/.complete"
fi
first=() later=()
for i in $(seq 1 60); do
    f=$(printf '%s/sheet-%03d.jpg' "$season" "$i")
    if [ "$i" -le 40 ]; then first+=("$f"); else later+=("$f"); fi
done

store="$season.sqlite"
rm -f "$store" "$store-wal" "$store-shm"
"$statsheet" scan "${first[@]}" --db "$store" --writing hand --today "$today" --jobs 1 >/dev/null || [ $? -eq 1 ]   # 1: a sheet failed

report() {   # label, eval arguments...
    local label="$1"; shift
    "$statsheet" eval "${later[@]}" --writing hand --today "$today" "$@" --json > "$season.$label.json"
    "$python" - "$season.$label.json" "$label" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
n = d["numeric"]
print(f"{sys.argv[2]:>8}: {n['fields']} numbers, right {100 * n['right'] / n['fields']:.2f}%, "
      f"flagged {100 * n['flagged'] / n['fields']:.2f}%, wrong and unflagged {n['silent_errors']}")
EOF
}
echo "$season, sheets 41-60:"
report fresh
report learnt --db "$store"

"$python" - "$store" "$season" <<'EOF'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("""
    SELECT s.path, r.field, r.value FROM digit_embeddings e
    JOIN sheets s ON s.id = e.sheet_id
    JOIN field_readings r ON r.sheet_id = e.sheet_id AND r.field = e.field
    WHERE s.rule_failures = '[]' AND r.kind = 'count' AND r.flagged = 0 AND r.ink_value IS NULL AND r.confidence >= 99
      AND NOT EXISTS (SELECT 1 FROM field_readings f WHERE f.sheet_id = e.sheet_id AND f.kind = 'count' AND f.flagged <> 0)
      AND NOT EXISTS (SELECT 1 FROM corrections c WHERE c.sheet_id = e.sheet_id AND c.field = e.field AND c.undone_at IS NULL)
      AND NOT EXISTS (SELECT 1 FROM review_decisions d WHERE d.sheet_id = e.sheet_id AND d.decision = 'rejected')
""").fetchall()  # StoreSQL.balancedDigits, without its limit
wrong = 0
for path, field, value in rows:
    truth = json.load(open(path.rsplit(".", 1)[0] + ".truth.json"))["fields"].get(field)
    if json.loads(value) != truth:
        wrong += 1
print(f"balanced sheets labelled the digits of {len(rows)} numbers of sheets 1-40; {wrong} of those numbers wrong")
EOF
