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
