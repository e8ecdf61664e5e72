-- congenial (conditioning, with non-negativity) and the projection
-- baselines project_l2, project_nn_l2, project_nn_integer, as a user calls
-- them: outputs keep the margins, the right ones are non-negative and
-- integer, and every release names its family.
\set VERBOSITY terse
\set q 'SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2'
LOAD 'invariant_dp';  -- SET dp.seed is honoured once the library is loaded
SET dp.seed = '44';
CREATE TABLE county_totals AS SELECT county, count(*) AS total FROM delinquents GROUP BY 1;
CREATE TABLE edu_totals AS SELECT edu, count(*) AS total FROM delinquents GROUP BY 1;

-- Check one release: margins, sign, integrality, family.
CREATE FUNCTION check_release(mechanism text, margins text[], options jsonb DEFAULT '{}',
    OUT family text, OUT county_totals_exact boolean, OUT edu_totals_exact boolean,
    OUT non_negative text, OUT integers boolean) LANGUAGE plpgsql AS $$
BEGIN
  CREATE TEMP TABLE r ON COMMIT DROP AS
  SELECT * FROM dp.privatize('SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2', 1.0, mechanism,
                             margins => margins, options => options) AS t(county text, edu text, n float8);
  family := dp.last_release()->>'family';
  SELECT bool_and(abs(s.total - c.total) <= 1e-9 * c.total) INTO county_totals_exact
  FROM (SELECT county, sum(n) AS total FROM r GROUP BY 1) s JOIN county_totals c USING (county);
  SELECT bool_and(abs(s.total - c.total) <= 1e-9 * c.total) INTO edu_totals_exact
  FROM (SELECT edu, sum(n) AS total FROM r GROUP BY 1) s JOIN edu_totals c USING (edu);
  -- Non-negativity is checked where the mechanism promises it (the others
  -- may or may not draw a negative cell).
  SELECT CASE WHEN dp.last_release()->>'non_negative' = 'true' THEN bool_and(n >= 0)::text ELSE 'not promised' END,
         bool_and(n = round(n)) INTO non_negative, integers FROM r;
  DROP TABLE r;
END $$;

BEGIN;
SELECT 'congenial, one margin' AS release, * FROM check_release('congenial', '{county}');
COMMIT;
SELECT dp.last_release()->'accounting'->>'base_epsilon' AS base_epsilon, dp.last_release()->>'non_negative' AS non_negative;
BEGIN;
SELECT 'congenial, both margins' AS release, * FROM check_release('congenial', '{county,edu}');
COMMIT;
BEGIN;
SELECT 'congenial, exact rejection' AS release, * FROM check_release('congenial', '{county}', '{"sampler": "rejection"}');
COMMIT;
SELECT dp.last_release()->'sampler'->>'exact' AS exact;
-- Both margins of a 2 x n table (the congenial paper's 2 x 23 shape): the
-- exact rejection sampler per table, no chain; the 4 x 4 table has none.
CREATE TEMP TABLE two_line AS
SELECT * FROM dp.privatize($$SELECT s, a, (s * a) % 5 FROM generate_series(1, 2) s, generate_series(1, 23) a$$, 1.0,
                           'congenial', margins => '{s,a}', options => '{"sampler": "rejection"}') AS t(s int, a int, n bigint);
SELECT bool_and(n >= 0) AS non_negative,
       (SELECT bool_and(x = y) FROM (SELECT s, sum(n) AS x, sum((s * a) % 5) AS y FROM two_line GROUP BY s) r) AS rows_exact,
       (SELECT bool_and(x = y) FROM (SELECT a, sum(n) AS x, sum((s * a) % 5) AS y FROM two_line GROUP BY a) c) AS columns_exact,
       dp.last_release()->>'exact' AS exact, dp.last_release()->'sampler'->>'iterations' AS iterations
FROM two_line;
SELECT count(*) FROM dp.privatize(:'q', 1.0, 'congenial', margins => '{county,edu}', options => '{"sampler": "rejection"}')
    AS t(county text, edu text, n bigint);
BEGIN;
SELECT 'project_l2' AS release, * FROM check_release('project_l2', '{county,edu}');
COMMIT;
BEGIN;
SELECT 'project_nn_l2' AS release, * FROM check_release('project_nn_l2', '{county,edu}');
COMMIT;
BEGIN;
SELECT 'project_nn_integer' AS release, * FROM check_release('project_nn_integer', '{county,edu}');
COMMIT;
BEGIN;
SELECT 'integer_laplace' AS release, * FROM check_release('integer_laplace', '{county}');
COMMIT;
BEGIN;
SELECT 'subspace_laplace' AS release, * FROM check_release('subspace_laplace', '{county}');
COMMIT;
-- The projection's statement says it is not post-processing.
SELECT position('not post-processing' IN dp.last_release()->>'privacy') > 0 AS says_so;

-- Errors.
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2', 1.0, 'congenial', margins => '{county}',
                     options => '{"sampler": "gibbs"}') AS t(county text, edu text, n bigint)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2', 1.0, 'integer_laplace', margins => '{county}',
                     options => '{"sampler": "mis"}') AS t(county text, edu text, n bigint)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT county, edu, -1::bigint FROM delinquents GROUP BY 1, 2', 1.0,
                     'project_nn_l2', margins => '{county}') AS t(county text, edu text, n float8)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2', 1.0,
                     'project_nn_integer', margins => '{county,edu}', options => '{"sampler": "mis"}')
                     AS t(county text, edu text, n bigint)$$);

-- dp.diagnose runs the congenial chain on a public stand-in table.
SELECT metric FROM dp.diagnose(:'q', 1.0, 'congenial', margins => '{county,edu}') ORDER BY metric;
