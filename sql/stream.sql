-- Governed streams: a growing time series whose refreshes append the new
-- periods without redrawing the released ones, charged once for the whole
-- horizon, refused when the released past changes or the horizon is
-- reached, with the secret state out of every analyst's reach. Only
-- deterministic things are printed (counts, equalities, costs, errors).
\set VERBOSITY terse
CREATE ROLE regress_stream_analyst;
CREATE TABLE page_views (day date NOT NULL, visitor int);
REVOKE ALL ON page_views FROM PUBLIC;
INSERT INTO page_views SELECT date '2026-01-01' + i % 3, i FROM generate_series(1, 30) AS i;

SELECT dp.set_budget('web traffic', 1.0, 1e-5);
SELECT dp.register_stream('daily_views', 'web traffic',
    source  => 'SELECT day, count(*) FROM page_views GROUP BY 1',
    columns => 'day date, n float8',
    epsilon => 0.5, delta => 1e-6, horizon => 3);
SELECT release, mechanism, epsilon, delta, options FROM dp.releases WHERE release = 'daily_views'::regclass;
-- Calibrated once for 2^3 periods on the depth-3 cascade's sensitivity.
SELECT horizon, neighbours, variance = dp.cascade_stream_variance(0.5, 1e-6, 3, 'replace_one') AS calibrated,
       variance > dp.cascade_stream_variance(0.5, 1e-6, 3, 'add_remove') AS replace_one_costs_more,
       released, last_key, state IS NULL AS no_state_yet
FROM dp.streams;

-- Registration errors, before anything is created.
SELECT sqlstate_of($$SELECT dp.register_stream('bad_views', 'web traffic', 'SELECT day, count(*) FROM page_views GROUP BY 1',
                     'day date, n bigint', 0.5, 1e-6)$$);
SELECT sqlstate_of($$SELECT dp.register_stream('bad_views', 'web traffic', 'SELECT day, count(*) FROM page_views GROUP BY 1',
                     'day date, n float8', 0.5, 1e-6, 63)$$);
SELECT sqlstate_of($$SELECT dp.register_stream('bad_views', 'web traffic', 'SELECT day, count(*) FROM page_views GROUP BY 1',
                     'day date, n float8', 0.5, 1e-6, options => '{"neighbors": "add_remove"}')$$);
SELECT sqlstate_of($$SELECT dp.register_stream('bad_views', 'web traffic', 'SELECT day, count(*) FROM page_views GROUP BY 1',
                     'day date, n float8', 0.5, NULL)$$);
SELECT to_regclass('bad_views') IS NULL AS nothing_half_created;

-- The first refresh draws three days and charges (0.5, 1e-6) once.
SELECT dp.refresh_release('daily_views') IS NOT NULL AS drawn;
SELECT count(*) AS periods FROM daily_views;
SELECT released, last_key, state IS NOT NULL AS has_state FROM dp.streams;
SELECT epsilon_spent, delta_spent FROM dp.budgets WHERE dataset = 'web traffic';
CREATE TEMP TABLE first_draw AS SELECT day, float8send(n) AS bits FROM daily_views;

-- Two new days: appended, the released days byte-identical, nothing charged.
INSERT INTO page_views SELECT date '2026-01-04' + i % 2, i FROM generate_series(1, 20) AS i;
SELECT dp.refresh_release('daily_views') IS NOT NULL AS drawn;
SELECT count(*) AS periods FROM daily_views;
SELECT count(*) AS unchanged FROM first_draw f JOIN daily_views d USING (day) WHERE float8send(d.n) = f.bits;
SELECT released, last_key FROM dp.streams;
SELECT epsilon_spent, delta_spent FROM dp.budgets WHERE dataset = 'web traffic';
-- A refresh with no new day appends nothing and charges nothing.
SELECT dp.refresh_release('daily_views') IS NOT NULL AS drawn;
SELECT epsilon, delta, cells, noise_law->'first_period' AS first_period, noise_law->'periods' AS periods, note
FROM dp.draws WHERE release = 'public.daily_views' ORDER BY draw_id;

-- The released past must not change: a missing or an inserted past day is
-- refused, and nothing is drawn, charged or changed; the audit log keeps
-- the refused appends (at no cost: the stream's first draw paid for all).
CREATE TEMP TABLE before_refusal AS
SELECT (SELECT md5(state) FROM dp.streams) AS state, (SELECT count(*) FROM dp.draws) AS draws,
       (SELECT count(*) FROM daily_views) AS periods,
       (SELECT epsilon_spent + delta_spent FROM dp.budgets WHERE dataset = 'web traffic') AS spent;
DELETE FROM page_views WHERE day = '2026-01-02';
\set VERBOSITY default
SELECT dp.refresh_release('daily_views');
\set VERBOSITY terse
INSERT INTO page_views SELECT '2026-01-02', i FROM generate_series(1, 10) AS i;
INSERT INTO page_views VALUES ('2025-12-31', 0);
SELECT sqlstate_of($$SELECT dp.refresh_release('daily_views')$$);
DELETE FROM page_views WHERE day = '2025-12-31';
SELECT (SELECT md5(state) FROM dp.streams) = b.state AS same_state,
       (SELECT epsilon_spent + delta_spent FROM dp.budgets WHERE dataset = 'web traffic') = b.spent AS no_charge,
       (SELECT count(*) FROM dp.draws WHERE note LIKE 'failed after its charge%' AND epsilon = 0) AS refused_audited,
       (SELECT count(*) FROM daily_views) = b.periods AS same_rows, (SELECT released FROM dp.streams) AS released
FROM before_refusal b;

-- The horizon: 2^3 = 8 periods. Four more days would make 9: refused whole.
INSERT INTO page_views SELECT date '2026-01-06' + i % 4, i FROM generate_series(1, 8) AS i;
SELECT sqlstate_of($$SELECT dp.refresh_release('daily_views')$$);
SELECT count(*) AS periods FROM daily_views;
DELETE FROM page_views WHERE day = '2026-01-09';
SELECT dp.refresh_release('daily_views') IS NOT NULL AS drawn;
SELECT count(*) AS periods, (SELECT released FROM dp.streams) AS released FROM daily_views;
SELECT count(*) AS unchanged FROM first_draw f JOIN daily_views d USING (day) WHERE float8send(d.n) = f.bits;
INSERT INTO page_views VALUES ('2026-01-09', 1);
SELECT sqlstate_of($$SELECT dp.refresh_release('daily_views')$$);
SELECT epsilon, delta, draws_remaining FROM dp.release_cost('daily_views');

-- Analysts read the release and its range variances, never the state.
SELECT dp.grant_release('daily_views', 'regress_stream_analyst');
SET ROLE regress_stream_analyst;
SELECT count(*) AS periods FROM daily_views;
SELECT sqlstate_of($$SELECT state FROM dp.streams$$);
SELECT sqlstate_of($$SELECT * FROM dp.stream_append_as_owner('daily_views', 'regress_stream_analyst', 'public',
                     'SELECT 1', '{}', NULL, 1, 3, NULL, NULL)$$);
SELECT sqlstate_of($$SELECT dp.refresh_release('daily_views')$$);
-- Var of periods a..b over the node variance v: a leaf v; two siblings (their
-- parent) v; two cousins 2v - 2v/8; three leaves v + v - 2v/4; all eight v.
SELECT first, last, round((dp.stream_range_variance('daily_views', first, last)
                           / (SELECT dp.cascade_stream_variance(0.5, 1e-6, 3, 'replace_one')))::numeric, 12) AS over_v
FROM (VALUES (4, 4), (0, 1), (1, 2), (0, 2), (0, 7), (3, 6)) AS r(first, last);
SELECT sqlstate_of($$SELECT dp.stream_range_variance('daily_views', 0, 8)$$);
RESET ROLE;

-- Clean up.
SELECT dp.drop_release('daily_views');
SELECT count(*) AS streams_left FROM dp.streams;
DELETE FROM dp.draws;
DELETE FROM dp.budgets;
DROP TABLE page_views;
DROP OWNED BY regress_stream_analyst;
DROP ROLE regress_stream_analyst;
