#!/usr/bin/env bash
# Median time per 300-dpi letter sheet on one core: the scan from file to readings, as `statsheet eval`
# measures it (engine start-up excluded). Three runs, pinned to core 0.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product statsheet >/dev/null
sheets=${1:-TestImages/lacrosse-goalie/clean-300dpi}
pin=""; command -v taskset >/dev/null && pin="taskset -c 0"
for run in 1 2 3; do
    $pin .build/release/statsheet eval "$sheets" | head -n 1
done
