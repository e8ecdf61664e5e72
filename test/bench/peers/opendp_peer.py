"""OpenDP (its Polars context): one release, from the Parquet file to the
released frame. The privacy unit, bounds and budget are OpenDP's own
(dp.unit_of, truncate_per_group / truncate_num_groups, dp.loss_of); counts
are dp.len(), OpenDP's default noise for a pure or approximate epsilon budget
(integer Laplace), and without public keys the group keys are chosen by
OpenDP's threshold on those same noisy counts (its delta).

Two departures from OpenDP's defaults, both forced:
- truncate_num_groups keeps "first" (the smallest (clinic, month) values of
  each patient): its default "sample" ranks a struct of (hash, keys) whose
  two fields take the same name, which the pinned Polars refuses ("multiple
  fields with name 'clinic'"). accuracy.py scores OpenDP against the table
  its own truncation keeps.
- Replace-one neighbours (workloads 2, 3 and 5) are OpenDP's
  dp.unit_of(changes=1) where the Polars context accepts it; otherwise
  contributions=2, the symmetric distance of one replaced row.
"""

import sys

from common import DATA, PARAMS, now, parse_args, released_path, report_run, tree_cpu_s

start = now()
import opendp.prelude as dp  # noqa: E402
import polars as pl  # noqa: E402

dp.enable_features("contrib")
startup_s = now() - start


def privacy_unit():
    p = PARAMS["privacy_unit"]
    cells = ["clinic", "month"]
    context = dp.Context.compositor(
        data=pl.scan_parquet(DATA / "visits.parquet"),
        privacy_unit=dp.unit_of(contributions=1, identifier="patient_id"),
        privacy_loss=dp.loss_of(epsilon=p["epsilon"], delta=p["delta"]),
        split_evenly_over=1)
    query = (context.query()
             .truncate_per_group(p["max_rows"], by=cells)
             .truncate_num_groups(p["max_groups"], by=cells, keep="first")
             .group_by(cells).agg(dp.len()))
    threshold = query.summarize()["threshold"][0]
    return query.release().collect().rename({"len": "n"}), {"threshold": threshold}


def replace_one_unit():
    try:
        unit = dp.unit_of(changes=1)
        dp.Context.compositor(data=pl.LazyFrame({"x": [0]}), privacy_unit=unit,
                              privacy_loss=dp.loss_of(epsilon=1.0), split_evenly_over=1
                              ).query().group_by("x").agg(dp.len()).with_keys(pl.LazyFrame({"x": [0]})).resolve()
        return unit, "changes=1"
    except Exception:  # the Polars context takes symmetric distances only
        return dp.unit_of(contributions=2), "contributions=2"


def contingency():
    p = PARAMS["contingency"]
    unit, unit_name = replace_one_unit()
    context = dp.Context.compositor(data=pl.scan_parquet(DATA / "persons.parquet"), privacy_unit=unit,
                                    privacy_loss=dp.loss_of(epsilon=p["epsilon"]), split_evenly_over=1)
    keys = pl.LazyFrame({"i": pl.arange(0, 1000, eager=True, dtype=pl.Int32)}).join(
        pl.LazyFrame({"j": pl.arange(0, 1000, eager=True, dtype=pl.Int32)}), how="cross")
    query = context.query().group_by("i", "j").agg(dp.len()).with_keys(keys)
    return query.release().collect().rename({"len": "n"}), {"unit": unit_name}


def hierarchy():
    p = PARAMS["hierarchy"]
    unit, unit_name = replace_one_unit()
    context = dp.Context.compositor(data=pl.scan_parquet(DATA / "geo_persons.parquet"), privacy_unit=unit,
                                    privacy_loss=dp.loss_of(epsilon=p["epsilon"]), split_evenly_over=3)
    tracts = pl.scan_parquet(DATA / "geo_tracts.parquet")
    levels = []
    for level, keys in enumerate((["state"], ["state", "county"], ["state", "county", "tract"]), start=1):
        query = context.query().group_by(keys).agg(dp.len()).with_keys(tracts.select(keys).unique())
        levels.append(query.release().collect().rename({"len": "n"}).with_columns(level=pl.lit(level)))
    return pl.concat(levels, how="diagonal"), {"unit": unit_name}


def one_group():
    """One row per user; no keys: OpenDP's threshold on the noisy counts."""
    p = PARAMS["one_group"]
    context = dp.Context.compositor(data=pl.scan_parquet(DATA / "one_group.parquet"),
                                    privacy_unit=dp.unit_of(contributions=1),
                                    privacy_loss=dp.loss_of(epsilon=p["epsilon"], delta=p["delta"]),
                                    split_evenly_over=1)
    query = context.query().group_by("grp").agg(dp.len())
    threshold = query.summarize()["threshold"][0]
    return query.release().collect().rename({"len": "n"}), {"threshold": threshold}


def one_margin():
    p = PARAMS["one_margin"]
    unit, unit_name = replace_one_unit()
    context = dp.Context.compositor(data=pl.scan_parquet(DATA / "margin_persons.parquet"), privacy_unit=unit,
                                    privacy_loss=dp.loss_of(epsilon=p["epsilon"]), split_evenly_over=1)
    keys = pl.LazyFrame({"i": pl.arange(0, 1000, eager=True, dtype=pl.Int32)}).join(
        pl.LazyFrame({"j": pl.arange(0, 100, eager=True, dtype=pl.Int32)}), how="cross")
    query = context.query().group_by("i", "j").agg(dp.len()).with_keys(keys)
    return query.release().collect().rename({"len": "n"}), {"unit": unit_name}


def main():
    workload, variant, run = parse_args(sys.argv)
    start, cpu_start = now(), tree_cpu_s()
    released, extra = {"privacy_unit": privacy_unit, "contingency": contingency, "hierarchy": hierarchy,
                       "one_group": one_group, "one_margin": one_margin}[workload]()
    release_s, release_cpu_s = now() - start, tree_cpu_s() - cpu_start
    released.write_parquet(released_path(workload, "opendp", variant, run))
    report_run(release_s=release_s, startup_s=startup_s, release_cpu_s=release_cpu_s, rows=released.height, **extra)


if __name__ == "__main__":
    main()
