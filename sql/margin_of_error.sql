-- Error bars of sums of released cells: dp.margin_of_error, dp.sum_variance
-- and dp.error_bar beside sum(n) over a release table, for a stored
-- dp.privatize result with its law and for governed releases read by an
-- analyst. Only what the law fixes is printed (variances and margins follow
-- from the law and the keys, never from the noisy counts); a release's
-- noisy numbers never are.
\set VERBOSITY terse

-- The session's release, stored with its law.
CREATE TABLE ce AS
SELECT * FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 0.5,
                           margins => '{county}') AS t(county text, edu text, n bigint);
CREATE TABLE ce_law AS SELECT dp.last_release() AS law;
-- A county's total is a margin: exact. An education level's crosses the four
-- county groups: one cell of each, four times the cell's conditioned variance.
SELECT county, dp.sum_variance(r, l.law) AS variance, dp.margin_of_error(r, 0.95, l.law) AS moe
FROM ce r, ce_law l GROUP BY county ORDER BY county;
SELECT edu, round(dp.sum_variance(r, l.law)::numeric, 6) AS variance, dp.margin_of_error(r, 0.95, l.law) AS moe,
       dp.margin_of_error(r, 0.5, l.law) AS moe_50
FROM ce r, ce_law l GROUP BY edu ORDER BY edu;
-- The law as a literal, a parameter or a scalar subquery: the same figures.
SELECT law AS ce_law FROM ce_law \gset
SELECT dp.margin_of_error(r, 0.95, :'ce_law') = dp.margin_of_error(r, 0.95, (SELECT law FROM ce_law)) AS same
FROM ce r WHERE edu = 'Low';
-- The whole error bar: how the variance is known and how the margin holds.
SELECT (b).cells, round((b).variance::numeric, 6) AS variance, (b).variance = (b).variance_lower AS one_value,
       (b).variance_kind, (b).confidence, (b).margin_of_error, (b).margin_kind, (b).method, (b).caveat
FROM (SELECT dp.error_bar(r, 0.9, l.law) AS b FROM ce r, ce_law l WHERE edu IN ('Low', 'High')) s;
-- Multiplicity: a row a join repeats counts as often as sum(n) counts it.
SELECT round((dp.sum_variance(r, :'ce_law') /
              (SELECT dp.sum_variance(c, :'ce_law') FROM ce c WHERE c.county = 'Beta' AND c.edu = 'Low'))::numeric, 9)
       AS ratio_to_one_cell
FROM ce r CROSS JOIN generate_series(1, 2) g WHERE r.county = 'Beta' AND r.edu = 'Low';

-- NULLs as PostgreSQL's aggregates treat them: no rows, NULL; a NULL row,
-- confidence or law is skipped.
SELECT dp.margin_of_error(r, 0.95, l.law) IS NULL AS no_rows FROM ce r, ce_law l WHERE false;
SELECT dp.margin_of_error(r, NULL, l.law) IS NULL AS null_confidence FROM ce r, ce_law l;
SELECT dp.sum_variance(r, NULL) IS NULL AS null_law FROM ce r;
SELECT e.edu, count(r.*) AS rows, dp.sum_variance(r, l.law) IS NULL AS no_variance
FROM (VALUES ('Low'), ('None')) e(edu) LEFT JOIN ce r ON r.edu = e.edu CROSS JOIN ce_law l
GROUP BY e.edu ORDER BY e.edu;

-- A hierarchy: every node a row, the level column read; a county's
-- variance is that of the sum of its cells; the grand total is exact.
CREATE TABLE ce_tree AS
SELECT * FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 1.0, 'cascade',
                           delta => 1e-6, hierarchy => '{county}', margins => '{""}', options => '{"level": true}')
    AS t(county text, edu text, n float8, level integer);
CREATE TABLE ce_tree_law AS SELECT dp.last_release() AS law;
SELECT level, count(*) AS rows, (dp.error_bar(r, 0.95, l.law)).variance_kind
FROM ce_tree r, ce_tree_law l GROUP BY level ORDER BY level;
SELECT round(c.v::numeric, 9) = round(s.v::numeric, 9) AS county_is_the_sum_of_its_cells, s.v > 0 AS noisy
FROM (SELECT dp.sum_variance(r, l.law) AS v FROM ce_tree r, ce_tree_law l WHERE level = 1 AND county = 'Gamma') c,
     (SELECT dp.sum_variance(r, l.law) AS v FROM ce_tree r, ce_tree_law l WHERE level = 2 AND county = 'Gamma') s;
SELECT dp.sum_variance(r, l.law) AS total_variance FROM ce_tree r, ce_tree_law l WHERE level = 0;

-- Refusals, each with its SQLSTATE.
SELECT sqlstate_of($$SELECT dp.margin_of_error(r, 0, (SELECT law FROM ce_law)) FROM ce r$$);
SELECT sqlstate_of($$SELECT dp.margin_of_error(r, 1.5, (SELECT law FROM ce_law)) FROM ce r$$);
SELECT sqlstate_of($$SELECT dp.margin_of_error(r, 'NaN', (SELECT law FROM ce_law)) FROM ce r$$);
SELECT sqlstate_of($$SELECT dp.margin_of_error(ROW('Alpha', 'Low', 3), 0.9, (SELECT law FROM ce_law))$$);
SELECT sqlstate_of($$SELECT dp.margin_of_error(r, 0.9) FROM ce r$$);
SELECT sqlstate_of($$SELECT dp.margin_of_error(ROW('Alpha', 'Nowhere', 3)::ce, 0.9, (SELECT law FROM ce_law))$$);
SELECT sqlstate_of($$SELECT dp.margin_of_error(r, 0.9, '{"mechanism": "congenial", "error_law": "data_dependent"}') FROM ce r$$);
SELECT sqlstate_of($$SELECT dp.margin_of_error(r, 0.9, '{"mechanism": "integer_laplace", "error_law": "laplace_lattice"}') FROM ce r$$);
-- A law that does not say its family (as laws were written before 0.7.0).
SELECT sqlstate_of($$SELECT dp.margin_of_error(r, 0.9, '{"mechanism": "integer_laplace"}') FROM ce r$$);
-- The family is the law's error_law, whatever mechanism it names.
SELECT sqlstate_of($$SELECT dp.margin_of_error(r, 0.9, jsonb_set(l.law, '{mechanism}', '"congenial"')) FROM ce r, ce_law l$$);
SELECT sqlstate_of($$SELECT dp.margin_of_error(r, 0.9, 'null') FROM ce r$$);
SELECT sqlstate_of($$SELECT dp.margin_of_error(r, 0.9, (SELECT law FROM ce_tree_law)) FROM ce r$$);
SELECT sqlstate_of($$SELECT dp.margin_of_error(r, 0.9, l.law) FROM ce r, (SELECT law FROM ce_law UNION ALL SELECT law FROM ce_tree_law) l$$);
CREATE TABLE ce_part AS SELECT * FROM ce WHERE county <> 'Delta';
SELECT sqlstate_of($$SELECT dp.margin_of_error(r, 0.9, (SELECT law FROM ce_law)) FROM ce_part r$$);
CREATE VIEW ce_view AS SELECT * FROM ce;
SELECT sqlstate_of($$SELECT dp.margin_of_error(r, 0.9, (SELECT law FROM ce_law)) FROM ce_view r$$);
ALTER TABLE ce_part ENABLE ROW LEVEL SECURITY;
CREATE POLICY alpha_only ON ce_part USING (county = 'Alpha');
CREATE ROLE regress_moe_reader;
GRANT SELECT ON ce_part, ce_law TO regress_moe_reader;
SET ROLE regress_moe_reader;
SELECT sqlstate_of($$SELECT dp.margin_of_error(r, 0.9, (SELECT law FROM ce_law)) FROM ce_part r$$);
SELECT sqlstate_of($$SELECT dp.margin_of_error(ROW('Alpha', 'Low', 3)::ce, 0.9, (SELECT law FROM ce_law))$$);
RESET ROLE;

-- Parallel query: partial states combine, the same figures come out.
CREATE TABLE wide AS SELECT * FROM dp.privatize(
    $$SELECT a, b, count(*) FROM generate_series(1, 60) a, generate_series(1, 300) b GROUP BY 1, 2$$,
    1.0, 'subspace_laplace', margins => '{a,b}') AS t(a int, b int, n float8);
CREATE TABLE wide_law AS SELECT dp.last_release() AS law;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT dp.margin_of_error(r, 0.95, (SELECT law FROM wide_law)) FROM wide r WHERE a <= 30;
CREATE TEMP TABLE parallel_figure AS
SELECT dp.sum_variance(r, (SELECT law FROM wide_law)) AS v FROM wide r WHERE a <= 30 AND b % 3 = 0;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
SELECT round(v::numeric, 6) = round(s::numeric, 6) AS same_in_parallel
FROM parallel_figure, (SELECT dp.sum_variance(r, (SELECT law FROM wide_law)) AS s FROM wide r WHERE a <= 30 AND b % 3 = 0) q;
-- Many cells of projected Laplace noise: still the quantile of the sum's
-- law, its weights Pi_N w over the whole 60 x 300 table.
SELECT (dp.error_bar(r, 0.9, (SELECT law FROM wide_law))).method FROM wide r WHERE a = 1 AND b <= 40;
-- statement_timeout stops the statement (the preparation polls for it).
SET statement_timeout = '1ms';
SELECT dp.margin_of_error(r, 0.95, (SELECT law FROM wide_law)) FROM wide r;
RESET statement_timeout;

-- A hand-made table whose keys have no equality (json, point) has no error
-- bars, as a release would refuse such keys (42883).
CREATE TABLE moe_json AS SELECT json_build_object('county', county) AS county, edu, n FROM ce;
SELECT sqlstate_of($$SELECT dp.margin_of_error(r, 0.95, (SELECT law FROM ce_law)) FROM moe_json r$$);
DROP TABLE moe_json;

-- A governed release, read by an analyst: the law of its latest draw is
-- shown in dp.release_laws, the aggregates need no law.
SELECT dp.set_budget('moe survey', epsilon => 5.0);
SELECT dp.register_release('public.moe_county_edu', 'moe survey',
    source  => $$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$,
    columns => 'c text, e text, n bigint',
    epsilon => 0.5, margins => '{county}', options => '{"keys": "public"}');
-- Before its first draw the table is empty (no rows: NULL) and has no law.
SELECT dp.margin_of_error(r, 0.95) IS NULL AS no_rows FROM moe_county_edu r;
SELECT release, draw_id IS NULL AS no_draw, key_columns FROM dp.release_laws;
SELECT dp.refresh_release('public.moe_county_edu') > 0 AS drawn;
CREATE ROLE regress_moe_analyst;
SELECT dp.grant_release('public.moe_county_edu', 'regress_moe_analyst');
SET ROLE regress_moe_analyst;
SELECT release, key_columns, noise_law->>'mechanism' AS mechanism FROM dp.release_laws;
-- The table's columns are c and e; the law names them county and edu.
SELECT e, dp.margin_of_error(r, 0.95) AS moe, (dp.error_bar(r, 0.95)).variance_kind
FROM moe_county_edu r GROUP BY e ORDER BY e;
SELECT c, dp.margin_of_error(r, 0.95) AS moe FROM moe_county_edu r GROUP BY c ORDER BY c;
-- The same figures as the stored session release of the same law.
SELECT dp.margin_of_error(r, 0.95) AS moe FROM moe_county_edu r WHERE e = 'Low';
RESET ROLE;
SELECT dp.margin_of_error(r, 0.95, (SELECT law FROM ce_law)) AS moe FROM ce r WHERE edu = 'Low';
-- Another role sees no law and reads no table.
SET ROLE regress_moe_reader;
SELECT count(*) AS laws_seen FROM dp.release_laws;
SELECT sqlstate_of($$SELECT dp.margin_of_error(r, 0.95) FROM moe_county_edu r$$);
RESET ROLE;
-- A new draw: its law is read, the structure built again.
SELECT dp.refresh_release('public.moe_county_edu') > 0 AS drawn_again;
SET ROLE regress_moe_analyst;
SELECT dp.margin_of_error(r, 0.95) AS moe FROM moe_county_edu r WHERE e = 'Low';
RESET ROLE;
-- A law belongs to its release, not to its name: renamed, the table keeps
-- its law and its error bars; dropped and registered again under the same
-- name, the release starts with no law and no last draw of its own.
ALTER TABLE moe_county_edu RENAME TO moe_county_edu_renamed;
SELECT release, noise_law->>'mechanism' AS mechanism FROM dp.release_laws
WHERE release = 'public.moe_county_edu_renamed'::regclass;
SELECT dp.margin_of_error(r, 0.95) > 0 AS has_error_bars FROM moe_county_edu_renamed r WHERE e = 'Low';
SELECT last_drawn_at IS NOT NULL AS drawn, last_draw_exact FROM dp.release_cost('public.moe_county_edu_renamed');
ALTER TABLE moe_county_edu_renamed RENAME TO moe_county_edu;
SELECT dp.drop_release('public.moe_county_edu');
SELECT dp.register_release('public.moe_county_edu', 'moe survey',
    source  => $$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$,
    columns => 'c text, e text, n bigint',
    epsilon => 0.5, margins => '{county,edu}', mechanism => 'integer_gaussian', delta => 1e-9,
    options => '{"keys": "public"}');
SELECT release, draw_id IS NULL AS no_law FROM dp.release_laws WHERE release = 'public.moe_county_edu'::regclass;
SELECT last_drawn_at IS NULL AS never_drawn, last_draw_exact IS NULL AS no_exactness
FROM dp.release_cost('public.moe_county_edu');
SELECT sqlstate_of($$SELECT dp.margin_of_error(r, 0.95) FROM moe_county_edu r$$) AS before_its_first_draw;
SELECT dp.set_budget('moe survey', epsilon => 5.0, delta => 1e-5);
SELECT dp.refresh_release('public.moe_county_edu') > 0 AS drawn;
SELECT noise_law->>'mechanism' AS mechanism FROM dp.release_laws WHERE release = 'public.moe_county_edu'::regclass;

-- A governed release with per-cell intervals: every draw adds lower and
-- upper, and the aggregates read its table as the one without them.
SELECT dp.register_release('public.moe_intervals', 'moe survey',
    source  => $$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$,
    columns => 'c text, e text, n bigint, lower bigint, upper bigint',
    epsilon => 0.5, margins => '{county}', options => '{"keys": "public", "interval": 0.9}');
SELECT dp.refresh_release('public.moe_intervals') > 0 AS drawn;
SELECT dp.grant_release('public.moe_intervals', 'regress_moe_analyst');
SET ROLE regress_moe_analyst;
SELECT count(*) AS cells, bool_and(lower <= n AND n <= upper) AS around_n, count(DISTINCT upper - n) AS half_widths
FROM moe_intervals;
SELECT noise_law -> 'interval' ->> 'kind' AS kind, noise_law -> 'interval' ->> 'level' AS level
FROM dp.release_laws WHERE release = 'public.moe_intervals'::regclass;
SELECT c, dp.margin_of_error(r, 0.95) AS moe FROM moe_intervals r WHERE c = 'Beta' GROUP BY c;
SELECT dp.margin_of_error(r, 0.95) > 0 AS low_moe_positive FROM moe_intervals r WHERE e = 'Low';
RESET ROLE;

-- A governed stream: periods in period order, exact variances.
CREATE TABLE moe_events (day date NOT NULL, id int);
REVOKE ALL ON moe_events FROM PUBLIC;
INSERT INTO moe_events SELECT date '2026-03-01' + i % 6, i FROM generate_series(1, 600) i;
SELECT dp.register_stream('public.moe_daily', 'moe survey', $$SELECT day, count(*) FROM moe_events GROUP BY 1$$,
                          'day date, n float8', 0.5, 1e-6, horizon => 4);
SELECT dp.set_budget('moe survey', epsilon => 5.0, delta => 1e-5);
SELECT dp.refresh_release('public.moe_daily') > 0 AS drawn;
SELECT round((dp.sum_variance(r) / s.variance)::numeric, 9) AS first_four_days_in_node_variances,
       round((dp.stream_range_variance('public.moe_daily', 0, 3) / s.variance)::numeric, 9) AS range_variance
FROM moe_daily r, dp.stream_parameters s WHERE r.day < date '2026-03-05' GROUP BY s.variance;
SELECT (dp.error_bar(r, 0.95)).margin_kind FROM moe_daily r;

-- Short four-line integer_laplace tables at small epsilon: the covariance
-- scale c is computed from b and the table's shape alone and published as
-- the release's scale: exact on a 4 x 4 table at epsilon 0.25 (b = 16),
-- certified within 1e-3 on a 4 x 6 table at epsilon 0.1 (b = 40) and on a
-- 4 x 4 table at epsilon 0.02 (b = 200: a sum's variance a bracket that
-- narrow) and 0.004 (b = 1000). Past what is computed (a 4 x 4 table at
-- epsilon 1e-5, b = 400,000, whose grid would pass 2^24 points a side) it
-- is the Monte Carlo estimate, and says so.
CREATE TABLE short_laws (epsilon float8, shape text, law jsonb);
CREATE TABLE short_4x4 (a int, b int, n bigint);
CREATE TABLE short_4x6 (a int, b int, n bigint);
CREATE TABLE short_4x4_small (a int, b int, n bigint);
CREATE TABLE short_4x4_wide (a int, b int, n bigint);
CREATE TABLE short_4x4_past (a int, b int, n bigint);
SET dp.seed = 21;
INSERT INTO short_4x4
SELECT * FROM dp.privatize($$SELECT a, b, count(*) FROM generate_series(1, 4) a, generate_series(1, 4) b,
                             generate_series(1, 3 + a * b % 4) GROUP BY 1, 2$$, 0.25, 'integer_laplace',
                           margins => '{a,b}') AS t(a int, b int, n bigint);
INSERT INTO short_laws SELECT 0.25, '4 x 4', dp.last_release();
INSERT INTO short_4x6
SELECT * FROM dp.privatize($$SELECT a, b, count(*) FROM generate_series(1, 4) a, generate_series(1, 6) b,
                             generate_series(1, 3 + a * b % 4) GROUP BY 1, 2$$, 0.1, 'integer_laplace',
                           margins => '{a,b}') AS t(a int, b int, n bigint);
INSERT INTO short_laws SELECT 0.1, '4 x 6', dp.last_release();
INSERT INTO short_4x4_small
SELECT * FROM dp.privatize($$SELECT a, b, count(*) FROM generate_series(1, 4) a, generate_series(1, 4) b,
                             generate_series(1, 3 + a * b % 4) GROUP BY 1, 2$$, 0.02, 'integer_laplace',
                           margins => '{a,b}') AS t(a int, b int, n bigint);
INSERT INTO short_laws SELECT 0.02, '4 x 4', dp.last_release();
INSERT INTO short_4x4_wide
SELECT * FROM dp.privatize($$SELECT a, b, count(*) FROM generate_series(1, 4) a, generate_series(1, 4) b,
                             generate_series(1, 3 + a * b % 4) GROUP BY 1, 2$$, 0.004, 'integer_laplace',
                           margins => '{a,b}') AS t(a int, b int, n bigint);
INSERT INTO short_laws SELECT 0.004, '4 x 4', dp.last_release();
INSERT INTO short_4x4_past
SELECT * FROM dp.privatize($$SELECT a, b, count(*) FROM generate_series(1, 4) a, generate_series(1, 4) b,
                             generate_series(1, 3 + a * b % 4) GROUP BY 1, 2$$, 1e-5, 'integer_laplace',
                           margins => '{a,b}') AS t(a int, b int, n bigint);
INSERT INTO short_laws SELECT 1e-5, '4 x 4', dp.last_release();
RESET dp.seed;
SELECT epsilon, shape, published_scale, (e).variance_kind,
       round(((e).variance / (e).variance_lower - 1)::numeric, 4) AS bracket_width
FROM (SELECT l.epsilon, l.shape,
             CASE WHEN l.epsilon > 1e-4
                  THEN round((l.law -> 'noise' -> 'covariance_scale' -> 0 ->> 'scale')::numeric, 6) END
                 AS published_scale,
             CASE l.shape || ' at ' || l.epsilon
                 WHEN '4 x 4 at 0.25' THEN (SELECT dp.error_bar(r, 0.9, l.law) FROM short_4x4 r WHERE a = 1 AND b <= 2)
                 WHEN '4 x 6 at 0.1' THEN (SELECT dp.error_bar(r, 0.9, l.law) FROM short_4x6 r WHERE a = 1 AND b <= 2)
                 WHEN '4 x 4 at 0.02'
                     THEN (SELECT dp.error_bar(r, 0.9, l.law) FROM short_4x4_small r WHERE a = 1 AND b <= 2)
                 WHEN '4 x 4 at 0.004'
                     THEN (SELECT dp.error_bar(r, 0.9, l.law) FROM short_4x4_wide r WHERE a = 1 AND b <= 2)
                 ELSE (SELECT dp.error_bar(r, 0.9, l.law) FROM short_4x4_past r WHERE a = 1 AND b <= 2) END AS e
      FROM short_laws l) s
ORDER BY epsilon DESC;
DROP TABLE short_laws, short_4x4, short_4x6, short_4x4_small, short_4x4_wide, short_4x4_past;

-- Short three-line tables integrate their second angle by residues: a
-- 3 x 3 table at epsilon 0.01 (b = 400) publishes its scale exact, and a
-- pair of cells gets an exact variance.
CREATE TABLE short_3x3 (a int, b int, n bigint);
SET dp.seed = 22;
INSERT INTO short_3x3
SELECT * FROM dp.privatize($$SELECT a, b, count(*) FROM generate_series(1, 3) a, generate_series(1, 3) b,
                             generate_series(1, 100) GROUP BY 1, 2$$, 0.01, 'integer_laplace',
                           margins => '{a,b}') AS t(a int, b int, n bigint);
RESET dp.seed;
SELECT round((dp.last_release() -> 'noise' -> 'covariance_scale' -> 0 ->> 'scale')::numeric, 4) AS published_scale,
       (e).variance_kind, round((e).variance::numeric, 2) AS pair_variance
FROM (SELECT dp.error_bar(r, 0.9, dp.last_release()) AS e FROM short_3x3 r WHERE a = 1 AND b <= 2) s;
DROP TABLE short_3x3;

-- Clean up.
SELECT dp.drop_release('public.moe_daily');
SELECT dp.drop_release('public.moe_county_edu');
DROP OWNED BY regress_moe_analyst, regress_moe_reader;
DROP ROLE regress_moe_analyst, regress_moe_reader;
DROP TABLE ce, ce_law, ce_tree, ce_tree_law, ce_part, wide, wide_law, moe_events CASCADE;
