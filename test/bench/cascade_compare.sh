#!/bin/sh
# Cascade Sampling side by side: bench_cascade (C++) against cascade_numpy.py
# (the authors' recursive algorithm in numpy) on the same perfect binary trees;
# prints both times and the speed ratio per size (target >= 100x). Both
# programs verify consistency and exit non-zero otherwise; so does this.
# The baseline is the authors' structure (node objects); the lean numpy
# recursion (no node objects) is printed too, for an honest second figure.
# Usage: test/bench/cascade_compare.sh [build dir] (default build/tests, as scripts/bench builds it)
set -eu
here=$(dirname "$0")
build=${1:-build/tests}
sizes="10 12 14 16 18 20"
# The first python3 that has numpy (Debian's python3-numpy lives in /usr/bin).
python=
for candidate in ${PYTHON:-} python3 /usr/bin/python3; do
  if "$candidate" -c 'import numpy' 2>/dev/null; then python=$candidate; break; fi
done
[ -n "$python" ] || { echo "cascade_compare: no python3 with numpy (install python3-numpy)" >&2; exit 1; }
cpp=$(mktemp) numpy=$(mktemp) lean=$(mktemp)
trap 'rm -f "$cpp" "$numpy" "$lean"' EXIT
"$build/bench_cascade" --compare $sizes >"$cpp"
"$python" "$here/cascade_numpy.py" $sizes >"$numpy"
"$python" "$here/cascade_numpy.py" --lean $sizes >"$lean"
compare() {
printf '%-8s %14s %14s %10s\n' leaves "C++ s" "$1 s" ratio
join "$cpp" "$2" | awk '
  { ratio = $3 / $2; printf "2^%-6s %14.6f %14.6f %9.0fx\n", $1, $2, $3, ratio
    if (ratio < min || NR == 1) min = ratio }
  END { printf "smallest ratio: %.0fx (target >= 100x)\n\n", min }'
}
compare "numpy (authors' structure)" "$numpy"
compare "numpy (lean recursion)" "$lean"
