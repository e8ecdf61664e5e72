-- dp.noisy_count: per-group noisy counts; partial aggregation in parallel.
SELECT county, pg_typeof(dp.noisy_count(1.0)) AS type FROM delinquents GROUP BY county ORDER BY county;
SELECT count(*) AS groups FROM (SELECT edu, dp.noisy_count(0.5, 1e-6) FROM delinquents GROUP BY edu) g;

-- Empty input without GROUP BY: NULL, like sum().
SELECT dp.noisy_count(1.0) IS NULL AS empty_is_null FROM delinquents WHERE false;

-- Errors.
SELECT dp.noisy_count(0) FROM delinquents;
SELECT dp.noisy_count(NULL) FROM delinquents;
SELECT dp.noisy_count(1.0, 2) FROM delinquents;
SELECT dp.noisy_count(random() + 0.5) FROM delinquents;

-- A parallel plan: Partial aggregate in the workers, Finalize in the leader.
CREATE TABLE people AS SELECT i % 1000 AS grp FROM generate_series(1, 200000) i;
ANALYZE people;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT grp, dp.noisy_count(1.0) FROM people GROUP BY grp;
-- Under the parallel plan the counts are right: with b = 2/epsilon = 2 the
-- noise has sd 2.83; over 1000 groups every error stays within 40 (the
-- chance that any of them exceeds it is about 1e-6).
SELECT count(*) AS groups, max(abs(noisy - 200)) < 40 AS errors_small, abs(avg(noisy) - 200) < 1 AS mean_right
FROM (SELECT grp, dp.noisy_count(1.0) AS noisy FROM people GROUP BY grp) g;
RESET ALL;
DROP TABLE people;
