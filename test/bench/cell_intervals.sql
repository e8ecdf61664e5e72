-- Benchmark: per-cell intervals (options {"interval": 0.9}) on a release of
-- 5 million independent discrete_laplace cells, one source row per cell with
-- an int key, against the same release without them in the same run (and the
-- plain query producing the same rows, for scale). Target: with intervals <=
-- 1.2 x without. Run by scripts/bench inside a throwaway cluster; psql -v
-- cells=N runs it at another size.
\set ON_ERROR_STOP 1
\pset footer off
CREATE EXTENSION IF NOT EXISTS invariant_dp;
\ir timing_harness.sql
\if :{?cells}
\else
\set cells 5000000
\endif
SELECT set_config('bench.cells', :'cells', false) AS cells;

DO $$
DECLARE
  run int;
  cells bigint := current_setting('bench.cells')::bigint;
  source text := format('SELECT g, 1::bigint FROM generate_series(1, %s) g', cells);
BEGIN
  FOR run IN 1..6 LOOP
    INSERT INTO timings SELECT 'plain query', run, pg_temp.time_ms(source);
    INSERT INTO timings SELECT 'discrete_laplace', run, pg_temp.time_ms(
      format($q$SELECT * FROM dp.privatize(%L, 1.0, 'discrete_laplace') AS t(g int, n bigint)$q$, source));
    INSERT INTO timings SELECT 'discrete_laplace, interval 0.9', run, pg_temp.time_ms(
      format($q$SELECT * FROM dp.privatize(%L, 1.0, 'discrete_laplace', options => '{"interval": 0.9}')
                AS t(g int, n bigint, lower bigint, upper bigint)$q$, source));
  END LOOP;
END $$;

-- Ratios to the release without intervals.
\set plain 'discrete_laplace'
\ir timing_report.sql
