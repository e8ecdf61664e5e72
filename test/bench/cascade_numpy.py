#!/usr/bin/env python3
"""Plain numpy Cascade Sampling, structured the way the authors' public code
(prathameshtd/DPRQ-correlated-noise, cascade.py, timed by its comparison.py)
does it: one recursive call per node building a node object, the root and
each split's Y drawn with np.random.normal(0, sd), children value/2 +-
np.sqrt(3)/2 * Y; the leaf vector is then read off the tree. This is the
baseline cascade_compare.sh times bench_cascade against.

--lean: the same recursion writing leaves straight into an array, with a
numpy Generator and no node objects (a faster Python baseline, reported too).

Usage: cascade_numpy.py [--lean] k1 k2 ...  prints "k seconds" per depth
(best of 3 for k <= 16, else 1) and exits non-zero if the leaves do not sum
to the root's noise (consistency, to floating-point rounding)."""
import math
import sys
import time

import numpy as np


class Node:
    def __init__(self, value, left=None, right=None):
        self.value = value
        self.left = left
        self.right = right


def build(depth, value, sd):
    if depth == 0:
        return Node(value)
    y = np.random.normal(0, sd)
    left = build(depth - 1, value / 2 + np.sqrt(3) / 2 * y, sd)
    right = build(depth - 1, value / 2 - np.sqrt(3) / 2 * y, sd)
    return Node(value, left, right)


def leaves_of(root):
    out = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.left is None:
            out.append(node.value)
        else:
            stack.append(node.right)
            stack.append(node.left)
    return np.array(out)


def tree_version(k):
    start = time.perf_counter()
    root = build(k, np.random.normal(0, 1.0), 1.0)
    leaves = leaves_of(root)
    return time.perf_counter() - start, leaves, root.value


HALF_SQRT3 = math.sqrt(3) / 2


def lean(depth, value, out, offset, sd, rng):
    if depth == 0:
        out[offset] = value
        return
    y = rng.normal(0, sd)
    half = 1 << (depth - 1)
    lean(depth - 1, value / 2 + HALF_SQRT3 * y, out, offset, sd, rng)
    lean(depth - 1, value / 2 - HALF_SQRT3 * y, out, offset + half, sd, rng)


def lean_version(k, rng):
    start = time.perf_counter()
    out = np.empty(1 << k)
    root = rng.normal(0, 1.0)
    lean(k, root, out, 0, 1.0, rng)
    return time.perf_counter() - start, out, root


def main():
    sys.setrecursionlimit(10000)
    args = sys.argv[1:]
    use_lean = "--lean" in args
    args = [a for a in args if a != "--lean"]
    np.random.seed(1)
    rng = np.random.default_rng(1)
    for arg in args:
        k = int(arg)
        best = math.inf
        for _ in range(3 if k <= 16 else 1):
            seconds, leaves, root = lean_version(k, rng) if use_lean else tree_version(k)
            if len(leaves) != 1 << k or abs(leaves.sum() - root) > 1e-9 * (1 << k):
                sys.exit("cascade_numpy: leaves do not sum to the root noise at k=%d" % k)
            best = min(best, seconds)
        print("%d %.9f" % (k, best), flush=True)


if __name__ == "__main__":
    main()
