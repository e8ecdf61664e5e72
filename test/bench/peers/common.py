"""What every part of the peer benchmark shares: where the data and results
live, the workloads' privacy parameters, and how a run reports itself.

Each system's script (ours.py, opendp_peer.py, tumult_peer.py,
pipelinedp_peer.py) runs one workload once in its own process and writes the
released table as Parquet plus a JSON line of timings; measure.py runs those
processes and records their peak memory; accuracy.py compares the released
tables with the truth; report.py writes docs/comparisons/peers.md.
"""

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
WORK = Path(os.environ.get("PEERS_WORK", ROOT / "build" / "peers"))
DATA = WORK / "data"
RESULTS = WORK / "results"

# The same privacy for every system (test/bench/README.md, "Peers", says how
# each peer's definitions were matched to these).
PARAMS = {
    # Workload 1: one patient is the unit (added or removed with all their
    # visits); each bounded to 3 cells and 1 row per cell; private
    # partition selection.
    "privacy_unit": {"epsilon": 1.0, "delta": 1e-6, "max_groups": 3, "max_rows": 1},
    # Workload 2: one person changes their cell (replace-one), the only
    # relation under which exact margins can be protected; all 10^6 cells public.
    "contingency": {"epsilon": 1.0, "delta": 1e-6},
    # Workload 3: replace-one as above; epsilon for the whole hierarchy (the
    # peers split it evenly over the three levels); the tracts are public.
    "hierarchy": {"epsilon": 1.0, "delta": 1e-6},
    # Workload 4: one person added or removed, each in exactly one group
    # (one row each); the groups are not public: partition selection.
    "one_group": {"epsilon": 1.0, "delta": 1e-6},
    # Workload 5: replace-one as workload 2; all 10^5 cells public; ours
    # keeps the row totals (margin i) exact.
    "one_margin": {"epsilon": 1.0},
}

WORKLOADS = ("privacy_unit", "contingency", "hierarchy", "one_group", "one_margin")

# Shapes (generate.py).
VISITS = {"rows": 10_000_000, "patients": 1_000_000, "clinics": 1000, "months": 100}
TABLE = {"rows": 1000, "columns": 1000, "mean": 3.0}
GEOGRAPHY_SCALE = 100  # people per synthetic person of us_geography.sql
ONE_GROUP = {"users": 2_000_000, "groups": 200_000, "zipf": 0.63}
MARGIN_TABLE = {"rows": 1000, "columns": 100, "mean": 30.0}


def now():
    return time.perf_counter()


def tree_cpu_s(pid=None):
    """User + system seconds of a process and its live descendants (all
    their threads), from /proc: a peer's release is timed in CPU by this
    before and after it (Tumult's JVM is a child process)."""
    pid = os.getpid() if pid is None else pid
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    children.setdefault(int(stat.read().rsplit(")", 1)[1].split()[1]), []).append(int(entry))
            except OSError:
                pass
    total, stack = 0.0, [pid]
    while stack:
        current = stack.pop()
        stack.extend(children.get(current, []))
        try:
            with open(f"/proc/{current}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            pass
    return total


def released_path(workload, system, variant, run):
    return RESULTS / workload / f"{system}-{variant}-{run}.parquet"


def report_run(**fields):
    """The last line a system's script prints: what measure.py records."""
    sys.stdout.write("RESULT " + json.dumps(fields) + "\n")
    sys.stdout.flush()


def parse_args(argv):
    """Every system script takes: WORKLOAD VARIANT RUN."""
    if len(argv) != 4 or argv[1] not in WORKLOADS:
        sys.exit(f"usage: {argv[0]} {{{','.join(WORKLOADS)}}} VARIANT RUN")
    return argv[1], argv[2], int(argv[3])
