-- Benchmark: dp.privatize with a partition invariant over a 10-million-row
-- table grouped into 100,000 cells (2,000 counties in 50 states), against
-- the plain GROUP BY in the same run. Target: privatize <= 1.3x plain.
-- Run by scripts/bench inside a throwaway cluster.
\set ON_ERROR_STOP 1
\pset footer off
CREATE EXTENSION IF NOT EXISTS invariant_dp;
DROP TABLE IF EXISTS persons;
CREATE TABLE persons AS
SELECT (i % 50) AS state, (i % 100000) AS cell
FROM generate_series(1, 10000000) i;
VACUUM ANALYZE persons;

CREATE TEMP TABLE timings (what text, run int, ms float8);
CREATE FUNCTION pg_temp.time_ms(query text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp(); n bigint;
BEGIN
  EXECUTE 'SELECT count(*) FROM (' || query || ') q' INTO n;
  RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END $$;

DO $$
DECLARE run int;
BEGIN
  FOR run IN 1..5 LOOP
    INSERT INTO timings SELECT 'plain GROUP BY', run, pg_temp.time_ms(
      'SELECT state, cell, count(*) FROM persons GROUP BY 1, 2');
    INSERT INTO timings SELECT 'dp.privatize subspace_laplace {state}', run, pg_temp.time_ms(
      $q$SELECT * FROM dp.privatize('SELECT state, cell, count(*) FROM persons GROUP BY 1, 2', 1.0,
         'subspace_laplace', margins => '{state}') AS t(state int, cell int, n float8)$q$);
    INSERT INTO timings SELECT 'dp.privatize discrete_laplace', run, pg_temp.time_ms(
      $q$SELECT * FROM dp.privatize('SELECT state, cell, count(*) FROM persons GROUP BY 1, 2', 1.0,
         'discrete_laplace') AS t(state int, cell int, n bigint)$q$);
  END LOOP;
END $$;

SELECT what, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric) AS median_ms,
       round(min(ms)::numeric) AS min_ms
FROM timings WHERE run > 1 GROUP BY what ORDER BY 2;
-- Ratios of the medians and of the best runs (the best run is the least
-- disturbed by other load on the machine).
SELECT p.what,
       round((p.median / g.median)::numeric, 3) AS median_ratio_to_plain,
       round((p.best / g.best)::numeric, 3) AS best_ratio_to_plain
FROM (SELECT what, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS median, min(ms) AS best
      FROM timings WHERE run > 1 GROUP BY what) p,
     (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS median, min(ms) AS best
      FROM timings WHERE run > 1 AND what = 'plain GROUP BY') g
WHERE p.what <> 'plain GROUP BY'
ORDER BY 1;
DROP TABLE persons;
