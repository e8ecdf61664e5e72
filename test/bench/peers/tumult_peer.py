"""Tumult Analytics on Spark (local, both cores): one release, from the
Parquet file to the released table in this process (toPandas). Spark's
start-up (the JVM and the session) is timed apart.

- Workload 1: protected_change AddRowsWithID (a patient added or removed
  with all their rows), MaxRowsPerGroupPerID and MaxGroupsPerID on one
  grouping column (Tumult's constraints take one column: cell = clinic * 100
  + month, derived in Spark as the data is read), groupby on column names:
  Tumult's automatic partition selection (an experimental feature flag),
  which spends half of epsilon and all of delta on choosing the cells.
- Workload 4: AddOneRow (one user, one row, added or removed), automatic
  partition selection as in workload 1.
- Workloads 2, 3 and 5: AddMaxRows(2), Tumult's protection of any two rows
  added or removed, which covers replacing one row (the peers' nearest to
  replace-one; a count's sensitivity is 2 under both). The keys are public
  KeySets; the hierarchy's three levels are three queries of epsilon / 3.
Counts use the "default" mechanism (Laplace, integer-valued, under a pure or
approximate epsilon budget).
"""

import os
import sys

from common import DATA, PARAMS, WORK, now, parse_args, released_path, report_run, tree_cpu_s

# Spark's Python workers run Tumult's functions: the same interpreter as this one.
os.environ["PYSPARK_PYTHON"] = sys.executable
start = now()
from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402
from tmlt.analytics import (  # noqa: E402
    AddMaxRows, AddOneRow, AddRowsWithID, ApproxDPBudget, KeySet, MaxGroupsPerID, MaxRowsPerGroupPerID, PureDPBudget,
    QueryBuilder, Session)
from tmlt.analytics.config import config  # noqa: E402

spark = (SparkSession.builder.master("local[2]").config("spark.driver.memory", "8g")
         .config("spark.sql.warehouse.dir", str(WORK / "spark-warehouse"))
         .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
startup_s = now() - start


def privacy_unit():
    p = PARAMS["privacy_unit"]
    config.features.auto_partition_selection.enable()
    visits = spark.read.parquet(str(DATA / "visits.parquet")).withColumn(
        "cell", F.col("clinic") * 100 + F.col("month"))
    budget = ApproxDPBudget(p["epsilon"], p["delta"])
    session = Session.from_dataframe(privacy_budget=budget, source_id="visits", dataframe=visits,
                                     protected_change=AddRowsWithID(id_column="patient_id"))
    query = (QueryBuilder("visits")
             .enforce(MaxRowsPerGroupPerID("cell", p["max_rows"]))
             .enforce(MaxGroupsPerID("cell", p["max_groups"]))
             .groupby(["cell"]).count())
    released = session.evaluate(query, budget).toPandas()
    released["clinic"] = released["cell"] // 100
    released["month"] = released["cell"] % 100
    return released[["clinic", "month", "count"]].rename(columns={"count": "n"})


def contingency():
    p = PARAMS["contingency"]
    persons = spark.read.parquet(str(DATA / "persons.parquet"))
    session = Session.from_dataframe(privacy_budget=PureDPBudget(p["epsilon"]), source_id="persons",
                                     dataframe=persons, protected_change=AddMaxRows(2))
    keys = KeySet.from_dict({"i": list(range(1000)), "j": list(range(1000))})
    released = session.evaluate(QueryBuilder("persons").groupby(keys).count(), PureDPBudget(p["epsilon"])).toPandas()
    return released.rename(columns={"count": "n"})


def hierarchy():
    import pandas as pd
    p = PARAMS["hierarchy"]
    persons = spark.read.parquet(str(DATA / "geo_persons.parquet"))
    tracts = spark.read.parquet(str(DATA / "geo_tracts.parquet"))
    session = Session.from_dataframe(privacy_budget=PureDPBudget(p["epsilon"]), source_id="persons",
                                     dataframe=persons, protected_change=AddMaxRows(2))
    levels = []
    for level, columns in enumerate((["state"], ["state", "county"], ["state", "county", "tract"]), start=1):
        keys = KeySet.from_dataframe(tracts.select(*columns).distinct())
        answer = session.evaluate(QueryBuilder("persons").groupby(keys).count(), PureDPBudget(p["epsilon"] / 3))
        levels.append(answer.toPandas().rename(columns={"count": "n"}).assign(level=level))
    return pd.concat(levels, ignore_index=True)


def one_group():
    """AddOneRow (one user, one row); automatic partition selection."""
    p = PARAMS["one_group"]
    config.features.auto_partition_selection.enable()
    users = spark.read.parquet(str(DATA / "one_group.parquet"))
    budget = ApproxDPBudget(p["epsilon"], p["delta"])
    session = Session.from_dataframe(privacy_budget=budget, source_id="users", dataframe=users,
                                     protected_change=AddOneRow())
    released = session.evaluate(QueryBuilder("users").groupby(["grp"]).count(), budget).toPandas()
    return released.rename(columns={"count": "n"})


def one_margin():
    p = PARAMS["one_margin"]
    persons = spark.read.parquet(str(DATA / "margin_persons.parquet"))
    session = Session.from_dataframe(privacy_budget=PureDPBudget(p["epsilon"]), source_id="persons",
                                     dataframe=persons, protected_change=AddMaxRows(2))
    keys = KeySet.from_dict({"i": list(range(1000)), "j": list(range(100))})
    released = session.evaluate(QueryBuilder("persons").groupby(keys).count(), PureDPBudget(p["epsilon"])).toPandas()
    return released.rename(columns={"count": "n"})


def main():
    workload, variant, run = parse_args(sys.argv)
    start, cpu_start = now(), tree_cpu_s()
    released = {"privacy_unit": privacy_unit, "contingency": contingency, "hierarchy": hierarchy,
                "one_group": one_group, "one_margin": one_margin}[workload]()
    release_s, release_cpu_s = now() - start, tree_cpu_s() - cpu_start
    released.to_parquet(released_path(workload, "tumult", variant, run), index=False)
    report_run(release_s=release_s, startup_s=startup_s, release_cpu_s=release_cpu_s, rows=len(released))
    spark.stop()


if __name__ == "__main__":
    main()
