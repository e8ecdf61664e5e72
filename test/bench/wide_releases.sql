-- Benchmark: releases of 5 million cells, one source row per cell
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
  FOR run IN 1..6 LOOP
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

-- Memory (target: <= 64 bytes per cell beyond PostgreSQL's own
-- tuplestores, 10M cells in bounded memory): how far one release raises the
-- backend's peak resident memory (VmHWM, reset first through
-- /proc/self/clear_refs) above its resident memory before, per cell. The
-- tuplestores of the source and of the result spill to disk beyond
-- work_mem, so what grows with the cells is the release's own memory.
CREATE FUNCTION pg_temp.status_kb(field text) RETURNS bigint LANGUAGE sql AS
$$SELECT (regexp_match(pg_read_file('/proc/self/status'), field || ':\s+(\d+) kB'))[1]::bigint$$;
CREATE FUNCTION pg_temp.peak_bytes_per_cell(query text, cells bigint) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE before_kb bigint;
BEGIN
  COPY (SELECT 5) TO '/proc/self/clear_refs';  -- the peak restarts from the current resident memory
  before_kb := pg_temp.status_kb('VmRSS');
  EXECUTE query;
  RETURN round((pg_temp.status_kb('VmHWM') - before_kb) * 1024.0 / cells, 1);
END $$;
SELECT 'discrete_laplace, 5M cells' AS release, pg_temp.peak_bytes_per_cell(
  $q$SELECT count(*) FROM dp.privatize('SELECT g, 1::bigint FROM generate_series(1, 5000000) g', 1.0,
     'discrete_laplace') AS t(g int, n bigint)$q$, 5000000) AS bytes_per_cell
UNION ALL
SELECT 'discrete_laplace, 10M cells (dp.max_cells)', pg_temp.peak_bytes_per_cell(
  $q$SELECT count(*) FROM dp.privatize('SELECT g, 1::bigint FROM generate_series(1, 10000000) g', 1.0,
     'discrete_laplace') AS t(g int, n bigint)$q$, 10000000)
UNION ALL
SELECT 'integer_laplace {state}, 5M cells', pg_temp.peak_bytes_per_cell(
  $q$SELECT count(*) FROM dp.privatize('SELECT g / 1000 AS state, g, 1::bigint FROM generate_series(1, 5000000) g',
     1.0, 'integer_laplace', margins => '{state}') AS t(state int, g int, n bigint)$q$, 5000000);
