-- The integer cascade: integer counts at every level of a geography, each
-- node the exact sum of its children, declared margins exact; the published
-- per-level variances and their certified bounds; range variances; crossed
-- hierarchies; errors; cancellation; a governed release. Only exact
-- properties are printed (row counts, equalities, SQLSTATEs), never noise.
\set VERBOSITY terse
LOAD 'invariant_dp';  -- SET dp.seed is honoured once the library is loaded
SET dp.seed = '15';
-- 3 states (S3 has a single county), 2-4 counties each, 1-3 tracts each,
-- 1-4 blocks each; block counts from 0 to 40.
CREATE TABLE blocks AS
SELECT 'S' || s AS state, 'S' || s || 'C' || c AS county, 'S' || s || 'C' || c || 'T' || t AS tract,
       'S' || s || 'C' || c || 'T' || t || 'B' || b AS block, ((7 * s + 5 * c + 3 * t + 11 * b) % 41)::bigint AS n
FROM generate_series(1, 3) s, generate_series(1, CASE s WHEN 3 THEN 1 ELSE s + 1 END) c,
     generate_series(1, (s + c) % 3 + 1) t, generate_series(1, (s + 2 * c + t) % 4 + 1) b;
REVOKE ALL ON blocks FROM PUBLIC;
SELECT count(*) AS blocks, count(DISTINCT tract) AS tracts, count(DISTINCT county) AS counties, sum(n) AS people
FROM blocks;

-- Every level as integers (bigint), grand total first, NULL below a row's level.
CREATE TABLE uniform_release AS
SELECT * FROM dp.privatize('SELECT * FROM blocks ORDER BY 1, 2, 3, 4', 1.0, 'integer_cascade', delta => 1e-9,
                           hierarchy => '{state,county,tract,block}', options => '{"level": true, "stddev": true}')
AS t(state text, county text, tract text, block text, n bigint, sd float8, level int);
SELECT level, count(*) AS rows, bool_and(state IS NULL) AS no_state, bool_and(county IS NULL) AS no_county,
       bool_and(tract IS NULL) AS no_tract, bool_and(block IS NULL) AS no_block
FROM uniform_release GROUP BY level ORDER BY level;
SELECT nodes, worst_gap = 0 AS each_node_the_sum_of_its_children
FROM hierarchy_gaps('SELECT * FROM uniform_release', '{state,county,tract,block}');
-- The published law: integer output, one variance per level (uniform here)
-- with its certified lower bound, an exact sampler, the zCDP conversion.
SELECT dp.last_release()->>'mechanism' AS mechanism, dp.last_release()->>'output' AS output,
       dp.last_release()->>'family' AS family, dp.last_release()->'sampler'->>'exact' AS exact_sampler,
       (dp.last_release()->'sampler'->>'attempts')::int >= 1 AS attempts_reported,
       dp.last_release()->'noise'->'calibration'->>'epsilon_delta_conversion' AS conversion,
       (dp.last_release()->>'cells')::int AS cells;
SELECT jsonb_array_length(l->'level_variance') AS levels,
       jsonb_array_length(l->'level_variance_lower_bound') AS lower_bounds,
       (SELECT bool_and(lo::float8 <= up::float8 AND lo::float8 > up::float8 * (1 - 1e-12))
        FROM jsonb_array_elements_text(l->'level_variance') WITH ORDINALITY u(up, i)
        JOIN jsonb_array_elements_text(l->'level_variance_lower_bound') WITH ORDINALITY w(lo, j) ON i = j)
       AS lower_within_certified_factor,
       (l->>'variance_deficit_bound')::float8 < 1e-15 AS deficit_negligible,
       (SELECT count(DISTINCT v) FROM jsonb_array_elements_text(l->'level_variance') v) AS distinct_variances
FROM (SELECT dp.last_release()->'noise' AS l) law;
-- Each row's sd is the square root of its level's published variance.
SELECT bool_and(abs(sd - sqrt((dp.last_release()->'noise'->'level_variance'->>level)::float8)) < 1e-12 * sd)
       AS sd_matches_law FROM uniform_release;

-- State totals exact (whole nodes): the noise conditioned on them.
CREATE TABLE exact_states AS
SELECT * FROM dp.privatize('SELECT * FROM blocks ORDER BY 1, 2, 3, 4', 0.5, 'integer_cascade', delta => 1e-9,
                           margins => '{state}', hierarchy => '{state,county,tract,block}',
                           options => '{"level": true}')
AS t(state text, county text, tract text, block text, n bigint, level int);
SELECT nodes, worst_gap = 0 AS each_node_the_sum_of_its_children
FROM hierarchy_gaps('SELECT * FROM exact_states', '{state,county,tract,block}');
SELECT e.level, e.state, e.n = b.total AS exact
FROM exact_states e
JOIN LATERAL (SELECT sum(n) AS total FROM blocks b WHERE e.state IS NULL OR b.state = e.state) b ON true
WHERE e.level <= 1 ORDER BY e.level, e.state;
SELECT dp.last_release()->>'family' AS family, dp.last_release()->'invariants'->'margins' AS margins,
       jsonb_array_length(dp.last_release()->'invariants'->'fixed_nodes') AS fixed_nodes;
-- County totals exact as well (the single county of S3 is its state's only child).
SELECT count(*) FILTER (WHERE e.n <> b.total) AS counties_off
FROM dp.privatize('SELECT * FROM blocks ORDER BY 1, 2, 3, 4', 0.5, 'integer_cascade', delta => 1e-9,
                  margins => '{state,county}', hierarchy => '{state,county,tract,block}', options => '{"level": true}')
     AS e(state text, county text, tract text, block text, n bigint, level int)
JOIN (SELECT county, sum(n) AS total FROM blocks GROUP BY 1) b USING (county)
WHERE e.level = 2;

-- Per-level targets: relative with epsilon, absolute (and their cost
-- reported) with epsilon NULL; rho-zCDP with the option "rho".
SELECT count(*) AS rows
FROM dp.privatize('SELECT * FROM blocks', 1.0, 'integer_cascade', delta => 1e-9, hierarchy => '{state,county,tract,block}',
                  options => '{"level_variance": [1, 1, 2, 4, 8]}')
     AS t(state text, county text, tract text, block text, n bigint);
SELECT (SELECT array_agg(round((v::float8 / (dp.last_release()->'noise'->'level_variance'->>0)::float8)::numeric, 9) ORDER BY i)
        FROM jsonb_array_elements_text(dp.last_release()->'noise'->'level_variance') WITH ORDINALITY a(v, i)) AS relative_levels;
SELECT count(*) AS rows
FROM dp.privatize('SELECT * FROM blocks', NULL, 'integer_cascade', delta => 1e-9, hierarchy => '{state,county,tract,block}',
                  options => '{"level_variance": [25, 25, 50, 100, 200]}')
     AS t(state text, county text, tract text, block text, n bigint);
SELECT dp.last_release()->'noise'->'calibration'->>'derived_from' AS derived_from,
       dp.last_release()->'noise'->'level_variance' AS level_variance,
       (dp.last_release()->>'epsilon')::float8 > 0 AS epsilon_reported, (dp.last_release()->>'rho')::float8 > 0 AS rho_reported;
SELECT count(*) AS rows
FROM dp.privatize('SELECT * FROM blocks', NULL, 'integer_cascade', delta => 1e-9, hierarchy => '{state,county,tract,block}',
                  options => '{"rho": 0.5}')
     AS t(state text, county text, tract text, block text, n bigint);
SELECT dp.last_release()->'noise'->'calibration'->>'derived_from' AS derived_from,
       round((dp.last_release()->>'rho')::numeric, 9) AS rho;

-- Range variances from the published law: on the binary tree of 4 ordered
-- leaves a single leaf has the level variance v, two siblings their
-- parent's v, leaves 1..2 (across the root) 1.75 v; dp.range_variance gives
-- the closed form (the upper bound), dp.range_variance_bounds both ends.
SELECT count(*) FROM dp.privatize($$SELECT half, quarter, 10::bigint FROM (VALUES ('H1', 'Q1'), ('H1', 'Q2'), ('H2', 'Q3'), ('H2', 'Q4')) q(half, quarter)$$,
                                  1.0, 'integer_cascade', delta => 1e-9, hierarchy => '{half,quarter}')
AS t(half text, quarter text, n bigint);
SELECT r.leaves, round((dp.range_variance(law.l, r.first, r.last) / (law.l->'noise'->'level_variance'->>0)::float8)::numeric, 12)
       AS times_the_level_variance
FROM (SELECT dp.last_release() AS l) law,
     (VALUES ('one leaf', 0, 0), ('two siblings', 0, 1), ('across the root', 1, 2), ('all four', 0, 3)) r(leaves, first, last);
SELECT b.upper = dp.range_variance(dp.last_release(), 1, 2) AS upper_is_range_variance,
       b.lower <= b.upper AND b.lower > b.upper * (1 - 1e-12) AS lower_certified
FROM dp.range_variance_bounds(dp.last_release(), 1, 2) b;
SELECT sqlstate_of($$SELECT dp.range_variance(dp.last_release(), 2, 4)$$);
SELECT sqlstate_of($$SELECT dp.range_variance(dp.last_release() #- '{noise,variance_deficit_bound}', 0, 1)$$);
SELECT sqlstate_of($$SELECT dp.range_variance(jsonb_set(dp.last_release(), '{error_law}', '"gaussian_lattice"'), 0, 1)$$);
-- A cascade's law: both ends are its exact closed form.
SELECT count(*) FROM dp.privatize($$SELECT half, quarter, 10::bigint FROM (VALUES ('H1', 'Q1'), ('H1', 'Q2'), ('H2', 'Q3'), ('H2', 'Q4')) q(half, quarter)$$,
                                  1.0, 'cascade', delta => 1e-9, hierarchy => '{half,quarter}')
AS t(half text, quarter text, n float8);
SELECT lower = upper AS exact_for_cascade FROM dp.range_variance_bounds(dp.last_release(), 1, 2);

-- Two crossed hierarchies as integers: every (geography node, age node)
-- rectangle an integer, the sum of its children along either hierarchy.
CREATE TABLE county_ages AS
SELECT b.state, b.county, a.age_group, a.age, (b.n + length(a.age))::bigint AS n
FROM (SELECT state, county, sum(n) AS n FROM blocks GROUP BY 1, 2) b,
     (VALUES ('child', '0-9'), ('child', '10-17'), ('adult', '18-64'), ('senior', '65+')) a(age_group, age);
CREATE TABLE crossed_release AS
SELECT * FROM dp.privatize('SELECT * FROM county_ages ORDER BY 1, 2, 3, 4', 1.0, 'integer_cascade', delta => 1e-9,
                           hierarchy => '{state,county}', options => '{"crossed": ["age_group", "age"], "level": true}')
AS t(state text, county text, age_group text, age text, n bigint, rl int, cl int);
SELECT count(*) AS rows,
       count(*) FILTER (WHERE rl < 2 AND n <> (SELECT sum(c.n) FROM crossed_release c
                                               WHERE c.rl = p.rl + 1 AND c.cl = p.cl AND (p.rl < 1 OR c.state = p.state)
                                                 AND c.age_group IS NOT DISTINCT FROM p.age_group
                                                 AND c.age IS NOT DISTINCT FROM p.age)) AS row_gaps,
       count(*) FILTER (WHERE cl < 2 AND n <> (SELECT sum(c.n) FROM crossed_release c
                                               WHERE c.cl = p.cl + 1 AND c.rl = p.rl AND (p.cl < 1 OR c.age_group = p.age_group)
                                                 AND c.state IS NOT DISTINCT FROM p.state
                                                 AND c.county IS NOT DISTINCT FROM p.county)) AS column_gaps
FROM crossed_release p;
SELECT dp.last_release()->>'mechanism' AS mechanism, dp.last_release()->>'output' AS output,
       dp.last_release()->'hierarchy'->>'crossed' AS crossed, dp.last_release()->'sampler'->>'exact' AS exact_sampler,
       dp.last_release()->'noise' ? 'variance_deficit_bound' AS deficit_published;
-- Its law lists two trees, not one shape: no range variance.
SELECT sqlstate_of($$SELECT dp.range_variance(dp.last_release(), 0, 1)$$);

-- Errors, with their SQLSTATEs.
-- no hierarchy; no delta; an integer count column other than bigint
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM blocks', 1.0, 'integer_cascade', delta => 1e-9)
                     AS t(state text, county text, tract text, block text, n bigint)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM blocks', 1.0, 'integer_cascade',
                     hierarchy => '{state,county,tract,block}') AS t(state text, county text, tract text, block text, n bigint)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM blocks', 1.0, 'integer_cascade', delta => 1e-9,
                     hierarchy => '{state,county,tract,block}') AS t(state text, county text, tract text, block text, n int)$$);
-- a margin that is not whole nodes of the hierarchy
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM blocks', 1.0, 'integer_cascade', delta => 1e-9,
                     margins => '{tract}', hierarchy => '{state,county}') AS t(state text, county text, tract text, block text, n bigint)$$);
-- exact margins with add_remove neighbours
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM blocks', 1.0, 'integer_cascade', delta => 1e-9,
                     margins => '{state}', hierarchy => '{state,county,tract,block}', options => '{"neighbours": "add_remove"}')
                     AS t(state text, county text, tract text, block text, n bigint)$$);
-- epsilon and rho; neither (nor targets); infeasible targets
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM blocks', 1.0, 'integer_cascade', delta => 1e-9,
                     hierarchy => '{state,county,tract,block}', options => '{"rho": 0.5}')
                     AS t(state text, county text, tract text, block text, n bigint)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM blocks', NULL, 'integer_cascade', delta => 1e-9,
                     hierarchy => '{state,county,tract,block}') AS t(state text, county text, tract text, block text, n bigint)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM blocks', 1.0, 'integer_cascade', delta => 1e-9,
                     hierarchy => '{state,county,tract,block}', options => '{"level_variance": [1, 1, 1, 1, 0.01]}')
                     AS t(state text, county text, tract text, block text, n bigint)$$);
-- noise too small for the exact sampler (refused, never approximated)
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM blocks', NULL, 'integer_cascade', delta => 1e-9,
                     hierarchy => '{state,county,tract,block}', options => '{"level_variance": [0.05, 0.05, 0.05, 0.05, 0.05]}')
                     AS t(state text, county text, tract text, block text, n bigint)$$);
-- a negative count
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT state, county, -1::bigint FROM blocks GROUP BY 1, 2', 1.0,
                     'integer_cascade', delta => 1e-9, hierarchy => '{state,county}') AS t(state text, county text, n bigint)$$);
-- crossed with margins
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM county_ages', 1.0, 'integer_cascade', delta => 1e-9,
                     margins => '{state}', hierarchy => '{state,county}', options => '{"crossed": ["age_group", "age"]}')
                     AS t(state text, county text, age_group text, age text, n bigint)$$);
-- the same refusals before any source runs
SELECT sqlstate_of($$SELECT dp.check_request('integer_cascade', 1.0, 1e-9)$$);
SELECT sqlstate_of($$SELECT dp.check_request('integer_cascade', NULL, 1e-9, hierarchy => '{state}')$$);
SELECT dp.check_request('integer_cascade', NULL, 1e-9, options => '{"rho": 1}', hierarchy => '{state}');

-- Cancellation: a release of 2 million blocks stops at statement_timeout
-- (reading the source, building the tree or drawing: every loop polls).
SET statement_timeout = '1s';
SELECT count(*) FROM dp.privatize('SELECT i / 4096 AS a, i / 64 AS b, i AS c, 1::bigint FROM generate_series(1, 2000000) i',
                                  1.0, 'integer_cascade', delta => 1e-9, hierarchy => '{a,b,c}')
AS t(a int, b int, c int, n bigint);
RESET statement_timeout;
SELECT 'the session is usable' AS after_cancel;

-- A governed integer cascade: registered, drawn by dp.refresh_release,
-- charged, audited with its law; the state totals exact.
SELECT dp.set_budget('census blocks', 2.0, 1e-6);
SELECT dp.register_release('block_release', 'census blocks',
    source    => 'SELECT state, county, tract, block, n FROM blocks',
    columns   => 'state text, county text, tract text, block text, n bigint',
    epsilon   => 0.5, mechanism => 'integer_cascade', delta => 1e-9, margins => '{state}',
    hierarchy => '{state,county,tract,block}', options => jsonb_build_object('keys', 'public'));
SELECT dp.refresh_release('block_release') > 0 AS drawn;
SELECT count(*) AS rows, count(*) FILTER (WHERE block IS NULL) AS rollups FROM block_release;
SELECT r.state, r.n = b.total AS exact
FROM block_release r JOIN (SELECT state, sum(n) AS total FROM blocks GROUP BY 1) b USING (state)
WHERE r.county IS NULL ORDER BY r.state;
SELECT epsilon_spent, delta_spent FROM dp.budgets WHERE dataset = 'census blocks';
SELECT mechanism, epsilon, delta, noise_law->>'mechanism' AS law, noise_law->>'output' AS output,
       jsonb_array_length(noise_law->'noise'->'level_variance_lower_bound') AS level_bounds,
       dp.range_variance(noise_law, 0, 2) > 0 AS range_variance_from_audit
FROM dp.draws WHERE dataset = 'census blocks';
SELECT dp.drop_release('block_release');
-- Streams stay real-valued: the integer cascade does not carry over.
SELECT sqlstate_of($$SELECT dp.register_stream('block_stream', 'census blocks', 'SELECT block, sum(n) FROM blocks GROUP BY 1',
                     'block text, n float8', 0.5, 1e-9, options => '{"mechanism": "integer_cascade"}')$$);
SELECT to_regclass('block_stream') IS NULL AS nothing_created;
DELETE FROM dp.draws WHERE dataset = 'census blocks';
DELETE FROM dp.budgets WHERE dataset = 'census blocks';
DROP TABLE blocks, uniform_release, exact_states, county_ages, crossed_release;
