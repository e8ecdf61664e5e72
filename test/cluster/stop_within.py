#!/usr/bin/python3
"""Every request stops within a second of its statement_timeout.

test/cluster/stop_within.sh runs it. Sends, under statement_timeout = 1s,
every mechanism on every structure it accepts (no invariant, one margin,
2 x n, 3 x n and 4 x 4 tables with both margins, general margins of a
three-way table, a hierarchy, crossed hierarchies), with every sampler it
accepts, at extreme parameters: epsilon from 1e-12, counts near 2^62 / the
number of cells, privacy units with bounds near their maximum, partition
selection; dp.diagnose, dp.noisy_count and dp.total_preserving_count at the
same extremes; the range variances with the largest shapes they accept;
the largest general margins, whose set-up is one long library call;
and every error-bar function over a release table with its law forged to
extreme values (a scale of 2^54, a variance of 1e300, a covariance scale of
1e300, ...). A statement may fail with any error except an internal one or
a lost connection; it must end (by finishing, by an error or by the
timeout) within 2 s. Prints TAP: one line per group of statements, listing
the statements that took longer, failed internally or lost the
connection. Debian's python3 with python3-psycopg2 only.
"""
import argparse
import json
import queue
import sys
import threading
import time

import psycopg2

TIMEOUT_S = 1.0
LIMIT_S = 2.0

# (name, source, margins, hierarchy, extra options): tables of up to 150 cells.
def structures(count):
    grid = "generate_series(1, {})"
    return [
        ("no invariant", f"SELECT a, b, {count}::bigint FROM {grid.format(4)} a, {grid.format(5)} b", "{}", None, {}),
        ("one margin", f"SELECT a, b, {count}::bigint FROM {grid.format(4)} a, {grid.format(5)} b", "{a}", None, {}),
        ("2 x 50 both margins", f"SELECT a, b, {count}::bigint FROM {grid.format(2)} a, {grid.format(50)} b",
         "{a,b}", None, {}),
        ("3 x 50 both margins", f"SELECT a, b, {count}::bigint FROM {grid.format(3)} a, {grid.format(50)} b",
         "{a,b}", None, {}),
        ("4 x 4 both margins", f"SELECT a, b, {count}::bigint FROM {grid.format(4)} a, {grid.format(4)} b",
         "{a,b}", None, {}),
        ("general margins", f"SELECT a, b, c, {count}::bigint FROM {grid.format(3)} a, {grid.format(4)} b, "
         f"{grid.format(5)} c", '{"a,b","b,c","a,c"}', None, {}),
        ("hierarchy", f"SELECT a, b, c, {count}::bigint FROM {grid.format(3)} a, {grid.format(4)} b, "
         f"{grid.format(5)} c", "{a}", "{a,b,c}", {}),
        ("crossed hierarchies", f"SELECT a, b, c, {count}::bigint FROM {grid.format(3)} a, {grid.format(4)} b, "
         f"{grid.format(5)} c", "{}", "{a,b}", {"crossed": ["c"]}),
    ]


MECHANISMS = ["discrete_laplace", "discrete_gaussian", "subspace_gaussian", "subspace_laplace", "integer_laplace",
              "integer_laplace_l2", "integer_gaussian", "congenial", "project_l2", "project_nn_l2",
              "project_nn_integer", "cascade", "integer_cascade", "nonnegative_cascade"]
SAMPLERS = {"integer_laplace": [None, "chain"], "congenial": [None, "mis", "lattice", "rejection"],
            "integer_laplace_l2": [None], "integer_gaussian": [None]}
GAUSSIAN = {"discrete_gaussian", "subspace_gaussian", "integer_gaussian", "cascade", "integer_cascade"}
EPSILONS = ["1e-12", "1e-9", "1e-5"]
COUNTS = [1, 2**62 // 200]


def quote(text):
    return "'" + text.replace("'", "''") + "'"


def column_list(source, real):
    n_keys = source.split(" FROM ")[0].count(",")
    names = ["a", "b", "c"][:n_keys]
    return ", ".join(f"{c} int" for c in names) + (", n float8" if real else ", n bigint")


REAL = {"subspace_gaussian", "subspace_laplace", "project_l2", "project_nn_l2", "cascade"}


def privatize(mechanism, source, epsilon, margins, hierarchy, options, delta=None):
    args = [quote(source), epsilon, f"mechanism => {quote(mechanism)}", f"margins => {quote(margins)}"]
    if delta:
        args.append(f"delta => {delta}")
    if hierarchy:
        args.append(f"hierarchy => {quote(hierarchy)}")
    if options:
        args.append(f"options => {quote(json.dumps(options))}")
    return (f"SELECT count(*) FROM dp.privatize({', '.join(args)}) "
            f"AS t({column_list(source, mechanism in REAL)})")


def release_cases():
    for mechanism in MECHANISMS:
        delta = "1e-9" if mechanism in GAUSSIAN else None
        for count in COUNTS:
            for name, source, margins, hierarchy, extra in structures(count):
                for sampler in SAMPLERS.get(mechanism, [None]):
                    for epsilon in EPSILONS:
                        options = dict(extra)
                        if sampler:
                            options["sampler"] = sampler
                        yield (f"{mechanism} {name}", privatize(mechanism, source, epsilon, margins, hierarchy,
                                                                options, delta))


def unit_cases():
    rows = ("SELECT (i % 997)::text AS person, i % 7 AS a, i % 5 AS b "
            "FROM generate_series(1, 20000) i")
    for mechanism in ["discrete_laplace", "discrete_gaussian", "integer_laplace", "integer_gaussian", "congenial"]:
        for bounds in ['{"max_groups_per_unit": 1, "max_rows_per_group": 1}',
                       '{"max_groups_per_unit": 1000000, "max_rows_per_group": 1}',
                       '{"max_groups_per_unit": 1, "max_rows_per_group": 1000000}']:
            for selection in [None, "laplace", "gaussian", "noisy_count"]:
                for epsilon in ["1e-12", "1e-6", "1e-2"]:
                    options = {"partition_selection": selection} if selection else {}
                    margins = "{a}" if mechanism in ("integer_laplace", "integer_gaussian", "congenial") else "{}"
                    args = [quote(rows), epsilon, f"mechanism => {quote(mechanism)}",
                            f"margins => {quote(margins)}", "privacy_unit => 'person'", f"bounds => {quote(bounds)}"]
                    if mechanism in GAUSSIAN or selection:
                        args.append("delta => 1e-9")
                    if options:
                        args.append(f"options => {quote(json.dumps(options))}")
                    yield (f"{mechanism} with a privacy unit",
                           f"SELECT count(*) FROM dp.privatize({', '.join(args)}) AS t(a int, b int, n bigint)")


def other_cases():
    table = "SELECT a, b, {c}::bigint FROM generate_series(1, {n}) a, generate_series(1, {m}) b"
    for epsilon in ["1e-12", "1e-9", "1e-5"]:
        for mechanism, options in [("integer_laplace", {"sampler": "chain"}), ("integer_laplace_l2", {}),
                                   ("integer_gaussian", {}), ("congenial", {}), ("congenial", {"sampler": "mis"}),
                                   ("congenial", {"sampler": "lattice"})]:
            for n, m, margins in [(4, 4, "{a,b}"), (3, 5, "{a}"), (10, 10, "{}")]:
                src = table.format(c=10**6, n=n, m=m)
                delta = ", delta => 1e-9" if mechanism == "integer_gaussian" else ""
                yield ("dp.diagnose", f"SELECT count(*) FROM dp.diagnose({quote(src)}, {epsilon}, "
                       f"{quote(mechanism)}{delta}, margins => {quote(margins)}, options => "
                       f"{quote(json.dumps(options))})")
        for delta in ["", ", 1e-12"]:
            yield ("dp.noisy_count", f"SELECT count(c) FROM (SELECT dp.noisy_count({epsilon}{delta}) AS c "
                   "FROM generate_series(1, 100000) i GROUP BY i % 100) t")
        yield ("dp.total_preserving_count",
               f"SELECT count(c) FROM (SELECT dp.total_preserving_count(n, {epsilon}) OVER (PARTITION BY g) AS c "
               f"FROM (SELECT i % 3 AS g, {2**60}::bigint AS n FROM generate_series(1, 3000) i) t) u")
    for last in ["0", "2^25", "2^40", "2^62"]:
        yield ("range variances", f"SELECT dp.cascade_stream_range_variance(1.0, 0, ({last})::numeric::bigint)")
        yield ("range variances", f"SELECT dp.cascade_stream_range_variance(1e300, 0, ({last})::numeric::bigint)")
    for children in ["array[2]", "array[1000, 100000]", "array[2147483647]", "array[65536, 65536, 65536]"]:
        for error_law, deficit in [("gaussian_cascade", "'NaN'"), ("lattice_gaussian_cascade", "0.5")]:
            yield ("range variances", f"SELECT dp.cascade_range_variance({quote(error_law)}, {children}, "
                   f"array[1.0, 1e300, 1e-300, 1.0], '{{}}', {deficit}, 0, 9223372036854775806)")


# The largest inputs whose set-up is one library call that cannot poll, run
# on a helper a cancel leaves (src/core/leave_on_cancel.hpp): FLINT's LLL of
# a 40 x 40 table without a fifth of its cells (1,280 cells, a reduction of
# about two seconds), and Eigen's factorisation of the three two-way
# margins of a 33 x 33 x 33 cube without a tenth of its cells (seconds).
def unpollable_cases():
    incomplete = ("SELECT a, b, ((a + b) % 7 + 3)::bigint FROM generate_series(1, 40) a, generate_series(1, 40) b "
                  "WHERE (a * 7919 + b * 104729) % 5 <> 0")
    cube = ("SELECT a, b, c, 5::bigint FROM generate_series(1, 33) a, generate_series(1, 33) b, "
            "generate_series(1, 33) c WHERE (a * 7919 + b * 104729 + c * 15485863) % 10 <> 0")
    for mechanism, delta in [("integer_gaussian", "1e-6"), ("congenial", None)]:
        yield ("library reductions", privatize(mechanism, incomplete, "1.0", "{a,b}", None, {}, delta))
        yield ("library reductions", f"SELECT count(*) FROM dp.diagnose({quote(incomplete)}, 1.0, "
               f"{quote(mechanism)}{', delta => ' + delta if delta else ''}, margins => '{{a,b}}')")
    for mechanism, delta in [("subspace_gaussian", "1e-6"), ("project_l2", None)]:
        yield ("library reductions", privatize(mechanism, cube, "1.0", '{"a,b","b,c","a,c"}', None, {}, delta))


# A release table and its law, then every error-bar function with the law
# forged at one path to an extreme value.
FORGERIES = [
    ("noise", "exact_parameter", '"18014398509481984/1"'),
    ("noise", "exact_parameter", '"1/18014398509481984"'),
    ("noise", "exact_parameter", '"9223372036854775807/1"'),
    ("noise", "exact_parameter", '"1/9223372036854775807"'),
    ("noise", "unit_variance", "1e300"),
    ("noise", "unit_variance", "1e-300"),
    ("noise", "covariance_scale", "1e300"),
    ("noise", "variance_deficit_bound", "1e300"),
    ("noise", "level_variance", "[1e300, 1e300, 1e300]"),
    ("noise", "level_variance", "[1e-300, 1e-300, 1e-300]"),
    ("cells", None, "9000000000000000"),
    ("invariants", "rank", "9000000000000000"),
    ("hierarchy", "nodes", "9000000000000000"),
    ("hierarchy", "leaves", "9000000000000000"),
]
ERROR_BAR_RELEASES = [
    ("flat", "SELECT a, b, 5::bigint FROM generate_series(1, 2) a, generate_series(1, 2) b", "{a}", None,
     "integer_laplace", None, "a int, b int, n bigint"),
    ("flat gaussian", "SELECT a, b, 5::bigint FROM generate_series(1, 3) a, generate_series(1, 4) b", "{a,b}", None,
     "integer_gaussian", "1e-6", "a int, b int, n bigint"),
    ("2 x n", "SELECT a, b, 5::bigint FROM generate_series(1, 2) a, generate_series(1, 6) b", "{a,b}", None,
     "integer_laplace", None, "a int, b int, n bigint"),
    ("independent", "SELECT a, b, 5::bigint FROM generate_series(1, 2) a, generate_series(1, 6) b", "{}", None,
     "discrete_laplace", None, "a int, b int, n bigint"),
    ("hierarchy", "SELECT a, b, 5::bigint FROM generate_series(1, 3) a, generate_series(1, 4) b", "{}", "{a,b}",
     "integer_cascade", "1e-6", "a int, b int, n bigint"),
    ("real hierarchy", "SELECT a, b, 5::bigint FROM generate_series(1, 3) a, generate_series(1, 4) b", "{}", "{a,b}",
     "cascade", "1e-6", "a int, b int, n float8"),
    # Sums whose law is a Fourier integral over the lines of an l1 table:
    # a diagonal of a 3 x 5 table, a block of a 4 x 4 one.
    ("3 x 5 l1", "SELECT a, b, 5::bigint FROM generate_series(1, 3) a, generate_series(1, 5) b", "{a,b}", None,
     "integer_laplace", None, "a int, b int, n bigint", "WHERE a = b"),
    ("4 x 4 l1", "SELECT a, b, 5::bigint FROM generate_series(1, 4) a, generate_series(1, 4) b", "{a,b}", None,
     "integer_laplace", None, "a int, b int, n bigint", "WHERE a <= 2 AND b <= 2"),
]


def error_bar_setup(cursor, k, release):
    name, source, margins, hierarchy, mechanism, delta, columns = release[:7]
    rows = release[7] if len(release) > 7 else ""
    table = f"stop_within_bars_{k}"
    args = [quote(source), "1.0", f"mechanism => {quote(mechanism)}", f"margins => {quote(margins)}"]
    if delta:
        args.append(f"delta => {delta}")
    if hierarchy:
        args.append(f"hierarchy => {quote(hierarchy)}")
    cursor.execute(f"DROP TABLE IF EXISTS {table}")
    cursor.execute(f"CREATE TABLE {table} AS SELECT * FROM dp.privatize({', '.join(args)}) AS t({columns})")
    cursor.execute("SELECT dp.last_release()::text")
    return table, cursor.fetchone()[0], rows


def error_bar_cases(laws):
    for table, law, rows in laws:
        for top, key, value in FORGERIES:
            path = "{" + top + ("," + key if key else "") + "}"
            forged = f"jsonb_set({quote(law)}::jsonb, {quote(path)}, {quote(value)}::jsonb, true)"
            for call in [f"dp.margin_of_error(r, 0.95, {forged})", f"dp.margin_of_error(r, 0.999999, {forged})",
                         f"dp.sum_variance(r, {forged})", f"dp.error_bar(r, 0.9, {forged})"]:
                yield ("error bars on a forged law", f"SELECT {call} FROM {table} r {rows}")


def run_case(connection, sql):
    """(seconds, sqlstate or None, lost)"""
    start = time.monotonic()
    state, lost = None, False
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql)
            if cursor.description is not None:
                cursor.fetchall()
    except psycopg2.Error as error:
        state = error.pgcode
        lost = connection.closed != 0 or state is None
    return time.monotonic() - start, state, lost


def connect(dsn):
    # After a crash the server restarts: wait for it (a lost connection was already counted).
    for attempt in range(60):
        try:
            connection = psycopg2.connect(dsn)
            break
        except psycopg2.OperationalError:
            if attempt == 59:
                raise
            time.sleep(0.5)
    connection.autocommit = True
    with connection.cursor() as cursor:
        cursor.execute(f"SET statement_timeout = '{int(TIMEOUT_S * 1000)}ms'")
    return connection


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dsn", required=True)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    setup = psycopg2.connect(args.dsn)
    setup.autocommit = True
    with setup.cursor() as cursor:
        laws = [error_bar_setup(cursor, k, release) for k, release in enumerate(ERROR_BAR_RELEASES)]
    setup.close()

    cases = (list(release_cases()) + list(unit_cases()) + list(other_cases()) + list(unpollable_cases()) +
             list(error_bar_cases(laws)))
    work = queue.Queue()
    for case in cases:
        work.put(case)
    results, lock = [], threading.Lock()

    def worker():
        connection = connect(args.dsn)
        while True:
            try:
                group, sql = work.get_nowait()
            except queue.Empty:
                break
            seconds, state, lost = run_case(connection, sql)
            with lock:
                results.append((group, sql, seconds, state, lost))
            if lost:
                try:
                    connection.close()
                except psycopg2.Error:
                    pass
                connection = connect(args.dsn)
        connection.close()

    threads = [threading.Thread(target=worker) for _ in range(args.workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    groups = {}
    for group, sql, seconds, state, lost in results:
        groups.setdefault(group, []).append((sql, seconds, state, lost))
    for group, items in groups.items():
        bad = [(sql, s, st, lost) for sql, s, st, lost in items if s > LIMIT_S or st == "XX000" or lost]
        slowest = max(s for _, s, _, _ in items)
        timed_out = sum(1 for _, _, st, _ in items if st == "57014")
        finished = sum(1 for _, _, st, _ in items if st is None)
        refused = {}
        for _, _, st, _ in items:
            if st not in (None, "57014"):
                refused[st] = refused.get(st, 0) + 1
        if bad:
            print(f"not ok - {group}: {len(bad)} of {len(items)} statements did not end within {LIMIT_S:.0f} s "
                  f"of a {TIMEOUT_S:.0f} s statement_timeout, or failed internally")
            for sql, s, st, lost in bad[:10]:
                print(f"#   {s:.2f} s, {'connection lost' if lost else st or 'finished'}: {sql[:400]}")
        else:
            print(f"ok - {group}: {len(items)} statements, slowest {slowest:.2f} s: {finished} finished, "
                  f"{timed_out} stopped by the timeout, refused "
                  + (", ".join(f"{n} {st}" for st, n in sorted(refused.items())) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
