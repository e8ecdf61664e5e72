"""Runs every system on every workload, each run in a fresh process, and
records in results/runs.jsonl what the run reported (its release time, and
start-up apart) with its peak memory and CPU time.

The runs are interleaved (round 1 of every system, then round 2, ...), so
that load from other work on a shared machine falls on all systems alike.
Peak memory of a peer is the largest sum of resident memory over its
process tree (Python, and Spark's JVM for Tumult), sampled every 50 ms; CPU
time is the tree's user + system time from the process's start (imports and
Spark's start-up included: tree_cpu_s), and each script reports its
release's own (release_cpu_s, or for us the backend's: backend_cpu_s). For
us the release runs in the PostgreSQL backend: ours.py reports the
backend's peak and CPU time (and parallel workers' CPU, reaped by the
postmaster), during the release and from the session's start; its own
process (Python, psycopg, Polars, parsing the rows) is tree_cpu_s here.

Environment: PEERS_RUNS (default 3) runs of each system, PEERS_RUNS_OURS,
PEERS_RUNS_OPENDP, PEERS_RUNS_TUMULT, PEERS_RUNS_PIPELINEDP for one system
(PipelineDP's pure-Python local backend takes minutes a run);
PEERS_ONLY=workload[,workload] to run only those; PEERS_FIRST_RUN (default 1)
to add rounds to results already there (runs.jsonl is appended to).
"""

import json
import os
import subprocess
import sys
import threading
import time

from common import RESULTS, WORKLOADS

SCRIPTS = {"ours": "ours.py", "opendp": "opendp_peer.py", "tumult": "tumult_peer.py",
           "pipelinedp": "pipelinedp_peer.py"}
VARIANTS = {
    "privacy_unit": {"ours": ["auto", "truncated_geometric", "dp_sips", "dp_sips_rounds3", "laplace", "gaussian",
                              "noisy_count"]},
    "contingency": {"ours": ["margins", "margins_laplace", "none"]},
    "hierarchy": {"ours": ["cascade", "integer_cascade"]},
    "one_group": {"ours": ["truncated_geometric", "truncated_geometric_share85", "laplace", "gaussian",
                           "noisy_count"]},
    "one_margin": {"ours": ["margin_groupby", "margin_rows", "none_groupby"]},
}
TICK = os.sysconf("SC_CLK_TCK")


def tree(pid):
    """pid and its descendants, from /proc."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry))
            except OSError:
                pass
    found, stack = [], [pid]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(children.get(current, []))
    return found


def sample(pid, cpu):
    """Resident MB of the tree now; updates cpu[pid] = last user + system seconds seen."""
    rss = 0
    for member in tree(pid):
        try:
            with open(f"/proc/{member}/statm") as statm:
                rss += int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            with open(f"/proc/{member}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
                cpu[member] = (int(fields[11]) + int(fields[12])) / TICK
        except OSError:
            pass
    return rss / 2**20


def run(system, workload, variant, number):
    process = subprocess.Popen([sys.executable, SCRIPTS[system], workload, variant, str(number)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak, cpu = [0.0], {}

    def monitor():
        while process.poll() is None:
            peak[0] = max(peak[0], sample(process.pid, cpu))
            time.sleep(0.05)

    watcher = threading.Thread(target=monitor)
    start = time.perf_counter()
    watcher.start()
    out, err = process.communicate()
    wall = time.perf_counter() - start
    watcher.join()
    result = [line for line in out.splitlines() if line.startswith("RESULT ")]
    if process.returncode != 0 or not result:
        # Recorded and skipped: one peer's failure does not lose the others' runs.
        with open(RESULTS / "failures.txt", "a") as failures:
            failures.write(f"{system} {workload} {variant} run {number}:\n{err[-4000:]}\n")
        return None
    record = json.loads(result[-1][len("RESULT "):])
    record.update(system=system, workload=workload, variant=variant, run=number, process_s=wall,
                  tree_peak_mb=peak[0], tree_cpu_s=sum(cpu.values()), load=os.getloadavg()[0])
    return record


def main():
    default = os.environ.get("PEERS_RUNS", "3")
    runs = {system: int(os.environ.get(f"PEERS_RUNS_{system.upper()}", default)) for system in SCRIPTS}
    only = os.environ.get("PEERS_ONLY", ",".join(WORKLOADS)).split(",")
    plan = [(workload, system, variant)
            for workload in WORKLOADS if workload in only
            for system in SCRIPTS
            for variant in VARIANTS[workload].get(system, ["default"])]
    for workload in only:
        (RESULTS / workload).mkdir(parents=True, exist_ok=True)
    log = RESULTS / "runs.jsonl"
    with open(log, "a") as out:
        for number in range(int(os.environ.get("PEERS_FIRST_RUN", "1")), max(runs.values()) + 1):
            for workload, system, variant in plan:
                if number > runs[system]:
                    continue
                record = run(system, workload, variant, number)
                if record is None:
                    print(f"{workload:12} {system:10} {variant:15} run {number}: FAILED (results/failures.txt)")
                    continue
                out.write(json.dumps(record) + "\n")
                out.flush()
                print(f"{workload:12} {system:10} {variant:15} run {number}: release {record['release_s']:8.2f} s "
                      f"(start-up {record['startup_s']:.1f} s), load {record['load']:.1f}", flush=True)


if __name__ == "__main__":
    main()
