-- The census-like comparison: 3,000 counties x 20 age groups with both
-- margins exact (the county totals and the age totals), integer_gaussian
-- (exact lattice Gaussian, unbiased) against project_nn_integer (raw
-- discrete Laplace noise projected onto y >= 0 and the margins, then
-- controlled rounding: TopDown-style), at epsilon = 1 (integer_gaussian:
-- delta = 1e-6). project_nn_integer's solver (Clp) takes at most 40,000
-- cells and 600 independent margin rows, so the two are compared on the
-- largest slice it accepts: 580 counties spread evenly over the size
-- ranking (580 + 20 - 1 = 599 margin rows, 11,600 cells, the slice's own
-- county and age totals exact); integer_gaussian also runs on the whole
-- table. With both margins exact every county total and every age total is
-- exact, so the error shows only across them: the mean error per cell by
-- county size class and age group, and by the cell's own count. Writes
-- census.csv for gnuplot.
\pset footer off
SET dp.seed = '2021';

CREATE TEMP TABLE classed AS
SELECT county, population,
       CASE WHEN population < 2500 THEN 1 WHEN population < 20000 THEN 2 WHEN population < 100000 THEN 3 ELSE 4 END
         AS class
FROM census_counties;
CREATE TEMP TABLE slice AS
SELECT county FROM (SELECT county, row_number() OVER (ORDER BY population, county) AS rank FROM census_counties) r
WHERE (rank * 580) % 3000 < 580;

CREATE TEMP TABLE census_runs (mechanism text, scope text, run int, county int, age int, error bigint);
DO $$
DECLARE
    m record;
    r int;
BEGIN
    FOR m IN SELECT * FROM (VALUES
        ('integer_gaussian', 'slice', 'SELECT county, age, n FROM census_cells WHERE county IN (SELECT county FROM slice)'),
        ('project_nn_integer', 'slice', 'SELECT county, age, n FROM census_cells WHERE county IN (SELECT county FROM slice)'),
        ('integer_gaussian', 'all', 'SELECT county, age, n FROM census_cells')) AS v(name, scope, source)
    LOOP
        FOR r IN 1..20 LOOP
            INSERT INTO census_runs
            SELECT m.name, m.scope, r, t.county, t.age, t.n - c.n
            FROM dp.privatize(m.source, 1.0, m.name, delta => CASE WHEN m.name = 'integer_gaussian' THEN 1e-6 END,
                              margins => '{county,age}') AS t(county int, age int, n bigint)
            JOIN census_cells c USING (county, age);
        END LOOP;
    END LOOP;
END $$;

-- Mean error per cell by (mechanism, scope, class, age), its standard error
-- over cells and runs, and whether it differs from 0 at p < 0.001.
CREATE TEMP TABLE census_bias AS
SELECT mechanism, scope, class, age, avg(error) AS mean_error, stddev_samp(error) / sqrt(count(*)) AS se,
       sqrt(avg(error ^ 2)) AS rmse, count(DISTINCT county) AS counties
FROM census_runs JOIN classed USING (county) GROUP BY 1, 2, 3, 4;
\copy (SELECT age, max(mean_error) FILTER (WHERE mechanism = 'project_nn_integer' AND class = 1), max(mean_error) FILTER (WHERE mechanism = 'project_nn_integer' AND class = 2), max(mean_error) FILTER (WHERE mechanism = 'project_nn_integer' AND class = 3), max(mean_error) FILTER (WHERE mechanism = 'project_nn_integer' AND class = 4), max(mean_error) FILTER (WHERE mechanism = 'integer_gaussian' AND scope = 'slice' AND class = 1), max(mean_error) FILTER (WHERE mechanism = 'integer_gaussian' AND scope = 'slice' AND class = 2), max(mean_error) FILTER (WHERE mechanism = 'integer_gaussian' AND scope = 'slice' AND class = 3), max(mean_error) FILTER (WHERE mechanism = 'integer_gaussian' AND scope = 'slice' AND class = 4), max(mean_error) FILTER (WHERE mechanism = 'integer_gaussian' AND scope = 'all' AND class = 1), max(mean_error) FILTER (WHERE mechanism = 'integer_gaussian' AND scope = 'all' AND class = 2), max(mean_error) FILTER (WHERE mechanism = 'integer_gaussian' AND scope = 'all' AND class = 3), max(mean_error) FILTER (WHERE mechanism = 'integer_gaussian' AND scope = 'all' AND class = 4) FROM census_bias GROUP BY age ORDER BY age) TO 'census.csv' WITH (FORMAT csv)

\echo '#### The table'
\echo
SELECT count(*) AS counties, min(population) AS smallest, percentile_disc(0.5) WITHIN GROUP (ORDER BY population) AS median,
       max(population) AS largest,
       (SELECT count(*) FROM census_cells) AS cells, (SELECT count(*) FROM census_cells WHERE n < 5) AS "cells < 5",
       (SELECT count(*) FROM slice) AS "counties in the slice"
FROM census_counties;
SELECT class AS "size class", CASE class WHEN 1 THEN '< 2,500' WHEN 2 THEN '2,500-19,999' WHEN 3 THEN '20,000-99,999'
       ELSE '>= 100,000' END AS population, count(*) AS counties, count(*) FILTER (WHERE county IN (SELECT county FROM slice))
       AS "in the slice"
FROM classed GROUP BY class ORDER BY class;

\echo
\echo '#### Mean error per cell (released - true) by county size class and age group, 20 releases each'
\echo
SELECT mechanism || ' (' || scope || ')' AS mechanism,
       count(*) FILTER (WHERE abs(mean_error) > 3.29 * se) || ' of ' || count(*) AS "class x age groups biased at p < 0.001",
       round(max(abs(mean_error))::numeric, 2) AS "largest absolute mean error",
       round((avg(mean_error) FILTER (WHERE class = 1 AND age >= 17))::numeric, 2) AS "counties < 2,500, ages 80+",
       round((avg(mean_error) FILTER (WHERE class = 1 AND age BETWEEN 4 AND 13))::numeric, 2) AS "counties < 2,500, ages 15-64",
       round((avg(mean_error) FILTER (WHERE class = 4 AND age >= 17))::numeric, 2) AS "counties >= 100,000, ages 80+",
       round(sqrt(sum(rmse ^ 2 * counties) / sum(counties))::numeric, 2) AS "rmse per cell"
FROM census_bias GROUP BY mechanism, scope ORDER BY mechanism DESC, scope DESC;

\echo
\echo '#### project_nn_integer: mean error per cell by age group (rows) and county size class (columns)'
\echo
SELECT age AS "age group", (age - 1) * 5 || CASE WHEN age = 20 THEN '+' ELSE '-' || (age * 5 - 1) END AS ages,
       round(max(mean_error) FILTER (WHERE class = 1)::numeric, 2) AS "< 2,500",
       round(max(mean_error) FILTER (WHERE class = 2)::numeric, 2) AS "2,500-19,999",
       round(max(mean_error) FILTER (WHERE class = 3)::numeric, 2) AS "20,000-99,999",
       round(max(mean_error) FILTER (WHERE class = 4)::numeric, 2) AS ">= 100,000"
FROM census_bias WHERE mechanism = 'project_nn_integer' GROUP BY age ORDER BY age;

\echo
\echo '#### Mean error per cell by the cell''s true count (where the bias comes from)'
\echo
SELECT mechanism || ' (' || scope || ')' AS mechanism,
       round(avg(error) FILTER (WHERE c.n = 0)::numeric, 2) AS "0",
       round(avg(error) FILTER (WHERE c.n BETWEEN 1 AND 2)::numeric, 2) AS "1-2",
       round(avg(error) FILTER (WHERE c.n BETWEEN 3 AND 5)::numeric, 2) AS "3-5",
       round(avg(error) FILTER (WHERE c.n BETWEEN 6 AND 20)::numeric, 2) AS "6-20",
       round(avg(error) FILTER (WHERE c.n BETWEEN 21 AND 100)::numeric, 2) AS "21-100",
       round(avg(error) FILTER (WHERE c.n > 100)::numeric, 2) AS "> 100",
       count(*) FILTER (WHERE c.n <= 5) / 20 AS "cells <= 5"
FROM census_runs r JOIN census_cells c USING (county, age) GROUP BY mechanism, scope ORDER BY mechanism DESC, scope DESC;
