"""What the analyst builds in Superset over the governed releases, as
docs/superset.md describes it: the database connection (the analyst's own
PostgreSQL role); datasets that are the release tables themselves (stored
draws: every view shows the same numbers and draws nothing), each with saved
metrics that put the margin of error beside SUM(n), and one over
dp.release_laws; charts that show each figure with its error bar; a
dashboard of them. No dataset, metric or chart calls dp.privatize, which would
draw anew at every view."""
import json


def error_bar_metrics(release, figure):
    """A release dataset's saved metrics: its sum and, for exactly the rows the
    sum adds (whatever the chart groups by or filters), the margin of error at
    95 %, the interval and the variance. Superset names the table in FROM
    without an alias, so the table's name is the whole row the error-bar
    aggregates take (docs/error-bars.md)."""
    moe = f"dp.margin_of_error({release}, 0.95)"
    return [{"metric_name": figure, "expression": "SUM(n)"},
            {"metric_name": "margin_95", "expression": moe},
            {"metric_name": "lower_95", "expression": f"SUM(n) - {moe}"},
            {"metric_name": "upper_95", "expression": f"SUM(n) + {moe}"},
            {"metric_name": "variance", "expression": f"dp.sum_variance({release})",
             "d3format": ".1f"}]


# Which draw each release shows, and how many cells (or periods) it has: what
# a chart of its cells must show to show it whole.
RELEASES = """SELECT release::text AS release,
       draw_id AS draw,
       noise_law->>'mechanism' AS mechanism,
       coalesce(noise_law->>'cells', noise_law->>'periods')::bigint AS cells
FROM dp.release_laws"""

# Chart names: the test finds each chart on the page by its name.
BAND = "Daily sign-ups, with 95 % band"
EDUCATION = "Children by education level, 95 % margins"
EDUCATION_BG = "Children by education level in Beta and Gamma (a filter)"
COUNTIES = "Children by county (exact totals)"
DRAWS = "Releases and their draws"
BLOCKS_CUT = "Block counts, one chart query (cut at the row limit)"
BLOCKS_WHOLE = "Block counts, every cell (server pagination)"
BG_COUNTIES = ["Beta", "Gamma"]

BLOCKS_PAGE = 10
BLOCKS_WHOLE_LIMIT = 10000   # at least the release's cells (1500)


def sums(datasource, by, metrics, **more):
    """A Table chart of sums: one row per value of `by`."""
    return dict({"viz_type": "table", "datasource": f"{datasource}__table",
                 "query_mode": "aggregate", "groupby": [by], "metrics": metrics,
                 "row_limit": 100, "server_pagination": False}, **more)


def records(datasource, columns, order, row_limit, **more):
    """A Table chart of a dataset's rows as they are."""
    return dict({"viz_type": "table", "datasource": f"{datasource}__table",
                 "query_mode": "raw", "all_columns": columns,
                 "order_by_cols": [json.dumps([order, True])],
                 "row_limit": row_limit, "server_pagination": False}, **more)


def band(datasource, release):
    """A line chart with a band: Superset draws one between the series named
    <name>__yhat_lower and <name>__yhat_upper (the names its own forecasts
    use), on a time axis only, and its tooltip shows `value (lower, upper)`."""
    moe = f"dp.margin_of_error({release}, 0.95)"

    def metric(sql, label):
        return {"expressionType": "SQL", "sqlExpression": sql, "label": label}

    return {"viz_type": "echarts_timeseries_line", "datasource": f"{datasource}__table",
            "x_axis": "day", "time_grain_sqla": "P1D", "time_range": "No filter",
            "metrics": [metric("SUM(n)", "sign-ups"),
                        metric(f"SUM(n) - {moe}", "sign-ups__yhat_lower"),
                        metric(f"SUM(n) + {moe}", "sign-ups__yhat_upper")],
            "groupby": [], "row_limit": 1000, "y_axis_format": ".1f",
            "tooltipTimeFormat": "%Y-%m-%d", "rich_tooltip": True}


def build(superset, analyst_uri, row_limit):
    """Adds the connection, datasets, charts and dashboard; returns the
    database's id and each chart's id by name."""
    database = superset.create("/api/v1/database/", {
        "database_name": "governed releases (analyst)", "sqlalchemy_uri": analyst_uri,
        "expose_in_sqllab": True, "allow_dml": False, "allow_run_async": False})

    def dataset(name, sql=None, metrics=None):
        payload = {"database": database, "schema": "public", "table_name": name}
        if sql:
            payload["sql"] = sql
        created = superset.create("/api/v1/dataset/", payload)
        if metrics:
            superset.request("PUT", f"/api/v1/dataset/{created}", {"metrics": metrics})
        return created

    county_edu = dataset("county_edu_counts", metrics=error_bar_metrics("county_edu_counts", "children"))
    sign_ups = dataset("daily_sign_ups", metrics=error_bar_metrics("daily_sign_ups", "sign_ups"))
    blocks = dataset("block_counts")
    releases = dataset("releases", sql=RELEASES)

    bounds = ["children", "margin_95", "lower_95", "upper_95"]
    charts = {
        BAND: band(sign_ups, "daily_sign_ups"),
        EDUCATION: sums(county_edu, "edu", bounds + ["variance"]),
        EDUCATION_BG: sums(county_edu, "edu", bounds, adhoc_filters=[{
            "expressionType": "SIMPLE", "clause": "WHERE", "subject": "county",
            "operator": "IN", "comparator": BG_COUNTIES}]),
        COUNTIES: sums(county_edu, "county", bounds),
        DRAWS: records(releases, ["release", "draw", "mechanism", "cells"], "release", 100),
        BLOCKS_CUT: records(blocks, ["block", "n"], "block", row_limit),
        BLOCKS_WHOLE: records(blocks, ["block", "n"], "block", BLOCKS_WHOLE_LIMIT,
                              server_pagination=True, server_page_length=BLOCKS_PAGE),
    }
    dashboard = superset.create("/api/v1/dashboard/", {
        "dashboard_title": "Governed releases, with their error bars",
        "slug": "governed-releases", "published": True})
    ids = {}
    for name, form in charts.items():
        ids[name] = superset.create("/api/v1/chart/", {
            "slice_name": name, "viz_type": form["viz_type"],
            "datasource_id": int(form["datasource"].split("__")[0]), "datasource_type": "table",
            "params": json.dumps(form), "dashboards": [dashboard]})
    rows = [([(BAND, 6), (EDUCATION, 6)], 46),
            ([(COUNTIES, 4), (EDUCATION_BG, 4), (DRAWS, 4)], 34),
            ([(BLOCKS_CUT, 6), (BLOCKS_WHOLE, 6)], 56)]
    superset.request("PUT", f"/api/v1/dashboard/{dashboard}",
                     {"position_json": json.dumps(layout(rows, ids))})
    return database, ids


def layout(rows, ids):
    """Superset's dashboard layout (position_json): rows of charts with the
    row's height in 8-pixel units, each chart's width in twelfths of the page."""
    position = {"DASHBOARD_VERSION_KEY": "v2",
                "ROOT_ID": {"type": "ROOT", "id": "ROOT_ID", "children": ["GRID_ID"]},
                "GRID_ID": {"type": "GRID", "id": "GRID_ID", "children": [],
                            "parents": ["ROOT_ID"]}}
    for r, (row, height) in enumerate(rows):
        row_id = f"ROW-{r}"
        position["GRID_ID"]["children"].append(row_id)
        position[row_id] = {"type": "ROW", "id": row_id, "children": [],
                            "parents": ["ROOT_ID", "GRID_ID"],
                            "meta": {"background": "BACKGROUND_TRANSPARENT"}}
        for name, width in row:
            chart_id = f"CHART-{ids[name]}"
            position[row_id]["children"].append(chart_id)
            position[chart_id] = {"type": "CHART", "id": chart_id, "children": [],
                                  "parents": ["ROOT_ID", "GRID_ID", row_id],
                                  "meta": {"chartId": ids[name], "sliceName": name,
                                           "width": width, "height": height}}
    return position
