-- Error bars through SQL (dp.margin_of_error, docs/error-bars.md): the
-- targets of the error-bar work, timed with psql's \timing.
--  1. one sum over all 10^6 cells of a 1000 x 1000 two-way release
--     (integer_gaussian, both margins), and over a random half of them: as
--     a governed release's first statement (the table read and the
--     structure built) and again (the structure kept); with the law given
--     (built in every statement). Target: < 1 s.
--  1b. the same grid released by subspace_laplace with its law given: a
--     2 x 3 block, 150,000 cells, a random half, each from its own law
--     over Pi_N w on every cell, beside the variance alone (target: < 1 s);
--     4,000 sums of 250 cells in one GROUP BY.
--  2. the 3,143 county sums of the 8M-block national integer cascade
--     (us_geography.sql, as national_integer_cascade.sql releases it), a
--     governed release: as the county nodes (3,143 rows aggregated) and as
--     the sums of their blocks (8M rows aggregated), first statement and
--     again. Target: < 5 s.
--  3. statement_timeout of 100 ms while 10^6 cells are read and built:
--     the statement ends at once.
-- Run by scripts/bench after us_geography.sql in the same cluster; needs a
-- superuser (it registers governed releases).
\set ON_ERROR_STOP 1
\pset footer off
CREATE EXTENSION IF NOT EXISTS invariant_dp;
SELECT dp.set_budget('bench error bars', epsilon => 100, delta => 0.5);

\echo
\echo === 1. a 1000 x 1000 two-way release, integer_gaussian, both margins (10^6 cells)
CREATE TABLE bench_grid AS
SELECT a, b, (a * 7 + b * 13) % 50 AS n FROM generate_series(1, 1000) a, generate_series(1, 1000) b;
REVOKE ALL ON bench_grid FROM PUBLIC;
SELECT dp.register_release('public.bench_two_way', 'bench error bars',
    source => 'SELECT a, b, n FROM bench_grid', columns => 'a int, b int, n bigint', epsilon => 1.0,
    mechanism => 'integer_gaussian', delta => 1e-6, margins => '{a,b}', options => '{"keys": "public"}');
SELECT dp.refresh_release('public.bench_two_way') > 0 AS drawn;
CREATE TABLE bench_two_way_law AS SELECT noise_law AS law FROM dp.release_laws WHERE release = 'bench_two_way'::regclass;
\c
\echo the sum of every cell (a margin: exact), first statement of the session, then again
\timing on
SELECT count(*) AS cells, sum(n) AS total, dp.margin_of_error(r, 0.95) AS moe FROM bench_two_way r;
SELECT count(*) AS cells, sum(n) AS total, dp.margin_of_error(r, 0.95) AS moe FROM bench_two_way r;
\timing off
\echo a random half of the cells (about 500,000), the structure kept
\timing on
SELECT count(*) AS cells, round(dp.margin_of_error(r, 0.95)) AS moe, (dp.error_bar(r, 0.95)).variance_kind
FROM bench_two_way r WHERE (a * 31 + b * 17) % 2 = 0;
\timing off
\echo the same with the law given (the table read again by each statement)
\timing on
SELECT count(*) AS cells, round(dp.margin_of_error(r, 0.95, (SELECT law FROM bench_two_way_law))) AS moe
FROM bench_two_way r WHERE (a * 31 + b * 17) % 2 = 0;
\timing off
\echo the plain sum beside it
\timing on
SELECT count(*) AS cells, sum(n) FROM bench_two_way r WHERE (a * 31 + b * 17) % 2 = 0;
\timing off

\echo
\echo === 1b. the same grid by subspace_laplace (real, both margins): the law of each sum, over Pi_N w, all 10^6 cells
CREATE TABLE bench_laplace AS
SELECT * FROM dp.privatize('SELECT a, b, n FROM bench_grid', 1.0, 'subspace_laplace', margins => '{a,b}')
    AS t(a int, b int, n float8);
CREATE TABLE bench_laplace_law AS SELECT dp.last_release() AS law;
\echo a 2 x 3 block, then about 150,000 cells, then a random half (the law given: the table read by each statement)
\timing on
SELECT cells, round((e).margin_of_error::numeric, 3) AS moe, (e).margin_kind
FROM (SELECT count(*) AS cells, dp.error_bar(r, 0.95, (SELECT law FROM bench_laplace_law)) AS e
      FROM bench_laplace r WHERE a <= 2 AND b <= 3) s;
SELECT cells, round((e).margin_of_error::numeric, 3) AS moe, (e).margin_kind
FROM (SELECT count(*) AS cells, dp.error_bar(r, 0.95, (SELECT law FROM bench_laplace_law)) AS e
      FROM bench_laplace r WHERE a <= 300 AND b <= 500) s;
SELECT cells, round((e).margin_of_error::numeric, 3) AS moe, (e).margin_kind
FROM (SELECT count(*) AS cells, dp.error_bar(r, 0.95, (SELECT law FROM bench_laplace_law)) AS e
      FROM bench_laplace r WHERE (a * 31 + b * 17) % 2 = 0) s;
\timing off
\echo 4,000 sums of 250 cells each in one GROUP BY (each its own law), and the plain sums beside them
\timing on
SELECT count(*) AS sums, round(avg(moe)::numeric, 3) AS mean_moe
FROM (SELECT a, (b - 1) / 250, dp.margin_of_error(r, 0.95, (SELECT law FROM bench_laplace_law)) AS moe
      FROM bench_laplace r GROUP BY a, (b - 1) / 250) g;
SELECT count(*) AS sums FROM (SELECT a, (b - 1) / 250, sum(n) FROM bench_laplace r GROUP BY a, (b - 1) / 250) g;
\timing off
\echo its variance alone, for the read of the table
\timing on
SELECT round(dp.sum_variance(r, (SELECT law FROM bench_laplace_law))) AS variance
FROM bench_laplace r WHERE (a * 31 + b * 17) % 2 = 0;
\timing off
DROP TABLE bench_laplace, bench_laplace_law;

\echo
\echo === 2. the national integer cascade (8M blocks), the state totals exact, a governed release
SELECT dp.register_release('public.bench_national', 'bench error bars',
    source => 'SELECT state, county, tract, block_group, block, population FROM us_blocks',
    columns => 'state int, county int, tract int, block_group int, block int, n bigint, level int',
    epsilon => 1.0, mechanism => 'integer_cascade', delta => 1e-9, margins => '{state}',
    hierarchy => '{state,county,tract,block_group,block}',
    options => '{"keys": "public", "level": true, "level_variance": [1, 1, 1, 2, 4, 8]}');
\timing on
SELECT dp.refresh_release('public.bench_national') > 0 AS drawn;
\timing off
SELECT level, count(*) AS rows FROM bench_national GROUP BY level ORDER BY level;
\c
\echo the 3,143 county nodes, first statement of the session (8.3M rows read, the tree built), then again
\timing on
SELECT count(*) AS counties, round(avg(moe)::numeric, 1) AS mean_moe, max(moe) AS max_moe
FROM (SELECT county, dp.margin_of_error(r, 0.9) AS moe FROM bench_national r WHERE level = 2 GROUP BY county) c;
SELECT count(*) AS counties, round(avg(moe)::numeric, 1) AS mean_moe, max(moe) AS max_moe
FROM (SELECT county, dp.margin_of_error(r, 0.9) AS moe FROM bench_national r WHERE level = 2 GROUP BY county) c;
\timing off
\echo the 3,143 county sums of their blocks (8M rows aggregated), the structure kept: the same variances
\echo (their states, 24 bytes a row, held at once: work_mem 512MB keeps the hash aggregate in memory)
SET work_mem = '512MB';
\timing on
SELECT count(*) AS counties, round(avg(moe)::numeric, 1) AS mean_moe, max(moe) AS max_moe
FROM (SELECT county, dp.margin_of_error(r, 0.9) AS moe FROM bench_national r WHERE level = 5 GROUP BY county) c;
\timing off
\echo the plain sums beside them
\timing on
SELECT count(*) AS counties, max(s) AS largest FROM (SELECT county, sum(n) AS s FROM bench_national r WHERE level = 5 GROUP BY county) c;
\timing off
RESET work_mem;

\echo
\echo === 3. statement_timeout = 100 ms while the 10^6 cells are read and built (the law given: built anew)
\c
SET statement_timeout = '100ms';
\set ON_ERROR_STOP 0
\timing on
SELECT dp.margin_of_error(r, 0.95, (SELECT law FROM bench_two_way_law)) FROM bench_two_way r;
\timing off
\set ON_ERROR_STOP 1
RESET statement_timeout;

SELECT dp.drop_release('public.bench_national');
SELECT dp.drop_release('public.bench_two_way');
DROP TABLE bench_grid, bench_two_way_law;
