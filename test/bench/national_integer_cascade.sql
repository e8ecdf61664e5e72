-- The national-scale integer cascade through SQL: the synthetic U.S.
-- geography of us_geography.sql (50 states, 3,143 counties, ~85,000
-- tracts, ~240,000 block groups, ~8,000,000 blocks) released by one
-- dp.privatize call as integers at every level, with per-level targets and
-- the state totals exact. Prints the wall time (psql's \timing), the
-- backend's CPU time and its peak resident memory (VmHWM, which includes
-- the shared buffers it touched), then checks the release: every level
-- sums to the same total, the states are exact, every county is the sum of
-- its tracts. Run by scripts/bench after us_geography.sql; needs a
-- superuser (it reads the backend's /proc entries with pg_read_file).
\set ON_ERROR_STOP 1
\pset footer off
CREATE EXTENSION IF NOT EXISTS invariant_dp;
-- This backend's CPU seconds so far and its peak resident set (MB).
CREATE OR REPLACE FUNCTION public.backend_usage(OUT cpu_s numeric, OUT peak_rss_mb numeric) LANGUAGE sql VOLATILE
AS $$
    SELECT round((f[12]::bigint + f[13]::bigint) / 100.0, 2),
           round((regexp_match(pg_read_file(format('/proc/%s/status', pg_backend_pid())), 'VmHWM:\s+(\d+) kB'))[1]::numeric
                 / 1024, 0)
    FROM (SELECT string_to_array(split_part(pg_read_file(format('/proc/%s/stat', pg_backend_pid())), ') ', 2), ' ') f) s
$$;

\echo
\echo === the release: epsilon 1, delta 1e-9, state totals exact, relative per-level variances (total, state, county, tract, block group, block) = 1, 1, 1, 2, 4, 8
\c
SELECT cpu_s AS cpu_before FROM public.backend_usage() \gset
\timing on
SELECT level, count(*) AS rows, sum(n) AS total
FROM dp.privatize('SELECT state, county, tract, block_group, block, population FROM us_blocks',
                  1.0, 'integer_cascade', delta => 1e-9, margins => '{state}',
                  hierarchy => '{state,county,tract,block_group,block}',
                  options => '{"level": true, "level_variance": [1, 1, 1, 2, 4, 8]}')
     AS t(state int, county int, tract int, block_group int, block int, n bigint, level int)
GROUP BY level ORDER BY level;
\timing off
SELECT round(cpu_s - :cpu_before, 2) AS backend_cpu_s, peak_rss_mb FROM public.backend_usage();
SELECT round((dp.last_release()->>'epsilon')::numeric, 4) AS epsilon, round((dp.last_release()->>'rho')::numeric, 6) AS rho,
       dp.last_release()->'noise'->'level_variance' AS level_variance,
       (dp.last_release()->'noise'->>'variance_deficit_bound')::float8 AS variance_deficit_bound,
       dp.last_release()->'sampler'->'attempts' AS attempts;

\echo
\echo === absolute per-level targets (epsilon NULL: the release reports their cost), state totals exact
\c
SELECT cpu_s AS cpu_before FROM public.backend_usage() \gset
\timing on
SELECT count(*) AS rows
FROM dp.privatize('SELECT state, county, tract, block_group, block, population FROM us_blocks',
                  NULL, 'integer_cascade', delta => 1e-9, margins => '{state}',
                  hierarchy => '{state,county,tract,block_group,block}',
                  options => '{"level_variance": [100, 100, 100, 200, 400, 800]}')
     AS t(state int, county int, tract int, block_group int, block int, n bigint);
\timing off
SELECT round(cpu_s - :cpu_before, 2) AS backend_cpu_s, peak_rss_mb FROM public.backend_usage();
SELECT round((dp.last_release()->>'epsilon')::numeric, 4) AS epsilon_cost, round((dp.last_release()->>'rho')::numeric, 6) AS rho_cost;

\echo
\echo === check (not timed): levels sum alike, states exact, each county the sum of its tracts
CREATE TEMP TABLE released AS
SELECT * FROM dp.privatize('SELECT state, county, tract, block_group, block, population FROM us_blocks',
                           1.0, 'integer_cascade', delta => 1e-9, margins => '{state}',
                           hierarchy => '{state,county,tract,block_group,block}',
                           options => '{"level": true, "level_variance": [1, 1, 1, 2, 4, 8]}')
     AS t(state int, county int, tract int, block_group int, block int, n bigint, level int);
SELECT count(DISTINCT total) AS distinct_level_totals FROM (SELECT level, sum(n) AS total FROM released GROUP BY 1) l;
SELECT count(*) FILTER (WHERE r.n <> s.total) AS states_off
FROM released r JOIN (SELECT state, sum(population) AS total FROM us_blocks GROUP BY 1) s USING (state)
WHERE r.level = 1;
SELECT count(*) FILTER (WHERE c.n <> t.total) AS counties_not_the_sum_of_their_tracts
FROM (SELECT county, n FROM released WHERE level = 2) c
JOIN (SELECT county, sum(n) AS total FROM released WHERE level = 3 GROUP BY 1) t USING (county);
SELECT count(*) FILTER (WHERE g.n <> b.total) AS block_groups_not_the_sum_of_their_blocks
FROM (SELECT block_group, n FROM released WHERE level = 4) g
JOIN (SELECT block_group, sum(n) AS total FROM released WHERE level = 5 GROUP BY 1) b USING (block_group);
DROP FUNCTION public.backend_usage();
