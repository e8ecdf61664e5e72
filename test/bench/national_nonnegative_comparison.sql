-- The national tree of us_geography.sql (50 states down to ~8,000,000
-- blocks, state totals exact) released once by nonnegative_cascade and
-- once by integer_cascade, both at epsilon 16 (integer_cascade at delta
-- 1e-9; the non-negative cascade's size check refuses epsilon 2 and below
-- on this tree), and per level against the truth: the bias (mean of
-- released - true) of the nodes whose true count is 0, 1 to 5 and above 5
-- (over a whole level it is 0: each level sums to the exact totals; one
-- release, averaged over millions of blocks), the root mean square error, the
-- share of nodes released as 0 (and the true share), the share within +-5;
-- per release the wall time, the backend's CPU time and its peak resident
-- memory (a fresh backend each). project_nn_integer (the TopDown-style
-- baseline) is refused beyond 40,000 cells: docs/comparisons/nonnegative.sql
-- compares it on a slice. Run after us_geography.sql; needs a superuser.
\set ON_ERROR_STOP 1
\pset footer off
CREATE EXTENSION IF NOT EXISTS invariant_dp;
CREATE OR REPLACE FUNCTION public.backend_usage(OUT cpu_s numeric, OUT peak_rss_mb numeric) LANGUAGE sql VOLATILE
AS $$
    SELECT round((f[12]::bigint + f[13]::bigint) / 100.0, 2),
           round((regexp_match(pg_read_file(format('/proc/%s/status', pg_backend_pid())), 'VmHWM:\s+(\d+) kB'))[1]::numeric
                 / 1024, 0)
    FROM (SELECT string_to_array(split_part(pg_read_file(format('/proc/%s/stat', pg_backend_pid())), ') ', 2), ' ') f) s
$$;
DROP TABLE IF EXISTS national_truth, national_levels, national_costs;
CREATE TABLE national_truth AS
SELECT CASE WHEN GROUPING(state) = 1 THEN 0 WHEN GROUPING(county) = 1 THEN 1 WHEN GROUPING(tract) = 1 THEN 2
            WHEN GROUPING(block_group) = 1 THEN 3 WHEN GROUPING(block) = 1 THEN 4 ELSE 5 END AS level,
       coalesce(block, block_group, tract, county, state, 0) AS node, sum(population)::bigint AS population
FROM us_blocks GROUP BY ROLLUP (state, county, tract, block_group, block);
CREATE INDEX ON national_truth (level, node);
CREATE TABLE national_levels (mechanism text, level int, nodes bigint, bias_at_0 float8, bias_at_1_to_5 float8,
                              bias_above_5 float8, rmse float8, share_zero float8, share_within_5 float8);
CREATE TABLE national_costs (mechanism text, wall_s numeric, cpu_s numeric, peak_rss_mb numeric);

\c
SELECT cpu_s AS cpu_before, clock_timestamp() AS started FROM public.backend_usage() \gset
CREATE TEMP TABLE released AS
SELECT * FROM dp.privatize('SELECT state, county, tract, block_group, block, population FROM us_blocks',
                           16.0, 'nonnegative_cascade', margins => '{state}',
                           hierarchy => '{state,county,tract,block_group,block}', options => '{"level": true}')
     AS t(state int, county int, tract int, block_group int, block int, n bigint, level int);
INSERT INTO national_costs SELECT 'nonnegative_cascade', round(extract(epoch FROM clock_timestamp() - :'started'::timestamptz), 1),
                                  round(cpu_s - :cpu_before, 1), peak_rss_mb FROM public.backend_usage();
INSERT INTO national_levels
SELECT 'nonnegative_cascade', r.level, count(*), avg(r.n - t.population) FILTER (WHERE t.population = 0),
       avg(r.n - t.population) FILTER (WHERE t.population BETWEEN 1 AND 5),
       avg(r.n - t.population) FILTER (WHERE t.population > 5), sqrt(avg((r.n - t.population)::float8 ^ 2)),
       avg((r.n = 0)::int), avg((abs(r.n - t.population) <= 5)::int)
FROM released r JOIN national_truth t ON t.level = r.level
 AND t.node = CASE r.level WHEN 0 THEN 0 WHEN 1 THEN r.state WHEN 2 THEN r.county WHEN 3 THEN r.tract
                           WHEN 4 THEN r.block_group ELSE r.block END
GROUP BY r.level;

\c
SELECT cpu_s AS cpu_before, clock_timestamp() AS started FROM public.backend_usage() \gset
CREATE TEMP TABLE released AS
SELECT * FROM dp.privatize('SELECT state, county, tract, block_group, block, population FROM us_blocks',
                           16.0, 'integer_cascade', delta => 1e-9, margins => '{state}',
                           hierarchy => '{state,county,tract,block_group,block}', options => '{"level": true}')
     AS t(state int, county int, tract int, block_group int, block int, n bigint, level int);
INSERT INTO national_costs SELECT 'integer_cascade', round(extract(epoch FROM clock_timestamp() - :'started'::timestamptz), 1),
                                  round(cpu_s - :cpu_before, 1), peak_rss_mb FROM public.backend_usage();
INSERT INTO national_levels
SELECT 'integer_cascade', r.level, count(*), avg(r.n - t.population) FILTER (WHERE t.population = 0),
       avg(r.n - t.population) FILTER (WHERE t.population BETWEEN 1 AND 5),
       avg(r.n - t.population) FILTER (WHERE t.population > 5), sqrt(avg((r.n - t.population)::float8 ^ 2)),
       avg((r.n = 0)::int), avg((abs(r.n - t.population) <= 5)::int)
FROM released r JOIN national_truth t ON t.level = r.level
 AND t.node = CASE r.level WHEN 0 THEN 0 WHEN 1 THEN r.state WHEN 2 THEN r.county WHEN 3 THEN r.tract
                           WHEN 4 THEN r.block_group ELSE r.block END
GROUP BY r.level;

\echo '#### National tree, one release each at epsilon 16, per level'
SELECT (ARRAY['total', 'state', 'county', 'tract', 'block group', 'block'])[l.level + 1] AS level, l.mechanism, l.nodes,
       round(l.bias_at_0::numeric, 2) AS bias_at_0, round(l.bias_at_1_to_5::numeric, 2) AS bias_at_1_to_5,
       round(l.bias_above_5::numeric, 2) AS bias_above_5, round(l.rmse::numeric, 2) AS rmse, round(l.share_zero::numeric, 3) AS share_zero,
       (SELECT round(avg((t.population = 0)::int), 3) FROM national_truth t WHERE t.level = l.level) AS true_share_zero,
       round(l.share_within_5::numeric, 3) AS share_within_5
FROM national_levels l ORDER BY l.level, l.mechanism;
\echo '#### Cost of each release (a fresh backend each): wall and backend CPU seconds, peak resident memory (MB)'
SELECT * FROM national_costs ORDER BY mechanism;
DROP TABLE national_truth, national_levels, national_costs;
DROP FUNCTION public.backend_usage();
