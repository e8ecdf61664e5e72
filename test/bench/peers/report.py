"""Writes docs/comparisons/peers.md from results/ (runs.jsonl, accuracy.jsonl,
laws.json) and the hand-written text beside it (peers_reading.md), and the
data of its figure (peers_time.dat, peers_accuracy.dat, drawn by peers.gp).

Per system and workload: the median release time over the runs (with the
fastest and slowest), start-up apart, peak memory and CPU time (medians),
and the accuracy (median over the runs); the targets are checked on the
medians.
"""

import datetime
import json
import statistics
import subprocess
from collections import defaultdict

from common import RESULTS, ROOT, WORK

DOCS = ROOT / "docs" / "comparisons"
NAMES = {
    ("ours", "laplace"): "invariant_dp (Laplace selection)",
    ("ours", "gaussian"): "invariant_dp (Gaussian selection)",
    ("ours", "noisy_count"): "invariant_dp (noisy_count selection)",
    ("ours", "margins"): "invariant_dp integer_gaussian, margins exact",
    ("ours", "margins_laplace"): "invariant_dp integer_laplace, margins exact",
    ("ours", "none"): "invariant_dp discrete_laplace, no invariant",
    ("ours", "cascade"): "invariant_dp cascade, states exact",
    ("ours", "integer_cascade"): "invariant_dp integer_cascade, states exact",
    ("ours", "truncated_geometric"): "invariant_dp (truncated geometric selection, budget_share 0.5)",
    ("ours", "truncated_geometric_share85"): "invariant_dp (truncated geometric selection, budget_share 0.85)",
    ("ours", "dp_sips"): "invariant_dp (DP-SIPS selection, one round)",
    ("ours", "dp_sips_rounds3"): "invariant_dp (DP-SIPS selection, three rounds)",
    ("ours", "auto"): "invariant_dp (auto selection)",
    ("ours", "margin_groupby"): "invariant_dp integer_laplace, row totals exact, GROUP BY source",
    ("ours", "margin_rows"): "invariant_dp integer_laplace, row totals exact, rows source",
    ("ours", "none_groupby"): "invariant_dp discrete_laplace, no invariant, GROUP BY source",
    ("opendp", "default"): "OpenDP",
    ("tumult", "default"): "Tumult Analytics",
    ("pipelinedp", "default"): "PipelineDP",
}
SHORT = {
    ("ours", "laplace"): "ours, Laplace selection", ("ours", "gaussian"): "ours, Gaussian selection",
    ("ours", "noisy_count"): "ours, noisy_count selection",
    ("ours", "margins"): "ours integer_gaussian", ("ours", "margins_laplace"): "ours integer_laplace",
    ("ours", "none"): "ours discrete_laplace", ("ours", "cascade"): "ours cascade",
    ("ours", "integer_cascade"): "ours integer_cascade", ("opendp", "default"): "OpenDP",
    ("ours", "truncated_geometric"): "ours, truncated geometric 0.5",
    ("ours", "truncated_geometric_share85"): "ours, truncated geometric 0.85",
    ("ours", "dp_sips"): "ours, DP-SIPS", ("ours", "dp_sips_rounds3"): "ours, DP-SIPS 3 rounds",
    ("ours", "auto"): "ours, auto selection",
    ("ours", "margin_groupby"): "ours, margin, GROUP BY", ("ours", "margin_rows"): "ours, margin, rows",
    ("ours", "none_groupby"): "ours discrete_laplace, GROUP BY",
    ("tumult", "default"): "Tumult", ("pipelinedp", "default"): "PipelineDP",
}
WORKLOAD_TITLES = {
    "privacy_unit": "1. Privacy unit: 10M visits, 1M patients, 100,000 clinic x month cells, "
                    "3 cells and 1 row per patient, epsilon 1, delta 1e-6, partition selection",
    "contingency": "2. Contingency table: 1000 x 1000 cells from 3.0M persons, epsilon 1 (replace-one)",
    "hierarchy": "3. Hierarchy: 50 states, 3,143 counties, 85,015 tracts from 3.3M persons, epsilon 1, "
                 "delta 1e-6 (replace-one)",
    "one_group": "4. One group per person: 2M persons in 200,000 Zipf-sized groups, no public keys, epsilon 1, "
                 "delta 1e-6 (add/remove one person), partition selection",
    "one_margin": "5. One margin exact: 1000 x 100 cells from 3.0M persons, row totals exact, epsilon 1 "
                  "(replace-one)",
}
ORDER = ("privacy_unit", "contingency", "hierarchy", "one_group", "one_margin")


def load(name):
    with open(RESULTS / name) as lines:
        return [json.loads(line) for line in lines]


def median(values):
    """The median; of whole numbers (cells, parents), the lower middle one."""
    values = [v for v in values if v is not None]
    if not values:
        return None
    return statistics.median_low(values) if all(isinstance(v, int) for v in values) else statistics.median(values)


def fmt(value, digits=2):
    if value is None:
        return "—"
    if isinstance(value, int) or (abs(value) >= 100 and abs(value - round(value)) < 1e-6):
        return f"{int(round(value)):,}"
    return f"{value:,.{digits}f}"


def summarise():
    runs, scores = load("runs.jsonl"), load("accuracy.jsonl")
    grouped = defaultdict(lambda: {"runs": [], "scores": []})
    for run in runs:
        grouped[(run["workload"], run["system"], run["variant"])]["runs"].append(run)
    for score in scores:
        grouped[(score["workload"], score["system"], score["variant"])]["scores"].append(score)
    rows = {}
    for key, group in grouped.items():
        timed = group["runs"]
        ours = key[1] == "ours"
        row = {
            "runs": len(timed),
            "release": median([r["release_s"] for r in timed]),
            "fastest": min(r["release_s"] for r in timed), "slowest": max(r["release_s"] for r in timed),
            "startup": median([r["startup_s"] for r in timed]),
            "peak_mb": median([r["backend_peak_mb"] if ours else r["tree_peak_mb"] for r in timed]),
            # The release's CPU (ours: the backend's during the query; a
            # peer's tree during its release call), and the whole process's
            # (ours: this client process, imports included, plus the whole
            # backend; a peer's tree from its start, imports and Spark's
            # start-up included).
            "cpu": median([r["backend_cpu_s"] if ours else r.get("release_cpu_s") for r in timed]),
            "cpu_whole": median([r["tree_cpu_s"] + r["backend_whole_cpu_s"] if ours and "backend_whole_cpu_s" in r
                                 else None if ours else r["tree_cpu_s"] for r in timed]),
            "load": median([r["load"] for r in timed]),
            # The selection's count at about half chance (ours: units_at_half or
            # the threshold; OpenDP: its threshold on the released count).
            "units_at_half": median([r.get("units_at_half") or r.get("threshold") for r in timed]),
        }
        for metric in group["scores"][0] if group["scores"] else []:
            if metric not in ("workload", "system", "variant", "run"):
                row[metric] = median([s[metric] for s in group["scores"]])
        rows[key] = row
    return rows


def time_columns(row):
    return (f"{fmt(row['release'])} ({fmt(row['fastest'])}–{fmt(row['slowest'])}) | {fmt(row['startup'], 1)} | "
            f"{fmt(row['cpu'], 1)} | {fmt(row['cpu_whole'], 1)} | {fmt(row['peak_mb'], 0)}")


TIME_HEAD = ("| system | runs | release s, median (fastest–slowest) | start-up s | CPU s, release | "
             "CPU s, whole process | peak MB |")


def table(rows, workload, columns):
    keys = sorted((k for k in rows if k[0] == workload), key=lambda k: (k[1] != "ours", k[1], k[2]))
    head = TIME_HEAD + "".join(f" {title} |" for title, _ in columns)
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for key in keys:
        row = rows[key]
        cells = "".join(f" {fmt(row.get(metric))} |" for _, metric in columns)
        lines.append(f"| {NAMES[key[1:]]} | {row['runs']} | {time_columns(row)} |{cells}")
    return "\n".join(lines)


def fastest_peer(rows, workload):
    peers = [(rows[k]["release"], k[1]) for k in rows if k[0] == workload and k[1] != "ours"]
    return min(peers) if peers else (None, None)


def cpu_ratio(rows, workload, ours):
    """The fastest peer's CPU time over ours, of the release and of the whole
    process: less disturbed by the machine's other load than the wall clock."""
    _, peer = fastest_peer(rows, workload)
    theirs = rows[(workload, peer, "default")]
    release = f"{theirs['cpu'] / ours['cpu']:.1f} x" if theirs["cpu"] and ours["cpu"] else "—"
    whole = (f"{theirs['cpu_whole'] / ours['cpu_whole']:.1f} x" if theirs["cpu_whole"] and ours["cpu_whole"]
             else "—")
    return f"{release} less CPU in the release, {whole} in the whole process"


def verdicts(rows):
    lines = []
    best_time, best_peer = fastest_peer(rows, "privacy_unit")
    for variant in ("auto", "truncated_geometric", "dp_sips", "dp_sips_rounds3", "laplace", "gaussian", "noisy_count"):
        ours = rows.get(("privacy_unit", "ours", variant))
        if not ours or best_time is None:
            continue
        peers = [rows[k] for k in rows if k[0] == "privacy_unit" and k[1] != "ours"]
        most_cells = max(p["cells_shown"] for p in peers)
        best_noise = min(min(p["noise_rmse"] for p in peers), ours["noise_rmse"])
        lines.append(f"- Workload 1, {NAMES[('ours', variant)]}: {best_time / ours['release']:.1f} x faster than "
                     f"the fastest peer ({NAMES[(best_peer, 'default')]}; target 10 x; {cpu_ratio(rows, 'privacy_unit', ours)}); {fmt(ours['cells_shown'])} cells "
                     f"shown against at most {fmt(most_cells)} (target: at least as many); noise RMSE "
                     f"{ours['noise_rmse']:.2f} against the best {best_noise:.2f} (target: within 10 %).")
    best_time, best_peer = fastest_peer(rows, "contingency")
    for variant in ("margins", "margins_laplace", "none"):
        ours = rows.get(("contingency", "ours", variant))
        if ours and best_time is not None:
            lines.append(f"- Workload 2, {NAMES[('ours', variant)]}: {best_time / ours['release']:.1f} x faster than "
                         f"the fastest peer ({NAMES[(best_peer, 'default')]}; target 10 x; "
                         f"{cpu_ratio(rows, 'contingency', ours)}); row and column totals off: "
                         f"{fmt(ours['totals_off'])} (target 0 with margins exact).")
    best_time, best_peer = fastest_peer(rows, "hierarchy")
    slowest_peer = max((rows[k]["release"] for k in rows if k[0] == "hierarchy" and k[1] != "ours"), default=None)
    for variant in ("cascade", "integer_cascade"):
        ours = rows.get(("hierarchy", "ours", variant))
        if ours and best_time is not None:
            lines.append(f"- Workload 3, {NAMES[('ours', variant)]}: {best_time / ours['release']:.1f} x faster than "
                         f"the fastest peer (target: faster than every peer; the slowest took {slowest_peer:.1f} s; "
                         f"{cpu_ratio(rows, 'hierarchy', ours)}, against the fastest); "
                         f"{fmt(ours['parents_off'])} inconsistent parents (target 0).")
    best_time, best_peer = fastest_peer(rows, "one_group")
    opendp = rows.get(("one_group", "opendp", "default"))
    for variant in ("truncated_geometric", "truncated_geometric_share85", "laplace", "gaussian", "noisy_count"):
        ours = rows.get(("one_group", "ours", variant))
        if ours and best_time is not None:
            share = f"{100 * ours['cells_shown'] / opendp['cells_shown']:.0f} %" if opendp else "—"
            lines.append(f"- Workload 4, {NAMES[('ours', variant)]}: {best_time / ours['release']:.1f} x faster than "
                         f"the fastest peer ({NAMES[(best_peer, 'default')]}; target 10 x; "
                         f"{cpu_ratio(rows, 'one_group', ours)}); {fmt(ours['cells_shown'])} groups shown, {share} "
                         f"of OpenDP's (target 90 % with unbiased counts); RMSE of the shown counts "
                         f"{fmt(ours['cells_rmse'])}, mean error of the shown groups under 30 "
                         f"{fmt(ours['small_mean_error'])}.")
    best_time, best_peer = fastest_peer(rows, "one_margin")
    for variant in ("margin_groupby", "margin_rows", "none_groupby"):
        ours = rows.get(("one_margin", "ours", variant))
        if ours and best_time is not None:
            lines.append(f"- Workload 5, {NAMES[('ours', variant)]}: {best_time / ours['release']:.1f} x faster than "
                         f"the fastest peer ({NAMES[(best_peer, 'default')]}; target 10 x; "
                         f"{cpu_ratio(rows, 'one_margin', ours)}); row totals off: {fmt(ours['totals_off'])}.")
    return "\n".join(lines)


def laws_table():
    laws = json.loads((RESULTS / "laws.json").read_text())
    head = ("| law | scale | our path | X² (df) | critical at α = 10⁻³ | p | agree | X², ours at 1.05 × scale | "
            "fails | power (computed) |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for t in laws["tests"]:
        scale = f"b = {t['scale']:g}" if t["law"] == "laplace" else f"σ = {t['scale']:g}"
        lines.append(f"| discrete {t['law']} | {scale} | {t['path']} | {t['statistic']:.1f} ({t['df']}) | "
                     f"{t['critical']:.1f} | {t['p_value']:.3f} | {'yes' if t['agree'] else 'NO'} | "
                     f"{t['wrong_scale_statistic']:.0f} | {'yes' if t['wrong_scale_fails'] else 'NO'} | "
                     f"{t['power_computed']:.4f} (at 1 %: {t['power_one_percent']:.2f}) |")
    return "\n".join(lines)


def figure_data(rows):
    """peers_time.dat and peers_accuracy.dat: one block per workload (gnuplot index)."""
    panels = {
        "privacy_unit": [("noise RMSE", "noise_rmse"), ("cells shown / 1000", "cells_shown")],
        "contingency": [("cell RMSE", "cells_rmse"), ("row/column total RMSE / 10", "totals_rmse")],
        "hierarchy": [("state RMSE", "level1_rmse"), ("county RMSE", "level2_rmse"), ("tract RMSE", "level3_rmse")],
        "one_group": [("count RMSE", "cells_rmse"), ("groups shown / 1000", "cells_shown")],
        "one_margin": [("cell RMSE", "cells_rmse"), ("row total RMSE / 10", "totals_rmse")],
    }
    with open(DOCS / "peers_time.dat", "w") as times, open(DOCS / "peers_accuracy.dat", "w") as accuracy:
        for workload in ORDER:
            keys = sorted((k for k in rows if k[0] == workload), key=lambda k: (k[1] != "ours", k[1], k[2]))
            times.write(f"# {workload}: label release_s startup_s\n")
            accuracy.write(f"# {workload}: label " + " ".join(m for _, m in panels[workload]) + "\n")
            for key in keys:
                row = rows[key]
                label = f'"{SHORT[key[1:]]}"'
                times.write(f"{label} {row['release']:.3f} {row['startup']:.3f}\n")
                values = [row.get(m) or 0.0 for _, m in panels[workload]]
                if workload in ("privacy_unit", "one_group"):
                    values[1] /= 1000
                if workload in ("contingency", "one_margin"):
                    values[1] /= 10
                accuracy.write(label + "".join(f" {v:.4f}" for v in values) + "\n")
            times.write("\n\n")
            accuracy.write("\n\n")


def main():
    rows = summarise()
    for key, row in rows.items():
        if key[0] == "privacy_unit":
            # The noise's own error: the bounding's variance (random bounding) taken out.
            row["noise_rmse"] = max(0.0, row["cells_rmse"] ** 2 - row["bounding_sd"] ** 2) ** 0.5
    figure_data(rows)
    load = [(WORK / name).read_text().strip() for name in ("load-before.txt", "load-after.txt")]
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    out = [
        "# invariant_dp beside OpenDP, Tumult Analytics and PipelineDP",
        "",
        f"Generated by `scripts/bench-peers` (test/bench/peers/) at commit {commit}, "
        f"{datetime.date.today().isoformat()}, on the 2-core, 24 GB development machine shared with other "
        f"work. Load (uptime) before the runs: `{load[0]}`; after: `{load[1]}`. Each run is a fresh process "
        "(for us a fresh session), the runs interleaved across systems so that load falls on all alike; "
        "times are from the data at rest (the Parquet file for a peer, the table for us) to the released "
        "table in the benchmark's process. How to read the tables, what was matched and how, and what each "
        "system does that the others do not: [below](#how-to-read-this).",
        "",
        "![release time and accuracy per workload and system](peers.png)",
        "",
    ]
    columns = {
        "privacy_unit": [("cells shown", "cells_shown"), ("RMSE of shown cells", "cells_rmse"),
                         ("of which bounding sd", "bounding_sd"), ("noise RMSE", "noise_rmse"),
                         ("mean error", "cells_mean_error"), ("bounded total", "truth_total_kept")],
        "contingency": [("cell RMSE", "cells_rmse"), ("row/col total RMSE", "totals_rmse"),
                        ("largest total error", "totals_max_error"), ("totals off (of 2,000)", "totals_off"),
                        ("negative cells", "negative_cells")],
        "hierarchy": [("state RMSE", "level1_rmse"), ("county RMSE", "level2_rmse"), ("tract RMSE", "level3_rmse"),
                      ("parents ≠ sum of children (of 3,193)", "parents_off")],
        "one_group": [("groups shown", "cells_shown"), ("RMSE of shown counts", "cells_rmse"),
                      ("mean error", "cells_mean_error"), ("shown groups under 30", "small_shown"),
                      ("their mean error", "small_mean_error"), ("count at about half chance", "units_at_half")],
        "one_margin": [("cell RMSE", "cells_rmse"), ("row total RMSE", "totals_rmse"),
                       ("largest total error", "totals_max_error"), ("totals off (of 1,000)", "totals_off"),
                       ("negative cells", "negative_cells")],
    }
    for workload in (w for w in ORDER if any(k[0] == w for k in rows)):
        out += [f"## {WORKLOAD_TITLES[workload]}", "", table(rows, workload, columns[workload]), ""]
    out += ["## 6. The laws: our samplers against OpenDP's, 10⁶ draws each", "", laws_table(), "",
            "## Targets", "", verdicts(rows), "", (DOCS / "peers_reading.md").read_text()]
    (DOCS / "peers.md").write_text("\n".join(out))
    print(f"wrote {DOCS / 'peers.md'}")


if __name__ == "__main__":
    main()
