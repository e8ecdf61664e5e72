-- Hierarchy releases: every level of a geography, each node the sum of its
-- children, with the cascade and with the other mechanisms; errors.
\set VERBOSITY terse
LOAD 'invariant_dp';  -- SET dp.seed is honoured once the library is loaded
SET dp.seed = '5';
-- 3 states, 2-4 counties each, 1-3 tracts each; one person per row.
CREATE TABLE persons AS
SELECT 'S' || s AS state, 'S' || s || 'C' || c AS county, 'S' || s || 'C' || c || 'T' || t AS tract
FROM generate_series(1, 3) s, generate_series(1, s + 1) c, generate_series(1, (s + c) % 3 + 1) t,
     generate_series(1, 10 * s + 7 * c + 3 * t);
CREATE VIEW tract_counts AS SELECT state, county, tract, count(*) FROM persons GROUP BY 1, 2, 3;
SELECT count(*) AS tracts, count(DISTINCT county) AS counties, sum(count) AS people FROM tract_counts;

-- cascade: rollup rows, grand total first; NULL keys below a node's level.
CREATE TABLE cascade_release AS
SELECT * FROM dp.privatize('SELECT * FROM tract_counts ORDER BY 1, 2, 3', 1.0, 'cascade', delta => 1e-9,
                           hierarchy => '{state,county,tract}', options => '{"level": true, "stddev": true}')
AS t(state text, county text, tract text, n float8, sd float8, level int);
SELECT level, count(*) AS rows, bool_and(state IS NULL) AS no_state, bool_and(county IS NULL) AS no_county,
       bool_and(tract IS NULL) AS no_tract, min(sd) = max(sd) AS same_sd_per_level
FROM cascade_release GROUP BY level ORDER BY level;
SELECT nodes, worst_gap < 1e-12 AS consistent FROM hierarchy_gaps('SELECT * FROM cascade_release', '{state,county,tract}');
SELECT count(*) AS rows, (SELECT count(*) FROM tract_counts) + (SELECT count(DISTINCT county) FROM tract_counts) + 3 + 1
       AS leaves_counties_states_total FROM cascade_release;
-- The law: every level at the same variance (the paper's setting), published.
SELECT dp.last_release()->>'mechanism' AS mechanism, dp.last_release()->>'family' AS family,
       jsonb_array_length(dp.last_release()->'noise'->'level_variance') AS levels,
       (dp.last_release()->'hierarchy'->>'nodes')::int AS nodes,
       (SELECT count(DISTINCT round(v::numeric, 9)) FROM jsonb_array_elements_text(dp.last_release()->'noise'->'level_variance') v)
       AS distinct_variances;
-- Every row's sd is the level's published standard deviation.
SELECT bool_and(abs(sd - sqrt((dp.last_release()->'noise'->'level_variance'->>level)::float8)) < 1e-9 * sd)
       AS sd_matches_law FROM cascade_release;

-- State totals exact: the cascade conditioned on them.
SELECT state, n = true_total AS exact, sd FROM (
  SELECT t.state, t.n, t.sd, (SELECT sum(count) FROM tract_counts c WHERE c.state = t.state) AS true_total
  FROM dp.privatize('SELECT * FROM tract_counts ORDER BY 1, 2, 3', 1.0, 'cascade', delta => 1e-9,
                    margins => '{state}', hierarchy => '{state,county,tract}', options => '{"stddev": true, "level": true}')
       AS t(state text, county text, tract text, n float8, sd float8, level int)
  WHERE t.level = 1) s ORDER BY state;
SELECT dp.last_release()->>'family' AS family, jsonb_array_length(dp.last_release()->'invariants'->'fixed_nodes') AS fixed;

-- Range variance from the published law: on the binary tree of 4 ordered
-- leaves (year halves, quarters), a single leaf has the level variance v,
-- two siblings their parent's v, and leaves 1..2 (across the root)
-- 2v - 2v/8 = 1.75v (the cascade's cross-root covariance -2^-(2k-1) v, k = 2).
SELECT count(*) FROM dp.privatize($$SELECT half, quarter, 10::bigint FROM (VALUES ('H1', 'Q1'), ('H1', 'Q2'), ('H2', 'Q3'), ('H2', 'Q4')) q(half, quarter)$$,
                                  1.0, 'cascade', delta => 1e-9, hierarchy => '{half,quarter}')
AS t(half text, quarter text, n float8);
SELECT round((dp.range_variance(dp.last_release(), 0, 0) / v)::numeric, 12) AS one_leaf,
       round((dp.range_variance(dp.last_release(), 0, 1) / v)::numeric, 12) AS siblings,
       round((dp.range_variance(dp.last_release(), 1, 2) / v)::numeric, 12) AS across_root,
       round((dp.range_variance(dp.last_release(), 0, 3) / v)::numeric, 12) AS everything
FROM (SELECT (dp.last_release()->'noise'->'level_variance'->>0)::float8 AS v) law;
SELECT sqlstate_of($$SELECT dp.range_variance(dp.last_release(), 2, 4)$$);

-- Per-level targets cost what the metadata says (epsilon NULL); infeasible
-- targets are refused: a parent cannot be more than m^2 times a child.
SELECT count(*) FROM dp.privatize('SELECT * FROM tract_counts', NULL, 'cascade', delta => 1e-9,
                                  hierarchy => '{state,county,tract}', options => '{"level_variance": [400, 100, 50, 50]}')
AS t(state text, county text, tract text, n float8);
SELECT dp.last_release()->'noise'->'calibration'->>'derived_from' AS derived_from,
       (dp.last_release()->>'epsilon')::float8 > 0 AS epsilon_reported, (dp.last_release()->>'rho')::float8 > 0 AS rho_reported;
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM tract_counts', 1.0, 'cascade', delta => 1e-9,
                     hierarchy => '{state,county,tract}', options => '{"level_variance": [1, 1, 1, 0.01]}')
                     AS t(state text, county text, tract text, n float8)$$);
SELECT count(*) FROM dp.privatize('SELECT * FROM tract_counts', NULL, 'cascade', delta => 1e-9,
                                  hierarchy => '{state,county,tract}', options => '{"rho": 0.5}')
AS t(state text, county text, tract text, n float8);
SELECT (dp.last_release()->>'rho')::float8 AS rho;

-- Integer mechanisms: leaves released as usual, rollups exact integer sums,
-- declared margins exact.
CREATE TABLE integer_release AS
SELECT * FROM dp.privatize('SELECT * FROM tract_counts', 0.5, margins => '{state}',
                           hierarchy => '{state,county,tract}', options => '{"level": true}')
AS t(state text, county text, tract text, n bigint, level int);
SELECT nodes, worst_gap = 0 AS exactly_consistent FROM hierarchy_gaps('SELECT * FROM integer_release', '{state,county,tract}');
SELECT bool_and(i.n = (SELECT sum(count) FROM tract_counts c WHERE c.state = i.state)) AS state_totals_exact
FROM integer_release i WHERE level = 1;
SELECT dp.last_release()->>'mechanism' AS mechanism, dp.last_release()->'hierarchy'->>'leaves' AS leaves;
-- subspace_gaussian with a hierarchy.
SELECT nodes, worst_gap < 1e-12 AS consistent FROM hierarchy_gaps($q$
  SELECT * FROM dp.privatize('SELECT * FROM tract_counts', 1.0, 'subspace_gaussian', delta => 1e-6,
                             hierarchy => '{state,county,tract}', options => '{"level": true}')
  AS t(state text, county text, tract text, n float8, level int)$q$, '{state,county,tract}');

-- Errors.
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM tract_counts', 1.0, 'cascade', delta => 1e-9)
                     AS t(state text, county text, tract text, n float8)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM tract_counts', 1.0, 'cascade',
                     hierarchy => '{state,county,tract}') AS t(state text, county text, tract text, n float8)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM tract_counts', 1.0, 'cascade', delta => 1e-9,
                     hierarchy => '{state,district}') AS t(state text, county text, tract text, n float8)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM tract_counts', 1.0, 'cascade', delta => 1e-9,
                     hierarchy => '{state,state}') AS t(state text, county text, tract text, n float8)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM tract_counts', 1.0, 'cascade', delta => 1e-9,
                     hierarchy => '{state,county,tract}', options => '{"rho": 0.5}') AS t(state text, county text, tract text, n float8)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM tract_counts', NULL, 'cascade', delta => 1e-9,
                     hierarchy => '{state,county,tract}') AS t(state text, county text, tract text, n float8)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM tract_counts', NULL,
                     hierarchy => '{state,county,tract}') AS t(state text, county text, tract text, n bigint)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM tract_counts', 1.0, options => '{"level_variance": [1, 1]}')
                     AS t(state text, county text, tract text, n bigint)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM tract_counts', 1.0, 'cascade', delta => 1e-9,
                     margins => '{tract}', hierarchy => '{state,county}') AS t(state text, county text, tract text, n float8)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM tract_counts', 1.0, margins => '{state}',
                     hierarchy => '{state,county,tract}', options => '{"stddev": true}')
                     AS t(state text, county text, tract text, n bigint, sd float8)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM tract_counts', 1.0, hierarchy => '{state,county,tract}',
                     options => '{"level": true}') AS t(state text, county text, tract text, n bigint)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT state, NULL::text AS county, count(*) FROM persons GROUP BY 1, 2', 1.0,
                     hierarchy => '{state,county}') AS t(state text, county text, n bigint)$$);
-- ... but with the level column a NULL key is told apart from a rollup.
SELECT level, count(*) FROM dp.privatize('SELECT state, NULL::text AS county, count(*) FROM persons GROUP BY 1, 2', 1.0,
                                         hierarchy => '{state,county}', options => '{"level": true}')
AS t(state text, county text, n bigint, level int) GROUP BY level ORDER BY level;
