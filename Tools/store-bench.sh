#!/usr/bin/env bash
# Batch scanning into the store, measured: peak resident memory for 100 and 1,000 sheets (it should stay
# flat: results stream into the store and at most 4 × jobs wait in memory), and throughput with 1 and 2
# jobs on the same 100 sheets. The sheets are the committed printed samples, copied round-robin with a
# few unique bytes after each image's end, so every copy has its own content hash and is stored as a new
# sheet (and as a probable duplicate game). Release build; a new store per run.
#   Tools/store-bench.sh            # 100 and 1000 sheets
#   Tools/store-bench.sh 50 200     # other counts
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product statsheet >/dev/null
bin=.build/release/statsheet
counts=("$@"); [ ${#counts[@]} -gt 0 ] || counts=(100 1000)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
samples=(TestImages/lacrosse-goalie/printed/*.jpg TestImages/lacrosse-goalie/printed/*.png)

make_set() {  # make_set N DIR
    mkdir -p "$2"
    for ((i = 0; i < $1; i++)); do
        src=${samples[$((i % ${#samples[@]}))]}
        dst="$2/copy-$(printf %05d "$i").${src##*.}"
        cp "$src" "$dst"
        printf 'statsheet-bench-%d' "$i" >>"$dst"
    done
}

run() {  # run JOBS DIR → "seconds sheets/s peakKB cpu-seconds" from the scan summary and GNU time
    rm -f "$work/store.sqlite"*
    /usr/bin/time -f '%M %U %S' -o "$work/rss" "$bin" scan --jobs "$1" --db "$work/store.sqlite" "$2" >"$work/out" || true
    summary=$(grep -E '^[0-9]+ sheets?: ' "$work/out")
    echo "$summary" | sed -E 's/.*— ([0-9.]+) s, ([0-9.]+) sheets\/s.*/\1 \2/' | tr '\n' ' '
    awk '{ printf "%d %.1f\n", $1, $2 + $3 }' "$work/rss"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "peak RSS (2 jobs), storing every sheet:"
for n in "${counts[@]}"; do
    make_set "$n" "$work/set-$n"
    read -r secs rate kb _ <<<"$(run 2 "$work/set-$n")"
    stored=$(grep -Eo 'stored in [^:]+: [0-9]+ new' "$work/out" | grep -Eo '[0-9]+ new')
    echo "  $n sheets: ${secs} s, ${rate} sheets/s, $stored, peak RSS $((kb / 1024)) MiB"
done

n=${counts[0]}
echo "throughput on $n sheets (wall time needs two idle cores; CPU time shows the work itself):"
read -r s1 r1 _ c1 <<<"$(run 1 "$work/set-$n")"
read -r s2 r2 _ c2 <<<"$(run 2 "$work/set-$n")"
echo "  1 job:  ${s1} s, ${r1} sheets/s, ${c1} CPU s"
echo "  2 jobs: ${s2} s, ${r2} sheets/s, ${c2} CPU s"
awk -v a="$s1" -v b="$s2" 'BEGIN { printf "  2 jobs / 1 job: %.2f× throughput\n", a / b }'
