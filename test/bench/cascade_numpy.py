#!/usr/bin/env python3
"""Plain numpy Cascade Sampling, the way the authors' public code does it
(prathameshtd/DPRQ-correlated-noise, cascade.py): one recursive call per node,
the root and each split's Y drawn as N(0, sd). The baseline that
cascade_compare.sh times bench_cascade against.

Usage: cascade_numpy.py k1 k2 ...   prints "k seconds" per depth (best of 3
for k <= 16, else 1) and exits non-zero if the leaves do not sum to the
root's noise (consistency, to floating-point rounding)."""
import math
import sys
import time

import numpy as np

SQRT3_2 = math.sqrt(3) / 2


def cascade(noise, depth, out, offset, sd, rng):
    # One call per node, as in the authors' code.
    if depth == 0:
        out[offset] = noise
        return
    y = rng.normal(0, sd)
    half = 1 << (depth - 1)
    cascade(noise / 2 + SQRT3_2 * y, depth - 1, out, offset, sd, rng)
    cascade(noise / 2 - SQRT3_2 * y, depth - 1, out, offset + half, sd, rng)


def run(k, rng):
    out = np.empty(1 << k)
    root = rng.normal(0, 1.0)
    start = time.perf_counter()
    cascade(root, k, out, 0, 1.0, rng)
    elapsed = time.perf_counter() - start
    if abs(out.sum() - root) > 1e-9 * (1 << k):
        sys.exit("cascade_numpy: leaves do not sum to the root noise at k=%d" % k)
    return elapsed


def main():
    sys.setrecursionlimit(10000)
    rng = np.random.default_rng(1)
    for arg in sys.argv[1:]:
        k = int(arg)
        best = min(run(k, rng) for _ in range(3 if k <= 16 else 1))
        print("%d %.9f" % (k, best), flush=True)


if __name__ == "__main__":
    main()
