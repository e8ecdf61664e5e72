"""Scores every released table of results/ against the truth and writes
results/accuracy.jsonl, one line per run.

1. privacy_unit: cells shown; RMSE and mean error of the shown cells against
   the bounded truth. For the systems that bound at random (ours, Tumult,
   PipelineDP: each patient's kept cells drawn uniformly) that is the
   expected bounded count of generate.py, and the RMSE includes the
   bounding's own variance (bounding_sd: its root mean over the shown
   cells, the same for all three). OpenDP bounds deterministically ("first",
   and its dense rank < k keeps k - 1 cells), so it is scored against the
   exact table its truncation keeps.
2. contingency: RMSE of the 10^6 cells; RMSE and largest error of the 1,000
   row and 1,000 column totals (each the sum of its released cells) and how
   many are off; negative cells.
3. hierarchy: RMSE of each level (states, counties, tracts); parents that
   differ from the sum of their released children (states from their
   counties, counties from their tracts; 10^-6 relative slack for real
   counts summed in another order).
4. one_group: groups shown; RMSE and mean error of the shown groups against
   their true counts, and the mean error of the shown groups of fewer than
   30 users (where selecting on the count's own noise biases it upward).
5. one_margin: RMSE of the 10^5 cells; RMSE, largest error and count of the
   1,000 row totals that are off; negative cells.
"""

import json

import numpy as np
import polars as pl

from common import DATA, PARAMS, RESULTS

LEVEL_KEYS = {1: ["state"], 2: ["state", "county"], 3: ["state", "county", "tract"]}


def rmse(errors):
    return float(np.sqrt(np.mean(np.square(errors)))) if len(errors) else None


def opendp_bounded_truth():
    """The table OpenDP's truncation keeps (opendp_peer.py), counted without noise."""
    cached = DATA / "visits_truth_opendp.parquet"
    if not cached.exists():
        p = PARAMS["privacy_unit"]
        cells = pl.struct("clinic", "month")
        (pl.scan_parquet(DATA / "visits.parquet")
         .filter(pl.int_range(pl.len()).over("patient_id", "clinic", "month") < p["max_rows"])
         .filter(cells.rank("dense").over("patient_id") < p["max_groups"])
         .group_by("clinic", "month").agg(expected=pl.len().cast(pl.Float64))
         .with_columns(bounding_variance=pl.lit(0.0))
         .sink_parquet(cached))
    return pl.read_parquet(cached)


def privacy_unit(released, system):
    truth = opendp_bounded_truth() if system == "opendp" else pl.read_parquet(DATA / "visits_truth.parquet")
    shown = released.select(pl.col("clinic").cast(pl.Int32), pl.col("month").cast(pl.Int32),
                            pl.col("n").cast(pl.Float64)).join(truth, on=["clinic", "month"], how="left")
    errors = (shown["n"] - shown["expected"].fill_null(0.0)).to_numpy()
    return {"cells_shown": shown.height, "cells_rmse": rmse(errors), "cells_mean_error": float(errors.mean()),
            "bounding_sd": float(np.sqrt(shown["bounding_variance"].fill_null(0.0).mean())),
            "truth_cells_kept": truth.height, "truth_total_kept": float(truth["expected"].sum())}


def one_group(released, system):
    truth = pl.read_parquet(DATA / "one_group_truth.parquet").rename({"n": "true"})
    shown = released.select(pl.col("grp").cast(pl.Int32), pl.col("n").cast(pl.Float64)).join(
        truth, on="grp", how="left").with_columns(pl.col("true").fill_null(0).cast(pl.Float64))
    errors = (shown["n"] - shown["true"]).to_numpy()
    small = shown.filter(pl.col("true") < 30)
    small_errors = (small["n"] - small["true"]).to_numpy()
    return {"cells_shown": shown.height, "cells_rmse": rmse(errors), "cells_mean_error": float(errors.mean()),
            "small_shown": small.height,
            "small_mean_error": float(small_errors.mean()) if small.height else None}


def one_margin(released, system):
    truth = pl.read_parquet(DATA / "margin_persons_truth.parquet")
    table = truth.join(released.select(pl.col("i").cast(pl.Int32), pl.col("j").cast(pl.Int32),
                                       pl.col("n").cast(pl.Float64).alias("released")),
                       on=["i", "j"], how="left")
    missing = table["released"].null_count()
    table = table.with_columns(pl.col("released").fill_null(0.0), error=pl.col("released").fill_null(0.0) - pl.col("n"))
    totals = table.group_by("i").agg(pl.col("error").sum())["error"].to_numpy()
    return {"cells_rmse": rmse(table["error"].to_numpy()), "cells_missing": missing,
            "totals_rmse": rmse(totals), "totals_max_error": float(np.abs(totals).max()),
            "totals_off": int(np.sum(np.abs(totals) > 1e-6)),
            "negative_cells": int((table["released"] < 0).sum())}


def contingency(released, system):
    truth = pl.read_parquet(DATA / "persons_truth.parquet")
    table = truth.join(released.select(pl.col("i").cast(pl.Int32), pl.col("j").cast(pl.Int32),
                                       pl.col("n").cast(pl.Float64).alias("released")),
                       on=["i", "j"], how="left")
    missing = table["released"].null_count()
    table = table.with_columns(pl.col("released").fill_null(0.0), error=pl.col("released").fill_null(0.0) - pl.col("n"))
    totals = pl.concat([table.group_by("i").agg(pl.col("error").sum()).select("error"),
                        table.group_by("j").agg(pl.col("error").sum()).select("error")])["error"].to_numpy()
    return {"cells_rmse": rmse(table["error"].to_numpy()), "cells_missing": missing,
            "totals_rmse": rmse(totals), "totals_max_error": float(np.abs(totals).max()),
            "totals_off": int(np.sum(np.abs(totals) > 1e-6)),
            "negative_cells": int((table["released"] < 0).sum())}


def hierarchy(released, system):
    persons = pl.read_parquet(DATA / "geo_persons.parquet")
    metrics, levels = {}, {}
    for level, keys in LEVEL_KEYS.items():
        rows = released.filter(pl.col("level") == level).select(
            [pl.col(k).cast(pl.Int64) for k in keys] + [pl.col("n").cast(pl.Float64)])
        truth = persons.group_by(keys).agg(true=pl.len()).with_columns([pl.col(k).cast(pl.Int64) for k in keys])
        joined = truth.join(rows, on=keys, how="left")
        metrics[f"level{level}_rmse"] = rmse((joined["n"].fill_null(0.0) - joined["true"]).to_numpy())
        metrics[f"level{level}_missing"] = joined["n"].null_count()
        levels[level] = rows
    inconsistent = 0
    for parent, child in ((1, 2), (2, 3)):
        keys = LEVEL_KEYS[parent]
        sums = levels[child].group_by(keys).agg(children=pl.col("n").sum())
        both = levels[parent].join(sums, on=keys, how="left")
        gap = (both["n"] - both["children"].fill_null(0.0)).abs()
        slack = 1e-6 * np.maximum(1.0, both["n"].abs().to_numpy())
        inconsistent += int(np.sum(gap.to_numpy() > slack))
        metrics[f"level{parent}_parents_off"] = int(np.sum(gap.to_numpy() > slack))
    metrics["parents_off"] = inconsistent
    metrics["parents"] = levels[1].height + levels[2].height
    return metrics


def main():
    score = {"privacy_unit": privacy_unit, "contingency": contingency, "hierarchy": hierarchy,
             "one_group": one_group, "one_margin": one_margin}
    with open(RESULTS / "runs.jsonl") as runs, open(RESULTS / "accuracy.jsonl", "w") as out:
        for line in runs:
            run = json.loads(line)
            path = RESULTS / run["workload"] / f"{run['system']}-{run['variant']}-{run['run']}.parquet"
            metrics = score[run["workload"]](pl.read_parquet(path), run["system"])
            metrics.update({k: run[k] for k in ("workload", "system", "variant", "run")})
            out.write(json.dumps(metrics) + "\n")


if __name__ == "__main__":
    main()
