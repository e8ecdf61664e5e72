-- The county bias picture: one state of 100 counties (populations from 0 to
-- 100,000), the state total exact, 1000 releases each of integer_laplace,
-- congenial and project_nn_integer at epsilon 0.192 (the Census county
-- budget the integer-subspace paper uses). Writes each county's mean error
-- to county_bias.csv for gnuplot and summarises the bias.
\pset footer off
LOAD 'invariant_dp';  -- dp.seed is honoured once the library is loaded
SET dp.seed = '192';

CREATE TEMP TABLE county_runs (mechanism text, run int, county int, error bigint);
DO $$
DECLARE
    m text;
    r int;
BEGIN
    FOREACH m IN ARRAY ARRAY['integer_laplace', 'congenial', 'project_nn_integer'] LOOP
        FOR r IN 1..1000 LOOP
            INSERT INTO county_runs
            SELECT m, r, t.county, t.n - c.population
            FROM dp.privatize('SELECT state, county, population::bigint FROM counties', 0.192, m, margins => '{state}')
                 AS t(state text, county int, n bigint)
            JOIN counties c USING (county);
        END LOOP;
    END LOOP;
END $$;

CREATE TEMP TABLE county_bias AS
SELECT c.county, c.population, r.mechanism, avg(r.error) AS mean_error, stddev_samp(r.error) / sqrt(count(*)) AS se
FROM county_runs r JOIN counties c USING (county) GROUP BY 1, 2, 3;
\copy (SELECT population, max(mean_error) FILTER (WHERE mechanism = 'integer_laplace'), max(mean_error) FILTER (WHERE mechanism = 'congenial'), max(mean_error) FILTER (WHERE mechanism = 'project_nn_integer') FROM county_bias GROUP BY county, population ORDER BY population) TO 'county_bias.csv' WITH (FORMAT csv)

\echo '#### Mean error (released - true) over 1000 releases, by county size'
\echo
SELECT mechanism,
       round(avg(mean_error) FILTER (WHERE population < 10)::numeric, 2) AS "counties < 10",
       round(avg(mean_error) FILTER (WHERE population BETWEEN 10 AND 99)::numeric, 2) AS "10-99",
       round(avg(mean_error) FILTER (WHERE population BETWEEN 100 AND 9999)::numeric, 2) AS "100-9,999",
       round(avg(mean_error) FILTER (WHERE population >= 10000)::numeric, 2) AS ">= 10,000",
       count(*) FILTER (WHERE abs(mean_error) > 3.29 * se) AS "counties biased at p < 0.001",
       round(corr(mean_error, ln(population + 1))::numeric, 2) AS "corr(error, ln size)"
FROM county_bias GROUP BY mechanism ORDER BY mechanism;
