"""Generates the workloads' rows once (fixed seeds) as Parquet for the peers
and CSV for PostgreSQL's COPY, and the truth each release is scored against.

1. privacy_unit: 10M visits of 1M patients (10 each) to 1,000 clinics x 100
   months. Clinic sizes are log-normal (sigma 1), each patient has a home
   clinic taken by size and makes 70 % of their visits there, months are
   uniform: cells range from a handful of patients to several hundred, so
   partition selection shows some and hides others. Rows are shuffled, so
   no system gains from an order. The truth is the *bounded* count: each
   patient keeps 3 of their k distinct cells uniformly at random and one row
   in each, so a cell's expected bounded count is the sum over its patients
   of min(1, 3 / k) (bounding_variance: the variance of that choice, shared
   by every system that bounds at random). OpenDP bounds deterministically;
   accuracy.py scores it against its own bounded table.
2. contingency: persons (i, j) of a 1000 x 1000 table, cell counts Poisson
   with mean 3 a_i b_j (a, b log-normal, sigma 0.5, mean 1): about 3M rows,
   some cells empty; all 10^6 cells are public.
3. hierarchy: made by geography.sql in PostgreSQL (us_geography.sql's
   states, counties and tracts, one person per 100 people) and exported by
   scripts/bench-peers; this script converts its CSV to Parquet.

4. one_group: 2M users, each in exactly one of 200,000 groups; group sizes
   follow a Zipf law (the group of rank r holds a share proportional to
   r^-0.63; the largest 8,004 users, the median 6): 25,436 groups have 15
   users or more, 8,802 have 28 or more. One row per user (user_id, grp), shuffled;
   group ids are the ranks permuted, so no id order favours a system.
5. one_margin: persons (i, j) of a 1000 x 100 table, cell counts Poisson
   with mean 30 a_i b_j (a, b log-normal, sigma 0.5, mean 1): about 3M rows,
   10^5 public cells.

Usage: generate.py {privacy_unit|contingency|hierarchy|one_group|one_margin}
"""

import sys

import numpy as np
import polars as pl

from common import DATA, MARGIN_TABLE, ONE_GROUP, TABLE, VISITS


def write(frame, name, csv=True):
    frame.write_parquet(DATA / f"{name}.parquet")
    if csv:
        frame.write_csv(DATA / f"{name}.csv")


def privacy_unit():
    rng = np.random.default_rng(20261201)
    n, patients, clinics, months = VISITS["rows"], VISITS["patients"], VISITS["clinics"], VISITS["months"]
    size = rng.lognormal(0.0, 1.0, clinics)
    size /= size.sum()
    home = rng.choice(clinics, size=patients, p=size)
    patient = np.repeat(np.arange(patients, dtype=np.int32), n // patients)
    at_home = rng.random(n) < 0.7
    clinic = np.where(at_home, home[patient], rng.choice(clinics, size=n, p=size)).astype(np.int32)
    month = rng.integers(0, months, n, dtype=np.int32)
    order = rng.permutation(n)
    patient, clinic, month = patient[order], clinic[order], month[order]
    write(pl.DataFrame({"patient_id": patient, "clinic": clinic, "month": month}), "visits")

    # The expected bounded count of each cell under uniform bounding.
    cell = clinic.astype(np.int64) * months + month
    pairs = np.unique(patient.astype(np.int64) * (clinics * months) + cell)
    pair_patient = pairs // (clinics * months)
    pair_cell = pairs % (clinics * months)
    k = np.bincount(pair_patient, minlength=patients)[pair_patient]
    q = np.minimum(1.0, 3.0 / k)
    cells = clinics * months
    expected = np.bincount(pair_cell, weights=q, minlength=cells)
    variance = np.bincount(pair_cell, weights=q * (1 - q), minlength=cells)
    patients_in_cell = np.bincount(pair_cell, minlength=cells)
    truth = pl.DataFrame({
        "clinic": (np.arange(cells) // months).astype(np.int32),
        "month": (np.arange(cells) % months).astype(np.int32),
        "expected": expected, "bounding_variance": variance, "patients": patients_in_cell,
    }).filter(pl.col("patients") > 0)
    truth.write_parquet(DATA / "visits_truth.parquet")


def table_of_persons(seed, shape, name):
    """Persons (i, j) of a table with Poisson cell counts of mean m a_i b_j."""
    rng = np.random.default_rng(seed)
    r, c = shape["rows"], shape["columns"]
    a = rng.lognormal(0.0, 0.5, r)
    b = rng.lognormal(0.0, 0.5, c)
    mean = shape["mean"] * np.outer(a / a.mean(), b / b.mean())
    counts = rng.poisson(mean).astype(np.int64)
    i, j = np.divmod(np.repeat(np.arange(r * c), counts.ravel()), c)
    order = rng.permutation(i.size)
    write(pl.DataFrame({"i": i[order].astype(np.int32), "j": j[order].astype(np.int32)}), name)
    cells = np.arange(r * c)
    pl.DataFrame({"i": (cells // c).astype(np.int32), "j": (cells % c).astype(np.int32),
                  "n": counts.ravel()}).write_parquet(DATA / f"{name}_truth.parquet")


def contingency():
    table_of_persons(20261202, TABLE, "persons")


def one_margin():
    table_of_persons(20261204, MARGIN_TABLE, "margin_persons")


def one_group():
    rng = np.random.default_rng(20261203)
    users, groups = ONE_GROUP["users"], ONE_GROUP["groups"]
    share = np.arange(1, groups + 1, dtype=np.float64) ** -ONE_GROUP["zipf"]
    share /= share.sum()
    group_of_rank = rng.permutation(groups).astype(np.int32)
    grp = group_of_rank[rng.choice(groups, size=users, p=share)]
    user = rng.permutation(users).astype(np.int32)
    write(pl.DataFrame({"user_id": user, "grp": grp}), "one_group")
    counts = np.bincount(grp, minlength=groups)
    pl.DataFrame({"grp": np.arange(groups, dtype=np.int32), "n": counts}).filter(pl.col("n") > 0).write_parquet(
        DATA / "one_group_truth.parquet")


def hierarchy():
    for name in ("geo_persons", "geo_tracts"):
        frame = pl.read_csv(DATA / f"{name}.csv", schema_overrides={k: pl.Int32 for k in ("state", "county", "tract")})
        frame.write_parquet(DATA / f"{name}.parquet")


if __name__ == "__main__":
    DATA.mkdir(parents=True, exist_ok=True)
    {"privacy_unit": privacy_unit, "contingency": contingency, "hierarchy": hierarchy, "one_group": one_group,
     "one_margin": one_margin}[sys.argv[1]]()
