-- The non-negative cascade: integer counts at every level of a geography,
-- every node >= 0 and the exact sum of its children, declared margins
-- exact; the published law, privacy statement and sampler; per-node sd
-- and intervals at the released counts; refusals with their SQLSTATEs;
-- cancellation; a governed release. Only exact properties are printed
-- (row counts, equalities, SQLSTATEs), never noise.
\set VERBOSITY terse
LOAD 'invariant_dp';  -- SET dp.seed is honoured once the library is loaded
SET dp.seed = '37';
-- 3 states (S3 has a single county), 2-4 counties each, 1-3 tracts each,
-- 1-4 blocks each; block counts from 0 to 3, a third of them 0, where
-- non-negativity binds.
CREATE TABLE blocks AS
SELECT 'S' || s AS state, 'S' || s || 'C' || c AS county, 'S' || s || 'C' || c || 'T' || t AS tract,
       'S' || s || 'C' || c || 'T' || t || 'B' || b AS block, ((7 * s + 5 * c + 3 * t + 11 * b) % 4 - 1)::bigint AS n0
FROM generate_series(1, 3) s, generate_series(1, CASE s WHEN 3 THEN 1 ELSE s + 1 END) c,
     generate_series(1, (s + c) % 3 + 1) t, generate_series(1, (s + 2 * c + t) % 4 + 1) b;
ALTER TABLE blocks ADD COLUMN n bigint;
UPDATE blocks SET n = greatest(n0, 0);
ALTER TABLE blocks DROP COLUMN n0;
REVOKE ALL ON blocks FROM PUBLIC;
SELECT count(*) AS blocks, count(*) FILTER (WHERE n = 0) AS empty_blocks, count(DISTINCT county) AS counties,
       sum(n) AS people
FROM blocks;

-- Every level as non-negative integers, grand total first, NULL below a
-- row's level; each node the sum of its children.
CREATE TABLE uniform_release AS
SELECT * FROM dp.privatize('SELECT * FROM blocks ORDER BY 1, 2, 3, 4', 1.0, 'nonnegative_cascade',
                           hierarchy => '{state,county,tract,block}', options => '{"level": true, "stddev": true}')
AS t(state text, county text, tract text, block text, n bigint, sd float8, level int);
SELECT level, count(*) AS rows, bool_and(n >= 0) AS non_negative, bool_and(sd > 0) AS sd_positive
FROM uniform_release GROUP BY level ORDER BY level;
SELECT nodes, worst_gap = 0 AS each_node_the_sum_of_its_children
FROM hierarchy_gaps('SELECT * FROM uniform_release', '{state,county,tract,block}');
-- The published law: pure epsilon (delta 0), the base law's epsilon at
-- most half of it, the conditioning's factor 2 in the printed statement,
-- an exact sampler, the bias and variance computed at the released counts.
SELECT l->>'mechanism' AS mechanism, l->>'output' AS output, l->>'family' AS family,
       (l->>'epsilon')::float8 AS epsilon, (l->>'delta')::float8 AS delta,
       (l->>'base_epsilon')::float8 <= 0.5 AS base_at_most_half, l->>'exact' AS exact,
       l->'sampler'->>'exact' AS exact_sampler, (l->>'non_negative')::bool AS non_negative,
       l->'bias_and_variance'->>'computed_at' AS computed_at,
       jsonb_array_length(l->'level_bias_and_variance') AS levels_with_bias,
       jsonb_array_length(l->'noise'->'level_epsilon') AS level_epsilons, (l->>'cells')::int AS cells
FROM (SELECT dp.last_release() AS l) law;
SELECT dp.last_release()->>'privacy' AS privacy;
-- The leaves are biased upwards where counts are 0: their mean bias is positive.
SELECT (dp.last_release()->'level_bias_and_variance'->4->>'mean_bias')::float8 > 0 AS blocks_biased_upwards;

-- State totals exact (whole nodes): the noise conditioned on them.
CREATE TABLE exact_states AS
SELECT * FROM dp.privatize('SELECT * FROM blocks ORDER BY 1, 2, 3, 4', 0.5, 'nonnegative_cascade',
                           margins => '{state}', hierarchy => '{state,county,tract,block}',
                           options => '{"level": true}')
AS t(state text, county text, tract text, block text, n bigint, level int);
SELECT nodes, worst_gap = 0 AS each_node_the_sum_of_its_children
FROM hierarchy_gaps('SELECT * FROM exact_states', '{state,county,tract,block}');
SELECT e.level, e.state, e.n = b.total AS exact
FROM exact_states e
JOIN LATERAL (SELECT sum(n) AS total FROM blocks b WHERE e.state IS NULL OR b.state = e.state) b ON true
WHERE e.level <= 1 ORDER BY e.level, e.state;
SELECT bool_and(n >= 0) AS non_negative FROM exact_states;
SELECT dp.last_release()->>'family' AS family, dp.last_release()->'invariants'->'margins' AS margins,
       (dp.last_release()->>'fixed_nodes')::int AS fixed_nodes,
       dp.last_release()->>'privacy' LIKE '%agree on every exact total%' AS statement_names_the_totals;

-- Per-node intervals at the released counts: integer bounds around each
-- node, labelled an estimate (the law depends on the true counts).
CREATE TABLE interval_release AS
SELECT * FROM dp.privatize('SELECT * FROM blocks ORDER BY 1, 2, 3, 4', 1.0, 'nonnegative_cascade',
                           hierarchy => '{state,county,tract,block}', options => '{"level": true, "interval": 0.9}')
AS t(state text, county text, tract text, block text, n bigint, level int, lower bigint, upper bigint);
SELECT count(*) AS rows, bool_and(lower <= n AND n <= upper) AS around_each_node,
       bool_and(upper - n = n - lower) AS centred
FROM interval_release;
SELECT dp.last_release()->'interval'->>'kind' AS kind, dp.last_release()->'interval'->>'level' AS level;

-- Per-level targets: relative with epsilon (the base law's variances in
-- that ratio), absolute with epsilon NULL (their cost reported: twice the
-- base law's epsilon).
SELECT count(*) AS rows
FROM dp.privatize('SELECT * FROM blocks', 1.0, 'nonnegative_cascade', hierarchy => '{state,county,tract,block}',
                  options => '{"level_variance": [1, 1, 2, 4, 8]}')
     AS t(state text, county text, tract text, block text, n bigint);
SELECT (SELECT array_agg(round((v::float8 / (dp.last_release()->'noise'->'level_variance'->>0)::float8)::numeric, 6) ORDER BY i)
        FROM jsonb_array_elements_text(dp.last_release()->'noise'->'level_variance') WITH ORDINALITY a(v, i)) AS relative_levels;
SELECT count(*) AS rows
FROM dp.privatize('SELECT * FROM blocks', NULL, 'nonnegative_cascade', hierarchy => '{state,county,tract,block}',
                  options => '{"level_variance": [25, 25, 50, 100, 200]}')
     AS t(state text, county text, tract text, block text, n bigint);
SELECT dp.last_release()->>'derived_from' AS derived_from,
       (dp.last_release()->>'epsilon')::float8 = 2 * (dp.last_release()->>'base_epsilon')::float8 AS twice_the_base;

-- Errors, with their SQLSTATEs.
-- no hierarchy; a delta (pure epsilon); rho; crossed hierarchies
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM blocks', 1.0, 'nonnegative_cascade')
                     AS t(state text, county text, tract text, block text, n bigint)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM blocks', 1.0, 'nonnegative_cascade', delta => 1e-9,
                     hierarchy => '{state,county,tract,block}') AS t(state text, county text, tract text, block text, n bigint)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM blocks', NULL, 'nonnegative_cascade',
                     hierarchy => '{state,county,tract,block}', options => '{"rho": 0.5}')
                     AS t(state text, county text, tract text, block text, n bigint)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM blocks', 1.0, 'nonnegative_cascade',
                     hierarchy => '{state,county}', options => '{"crossed": ["tract"]}')
                     AS t(state text, county text, tract text, block text, n bigint)$$);
-- a margin that is not whole nodes; exact margins with add_remove neighbours
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM blocks', 1.0, 'nonnegative_cascade',
                     margins => '{tract}', hierarchy => '{state,county}') AS t(state text, county text, tract text, block text, n bigint)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM blocks', 1.0, 'nonnegative_cascade',
                     margins => '{state}', hierarchy => '{state,county,tract,block}', options => '{"neighbours": "add_remove"}')
                     AS t(state text, county text, tract text, block text, n bigint)$$);
-- neither epsilon nor targets; a negative count; a NULL count
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM blocks', NULL, 'nonnegative_cascade',
                     hierarchy => '{state,county,tract,block}') AS t(state text, county text, tract text, block text, n bigint)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT state, county, -1::bigint FROM blocks GROUP BY 1, 2', 1.0,
                     'nonnegative_cascade', hierarchy => '{state,county}') AS t(state text, county text, n bigint)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT state, county, NULL::bigint FROM blocks GROUP BY 1, 2', 1.0,
                     'nonnegative_cascade', hierarchy => '{state,county}') AS t(state text, county text, n bigint)$$);
-- epsilon so small that a window would not fit: refused (54000) before any
-- window is allocated, with a hint
\set VERBOSITY default
SELECT count(*) FROM dp.privatize('SELECT * FROM blocks', 1e-9, 'nonnegative_cascade',
                                  hierarchy => '{state,county,tract,block}')
AS t(state text, county text, tract text, block text, n bigint);
\set VERBOSITY terse
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM blocks', 1e-9, 'nonnegative_cascade',
                     hierarchy => '{state,county,tract,block}') AS t(state text, county text, tract text, block text, n bigint)$$);
-- a level's epsilon above 512 (absolute targets far below a count)
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM blocks', NULL, 'nonnegative_cascade',
                     hierarchy => '{state,county,tract,block}', options => '{"level_variance": [1e-300, 1, 1, 1, 1]}')
                     AS t(state text, county text, tract text, block text, n bigint)$$);
-- the same refusals before any source runs
SELECT sqlstate_of($$SELECT dp.check_request('nonnegative_cascade', 1.0)$$);
SELECT sqlstate_of($$SELECT dp.check_request('nonnegative_cascade', 1.0, 1e-9, hierarchy => '{state}')$$);
SELECT sqlstate_of($$SELECT dp.check_request('nonnegative_cascade', NULL, options => '{"rho": 1}', hierarchy => '{state}')$$);

-- Cancellation: a release of 2 million blocks stops at statement_timeout
-- (reading the source, building the tree, the messages, the draw or the
-- bias and variance: every loop polls).
SET statement_timeout = '1s';
SELECT count(*) FROM dp.privatize('SELECT i / 4096 AS a, i / 64 AS b, i AS c, (i % 3)::bigint FROM generate_series(1, 2000000) i',
                                  4.0, 'nonnegative_cascade', hierarchy => '{a,b,c}', options => '{"stddev": true}')
AS t(a int, b int, c int, n bigint, sd float8);
-- Few leaves but wide windows: the messages and the draw are interrupted.
SELECT count(*) FROM dp.privatize('SELECT i / 64 AS a, i AS b, (i % 3)::bigint FROM generate_series(1, 20000) i',
                                  0.1, 'nonnegative_cascade', hierarchy => '{a,b}', options => '{"stddev": true}')
AS t(a int, b int, n bigint, sd float8);
RESET statement_timeout;
SELECT 'the session is usable' AS after_cancel;
-- Many empty leaves under one node whose total is not exact, at a small
-- epsilon: their noises can only go up, so their sums lie farther from the
-- node's own value than a window of 65,536 values reaches. Refused
-- (54000), with a hint, once the backward pass gets there.
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT 1 AS a, i AS b, 0::bigint FROM generate_series(1, 3000) i',
                     0.1, 'nonnegative_cascade', hierarchy => '{a,b}') AS t(a int, b int, n bigint)$$);
-- Under an exact grand total (34 groups of 75 leaves of counts 0..2,
-- epsilon 0.2) the groups' noises must sum to 0, far below their summed
-- mean: drawn from messages tilted towards 0, which leaves the law as it
-- is. Released: every count non-negative, the groups their leaves' sums,
-- the grand total exact (2,550).
WITH r AS (SELECT * FROM dp.privatize('SELECT i / 75 AS a, i AS b, (i % 3)::bigint FROM generate_series(0, 2549) i',
                                      0.2, 'nonnegative_cascade', margins => '{""}', hierarchy => '{a,b}')
           AS t(a int, b int, n bigint))
SELECT count(*) AS rows, bool_and(n >= 0) AS non_negative,
       (SELECT bool_and(g.n = s.total) FROM r g JOIN (SELECT a, sum(n) AS total FROM r WHERE b IS NOT NULL GROUP BY a) s
        USING (a) WHERE g.b IS NULL) AS groups_add_up,
       (SELECT n FROM r WHERE a IS NULL) AS grand_total
FROM r;
-- 31 groups of 64 leaves, every 20th of count 1 and the rest empty, at
-- epsilon 0.1: the grand total's sum of its children peaks at its window's
-- end, two neighbours equal in double, so the window is widened until its
-- end steps fall (its tails are bounds only then). Released: every count
-- non-negative and the sum of its children.
WITH r AS (SELECT * FROM dp.privatize('SELECT i / 64 AS a, i AS b, (i % 20 = 0)::int::bigint FROM generate_series(0, 1983) i',
                                      0.1, 'nonnegative_cascade', hierarchy => '{a,b}') AS t(a int, b int, n bigint))
SELECT count(*) AS rows, bool_and(n >= 0) AS non_negative,
       (SELECT bool_and(g.n = s.total) FROM r g JOIN (SELECT a, sum(n) AS total FROM r WHERE b IS NOT NULL GROUP BY a) s
        USING (a) WHERE g.b IS NULL) AS groups_add_up,
       (SELECT n FROM r WHERE a IS NULL) = (SELECT sum(n) FROM r WHERE a IS NOT NULL AND b IS NULL) AS total_adds_up
FROM r;

-- A governed non-negative cascade: registered, drawn by dp.refresh_release,
-- charged its epsilon, audited with its law; the state totals exact.
SELECT dp.set_budget('census blocks', 2.0);
SELECT dp.register_release('block_release', 'census blocks',
    source    => 'SELECT state, county, tract, block, n FROM blocks',
    columns   => 'state text, county text, tract text, block text, n bigint',
    epsilon   => 0.5, mechanism => 'nonnegative_cascade', margins => '{state}',
    hierarchy => '{state,county,tract,block}', options => jsonb_build_object('keys', 'public'));
SELECT dp.refresh_release('block_release') > 0 AS drawn;
SELECT count(*) AS rows, count(*) FILTER (WHERE block IS NULL) AS rollups, bool_and(n >= 0) AS non_negative
FROM block_release;
SELECT r.state, r.n = b.total AS exact
FROM block_release r JOIN (SELECT state, sum(n) AS total FROM blocks GROUP BY 1) b USING (state)
WHERE r.county IS NULL ORDER BY r.state;
SELECT dp.refresh_release('block_release') > 0 AS drawn_again;
SELECT epsilon_spent, delta_spent FROM dp.budgets WHERE dataset = 'census blocks';
SELECT mechanism, epsilon, delta, noise_law->>'mechanism' AS law, noise_law->>'output' AS output,
       noise_law->'sampler'->>'exact' AS exact_sampler, noise_law->>'privacy' LIKE '%at most doubles%' AS statement_kept
FROM dp.draws WHERE dataset = 'census blocks' ORDER BY draw_id;
SELECT release, noise_law->>'mechanism' AS law FROM dp.release_laws WHERE release = 'block_release'::regclass;
-- Its sums have no error bars: the law depends on the counts, and the
-- covariance of several nodes is not computed (each node's sd and interval
-- come with the release: {"stddev": true}, {"interval": x}).
SELECT sqlstate_of($$SELECT dp.sum_variance(r) FROM block_release r WHERE r.county IS NULL$$) LIKE '22023:%' AS sum_variance_refused,
       sqlstate_of($$SELECT dp.margin_of_error(r, 0.9) FROM block_release r$$) LIKE '22023:%' AS margin_of_error_refused;
SELECT dp.drop_release('block_release');
DELETE FROM dp.draws WHERE dataset = 'census blocks';
DELETE FROM dp.budgets WHERE dataset = 'census blocks';
DROP TABLE blocks, uniform_release, exact_states, interval_release;
