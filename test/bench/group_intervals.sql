-- Benchmark: per-cell intervals (options {"interval": 0.9}) on a release
-- with one margin whose groups take hundreds of sizes, as a county x tract
-- table does: 3,000 groups of 1 to 300 cells (skewed towards small ones),
-- some 226,000 cells, 294 group sizes. Each cell's interval is its law's
-- quantile, and each group size has a law of its own; the target is the
-- intervals' own: with intervals <= 1.2 x without, for each mechanism, run
-- against the same release without them in the same run (16 runs, the
-- first dropped: over 5, a loaded machine's ratios moved by some 0.05).
-- Run by scripts/bench inside a throwaway cluster.
\set ON_ERROR_STOP 1
\pset footer off
CREATE EXTENSION IF NOT EXISTS invariant_dp;
\ir timing_harness.sql
SELECT setseed(0.3);
CREATE TABLE geo AS
  SELECT c AS county, t AS tract, (random() * 40)::int AS n
  FROM (SELECT c, 1 + floor(power(random(), 3) * 300)::int AS k FROM generate_series(1, 3000) c) s,
       LATERAL generate_series(1, s.k) t;
SELECT count(*) AS cells, (SELECT count(DISTINCT k) FROM (SELECT count(*) AS k FROM geo GROUP BY county) g)
       AS group_sizes
FROM geo;

CREATE TEMP TABLE mechanisms (name text, extra text, value_type text);
INSERT INTO mechanisms VALUES ('integer_laplace', '', 'bigint'), ('integer_gaussian', ', delta => 1e-6', 'bigint'),
                              ('subspace_laplace', '', 'float8'), ('project_l2', '', 'float8');
DO $$
DECLARE
  run int;
  m record;
BEGIN
  FOR run IN 1..16 LOOP
    FOR m IN SELECT * FROM mechanisms LOOP
      INSERT INTO timings SELECT m.name, run, pg_temp.time_ms(format(
        $q$SELECT * FROM dp.privatize('SELECT county, tract, n FROM geo', 1.0, %L%s, margins => '{county}')
             AS t(county int, tract int, n %s)$q$, m.name, m.extra, m.value_type));
      INSERT INTO timings SELECT m.name || ', interval 0.9', run, pg_temp.time_ms(format(
        $q$SELECT * FROM dp.privatize('SELECT county, tract, n FROM geo', 1.0, %L%s, margins => '{county}',
                                      options => '{"interval": 0.9}')
             AS t(county int, tract int, n %s, lower %s, upper %s)$q$,
        m.name, m.extra, m.value_type, m.value_type, m.value_type));
    END LOOP;
  END LOOP;
END $$;

-- Each mechanism with intervals against itself without them: medians, and
-- the median of each run's own ratio (target <= 1.2).
SELECT m.name,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY p.ms)::numeric) AS median_ms,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY i.ms)::numeric) AS with_intervals_ms,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY i.ms / p.ms)::numeric, 2) AS median_of_run_ratios
FROM mechanisms m
JOIN timings p ON p.what = m.name AND p.run > 1
JOIN timings i ON i.what = m.name || ', interval 0.9' AND i.run = p.run
GROUP BY m.name ORDER BY m.name;
