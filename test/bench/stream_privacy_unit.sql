-- Benchmark: one refresh of a governed stream with a privacy unit over a
-- 10-million-row event table (1M patients, 100 days), against the plain
-- GROUP BY day of the same rows and a stream without a unit (its source
-- that GROUP BY) in the same run. Every refresh reads the whole source,
-- orders its periods, bounds each patient (first G days, R rows each) and
-- checks that the released days still count the same patients; the first
-- one appends the 100 days, the later ones append nothing, which is the
-- steady cost of a nightly refresh. 4 runs each, the first dropped.
-- Run by scripts/bench inside a throwaway cluster.
\set ON_ERROR_STOP 1
\pset footer off
CREATE EXTENSION IF NOT EXISTS invariant_dp;
SET dp.max_source_memory = 4194304;  -- kB: 4 GB
DROP TABLE IF EXISTS events;
SELECT setseed(0.5);
CREATE TABLE events AS
SELECT date '2026-01-01' + floor(random() * 100)::int AS day, (i % 1000000) AS patient_id
FROM generate_series(1, 10000000) i;
REVOKE ALL ON events FROM PUBLIC;
VACUUM ANALYZE events;
SELECT dp.set_budget('bench events', 10, 1e-3);
SELECT dp.register_stream('bench_daily_patients', 'bench events', 'SELECT day, patient_id FROM events',
    'day date, n float8', 1.0, 1e-6, 10, privacy_unit => 'patient_id',
    bounds => '{"max_groups_per_unit": 3, "max_rows_per_group": 1}');
SELECT dp.register_stream('bench_daily_events', 'bench events', 'SELECT day, count(*) FROM events GROUP BY 1',
    'day date, n float8', 1.0, 1e-6, 10);

\ir timing_harness.sql

DO $$
DECLARE run int;
BEGIN
  FOR run IN 1..4 LOOP
    INSERT INTO timings SELECT 'plain GROUP BY day', run, pg_temp.time_ms(
      'SELECT day, count(*) FROM events GROUP BY 1 HAVING count(*) > 0');
    INSERT INTO timings SELECT 'stream refresh, unit G=3 R=1', run, pg_temp.time_ms(
      $q$SELECT dp.refresh_release('bench_daily_patients')$q$);
    INSERT INTO timings SELECT 'stream refresh, one row per person', run, pg_temp.time_ms(
      $q$SELECT dp.refresh_release('bench_daily_events')$q$);
  END LOOP;
END $$;

\set plain 'plain GROUP BY day'
\ir timing_report.sql
SELECT dp.drop_release('bench_daily_patients'), dp.drop_release('bench_daily_events');
DELETE FROM dp.draws;
DELETE FROM dp.budgets;
DROP TABLE events;
