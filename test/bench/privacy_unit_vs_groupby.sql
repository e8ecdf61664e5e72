-- Benchmark: dp.privatize with a privacy unit over a 10-million-
-- row visits table (1M patients, 1,000 clinics x 100 months = 100,000
-- cells), against the plain GROUP BY of the same rows in the same run.
-- Target: at most 1.5x the plain query. Run by scripts/bench inside a
-- throwaway cluster. The source returns every row (unit and keys), so the
-- bounding reads 10M rows into the backend; the plain query aggregates in
-- the executor (hash aggregate, parallel where the planner chooses).
\set ON_ERROR_STOP 1
\pset footer off
CREATE EXTENSION IF NOT EXISTS invariant_dp;
-- 10M source rows are the default dp.max_cells; the rows' keys and units
-- take about 1 GB.
SET dp.max_cells = 20000000;
SET dp.max_source_memory = 4194304;  -- kB: 4 GB
DROP TABLE IF EXISTS visits;
-- Ten visits per patient, each at a random clinic and month.
SELECT setseed(0.5);
CREATE TABLE visits AS
SELECT (i % 1000000) AS patient_id, 'clinic ' || floor(random() * 1000) AS clinic, floor(random() * 100)::int AS month
FROM generate_series(1, 10000000) i;
VACUUM ANALYZE visits;

\ir timing_harness.sql

DO $$
DECLARE run int;
BEGIN
  FOR run IN 1..4 LOOP
    INSERT INTO timings SELECT 'plain GROUP BY clinic, month', run, pg_temp.time_ms(
      'SELECT clinic, month, count(*) FROM visits GROUP BY 1, 2 HAVING count(*) > 0');
    INSERT INTO timings SELECT 'plain SELECT of the rows (read only)', run, pg_temp.time_ms(
      'SELECT patient_id, clinic, month FROM visits');
    INSERT INTO timings SELECT 'dp.privatize unit, G=3 R=1, discrete_laplace', run, pg_temp.time_ms(
      $q$SELECT * FROM dp.privatize('SELECT patient_id, clinic, month FROM visits', 1.0, 'discrete_laplace',
         privacy_unit => 'patient_id', bounds => '{"max_groups_per_unit": 3, "max_rows_per_group": 1}')
         AS t(clinic text, month int, n bigint)$q$);
    INSERT INTO timings SELECT 'dp.privatize unit, G=3 R=1, integer_laplace {clinic}', run, pg_temp.time_ms(
      $q$SELECT * FROM dp.privatize('SELECT patient_id, clinic, month FROM visits', 1.0, 'integer_laplace',
         margins => '{clinic}', privacy_unit => 'patient_id',
         bounds => '{"max_groups_per_unit": 3, "max_rows_per_group": 1}') AS t(clinic text, month int, n bigint)$q$);
  END LOOP;
END $$;

\set plain 'plain GROUP BY clinic, month'
\ir timing_report.sql
DROP TABLE visits;
