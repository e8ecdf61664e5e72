-- Integer cascade against project_nn_integer on a slice of a U.S.-shaped
-- geography (data_blocks.sql: 2 states down to 23,415 blocks), both
-- integer at every level with the state totals exact, at epsilon 1
-- (integer_cascade: delta 1e-9, zCDP; project_nn_integer: pure epsilon,
-- discrete Laplace b = 2 on every block, non-negative least squares and
-- controlled rounding, then rolled up). 200 releases each: the error of
-- every level (root mean square, and the mean), and the mean error of the
-- blocks by their true size. Writes block_bias.csv for gnuplot
-- (block_bias.gp).
\pset footer off
LOAD 'invariant_dp';  -- dp.seed is honoured once the library is loaded
SET dp.seed = '1500';

CREATE TEMP TABLE block_runs (mechanism text, run int, level int, size_class int, n bigint, error_sum float8,
                              error_squares float8);
DO $$
DECLARE
    m text;
    r int;
BEGIN
    FOREACH m IN ARRAY ARRAY['integer_cascade', 'project_nn_integer'] LOOP
        FOR r IN 1..200 LOOP
            INSERT INTO block_runs
            SELECT m, r, t.level, CASE WHEN t.level = 5 THEN s.size_class END, count(*), sum(t.n - s.population),
                   sum((t.n - s.population)::float8 ^ 2)
            FROM dp.privatize('SELECT state, county, tract, block_group, block, population FROM slice_blocks', 1.0, m,
                              delta => CASE WHEN m = 'integer_cascade' THEN 1e-9 END, margins => '{state}',
                              hierarchy => '{state,county,tract,block_group,block}', options => '{"level": true}')
                 AS t(state int, county int, tract int, block_group int, block int, n bigint, level int)
            JOIN (SELECT level, node, population,
                         -- 0, 1-2, 3-5, 6-10, 11-20, 21-50, 51-100, 101-200, > 200
                         width_bucket(population, ARRAY[1, 3, 6, 11, 21, 51, 101, 201]) AS size_class
                  FROM slice_truth) s
              ON s.level = t.level
             AND s.node = CASE t.level WHEN 0 THEN 0 WHEN 1 THEN t.state WHEN 2 THEN t.county WHEN 3 THEN t.tract
                                       WHEN 4 THEN t.block_group ELSE t.block END
            GROUP BY 3, 4;
        END LOOP;
    END LOOP;
END $$;

CREATE TEMP TABLE class_bias AS
SELECT mechanism, size_class, (sum(n) / 200)::bigint AS blocks, sum(error_sum) / sum(n) AS mean_error,
       sqrt((sum(error_squares) / sum(n) - (sum(error_sum) / sum(n)) ^ 2) / sum(n)) AS se,
       (SELECT avg(population) FROM slice_truth WHERE level = 5
           AND width_bucket(population, ARRAY[1, 3, 6, 11, 21, 51, 101, 201]) = b.size_class) AS mean_size
FROM block_runs b WHERE level = 5 GROUP BY 1, 2;
\copy (SELECT c.mean_size, c.mean_error, c.se, p.mean_error, p.se FROM class_bias c JOIN class_bias p USING (size_class) WHERE c.mechanism = 'integer_cascade' AND p.mechanism = 'project_nn_integer' ORDER BY size_class) TO 'block_bias.csv' WITH (FORMAT csv)
\copy (SELECT level, max(sqrt(s / k)) FILTER (WHERE mechanism = 'integer_cascade'), max(sqrt(s / k)) FILTER (WHERE mechanism = 'project_nn_integer') FROM (SELECT mechanism, level, sum(error_squares) AS s, sum(n) AS k FROM block_runs GROUP BY 1, 2) l GROUP BY level ORDER BY level) TO 'block_levels.csv' WITH (FORMAT csv)

SELECT count(*) FILTER (WHERE level = 5) AS blocks, count(*) FILTER (WHERE level = 4) AS block_groups,
       count(*) FILTER (WHERE level = 3) AS tracts, count(*) FILTER (WHERE level = 2) AS counties,
       count(*) FILTER (WHERE level = 1) AS states, sum(population) FILTER (WHERE level = 0) AS people,
       round(avg((population = 0)::int) FILTER (WHERE level = 5), 2) AS empty_blocks
FROM slice_truth;
\echo '#### Error by level over 200 releases (root mean square; mean in parentheses)'
\echo
SELECT CASE level WHEN 0 THEN 'total' WHEN 1 THEN 'state' WHEN 2 THEN 'county' WHEN 3 THEN 'tract'
                  WHEN 4 THEN 'block group' ELSE 'block' END AS level,
       max(format('%s (%s)', round(sqrt(s / k)::numeric, 1), round((e / k)::numeric, 2))) FILTER (WHERE mechanism = 'integer_cascade')
           AS integer_cascade,
       max(format('%s (%s)', round(sqrt(s / k)::numeric, 1), round((e / k)::numeric, 2))) FILTER (WHERE mechanism = 'project_nn_integer')
           AS project_nn_integer
FROM (SELECT mechanism, level, sum(error_squares) AS s, sum(error_sum) AS e, sum(n) AS k FROM block_runs GROUP BY 1, 2) l
GROUP BY l.level ORDER BY l.level;
\echo '#### Mean error (released - true) of the blocks by true size, over 200 releases (standard error)'
\echo
SELECT CASE size_class WHEN 0 THEN '0' WHEN 1 THEN '1-2' WHEN 2 THEN '3-5' WHEN 3 THEN '6-10' WHEN 4 THEN '11-20'
                       WHEN 5 THEN '21-50' WHEN 6 THEN '51-100' WHEN 7 THEN '101-200' ELSE '> 200' END AS block_size,
       max(blocks) AS blocks,
       max(format('%s (%s)', round(mean_error::numeric, 2), round(se::numeric, 2))) FILTER (WHERE mechanism = 'integer_cascade')
           AS integer_cascade,
       max(format('%s (%s)', round(mean_error::numeric, 2), round(se::numeric, 2))) FILTER (WHERE mechanism = 'project_nn_integer')
           AS project_nn_integer
FROM class_bias GROUP BY size_class ORDER BY size_class;
\echo '#### Size classes whose mean error differs from zero at p < 0.001 (more than 3.29 standard errors)'
\echo
SELECT mechanism, count(*) FILTER (WHERE abs(mean_error) > 3.29 * se) AS biased_classes, count(*) AS classes
FROM class_bias GROUP BY 1 ORDER BY 1;
