-- Benchmark (issue 16): releases of 5 million cells, one source row per cell
-- with int keys, against the plain query producing the same rows in the
-- same run. Targets: discrete_laplace <= 2x the plain query; one margin
-- (integer_laplace, subspace_gaussian) <= 2.5x. Run by scripts/bench inside
-- a throwaway cluster; the core's share alone is bench_wide_release.
\set ON_ERROR_STOP 1
\pset footer off
CREATE EXTENSION IF NOT EXISTS invariant_dp;
\ir timing_harness.sql

DO $$
DECLARE run int;
BEGIN
  FOR run IN 1..4 LOOP
    INSERT INTO timings SELECT 'plain query, 5M rows', run, pg_temp.time_ms(
      'SELECT g / 1000 AS state, g, 1::bigint FROM generate_series(1, 5000000) g');
    INSERT INTO timings SELECT 'discrete_laplace, 5M cells', run, pg_temp.time_ms(
      $q$SELECT * FROM dp.privatize('SELECT g, 1::bigint FROM generate_series(1, 5000000) g', 1.0,
         'discrete_laplace') AS t(g int, n bigint)$q$);
    INSERT INTO timings SELECT 'integer_laplace {state}, 5M cells', run, pg_temp.time_ms(
      $q$SELECT * FROM dp.privatize('SELECT g / 1000 AS state, g, 1::bigint FROM generate_series(1, 5000000) g', 1.0,
         'integer_laplace', margins => '{state}') AS t(state int, g int, n bigint)$q$);
    INSERT INTO timings SELECT 'subspace_gaussian {state}, 5M cells', run, pg_temp.time_ms(
      $q$SELECT * FROM dp.privatize('SELECT g / 1000 AS state, g, 1::bigint FROM generate_series(1, 5000000) g', 1.0,
         'subspace_gaussian', delta => 1e-6, margins => '{state}') AS t(state int, g int, n float8)$q$);
  END LOOP;
END $$;

\set plain 'plain query, 5M rows'
\ir timing_report.sql

-- Memory (issue 16: <= 64 bytes per cell beyond PostgreSQL's own
-- tuplestores, 10M cells in bounded memory): the peak resident memory of a
-- fresh backend (VmHWM) before and after one release, per cell. The
-- tuplestores of the source and of the result spill to disk beyond work_mem,
-- so what grows with the cells is the release's own memory.
CREATE OR REPLACE FUNCTION peak_kb() RETURNS bigint LANGUAGE sql AS
$$SELECT (regexp_match(pg_read_file('/proc/self/status'), 'VmHWM:\s+(\d+) kB'))[1]::bigint$$;
\connect
SELECT peak_kb() AS before_kb \gset
SELECT count(*) AS cells FROM dp.privatize('SELECT g, 1::bigint FROM generate_series(1, 5000000) g', 1.0,
       'discrete_laplace') AS t(g int, n bigint);
SELECT 'discrete_laplace, 5M cells' AS release, peak_kb() - :before_kb AS peak_growth_kb,
       round((peak_kb() - :before_kb) * 1024.0 / 5000000, 1) AS bytes_per_cell;
\connect
SELECT peak_kb() AS before_kb \gset
SELECT count(*) AS cells FROM dp.privatize('SELECT g, 1::bigint FROM generate_series(1, 10000000) g', 1.0,
       'discrete_laplace') AS t(g int, n bigint);
SELECT 'discrete_laplace, 10M cells (dp.max_cells)' AS release, peak_kb() - :before_kb AS peak_growth_kb,
       round((peak_kb() - :before_kb) * 1024.0 / 10000000, 1) AS bytes_per_cell;
\connect
SELECT peak_kb() AS before_kb \gset
SELECT count(*) AS cells FROM dp.privatize('SELECT g / 1000 AS state, g, 1::bigint FROM generate_series(1, 5000000) g',
       1.0, 'integer_laplace', margins => '{state}') AS t(state int, g int, n bigint);
SELECT 'integer_laplace {state}, 5M cells' AS release, peak_kb() - :before_kb AS peak_growth_kb,
       round((peak_kb() - :before_kb) * 1024.0 / 5000000, 1) AS bytes_per_cell;
DROP FUNCTION peak_kb();
