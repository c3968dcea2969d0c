#!/usr/bin/env bash
# Median time per 300-dpi letter sheet on one core: the scan from file to readings, as `statsheet eval`
# measures it (engine start-up excluded). Three runs per set, pinned to core 0. With no arguments it
# times the committed 300-dpi sheets: RGB PNG (a colour flatbed scan) and JPEG quality 90 (a camera).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product statsheet >/dev/null
if [ $# -gt 0 ]; then sets=("$@"); else
    sets=(TestImages/lacrosse-goalie/clean-300dpi TestImages/lacrosse-goalie/clean-300dpi-jpeg)
fi
pin=""; command -v taskset >/dev/null && pin="taskset -c 0"
for set in "${sets[@]}"; do
    echo "$set"
    for run in 1 2 3; do
        $pin .build/release/statsheet eval "$set" | head -n 1
    done
done
