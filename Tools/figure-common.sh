# Sourced by the figure scripts (adaptation-figure.sh, stream-figure.sh; run from the repository's root) with the
# output folder: sets `python` and `statsheet` and renders the lacrosse blank at 300 dpi into "$1/blanks". With
# STATSHEET set, that binary (and PYTHON, or python3); otherwise Tools/sets-common.sh's release build and blanks.
if [ -n "${STATSHEET:-}" ]; then
    python="${PYTHON:-python3}"
    statsheet="$STATSHEET"
    mkdir -p "$1/blanks"
    [ -f "$1/blanks/lacrosse-goalie.png" ] || "$statsheet" template render lacrosse-goalie --out "$1/blanks/lacrosse-goalie.png" --dpi 300 >/dev/null
else
    . Tools/sets-common.sh "$1"
    statsheet=.build/release/statsheet
fi
