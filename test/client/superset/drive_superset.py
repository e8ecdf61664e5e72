"""The analyst's side of the Superset client test: run-superset.sh sets up the
cluster's releases, starts Superset and runs this with the environment below.
It builds the analyst's connection, datasets, charts and dashboard through
Superset's REST API (analyst_dashboard.py), renders the dashboard in a
headless Chromium (browser.py), runs SQL Lab queries, and checks what the
analyst sees against the stored draws and what a view costs, reading the
budgets and the audit log as the superuser. Prints TAP lines; exits 1 if any
check failed. docs/superset.md says what each check means.

Environment: DP_SUPERSET_URL, DP_SUPERSET_USER, DP_SUPERSET_PASSWORD (the
analyst's Superset account); DP_ANALYST_ROLE, DP_ANALYST_PASSWORD,
DP_ANALYST_HOST (the analyst's PostgreSQL role, over TCP); DP_RAW_ROLE and
DP_RAW_PASSWORD (a role that can read the raw table); libpq's PGHOST,
PGPORT, PGUSER, PGPASSWORD and PGDATABASE (a superuser, in the database that
holds the releases); DP_SUPERSET_ROW_LIMIT (superset_config.py's ROW_LIMIT);
DP_CHROMIUM, DP_CHROMEDRIVER; DP_SUPERSET_SCREENSHOT (where the dashboard's
picture goes).
"""
import json
import os
import signal
import sys
import time

import psycopg2
from selenium.common.exceptions import WebDriverException

import analyst_dashboard as dash
from browser import Browser, BrowserError
from superset_api import Superset, SupersetError

ENV = os.environ
ROW_LIMIT = int(ENV["DP_SUPERSET_ROW_LIMIT"])
RELEASES = ("county_edu_counts", "daily_sign_ups", "block_counts")
LIMIT_WARNING = "The row limit set for the chart was reached. The chart may show partial data."


class Tap:
    def __init__(self):
        self.failed = 0

    def ok(self, good, what, diagnostics=""):
        print(("ok - " if good else "not ok - ") + what, flush=True)
        if not good:
            self.failed += 1
            for line in str(diagnostics).splitlines():
                print("#   " + line, flush=True)
        return good

    def same(self, got, expected, what):
        return self.ok(got == expected, what, f"got:      {got!r}\nexpected: {expected!r}")

    def note(self, text):
        print("# " + text, flush=True)


def rows(db, sql, *args):
    with db.cursor() as cursor:
        cursor.execute(sql, args)
        return cursor.fetchall()


def ledger(admin):
    """What a view must not change: every budget's spending, the audit log's
    draws, and each release table's stored draw."""
    state = {"budgets": rows(admin, "SELECT dataset, epsilon_spent::text, delta_spent::text "
                                    "FROM dp.budgets ORDER BY 1"),
             "draws": rows(admin, "SELECT count(*), max(draw_id) FROM dp.draws")}
    for release in RELEASES:
        state[release] = rows(admin, f"SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) "
                                     f"FROM {release} t")[0][0]
    return state


def table_reads(admin):
    """How often the release tables have been scanned (statistics that other
    sessions flush when they end, as each of Superset's queries does)."""
    return dict(rows(admin, "SELECT relname::text, seq_scan + coalesce(idx_scan, 0) "
                            "FROM pg_stat_user_tables WHERE relname = ANY(%s)", list(RELEASES)))


def whole(x):
    """A figure of an integer release as the page writes it."""
    return str(int(x)) if float(x).is_integer() else repr(x)


def tenth(x):
    """A figure written to a tenth (the charts' .1f format)."""
    return format(x, ".1f")


def expected_page(admin):
    """What each chart must show, as the page writes it, computed as the
    superuser from the stored draws in the forms docs/error-bars.md gives
    (each sum and its margin asked with WHERE), not through Superset."""
    def sum_and_margin(release, where, *args):
        return rows(admin, f"SELECT sum(n)::float8, dp.margin_of_error(r, 0.95), "
                           f"dp.sum_variance(r) FROM {release} r WHERE {where}", *args)[0]

    def by_education(where, *args):
        table = []
        for (edu,) in rows(admin, "SELECT DISTINCT edu FROM county_edu_counts ORDER BY 1"):
            n, m, v = sum_and_margin("county_edu_counts", f"edu = %s AND {where}", edu, *args)
            table.append([edu, whole(n), whole(m), whole(n - m), whole(n + m), tenth(v)])
        return table

    education = by_education("true")
    in_beta_gamma = [row[:5] for row in by_education("county = ANY(%s)", dash.BG_COUNTIES)]
    # County totals are margins the release keeps exact: the true counts.
    counties = [[county, str(n), "0", str(n), str(n)] for county, n in
                rows(admin, "SELECT county, count(*) FROM delinquents GROUP BY 1 ORDER BY 1")]
    days = {}
    for (day,) in rows(admin, "SELECT day::text FROM daily_sign_ups ORDER BY 1"):
        n, m, _ = sum_and_margin("daily_sign_ups", "day = %s", day)
        days[day] = f"sign-ups {tenth(n)} ({tenth(n - m)}, {tenth(n + m)})"
    draws = [[release, str(draw), mechanism, str(cells)] for release, draw, mechanism, cells in
             rows(admin, "SELECT release::text, draw_id, noise_law->>'mechanism', "
                         "coalesce(noise_law->>'cells', noise_law->>'periods') "
                         "FROM dp.release_laws ORDER BY 1")]
    blocks = [[block, str(n)] for block, n in
              rows(admin, "SELECT block, n FROM block_counts ORDER BY block")]
    return {"education": sorted(education), "in_beta_gamma": sorted(in_beta_gamma),
            "counties": sorted(counties), "days": days, "draws": sorted(draws),
            "blocks": sorted(blocks)}


def shown(cells):
    """A table's rows as the page writes them, in the order of their first
    cell (d3 writes a minus as U+2212)."""
    return sorted([cell.replace("\u2212", "-") for cell in row] for row in cells)


def view(tap, browser, url):
    """Opens the dashboard and reads every figure it shows."""
    start = time.monotonic()
    browser.open_dashboard(url, "governed-releases",
                           tables=[dash.EDUCATION, dash.EDUCATION_BG, dash.COUNTIES, dash.DRAWS,
                                   dash.BLOCKS_CUT, dash.BLOCKS_WHOLE],
                           canvases=[dash.BAND])
    ready = time.monotonic()
    page = {"education": shown(browser.table(dash.EDUCATION)),
            "in_beta_gamma": shown(browser.table(dash.EDUCATION_BG)),
            "counties": shown(browser.table(dash.COUNTIES)),
            "draws": shown(browser.table(dash.DRAWS)),
            # "2026-03-01" -> "sign-ups\t95.8 (61.6, 129.9)": a day's figure and band.
            "days": {day: " ".join(text.replace("\u2212", "-").split())
                     for day, text in browser.band_tooltips(dash.BAND).items()}}
    tap.note(f"the dashboard rendered in {ready - start:.1f} s; "
             f"its figures were read in {time.monotonic() - ready:.1f} s")
    return page


def check_page(tap, page, expected, which):
    tap.same(page["education"], expected["education"],
             f"{which}: each education level's total with its margin, lower and upper bound "
             "and variance, as the stored draw gives them")
    tap.same(page["in_beta_gamma"], expected["in_beta_gamma"],
             f"{which}: filtered to two counties, each total's margin is that of the sum "
             "of the filtered cells")
    tap.same(page["counties"], expected["counties"],
             f"{which}: each county's total is its true count, margin 0 (an exact margin)")
    tap.same(page["draws"], expected["draws"],
             f"{which}: the draw and the number of cells of each release, from dp.release_laws")
    tap.same(page["days"], expected["days"],
             f"{which}: the band chart's tooltip gives every day's figure and its 95 % band "
             "as the stored draw gives them")


def check_row_limit(tap, browser, expected):
    cells = len(expected["blocks"])
    cut = shown(browser.table(dash.BLOCKS_CUT))
    tap.ok(ROW_LIMIT < cells and cut == expected["blocks"][:ROW_LIMIT],
           f"a chart query of the {cells} cells of block_counts shows the first {ROW_LIMIT} "
           "(the row limit), as stored", f"rows on the page: {len(cut)}")
    tap.same(browser.warning(dash.BLOCKS_CUT), LIMIT_WARNING,
             "... and the dashboard flags it: a warning in the chart's header says so")
    for name in (dash.EDUCATION, dash.EDUCATION_BG, dash.COUNTIES, dash.DRAWS, dash.BLOCKS_WHOLE):
        warning = browser.warning(name)
        if not tap.ok(warning is None, f'"{name}" reaches no limit and shows no warning', warning):
            break
    pages = -(-cells // dash.BLOCKS_PAGE)
    tap.same(browser.last_page(dash.BLOCKS_WHOLE), pages,
             f"the server-paginated table shows all {cells} cells: {pages} pages of {dash.BLOCKS_PAGE}")
    last = shown(browser.go_to_page(dash.BLOCKS_WHOLE, pages))
    tap.same(last, expected["blocks"][-dash.BLOCKS_PAGE:],
             "... and its last page holds the release's last cells, as stored")


def check_sql_lab(tap, superset, database, analyst, expected):
    """Statements the analyst's role may not run: each reaches the database
    (Superset's guard against data-changing statements does not stop a SELECT
    that calls a function), which refuses it; SQL Lab shows the refusal."""
    refused = [
        ("reading the raw table", "SELECT count(*) FROM delinquents", "42501"),
        ("dp.privatize over the raw table",
         "SELECT * FROM dp.privatize('SELECT county, count(*) FROM delinquents GROUP BY 1', 1.0) "
         "AS t(county text, n bigint)", "42501"),
        ("refreshing the release (a draw)", "SELECT dp.refresh_release('county_edu_counts')", "42501"),
        ("a draw through dp.draw", "SELECT * FROM dp.draw(NULL::county_edu_counts)", "42501"),
    ]
    for what, sql, sqlstate in refused:
        status, answer = superset.sql_lab(database, sql, ROW_LIMIT)
        error = (answer.get("errors") or [{}])[0]
        with analyst.cursor() as cursor:
            try:
                cursor.execute(sql)
                code, message = "ok", ""
            except psycopg2.Error as refusal:
                code, message = refusal.pgcode, refusal.diag.message_primary
        tap.ok(status >= 400 and error.get("level") == "error"
               and error.get("error_type") == "GENERIC_DB_ENGINE_ERROR"
               and code == sqlstate and message and message in error.get("message", ""),
               f"SQL Lab: {what} is refused by the database with SQLSTATE {sqlstate}, "
               f"shown as an error: {message}",
               f"SQL Lab answered HTTP {status}: {json.dumps(answer)[:600]}\n"
               f"the role gets: {code} {message}")
    status, answer = superset.sql_lab(database, "UPDATE county_edu_counts SET n = 0", ROW_LIMIT)
    tap.same((answer.get("errors") or [{}])[0].get("error_type"), "DML_NOT_ALLOWED_ERROR",
             "SQL Lab: an UPDATE is stopped by Superset's own guard (allow_dml off)")

    status, answer = superset.sql_lab(database, "SELECT block, n FROM block_counts ORDER BY block",
                                      ROW_LIMIT)
    query = answer.get("query", {})
    tap.ok(status == 200 and len(answer.get("data", [])) == ROW_LIMIT
           and not answer.get("displayLimitReached")
           and query.get("limitingFactor") not in ("QUERY", "DROPDOWN", "QUERY_AND_DROPDOWN"),
           f"SQL Lab: the {len(expected['blocks'])} cells of block_counts come back cut to "
           f"{ROW_LIMIT} rows, with nothing in the answer that says so",
           f"HTTP {status}, rows {len(answer.get('data', []))}, "
           f"displayLimitReached {answer.get('displayLimitReached')}, "
           f"limitingFactor {query.get('limitingFactor')}")


# What docs/superset.md says never to do: a dataset that calls dp.privatize.
DRAWING_DATASET = """SELECT county, edu, n
FROM dp.privatize('SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2', 0.5,
                  'discrete_laplace') AS t(county text, edu text, n bigint)"""


def check_drawing_dataset(tap, superset, admin, uri):
    """The hazard pinned down, through a connection whose role can read the raw
    table (which the analyst's cannot): each view of a chart over dp.privatize
    draws anew, and no draw is charged or audited. Two views of 16 cells with
    discrete Laplace noise at epsilon 0.5 agree everywhere with probability
    ((1 - e^-0.5) / (1 + e^-0.5))^16 < 1e-9."""
    before = ledger(admin)
    database = superset.create("/api/v1/database/", {
        "database_name": "raw rows (never do this)", "sqlalchemy_uri": uri})
    dataset = superset.create("/api/v1/dataset/", {
        "database": database, "schema": "public", "table_name": "drawing_at_every_view",
        "sql": DRAWING_DATASET})
    query = {"datasource": {"id": dataset, "type": "table"}, "result_format": "json",
             "result_type": "full", "queries": [{
                 "columns": ["county", "edu", "n"], "row_limit": 100,
                 "orderby": [["county", True], ["edu", True]]}]}
    views = [superset.request("POST", "/api/v1/chart/data", query)["result"][0]["data"]
             for _ in range(2)]
    tap.ok(len(views[0]) == 16 and views[0] != views[1],
           "never do this: two views of a dataset over dp.privatize show different numbers "
           "(each view draws anew)", f"first: {views[0]}\nsecond: {views[1]}")
    tap.same(ledger(admin), before, "... and neither draw was charged to a budget or audited")


def main():
    tap = Tap()
    url = ENV["DP_SUPERSET_URL"]
    host, port, role = ENV["DP_ANALYST_HOST"], ENV.get("PGPORT", "5432"), ENV["DP_ANALYST_ROLE"]
    admin = psycopg2.connect("")
    admin.autocommit = True
    uri = (f"postgresql+psycopg2://{role}:{ENV['DP_ANALYST_PASSWORD']}@{host}:{port}/"
           f"{ENV['PGDATABASE']}")

    superset = Superset(url)
    try:
        superset.log_in(ENV["DP_SUPERSET_USER"], ENV["DP_SUPERSET_PASSWORD"])
        tap.ok(True, "the analyst logs in to Superset through its REST API")
    except SupersetError as error:
        tap.ok(False, "the analyst logs in to Superset through its REST API", error)
        return 1
    status, answer = superset.send("POST", "/api/v1/database/test_connection/", {
        "sqlalchemy_uri": uri, "database_name": "connection test"})
    if not tap.ok(status == 200, f"Superset reaches the cluster at {host}:{port} as the "
                  f"analyst's role {role}", f"Superset answered HTTP {status}: {json.dumps(answer)}"):
        return 1

    before = ledger(admin)
    expected = expected_page(admin)
    try:
        database, charts = dash.build(superset, uri, ROW_LIMIT)
        tap.ok(True, f"the analyst adds the connection with her own role, 4 datasets, "
                     f"{len(charts)} charts and a dashboard through the REST API")
    except SupersetError as error:
        tap.ok(False, "the analyst adds the connection, datasets, charts and dashboard", error)
        return 1

    try:
        browser = Browser(ENV["DP_CHROMIUM"], ENV["DP_CHROMEDRIVER"])
    except WebDriverException as error:
        tap.ok(False, f"Chromium starts under {ENV['DP_CHROMEDRIVER']}", error.msg)
        return 1
    try:
        attempts = browser.log_in(url, ENV["DP_SUPERSET_USER"], ENV["DP_SUPERSET_PASSWORD"])
        if attempts > 1:
            tap.note(f"the login did not hold and was made again: {attempts} attempts")
        first = view(tap, browser, url)
        check_page(tap, first, expected, "the dashboard in Chromium")
        screenshot = ENV.get("DP_SUPERSET_SCREENSHOT")
        if screenshot:
            tap.ok(browser.screenshot(screenshot, hover=dash.BAND)
                   and os.path.getsize(screenshot) > 10000,
                   f"a picture of the dashboard is written to {screenshot}")
        start = time.monotonic()
        check_row_limit(tap, browser, expected)
        tap.note(f"the row limit's checks took {time.monotonic() - start:.1f} s")
        reads = table_reads(admin)
        tap.same(view(tap, browser, url), first, "viewed again, the dashboard shows the same figures")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not all(
                table_reads(admin).get(r, 0) > reads.get(r, 0) for r in RELEASES):
            time.sleep(0.5)
        after = table_reads(admin)
        tap.ok(all(after.get(r, 0) > reads.get(r, 0) for r in RELEASES),
               "... read from the release tables again (Superset caches no results)",
               f"scans before {reads}, after {after}")
    except (BrowserError, WebDriverException) as error:
        tap.ok(False, "the dashboard renders in Chromium", error)
    finally:
        browser.close()
    tap.same(ledger(admin), before,
             "viewing the dashboard twice drew nothing: budgets, audit log and stored draws unchanged")

    analyst = psycopg2.connect(host=host, port=port, dbname=ENV["PGDATABASE"], user=role,
                               password=ENV["DP_ANALYST_PASSWORD"])
    analyst.autocommit = True
    start = time.monotonic()
    check_sql_lab(tap, superset, database, analyst, expected)
    tap.note(f"the SQL Lab checks took {time.monotonic() - start:.1f} s")
    tap.same(ledger(admin), before,
             "the refused SQL Lab queries charged nothing and changed no release")
    check_drawing_dataset(tap, superset, admin, (
        f"postgresql+psycopg2://{ENV['DP_RAW_ROLE']}:{ENV['DP_RAW_PASSWORD']}@{host}:{port}/"
        f"{ENV['PGDATABASE']}"))
    return 1 if tap.failed else 0


if __name__ == "__main__":
    # A timeout's SIGTERM unwinds like an error, so that the browser is closed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main())
