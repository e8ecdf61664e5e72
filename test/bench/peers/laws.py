"""Workload 4: our discrete Laplace and discrete Gaussian against OpenDP's,
10^6 draws each, at the same scales, on both of our paths (the CDF table a
release uses, and Canonne, Kamath and Steinke's samplers), written to
results/laws.json.

Both libraries draw the same laws: discrete Laplace P(x) ~ exp(-|x| / b)
(OpenDP's make_laplace on integers), discrete Gaussian P(x) ~ exp(-x^2 /
(2 sigma^2)) (make_gaussian on integers; our parameter is sigma^2).

The test: a two-sample chi-square test of homogeneity on binned counts.
Bins are fixed from the law before drawing: every integer whose expected
count under it is at least 5, and the two tails beyond. With n draws on each
side, X^2 = sum (a_k - b_k)^2 / (a_k + b_k) is chi-square with K - 1 degrees
of freedom when the laws agree; the test fails when X^2 exceeds the
quantile 1 - ALPHA (ALPHA = 10^-3: over the eight comparisons, a false
failure in under 1 % of runs).

Its power against a 5 % scale error: our sampler at 1.05 b (or 1.05 sigma)
against OpenDP's at b. Computed, X^2 is then noncentral chi-square with
noncentrality n sum (p_k - q_k)^2 / (p_k + q_k) (p, q the two laws' bin
probabilities); measured, the same test on those draws must fail.

Ours are drawn with fixed seeds (bench_sampler_draws); OpenDP takes no
seed (its noise comes from the operating system), so its side differs on
each run.

Usage: laws.py PATH_TO_bench_sampler_draws
"""

import json
import subprocess
import sys
import tempfile

import numpy as np
from scipy import stats

from common import RESULTS, now

N = 1_000_000
ALPHA = 1e-3
SCALE_ERROR = 1.05
LAWS = [("laplace", 1.0), ("laplace", 10.0), ("gaussian", 1.0), ("gaussian", 10.0)]  # b, or sigma


def pmf(law, scale, support):
    if law == "laplace":
        a = np.exp(-1.0 / scale)
        return (1 - a) / (1 + a) * a ** np.abs(support)
    weights = np.exp(-support.astype(float) ** 2 / (2 * scale**2))
    wide = np.arange(-int(40 * scale) - 40, int(40 * scale) + 41)
    return weights / np.exp(-wide.astype(float) ** 2 / (2 * scale**2)).sum()


def bins(law, scale):
    """The integers kept as their own bins (expected count >= 5 under the law)."""
    support = np.arange(-int(60 * scale) - 60, int(60 * scale) + 61)
    kept = support[N * pmf(law, scale, support) >= 5]
    return kept.min(), kept.max()


def binned(values, lo, hi):
    inner = np.bincount(np.clip(values, lo, hi) - lo, minlength=hi - lo + 1).astype(float)
    inner[0] -= np.sum(values < lo)
    inner[-1] -= np.sum(values > hi)
    return np.concatenate([[np.sum(values < lo)], inner, [np.sum(values > hi)]])


def bin_probabilities(law, scale, lo, hi):
    support = np.arange(-int(80 * scale) - 80, int(80 * scale) + 81)
    p = pmf(law, scale, support)
    return np.concatenate([[p[support < lo].sum()], p[(support >= lo) & (support <= hi)], [p[support > hi].sum()]])


def chi_square(a, b):
    used = (a + b) > 0
    statistic = float(np.sum((a[used] - b[used]) ** 2 / (a[used] + b[used])))
    df = int(used.sum()) - 1
    return statistic, df, float(stats.chi2.ppf(1 - ALPHA, df)), float(stats.chi2.sf(statistic, df))


def ours(program, law, path, scale, seed):
    parameter = scale if law == "laplace" else scale**2
    with tempfile.NamedTemporaryFile() as out:
        subprocess.run([program, law, path, repr(parameter), str(N), str(seed), out.name], check=True)
        return np.fromfile(out.name, dtype=np.int64)


def opendp_draws(law, scale):
    import opendp.prelude as dp
    dp.enable_features("contrib")
    domain = dp.vector_domain(dp.atom_domain(T=int), size=N)
    if law == "laplace":
        mechanism = dp.m.make_laplace(domain, dp.l1_distance(T=int), scale=scale)
    else:
        mechanism = dp.m.make_gaussian(domain, dp.l2_distance(T=int), scale=scale)
    return np.asarray(mechanism([0] * N), dtype=np.int64)


def main():
    program = sys.argv[1]
    results = []
    for index, (law, scale) in enumerate(LAWS):
        start = now()
        theirs = opendp_draws(law, scale)
        opendp_s = now() - start
        lo, hi = bins(law, scale)
        p = bin_probabilities(law, scale, lo, hi)
        q = bin_probabilities(law, SCALE_ERROR * scale, lo, hi)
        noncentrality = N * float(np.sum((p - q) ** 2 / (p + q)))
        df = len(p) - 1
        power = float(stats.ncx2.sf(stats.chi2.ppf(1 - ALPHA, df), df, noncentrality))
        q1 = bin_probabilities(law, 1.01 * scale, lo, hi)
        power_one_percent = float(stats.ncx2.sf(stats.chi2.ppf(1 - ALPHA, df), df,
                                                N * float(np.sum((p - q1) ** 2 / (p + q1)))))
        for path_index, path in enumerate(("release", "cks")):
            seed = 1000 + 10 * index + path_index
            mine = ours(program, law, path, scale, seed)
            wrong = ours(program, law, path, SCALE_ERROR * scale, seed + 5)
            same = chi_square(binned(mine, lo, hi), binned(theirs, lo, hi))
            off = chi_square(binned(wrong, lo, hi), binned(theirs, lo, hi))
            results.append({
                "law": law, "scale": scale, "path": path, "draws": N, "bins": len(p),
                "ours_variance": float(mine.var()), "opendp_variance": float(theirs.var()),
                "statistic": same[0], "df": same[1], "critical": same[2], "p_value": same[3],
                "agree": same[0] <= same[2],
                "wrong_scale_statistic": off[0], "wrong_scale_p_value": off[3], "wrong_scale_fails": off[0] > off[2],
                "power_computed": power, "power_one_percent": power_one_percent, "noncentrality": noncentrality, "opendp_seconds": opendp_s})
            print(f"{law:8} {scale:5} {path:7}: X2 {same[0]:9.1f} (df {same[1]}, critical {same[2]:.1f}, "
                  f"p {same[3]:.3f}); 5 % scale error X2 {off[0]:9.1f} (fails: {off[0] > off[2]}), "
                  f"power {power:.4f}", flush=True)
    RESULTS.mkdir(parents=True, exist_ok=True)  # the laws step may run before any other
    (RESULTS / "laws.json").write_text(json.dumps({"alpha": ALPHA, "scale_error": SCALE_ERROR, "tests": results},
                                                  indent=1))


if __name__ == "__main__":
    main()
