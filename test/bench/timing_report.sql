-- Shared by the SQL benchmarks (after timing_harness.sql): the median and
-- best of each timed query, the first run dropped, and their ratios to the
-- plain query psql variable plain names (the best run is the least
-- disturbed by other load on the machine), and the median of each run's
-- own ratio (a query against the plain query of the same run, seconds
-- apart: what drifts over minutes on a shared host cancels).
SELECT what, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric) AS median_ms,
       round(min(ms)::numeric) AS min_ms
FROM timings WHERE run > 1 GROUP BY what ORDER BY 2;
SELECT p.what,
       round((p.median / g.median)::numeric, 3) AS median_ratio_to_plain,
       round((p.best / g.best)::numeric, 3) AS best_ratio_to_plain,
       round(r.paired::numeric, 3) AS median_of_run_ratios
FROM (SELECT what, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS median, min(ms) AS best
      FROM timings WHERE run > 1 GROUP BY what) p,
     (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS median, min(ms) AS best
      FROM timings WHERE run > 1 AND what = :'plain') g,
     LATERAL (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY t.ms / b.ms) AS paired
              FROM timings t JOIN timings b ON b.run = t.run AND b.what = :'plain'
              WHERE t.what = p.what AND t.run > 1) r
WHERE p.what <> :'plain'
ORDER BY 1;
