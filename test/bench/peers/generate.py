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

Usage: generate.py {privacy_unit|contingency|hierarchy}
"""

import sys

import numpy as np
import polars as pl

from common import DATA, TABLE, VISITS


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


def contingency():
    rng = np.random.default_rng(20261202)
    r, c = TABLE["rows"], TABLE["columns"]
    a = rng.lognormal(0.0, 0.5, r)
    b = rng.lognormal(0.0, 0.5, c)
    mean = TABLE["mean"] * np.outer(a / a.mean(), b / b.mean())
    counts = rng.poisson(mean).astype(np.int64)
    i, j = np.divmod(np.repeat(np.arange(r * c), counts.ravel()), c)
    order = rng.permutation(i.size)
    write(pl.DataFrame({"i": i[order].astype(np.int32), "j": j[order].astype(np.int32)}), "persons")
    cells = np.arange(r * c)
    pl.DataFrame({"i": (cells // c).astype(np.int32), "j": (cells % c).astype(np.int32),
                  "n": counts.ravel()}).write_parquet(DATA / "persons_truth.parquet")


def hierarchy():
    for name in ("geo_persons", "geo_tracts"):
        frame = pl.read_csv(DATA / f"{name}.csv", schema_overrides={k: pl.Int32 for k in ("state", "county", "tract")})
        frame.write_parquet(DATA / f"{name}.parquet")


if __name__ == "__main__":
    DATA.mkdir(parents=True, exist_ok=True)
    {"privacy_unit": privacy_unit, "contingency": contingency, "hierarchy": hierarchy}[sys.argv[1]]()
