-- Benchmark: dp.privatize with a partition invariant over a 10-million-row
-- table grouped into 100,000 cells (2,000 counties in 50 states), against
-- the plain GROUP BY in the same run, and from the rows themselves
-- ({"source": "rows"}: counted by the release). Target: privatize <= 1.1x
-- plain.
-- Run by scripts/bench inside a throwaway cluster.
\set ON_ERROR_STOP 1
\pset footer off
CREATE EXTENSION IF NOT EXISTS invariant_dp;
DROP TABLE IF EXISTS persons;
CREATE TABLE persons AS
SELECT (i % 50) AS state, (i % 100000) AS cell
FROM generate_series(1, 10000000) i;
VACUUM ANALYZE persons;

\ir timing_harness.sql

DO $$
DECLARE run int;
BEGIN
  FOR run IN 1..5 LOOP
    INSERT INTO timings SELECT 'plain GROUP BY', run, pg_temp.time_ms(
      'SELECT state, cell, count(*) FROM persons GROUP BY 1, 2 HAVING count(*) > 0');
    INSERT INTO timings SELECT 'dp.privatize subspace_laplace {state}', run, pg_temp.time_ms(
      $q$SELECT * FROM dp.privatize('SELECT state, cell, count(*) FROM persons GROUP BY 1, 2', 1.0,
         'subspace_laplace', margins => '{state}') AS t(state int, cell int, n float8)$q$);
    INSERT INTO timings SELECT 'dp.privatize discrete_laplace', run, pg_temp.time_ms(
      $q$SELECT * FROM dp.privatize('SELECT state, cell, count(*) FROM persons GROUP BY 1, 2', 1.0,
         'discrete_laplace') AS t(state int, cell int, n bigint)$q$);
    -- The rows themselves, counted by the release: no GROUP BY at all.
    INSERT INTO timings SELECT 'dp.privatize discrete_laplace, source rows', run, pg_temp.time_ms(
      $q$SELECT * FROM dp.privatize('SELECT state, cell FROM persons', 1.0, 'discrete_laplace',
         options => '{"source": "rows"}') AS t(state int, cell int, n bigint)$q$);
  END LOOP;
END $$;

\set plain 'plain GROUP BY'
\ir timing_report.sql
DROP TABLE persons;
