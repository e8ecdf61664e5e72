"""PipelineDP on its local backend (pure Python, one core): one release,
from the Parquet file (read with pyarrow into the rows the engine iterates)
to the released list of (partition, count).

- Workload 1: privacy_id_extractor is the patient; max_partitions_contributed
  3, max_contributions_per_partition 1; no public partitions, so PipelineDP
  selects partitions privately (its default strategy, truncated geometric)
  and its NaiveBudgetAccountant gives half of epsilon to the selection and
  half to the Laplace counts, all of delta to the selection.
- Workload 4: each user its privacy id, max_partitions_contributed 1,
  max_contributions_per_partition 1, no public partitions: truncated
  geometric selection at epsilon / 2 and all of delta, Laplace counts at
  epsilon / 2 (as our truncated_geometric at budget_share 0.5, split).
- Workloads 2, 3 and 5: every row its own privacy id (one person), one
  partition each. PipelineDP protects adding or removing a privacy id only;
  replacing one row is two such changes, so it runs at epsilon / 2 (group
  privacy: (epsilon / 2)-DP for add/remove is epsilon-DP for replace-one, the
  same Laplace scale 2 / epsilon the others use). The hierarchy's levels are
  three aggregations with public partitions sharing that budget equally.
"""

import sys

from common import DATA, PARAMS, now, parse_args, released_path, report_run, tree_cpu_s

start = now()
import pipeline_dp  # noqa: E402
import polars as pl  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

startup_s = now() - start


def rows(name, columns):
    table = pq.read_table(DATA / f"{name}.parquet", columns=columns)
    return list(zip(*(table.column(c).to_numpy() for c in columns)))


def count_params(max_partitions, max_per_partition):
    return pipeline_dp.AggregateParams(noise_kind=pipeline_dp.NoiseKind.LAPLACE, metrics=[pipeline_dp.Metrics.COUNT],
                                       max_partitions_contributed=max_partitions,
                                       max_contributions_per_partition=max_per_partition)


def privacy_unit():
    p = PARAMS["privacy_unit"]
    accountant = pipeline_dp.NaiveBudgetAccountant(total_epsilon=p["epsilon"], total_delta=p["delta"])
    engine = pipeline_dp.DPEngine(accountant, pipeline_dp.LocalBackend())
    extractors = pipeline_dp.DataExtractors(privacy_id_extractor=lambda r: r[0],
                                            partition_extractor=lambda r: (r[1], r[2]), value_extractor=lambda r: 0)
    result = engine.aggregate(rows("visits", ["patient_id", "clinic", "month"]),
                              count_params(p["max_groups"], p["max_rows"]), extractors)
    accountant.compute_budgets()
    released = [(int(k[0]), int(k[1]), m.count) for k, m in result]
    return pl.DataFrame(released, schema=["clinic", "month", "n"], orient="row")


def public_counts(data, levels, epsilon):
    """One aggregation per level of keys, over rows that are each a person."""
    accountant = pipeline_dp.NaiveBudgetAccountant(total_epsilon=epsilon, total_delta=0)
    engine = pipeline_dp.DPEngine(accountant, pipeline_dp.LocalBackend())
    results = []
    for columns, partitions in levels:
        width = len(columns)
        extractors = pipeline_dp.DataExtractors(
            privacy_id_extractor=lambda r: r[0],
            partition_extractor=(lambda r: r[1]) if width == 1 else (lambda r, w=width: r[1:1 + w]),
            value_extractor=lambda r: 0)
        results.append((columns, engine.aggregate(data, count_params(1, 1), extractors,
                                                  public_partitions=partitions)))
    accountant.compute_budgets()
    frames = []
    for level, (columns, result) in enumerate(results, start=1):
        released = [((k,) if width_one else tuple(k)) + (m.count,)
                    for width_one in [len(columns) == 1] for k, m in result]
        frames.append(pl.DataFrame(released, schema=columns + ["n"], orient="row").with_columns(level=pl.lit(level)))
    return frames


def contingency():
    p = PARAMS["contingency"]
    persons = [(index,) + row for index, row in enumerate(rows("persons", ["i", "j"]))]
    cells = [(i, j) for i in range(1000) for j in range(1000)]
    frame = public_counts(persons, [(["i", "j"], cells)], p["epsilon"] / 2)[0]
    return frame.drop("level")


def hierarchy():
    p = PARAMS["hierarchy"]
    persons = [(index,) + row for index, row in enumerate(rows("geo_persons", ["state", "county", "tract"]))]
    tracts = rows("geo_tracts", ["state", "county", "tract"])
    levels = [(["state"], sorted({t[0] for t in tracts})),
              (["state", "county"], sorted({t[:2] for t in tracts})),
              (["state", "county", "tract"], tracts)]
    return pl.concat(public_counts(persons, levels, p["epsilon"] / 2), how="diagonal")


def one_group():
    """Each user its privacy id, one partition and one row each; private selection."""
    p = PARAMS["one_group"]
    accountant = pipeline_dp.NaiveBudgetAccountant(total_epsilon=p["epsilon"], total_delta=p["delta"])
    engine = pipeline_dp.DPEngine(accountant, pipeline_dp.LocalBackend())
    extractors = pipeline_dp.DataExtractors(privacy_id_extractor=lambda r: r[0], partition_extractor=lambda r: r[1],
                                            value_extractor=lambda r: 0)
    result = engine.aggregate(rows("one_group", ["user_id", "grp"]), count_params(1, 1), extractors)
    accountant.compute_budgets()
    return pl.DataFrame([(int(k), m.count) for k, m in result], schema=["grp", "n"], orient="row")


def one_margin():
    p = PARAMS["one_margin"]
    persons = [(index,) + row for index, row in enumerate(rows("margin_persons", ["i", "j"]))]
    cells = [(i, j) for i in range(1000) for j in range(100)]
    return public_counts(persons, [(["i", "j"], cells)], p["epsilon"] / 2)[0].drop("level")


def main():
    workload, variant, run = parse_args(sys.argv)
    start, cpu_start = now(), tree_cpu_s()
    released = {"privacy_unit": privacy_unit, "contingency": contingency, "hierarchy": hierarchy,
                "one_group": one_group, "one_margin": one_margin}[workload]()
    release_s, release_cpu_s = now() - start, tree_cpu_s() - cpu_start
    released.write_parquet(released_path(workload, "pipelinedp", variant, run))
    report_run(release_s=release_s, startup_s=startup_s, release_cpu_s=release_cpu_s, rows=released.height)


if __name__ == "__main__":
    main()
