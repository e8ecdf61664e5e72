-- The national-scale non-negative cascade through SQL: the synthetic U.S.
-- geography of us_geography.sql (50 states, 3,143 counties, ~85,000
-- tracts, ~240,000 block groups, ~8,000,000 blocks) released by one
-- dp.privatize call as non-negative integers at every level, the state
-- totals exact, at epsilon 16 (the size check refuses epsilon 4 and below
-- on this tree: test/bench/README.md). Prints the wall time (psql's
-- \timing), the backend's CPU time and its peak resident memory (VmHWM),
-- then checks the release: no node negative, every level sums to the same
-- total, the states exact, every block group the sum of its blocks. Run by
-- scripts/bench after us_geography.sql; needs a superuser (it reads the
-- backend's /proc entries with pg_read_file).
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
\echo === the release: epsilon 16, state totals exact, the default split (one base noise variance at every level)
\c
SELECT cpu_s AS cpu_before FROM public.backend_usage() \gset
\timing on
CREATE TEMP TABLE released AS
SELECT * FROM dp.privatize('SELECT state, county, tract, block_group, block, population FROM us_blocks',
                           16.0, 'nonnegative_cascade', margins => '{state}',
                           hierarchy => '{state,county,tract,block_group,block}', options => '{"level": true}')
     AS t(state int, county int, tract int, block_group int, block int, n bigint, level int);
\timing off
SELECT round(cpu_s - :cpu_before, 2) AS backend_cpu_s, peak_rss_mb FROM public.backend_usage();
SELECT round((dp.last_release()->>'epsilon')::numeric, 4) AS epsilon,
       round((dp.last_release()->>'base_epsilon')::numeric, 4) AS base_epsilon,
       dp.last_release()->'noise'->'level_epsilon' AS level_epsilon;

\echo
\echo === check (not timed): no node negative, levels sum alike, states exact, each block group the sum of its blocks
SELECT count(*) FILTER (WHERE n < 0) AS negative_nodes FROM released;
SELECT count(DISTINCT total) AS distinct_level_totals FROM (SELECT level, sum(n) AS total FROM released GROUP BY 1) l;
SELECT count(*) FILTER (WHERE r.n <> s.total) AS states_off
FROM released r JOIN (SELECT state, sum(population) AS total FROM us_blocks GROUP BY 1) s USING (state)
WHERE r.level = 1;
SELECT count(*) FILTER (WHERE g.n <> b.total) AS block_groups_not_the_sum_of_their_blocks
FROM (SELECT block_group, n FROM released WHERE level = 4) g
JOIN (SELECT block_group, sum(n) AS total FROM released WHERE level = 5 GROUP BY 1) b USING (block_group);
DROP FUNCTION public.backend_usage();
