# Sourced by Tools/make_eval_sets.sh and Tools/fit-calibration.sh (run from the repository's root): the
# generator's Python (Tools/.venv's when there is one), a release build of statsheet, and the four templates'
# blanks rendered at 300 dpi into "$1/blanks".
python="${PYTHON:-python3}"
[ -x Tools/.venv/bin/python3 ] && python="${PYTHON:-Tools/.venv/bin/python3}"
swift build -c release --product statsheet >/dev/null
mkdir -p "$1/blanks"
for template in lacrosse-goalie hockey-goalie soccer-keeper basketball-box; do
    .build/release/statsheet template render "$template" --out "$1/blanks/$template.png" --dpi 300 >/dev/null
done
