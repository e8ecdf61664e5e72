#!/usr/bin/python3
"""Targeted fuzzer of the dp.* functions (test/fuzz/dp_functions.sh runs it).

Sends calls of every public dp function with arguments drawn from hostile
values: counts near +-2^63, 0 and negative, NULL, NaN and +-Infinity as
counts, epsilon, delta and variances, tiny and huge epsilon, long and odd
keys, many margins and hierarchy levels, every mechanism with every
structure (no invariant, one margin, nested, crossing, general margins, a
hierarchy, crossed hierarchies, a domain, a privacy unit with bounds and
partition selection), options with extreme values, the aggregate, the window
function, diagnostics, request checks, range variances and streams.

An ordinary error is an answer. A statement fails the run when it raises an
internal error (SQLSTATE XX000), loses the connection (the backend died), or
ends more than a second after the role's statement_timeout (a loop that
does not poll for cancellation);
the statement is printed, and the run stops at a lost connection (the
server's log then says what killed it). Writes "name=value" lines to the
summary file: statements, internal, lost, late, and one sqlstate_<code> per
SQLSTATE seen. Debian's python3 with python3-psycopg2 only.
"""
import argparse
import json
import random
import sys
import time

import psycopg2

INT64_MAX = 2**63 - 1
INT64_MIN = -2**63

# Counts a source may hand over: the extremes of bigint, around 2^62 and
# 2^53 (where sums and float8 stop being exact), small and zero.
HOSTILE_COUNTS = [0, 1, 2, 3, 7, 100, -1, -2**31, 2**31, 2**53 - 1, 2**53, 2**53 + 1, 2**62 - 1, 2**62, 2**62 + 1,
                  2**63 - 2, INT64_MAX, INT64_MIN, INT64_MIN + 1, 3 * 2**61, 10**18, 10**9]
HOSTILE_FLOATS = ["0", "-1", "1", "0.5", "1e-300", "5e-324", "1e-17", "1e-12", "1e-6", "100", "101", "1e308",
                  "1e300", "'NaN'", "'Infinity'", "'-Infinity'", "NULL", "2.2250738585072014e-308",
                  "1.7976931348623157e308", "0.9999999999999999", "1e-100", "30", "4", "0.25"]
# Most arguments of a call are valid, so that the call reaches deep into the
# mechanism; the others are hostile (HOSTILE_SHARE of the time each).
HOSTILE_SHARE = 0.2
EPSILONS = ["1", "0.5", "2", "0.1", "100", "30", "1e-3", "1e-6"]
DELTAS = ["1e-6", "1e-9", "0.5", "1e-3"]
MECHANISMS = {
    # name: (integer output, needs delta)
    "discrete_laplace": (True, False), "discrete_gaussian": (True, True),
    "subspace_gaussian": (False, True), "subspace_laplace": (False, False),
    "integer_laplace": (True, False), "integer_laplace_l2": (True, False),
    "integer_gaussian": (True, True), "congenial": (True, False),
    "project_l2": (False, False), "project_nn_l2": (False, False),
    "project_nn_integer": (True, False), "cascade": (False, True),
    "integer_cascade": (True, True),
}
# Each option's valid values first, then hostile ones after the "|".
OPTION_VALUES = {
    "stddev": ["true", "false", "|", "1", '"yes"'],
    "neighbours": ['"add_remove"', '"replace_one"', "|", '"none"'],
    "iterations": ["1", "2", "10", "200", "|", "1e10", "0", "-1", "1e300", '"NaN"', "1.5"],
    "proposal_a": ["0.5", "0.9", "|", "1e-300", "0.9999999999999999", "0", "1", "5e-324"],
    "sampler": ['"auto"', '"rejection"', '"lattice"', '"mis"', "|", '"x"'],
    "partition_selection": ['"laplace"', '"gaussian"', '{"method": "gaussian", "budget_share": 0.3}', '"noisy_count"',
                            '{"method": "noisy_count"}', '"truncated_geometric"', '"auto"',
                            '{"method": "truncated_geometric", "budget_share": 0.85}', '"dp_sips"',
                            '{"method": "dp_sips", "rounds": 3, "budget_share": 0.7}', "|",
                            '{"method": "dp_sips", "rounds": 0}', '{"method": "dp_sips", "budget_share": 1e-300}',
                            '{"method": "gaussian", "rounds": 2}',
                            '{"method": "truncated_geometric", "budget_share": 1e-300}',
                            '{"method": "auto", "budget_share": 0.9999999999999999}',
                            '{"method": "noisy_count", "budget_share": 0.5}',
                            '{"method": "laplace", "budget_share": 1e-300}',
                            '{"method": "gaussian", "budget_share": 0.9999999999999999}', '"x"', '{}'],
    "keys": ['"public"', "|", '"private"'],
    "source": ['"counts"', "|", '"rows"', '"table"'],
    "rho": ["1", "0.01", "0.5", "|", "1e-300", "1e300", "5e-324", '"NaN"', "0", "-1", "1.7976931348623157e308"],
    "level": ["true", "false", "|", "1"],
    "coupled_pairs": ["1", "2", "20", "|", "1e7", "0"],
    "lag": ["1", "5", "|", "1e7", "0"],
    "surrogate_count": ["1", "7", "|", "1e7"],
}
VARIANCES = ["1", "0.5", "2", "1e308", "1e300", "1.7976931348623157e308", "5e-324", "1e-300", "4", "1e154", "1e-10",
             "16", "0.25", "1e100"]


class Sources:
    """Sources of cells, their key columns and the column definition list."""

    def __init__(self, rng):
        self.rng = rng

    def count(self, profile):
        if profile == "small":
            return self.rng.choice([0, 1, 2, 3, 5, 10, 100])
        if profile == "huge":
            return self.rng.choice([INT64_MAX, INT64_MAX - 1, 2**62, 2**62 + 1, 3 * 2**61, 2**63 - 64])
        if profile == "wide":
            return self.rng.choice([2**53, 2**53 + 1, 2**54, 10**17, 2**53 - 1])
        return self.rng.choice(HOSTILE_COUNTS)

    def key(self, kind, i):
        if kind == "int":
            return str(i)
        if kind == "bigint":
            return "(" + self.rng.choice([str(i), str(INT64_MAX - i), str(INT64_MIN + i)]) + ")::bigint"
        if kind == "float":
            return self.rng.choice([str(i) + ".0", "'NaN'::float8", "'Infinity'::float8", "-0.0", "0.0"]) \
                if self.rng.random() < 0.2 else str(i) + ".5::float8"
        # text: long, odd, empty
        odd = ["''", "'x'", "repeat('k', 10000)", "E'\\n'", "'\u00e9\u4e2d'", "'''quoted'''", "' '",
               "repeat('ab', 600)", "'NULL'"]
        return self.rng.choice(odd) + f" || '{i}'" if self.rng.random() < 0.3 else f"'k{i}'"

    def key_type(self, kind):
        return {"int": "int", "bigint": "bigint", "float": "float8", "text": "text"}[kind]

    def grid(self, shape, profile, kinds, complete=True, nulls=False):
        """A VALUES source over a grid of the given shape: (sql, columns, types)."""
        names = ["a", "b", "c", "d", "e"][:len(shape)]
        cells = [[]]
        for n in shape:
            cells = [c + [i] for c in cells for i in range(n)]
        if not complete and len(cells) > 2:
            cells = [c for c in cells if self.rng.random() < 0.7] or cells[:1]
        rows = []
        for c in cells:
            keys = [self.key(kinds[k], i) for k, i in enumerate(c)]
            if nulls and self.rng.random() < 0.1:
                keys[self.rng.randrange(len(keys))] = "NULL"
            rows.append("(" + ", ".join(keys + [f"({self.count(profile)})::bigint"]) + ")")
        sql = "SELECT * FROM (VALUES " + ", ".join(rows) + ") v(" + ", ".join(names + ["n"]) + ")"
        return sql, names, [self.key_type(k) for k in kinds]

    def series(self, shape, profile):
        """A generate_series source with one count for every cell."""
        names = ["a", "b", "c", "d"][:len(shape)]
        count = self.count(profile)
        sql = ("SELECT " + ", ".join(names) + f", ({count})::bigint FROM " +
               ", ".join(f"generate_series(1, {n}) {x}" for x, n in zip(names, shape)))
        return sql, names, ["int"] * len(shape)

    def units(self, n_units, n_cells):
        """Rows of a privacy unit: (u, a, b)."""
        return (f"SELECT u, (u * 7 + g) % {max(n_cells, 1)} AS a, g % 2 AS b FROM generate_series(1, {n_units}) u, "
                f"generate_series(1, {self.rng.choice([1, 2, 3, 5])}) g", ["a", "b"], ["int", "int"])


def quote(text):
    return "'" + text.replace("'", "''") + "'"


def dollar(text):
    return "$f$" + text + "$f$"


def text_array(items):
    return "ARRAY[" + ", ".join(quote(i) for i in items) + "]::text[]" if items else "'{}'::text[]"


class Generator:
    def __init__(self, rng):
        self.rng = rng
        self.sources = Sources(rng)

    def pick(self, items):
        return self.rng.choice(items)

    def hostile(self):
        return self.rng.random() < HOSTILE_SHARE

    def either(self, valid, hostile):
        return self.pick(hostile if self.hostile() else valid)

    def option(self, key):
        values = OPTION_VALUES[key]
        cut = values.index("|")
        return self.either(values[:cut], values[cut + 1:])

    def epsilon(self):
        return self.either(EPSILONS, HOSTILE_FLOATS)

    def delta(self, needed):
        if needed:
            return self.either(DELTAS, HOSTILE_FLOATS)
        return self.pick(HOSTILE_FLOATS) if self.rng.random() < HOSTILE_SHARE / 4 else "NULL"

    def options(self, keys):
        return "{" + ", ".join(f'"{key}": {self.option(key)}' for key in keys) + "}"

    def level_variance(self, levels):
        n = levels + self.pick([1, 1, 1, 1, 0, 2])
        base = self.pick(VARIANCES)
        values = [base] * n if self.rng.random() < 0.5 else [self.pick(VARIANCES) for _ in range(n)]
        if self.rng.random() < 0.5:  # decreasing variances: feasible splits
            values = sorted(values, key=lambda v: -float(v))
        return "[" + ", ".join(values) + "]"

    def structure(self, names):
        """margins, hierarchy and extra options for one request over these key columns."""
        k = len(names)
        kind = self.pick(["none", "one", "nested", "crossing", "general", "total", "hierarchy", "hierarchy",
                          "crossed", "many"])
        margins, hierarchy, options = [], None, {}
        if kind == "one":
            margins = [names[0]]
        elif kind == "nested" and k >= 2:
            margins = [names[0], ",".join(names[:2])]
        elif kind == "crossing" and k >= 2:
            margins = [names[0], names[1]]
        elif kind == "general" and k >= 3:
            margins = [f"{names[0]},{names[1]}", f"{names[1]},{names[2]}", f"{names[0]},{names[2]}"]
        elif kind == "total":
            margins = [""]
        elif kind == "many":
            margins = [self.pick(names + [""] + [",".join(names[:2])]) for _ in range(self.pick([3, 6, 12]))]
        elif kind == "hierarchy":
            depth = self.rng.randint(1, k)
            hierarchy = names[:depth]
            if self.rng.random() < 0.5:
                margins = [names[0]]
        elif kind == "crossed" and k >= 2:
            hierarchy = [names[0]]
            options["crossed"] = json.dumps([names[1]])
        return margins, hierarchy, options

    def privatize(self):
        rng = self.rng
        mechanism = self.pick(list(MECHANISMS)) if rng.random() < 0.98 else "no_such_mechanism"
        integer, needs_delta = MECHANISMS.get(mechanism, (True, False))
        profile = self.pick(["small", "huge", "huge", "wide", "mixed", "mixed"])
        unit = rng.random() < 0.12
        if unit:
            source, names, types = self.sources.units(self.pick([1, 5, 40, 300]), self.pick([1, 3, 10]))
        else:
            shape = [self.pick([1, 2, 2, 3, 4]) for _ in range(self.pick([1, 2, 2, 2, 3]))]
            if rng.random() < 0.3:
                source, names, types = self.sources.series([self.pick([2, 3, 10, 60]) for _ in shape], profile)
            else:
                kinds = [self.pick(["int", "int", "text", "bigint", "float"]) for _ in shape]
                source, names, types = self.sources.grid(shape, profile, kinds, complete=rng.random() < 0.7,
                                                         nulls=rng.random() < 0.1)
        margins, hierarchy, options = self.structure(names)
        cascade = mechanism in ("cascade", "integer_cascade")
        if cascade and hierarchy is None and not self.hostile():
            hierarchy = names[:rng.randint(1, len(names))]
        # Options that fit the request, or any when hostile.
        fitting = ["stddev", "iterations", "source"]
        fitting += [] if margins else ["neighbours", "keys"]
        fitting += ["sampler", "proposal_a"] if mechanism == "congenial" else []
        fitting += ["level"] if hierarchy else []
        fitting += ["rho"] if hierarchy and cascade else []
        chosen = rng.sample(list(OPTION_VALUES)[:9] if self.hostile() else fitting,
                            min(rng.choice([0, 1, 1, 2]), len(fitting)))
        for key in chosen:
            options[key] = self.option(key)
        if hierarchy and cascade and "rho" not in options and rng.random() < 0.4:
            options["level_variance"] = self.level_variance(len(hierarchy) + (0 if len(hierarchy) == len(names) else 1))
        epsilon = self.epsilon()
        if "level_variance" in options or "rho" in options:
            epsilon = self.either(["NULL"], [epsilon])
        delta = self.delta(needs_delta)
        if (unit or not margins) and rng.random() < 0.3:
            options["partition_selection"] = self.option("partition_selection")
            options.pop("keys", None)
            if delta == "NULL":
                delta = self.either(DELTAS, ["NULL"])
        args = [dollar(source), epsilon, quote(mechanism), f"delta => {delta}::float8"]
        if margins:
            args.append(f"margins => {text_array(margins)}")
        if hierarchy is not None:
            args.append(f"hierarchy => {text_array(hierarchy)}")
        if options:
            args.append("options => " + quote("{" + ", ".join(f'"{k}": {v}' for k, v in options.items()) + "}"))
        if rng.random() < 0.1 and not unit:
            args.append("domain => " + dollar("SELECT " + ", ".join(names) + " FROM (" + source + ") s"
                                              + self.pick(["", " UNION SELECT " + ", ".join(
                                                  "NULL" for _ in names)])))
        if unit:
            bound = lambda: self.either(["1", "2", "3", "1000", "1000000"], ["0", "1e300", '"NaN"', "1000001", "-1"])
            args.append("privacy_unit => 'u'")
            args.append("bounds => " + quote('{"max_groups_per_unit": ' + bound() + ', "max_rows_per_group": ' +
                                             bound() + "}"))
            source_cols = names
        else:
            source_cols = names
        columns = [f"{n} {t}" for n, t in zip(source_cols, types)]
        columns.append("n bigint" if integer else "n float8")
        if options.get("stddev") == "true":
            columns.append("sd float8")
        if options.get("level") == "true":
            columns += ["lv int"] + (["lv2 int"] if "crossed" in options else [])
        if rng.random() < 0.05:
            columns = columns[:-1] or columns
        call = "dp.privatize(" + ", ".join(args) + ") AS t(" + ", ".join(columns) + ")"
        return self.pick([f"SELECT count(*), sum(n::float8) FROM {call}",
                          f"SELECT * FROM {call}",
                          f"SELECT count(*) FROM {call} WHERE n::float8 <> 'NaN'"]), "dp.privatize"

    def check_request(self):
        mechanism = self.pick(list(MECHANISMS) + ["x", ""])
        margins = self.pick([[], ["a"], ["a", "b"], ["", "a,b"], ["a,,b"], ["a"] * 40])
        hierarchy = self.pick([None, ["a"], ["a", "b"], ["a", "a"], [""]])
        options = self.options(self.rng.sample(list(OPTION_VALUES), self.rng.choice([0, 1, 2])))
        unit = self.pick(["NULL", "'u'", "''"])
        bounds = self.pick(["NULL", "'{}'", '\'{"max_groups_per_unit": 1e300, "max_rows_per_group": 1}\'',
                            '\'{"max_groups_per_unit": 2, "max_rows_per_group": 3}\''])
        return (f"SELECT dp.check_request({quote(mechanism)}, {self.epsilon()}, {self.delta(True)}, "
                f"{text_array(margins)}, {quote(options)}, "
                f"{'NULL' if hierarchy is None else text_array(hierarchy)}, {unit}, {bounds})"), "dp.check_request"

    def diagnose(self):
        shape = [self.pick([2, 3, 4]), self.pick([2, 3])]
        source, names, _ = self.sources.grid(shape, self.pick(["small", "huge"]), ["int", "int"])
        mechanism = self.pick(["integer_laplace", "integer_laplace_l2", "integer_gaussian", "congenial",
                               "discrete_laplace"])
        options = self.options(self.rng.sample(["coupled_pairs", "lag", "surrogate_count", "iterations",
                                                "proposal_a"], self.rng.choice([0, 1, 2])))
        delta = "1e-6" if MECHANISMS[mechanism][1] else self.pick(["NULL", "NULL", "1e-6"])
        return (f"SELECT count(*) FROM dp.diagnose({dollar(source)}, {self.epsilon()}, {quote(mechanism)}, "
                f"{delta}, {text_array(self.pick([[names[0], names[1]], [names[0]], []]))}, "
                f"{quote(options)})"), "dp.diagnose"

    def noisy_count(self):
        delta = self.pick(["", ", " + self.delta(True)])
        return (f"SELECT g, dp.noisy_count({self.epsilon()}{delta}) FROM generate_series(1, "
                f"{self.pick([1, 10, 1000])}) s(i), LATERAL (SELECT i % 3 AS g) x GROUP BY g"), "dp.noisy_count"

    def total_preserving(self):
        counts = ", ".join(f"({i % 2}, ({self.sources.count(self.pick(['huge', 'mixed', 'small']))})::bigint)"
                           for i in range(self.pick([1, 2, 3, 5])))
        if self.rng.random() < 0.2:
            counts += ", (0, NULL::bigint)"
        return (f"SELECT p, dp.total_preserving_count(n, {self.epsilon()}) OVER (PARTITION BY p) "
                f"FROM (VALUES {counts}) v(p, n)"), "dp.total_preserving_count"

    def range_variance(self):
        rng = self.rng
        n_internal = self.pick([1, 2, 3, 7, 50])
        children = [self.pick([0, 1, 2, 2, 3, 5, 100000, 2**31 - 1, -1]) for _ in range(n_internal)]
        levels = self.pick([1, 2, 3, 4, 8])
        entries = [self.pick(VARIANCES) for _ in range(levels)]
        if rng.random() < 0.2:
            entries[rng.randrange(levels)] = self.pick(HOSTILE_FLOATS)
        variance = "ARRAY[" + ", ".join(entries) + "]::float8[]"
        fixed = "ARRAY[" + ", ".join(str(self.pick([0, 1, 2, 3, 10, 2**31 - 1])) for _ in range(
            self.pick([0, 0, 1, 2]))) + "]::int[]"
        first = self.pick([0, 1, 2, 10, -1, INT64_MAX, 2**32, 2**32 + 1])
        last = self.pick([0, 1, 3, 100, INT64_MAX, 2**32, -5, first])
        error_law = self.pick(["gaussian_cascade", "lattice_gaussian_cascade", "laplace_lattice", "x"])
        if rng.random() < 0.6:
            return (f"SELECT * FROM dp.cascade_range_variance({quote(error_law)}, ARRAY{children}::int[], {variance}, "
                    f"{fixed}, {self.pick(HOSTILE_FLOATS + ['0', '1e-20'])}, {first}, {last})"), \
                "dp.cascade_range_variance"
        law = {"error_law": error_law, "hierarchy": {"children": children},
               "noise": {"level_variance": [float(self.pick(VARIANCES)) for _ in range(levels)],
                         "variance_deficit_bound": self.pick([0, 1e-16, 0.5, 1, 2])},
               "invariants": {"fixed_nodes": [self.pick([0, 1, 2])] if rng.random() < 0.3 else []}}
        fn = self.pick(["dp.range_variance", "dp.range_variance_bounds"])
        return f"SELECT * FROM {fn}({quote(json.dumps(law))}::jsonb, {first}, {last})", fn

    def last_release(self):
        first = self.pick([0, 1, 5, INT64_MAX])
        return self.pick([
            "SELECT dp.last_release()",
            f"SELECT dp.range_variance(dp.last_release(), 0, {first})",
            f"SELECT * FROM dp.range_variance_bounds(dp.last_release(), {first}, {first})",
        ]), "dp.last_release"

    def stream(self):
        rng = self.rng
        if rng.random() < 0.5:
            bounds = self.pick(["NULL", '\'{"max_groups_per_unit": 2, "max_rows_per_group": 3}\'',
                                '\'{"max_groups_per_unit": 1000000, "max_rows_per_group": 1000}\''])
            return (f"SELECT dp.cascade_stream_variance({self.epsilon()}, {self.delta(True)}, "
                    f"{self.pick(['0', '1', '3', '20', '40', '62', '63', '64', '-1', '2147483647', 'NULL'])}, "
                    f"{self.pick(['replace_one', 'add_remove', 'x'])!r}, {bounds})"), "dp.cascade_stream_variance"
        first = self.pick([0, 1, 7, -1, INT64_MAX, 2**62, 2**53])
        last = self.pick([0, 1, 7, 100, INT64_MAX, 2**62, first])
        return (f"SELECT dp.cascade_stream_range_variance({self.pick(VARIANCES + HOSTILE_FLOATS)}, "
                f"{first}, {last})"), "dp.cascade_stream_range_variance"

    def governed(self):
        first = self.pick([0, 1, 2, -1, INT64_MAX])
        last = self.pick([0, 1, 3, 100, INT64_MAX])
        return self.pick([
            ("SELECT dp.refresh_release('fuzz_stream')", "dp.refresh_release"),
            ("SELECT dp.refresh_release('fuzz_unit_stream')", "dp.refresh_release"),
            ("SELECT dp.refresh_release('fuzz_huge')", "dp.refresh_release"),
            (f"SELECT dp.stream_range_variance('fuzz_stream', {first}, {last})", "dp.stream_range_variance"),
            ("SELECT * FROM dp.release_cost('fuzz_stream')", "dp.release_cost"),
            ("SELECT * FROM dp.release_costs", "dp.release_costs"),
            ("SELECT * FROM dp.stream_parameters", "dp.stream_parameters"),
            ("SELECT dp.release_columns('fuzz_huge')", "dp.release_columns"),
            (f"SELECT dp.column_list({quote(self.pick(['a int, n bigint', 'a int,', '', 'x' * 5000, 'a int; DROP']))})",
             "dp.column_list"),
            ("SELECT count(*) FROM dp.draw(NULL::fuzz_huge)", "dp.draw"),
        ])

    def statement(self):
        kind = self.rng.random()
        if kind < 0.55:
            return self.privatize()
        for limit, make in ((0.62, self.check_request), (0.67, self.diagnose), (0.72, self.noisy_count),
                            (0.79, self.total_preserving), (0.87, self.range_variance), (0.90, self.last_release),
                            (0.95, self.stream)):
            if kind < limit:
                return make()
        return self.governed()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dsn", required=True)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--summary", required=True)
    parser.add_argument("--statements", help="file that receives every statement sent, one a line")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    generator = Generator(rng)
    sent = open(args.statements, "w") if args.statements else None
    connection = psycopg2.connect(args.dsn)
    connection.autocommit = True
    with connection.cursor() as cursor:
        cursor.execute("SELECT setting::float8 / 1000 FROM pg_settings WHERE name = 'statement_timeout'")
        timeout = cursor.fetchone()[0]
    states, by_function = {}, {}
    internal, lost, late, statements = 0, 0, 0, 0
    deadline = time.monotonic() + args.seconds
    while time.monotonic() < deadline:
        sql, function = generator.statement()
        statements += 1
        by_function[function] = by_function.get(function, 0) + 1
        if sent:
            sent.write(sql.replace("\n", " ") + "\n")
            sent.flush()
        state = "00000"
        started = time.monotonic()
        try:
            with connection.cursor() as cursor:
                cursor.execute(sql)
                if cursor.description is not None:
                    cursor.fetchall()
        except psycopg2.Error as error:
            state = error.pgcode or "lost"
            if state == "lost" or connection.closed:
                lost += 1
                print(f"# connection lost by: {sql}")
                print(f"#   {str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__}")
                break
            if state == "XX000":
                internal += 1
                print(f"# internal error (XX000) from: {sql}")
                print(f"#   {error.pgerror.strip() if error.pgerror else error}")
        took = time.monotonic() - started
        if timeout > 0 and took > timeout + 1:
            late += 1
            print(f"# ended {took:.1f} s after it began, past its {timeout:g} s statement_timeout: {sql}")
        states[state] = states.get(state, 0) + 1
    connection.close() if not connection.closed else None
    with open(args.summary, "w") as out:
        out.write(f"statements={statements}\ninternal={internal}\nlost={lost}\nlate={late}\n")
        for state, n in sorted(states.items()):
            out.write(f"sqlstate_{state}={n}\n")
    print("# by function: " + ", ".join(f"{f} {n}" for f, n in sorted(by_function.items())))
    print("# by SQLSTATE: " + ", ".join(f"{s} {n}" for s, n in sorted(states.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
