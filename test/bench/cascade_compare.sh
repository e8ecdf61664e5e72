#!/bin/sh
# Cascade Sampling side by side: bench_cascade (C++) against cascade_numpy.py
# (the authors' recursive algorithm in numpy) on the same perfect binary trees;
# prints both times and the speed ratio per size (target >= 100x). Both
# programs verify consistency and exit non-zero otherwise; so does this.
# Usage: test/bench/cascade_compare.sh [build dir] (default build/h-cascade)
set -eu
here=$(dirname "$0")
build=${1:-build/h-cascade}
sizes="10 12 14 16 18 20"
python3 -c 'import numpy' 2>/dev/null || { echo "cascade_compare: python3-numpy is not installed" >&2; exit 1; }
cpp=$(mktemp) numpy=$(mktemp)
trap 'rm -f "$cpp" "$numpy"' EXIT
"$build/bench_cascade" --compare $sizes >"$cpp"
python3 "$here/cascade_numpy.py" $sizes >"$numpy"
printf '%-8s %14s %14s %10s\n' leaves "C++ s" "numpy s" ratio
join "$cpp" "$numpy" | awk '
  { ratio = $3 / $2; printf "2^%-6s %14.6f %14.6f %9.0fx\n", $1, $2, $3, ratio
    if (ratio < min || NR == 1) min = ratio }
  END { printf "smallest ratio: %.0fx (target >= 100x)\n", min }'
