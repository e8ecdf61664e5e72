"""invariant_dp: one release through dp.privatize, from the table in the
cluster to the released rows in this process (COPY ... TO STDOUT, parsed
into a frame). Timed from the query's start to the parsed frame, in a fresh
session; the backend's peak resident memory (VmHWM, which counts the shared
buffers it touched) is read from /proc after the query.

Variants: privacy_unit auto|truncated_geometric|dp_sips|dp_sips_rounds3|
laplace|gaussian|noisy_count (the partition selection: on the count of
units or their weights, apart from the counts, or the released count itself
against its threshold; counts discrete_laplace); contingency
margins|margins_laplace|none (integer_gaussian with both margins exact,
drawn exactly | integer_laplace with both margins exact, drawn by its
table chain, named as such | discrete_laplace); hierarchy
cascade|integer_cascade (state totals exact); one_group: the partition
selection (truncated_geometric at its default budget_share 0.5 |
truncated_geometric_share85: budget_share 0.85 | laplace | gaussian |
noisy_count; counts discrete_laplace); one_margin: integer_laplace with the
row totals exact from a GROUP BY source (margin_groupby) or from the rows
(margin_rows), and discrete_laplace without invariant from the GROUP BY
source (none_groupby). The contingency, hierarchy and one_group sources
are one row per person, counted by the release ({"source": "rows"}), as
the peers count rows themselves.

CPU: the backend's during the release (backend_cpu_s), and all of it from
the session's start (backend_whole_cpu_s), which measure.py adds to this
process's own (imports, the connection, parsing) for the whole-process
figure.
"""

import io
import json
import os
import sys

import polars as pl
import psycopg

from common import PARAMS, now, parse_args, released_path, report_run

UNIT = PARAMS["privacy_unit"]
BOUNDS = json.dumps({"max_groups_per_unit": UNIT["max_groups"], "max_rows_per_group": UNIT["max_rows"]})
TABLE = PARAMS["contingency"]
TREE = PARAMS["hierarchy"]
DOMAIN = "SELECT i, j FROM generate_series(0, 999) i, generate_series(0, 999) j"


def query(workload, variant):
    if workload == "privacy_unit":
        # One patient added or removed with all their visits, as the peers' units.
        method = {"dp_sips_rounds3": {"method": "dp_sips", "rounds": 3}}.get(variant, variant)
        options = json.dumps({"partition_selection": method, "neighbours": "add_remove"})
        return (f"SELECT * FROM dp.privatize('SELECT patient_id, clinic, month FROM visits', {UNIT['epsilon']}, "
                f"'discrete_laplace', delta => {UNIT['delta']}, privacy_unit => 'patient_id', "
                f"bounds => '{BOUNDS}', options => '{options}') AS t(clinic int, month int, n bigint)")
    if workload == "contingency":
        # One row per person, counted by the release ({"source": "rows"}):
        # no GROUP BY in PostgreSQL, as the peers count rows themselves.
        source = "SELECT i, j FROM persons"
        rows = "options => '{\"source\": \"rows\"}'"
        if variant == "margins":
            return (f"SELECT * FROM dp.privatize('{source}', {TABLE['epsilon']}, 'integer_gaussian', "
                    f"delta => {TABLE['delta']}, margins => '{{i,j}}', domain => '{DOMAIN}', {rows}) "
                    f"AS t(i int, j int, n bigint)")
        if variant == "margins_laplace":
            # 1000 x 1000 has no exact sampler for this law: its chain, named.
            chain = "options => '{\"source\": \"rows\", \"sampler\": \"chain\"}'"
            return (f"SELECT * FROM dp.privatize('{source}', {TABLE['epsilon']}, 'integer_laplace', "
                    f"margins => '{{i,j}}', domain => '{DOMAIN}', {chain}) AS t(i int, j int, n bigint)")
        return (f"SELECT * FROM dp.privatize('{source}', {TABLE['epsilon']}, 'discrete_laplace', "
                f"domain => '{DOMAIN}', {rows}) AS t(i int, j int, n bigint)")
    if workload == "one_group":
        p = PARAMS["one_group"]
        method = {"truncated_geometric_share85": {"method": "truncated_geometric", "budget_share": 0.85}}.get(
            variant, variant)
        options = json.dumps({"source": "rows", "partition_selection": method, "neighbours": "add_remove"})
        return (f"SELECT * FROM dp.privatize('SELECT grp FROM one_group', {p['epsilon']}, 'discrete_laplace', "
                f"delta => {p['delta']}, options => '{options}') AS t(grp int, n bigint)")
    if workload == "one_margin":
        p = PARAMS["one_margin"]
        domain = "SELECT i, j FROM generate_series(0, 999) i, generate_series(0, 99) j"
        if variant == "margin_rows":
            return (f"SELECT * FROM dp.privatize('SELECT i, j FROM margin_persons', {p['epsilon']}, "
                    f"'integer_laplace', margins => '{{i}}', domain => '{domain}', "
                    f"options => '{{\"source\": \"rows\"}}') AS t(i int, j int, n bigint)")
        source = "SELECT i, j, count(*) FROM margin_persons GROUP BY 1, 2"
        if variant == "margin_groupby":
            return (f"SELECT * FROM dp.privatize('{source}', {p['epsilon']}, 'integer_laplace', margins => '{{i}}', "
                    f"domain => '{domain}') AS t(i int, j int, n bigint)")
        return (f"SELECT * FROM dp.privatize('{source}', {p['epsilon']}, 'discrete_laplace', domain => '{domain}') "
                f"AS t(i int, j int, n bigint)")
    count_type = "float8" if variant == "cascade" else "bigint"
    return (f"SELECT * FROM dp.privatize('SELECT state, county, tract FROM geo_persons', "
            f"{TREE['epsilon']}, '{variant}', delta => {TREE['delta']}, hierarchy => '{{state,county,tract}}', "
            f"margins => '{{state}}', options => '{{\"level\": true, \"source\": \"rows\"}}') "
            f"AS t(state int, county int, tract int, n {count_type}, level int)")


def cpu_s(pid, children=False):
    """User + system seconds of a process (of its reaped children: the
    postmaster's, which include the parallel workers that ended)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    first = 13 if children else 11
    return (int(fields[first]) + int(fields[first + 1])) / os.sysconf("SC_CLK_TCK")


def parent(pid):
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[1])


def vm_hwm_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return None


def main():
    workload, variant, run = parse_args(sys.argv)
    with psycopg.connect(host=os.environ["PEERS_PGHOST"], port=os.environ["PEERS_PGPORT"], user="postgres",
                         dbname="postgres", autocommit=True) as conn:
        pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        postmaster = parent(pid)
        cpu_before_backend = cpu_s(pid)
        cpu_before = cpu_before_backend + cpu_s(postmaster, children=True)
        start = now()
        buffer = io.BytesIO()
        with conn.cursor().copy(f"COPY ({query(workload, variant)}) TO STDOUT (FORMAT csv, HEADER)") as copy:
            for block in copy:
                buffer.write(block)
        released = pl.read_csv(buffer.getvalue())
        release_s = now() - start
        peak_mb = vm_hwm_mb(pid)
        backend_cpu_s = cpu_s(pid) + cpu_s(postmaster, children=True) - cpu_before
        # The whole backend, from the session's start, and the parallel workers.
        backend_whole_cpu_s = cpu_s(pid) + cpu_s(postmaster, children=True) - cpu_before + cpu_before_backend
        law = conn.execute("SELECT dp.last_release()").fetchone()[0]
    released = released.rename({released.columns[-2 if workload == "hierarchy" else -1]: "n"})
    released.write_parquet(released_path(workload, "ours", variant, run))
    selection = law.get("partition_selection") or {}
    report_run(release_s=release_s, startup_s=0.0, backend_peak_mb=peak_mb, backend_cpu_s=backend_cpu_s,
               backend_whole_cpu_s=backend_whole_cpu_s, rows=released.height,
               selection=selection.get("method"), units_at_half=selection.get("units_at_half"),
               threshold=selection.get("threshold"), epsilon=law.get("epsilon"), delta=law.get("delta"),
               neighbours=law.get("neighbours"))


if __name__ == "__main__":
    main()
