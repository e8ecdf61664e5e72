-- dp.privatize in FROM as a custom scan (src/pg/privatize_scan.c): the plan
-- uses it where the call's arguments are fixed for the query, and keeps the
-- function scan otherwise; with the same seed both return the same rows for
-- every kind of release; EXECUTE on dp.privatize is checked as for a call;
-- rescans, backward cursors, prepared statements and a cancel behave.
\set VERBOSITY terse

-- The plans. The session's first query: planning the call loads the
-- library (dp.privatize's support function), and with it the planner hook.
EXPLAIN (COSTS OFF) SELECT * FROM dp.privatize('SELECT county, count(*) FROM delinquents GROUP BY 1', 1.0)
AS t(county text, n bigint) WHERE n > 3;
CREATE TEMP TABLE runs (r int);
INSERT INTO runs VALUES (1), (2);
-- A column of another FROM item in the arguments (LATERAL), or the
-- setting off: the function scan.
EXPLAIN (COSTS OFF) SELECT * FROM runs, LATERAL dp.privatize('SELECT county, count(*) FROM delinquents GROUP BY 1',
                                                             r::float8) AS t(county text, n bigint);
SET dp.privatize_scan = off;
EXPLAIN (COSTS OFF) SELECT * FROM dp.privatize('SELECT county, count(*) FROM delinquents GROUP BY 1', 1.0)
AS t(county text, n bigint);
RESET dp.privatize_scan;
-- The FROM item read as a whole row (the scan's tuple has no row value):
-- the function scan, whose rows are returned as usual.
EXPLAIN (COSTS OFF) SELECT row_to_json(t) FROM dp.privatize('SELECT county, count(*) FROM delinquents GROUP BY 1', 1.0)
AS t(county text, n bigint) WHERE t IS NOT NULL;
SELECT count(*) AS rows FROM dp.privatize('SELECT county, count(*) FROM delinquents GROUP BY 1', 1.0)
AS t(county text, n bigint) WHERE t IS NOT NULL AND row_to_json(t) IS NOT NULL;

-- The same rows either way: a seeded stream restarts at each SET dp.seed,
-- so the scan and the function draw the same noise. Margins, real counts
-- with sds and a numeric count, a domain, a hierarchy with level columns,
-- a privacy unit with partition selection.
\set compare 'SET dp.seed = 11; SET dp.privatize_scan = on; CREATE TEMP TABLE by_scan AS :q; SET dp.seed = 11; SET dp.privatize_scan = off; CREATE TEMP TABLE by_function AS :q; SELECT (SELECT count(*) FROM by_scan) AS rows, (SELECT count(*) FROM ((TABLE by_scan EXCEPT ALL TABLE by_function) UNION ALL (TABLE by_function EXCEPT ALL TABLE by_scan)) d) AS differ; DROP TABLE by_scan, by_function;'
-- margins, integer
\set q 'SELECT * FROM dp.privatize(''SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2'', 1.0, ''integer_laplace'', margins => ''{county,edu}'', options => ''{"sampler": "chain"}'') AS t(county text, edu text, n bigint)'
:compare
-- real counts with sds, a numeric count
\set q 'SELECT * FROM dp.privatize(''SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2'', 1.0, ''subspace_gaussian'', delta => 1e-6, margins => ''{county}'', options => ''{"stddev": true}'') AS t(county text, edu text, n numeric, sd float8)'
:compare
-- a domain with empty cells
\set q 'SELECT * FROM dp.privatize(''SELECT county, count(*) FROM delinquents GROUP BY 1'', 1.0, ''discrete_laplace'', domain => ''SELECT s FROM unnest(ARRAY[''''Alpha'''', ''''Beta'''', ''''Gamma'''', ''''Delta'''', ''''Omega'''']) s'') AS t(county text, n bigint)'
:compare
-- a hierarchy with its level column
\set q 'SELECT * FROM dp.privatize(''SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2'', 1.0, ''cascade'', delta => 1e-6, hierarchy => ''{county,edu}'', options => ''{"level": true}'') AS t(county text, edu text, n float8, level int)'
:compare
-- a privacy unit, partition selection
\set q 'SELECT * FROM dp.privatize(''SELECT i % 500 AS person, ''''k'''' || (i % 7) AS k FROM generate_series(1, 20000) i'', 1.0, ''discrete_laplace'', delta => 1e-5, options => ''{"partition_selection": "laplace"}'', privacy_unit => ''person'', bounds => ''{"max_groups_per_unit": 2, "max_rows_per_group": 1}'') AS t(k text, n bigint)'
:compare
-- The comparison can fail: under another seed the rows differ.
SET dp.seed = 11;
SET dp.privatize_scan = on;
CREATE TEMP TABLE by_scan AS :q;
SET dp.seed = 12;
SET dp.privatize_scan = off;
CREATE TEMP TABLE by_function AS :q;
SELECT (SELECT count(*) FROM ((TABLE by_scan EXCEPT ALL TABLE by_function)
                              UNION ALL (TABLE by_function EXCEPT ALL TABLE by_scan)) d) > 0 AS another_seed_differs;
DROP TABLE by_scan, by_function;
RESET dp.privatize_scan;
RESET dp.seed;

-- Some columns read: the scan converts only those the target list and the
-- quals name (a qual on a column the query does not return, a count over
-- no column, a whole row, a level column alone).
\set q 'SELECT edu, n FROM dp.privatize(''SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2'', 1.0, ''integer_laplace'', margins => ''{county}'') AS t(county text, edu text, n bigint) WHERE county <> ''Alpha'''
:compare
\set q 'SELECT county FROM dp.privatize(''SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2'', 1.0, ''subspace_gaussian'', delta => 1e-6, options => ''{"stddev": true}'') AS t(county text, edu text, n numeric, sd float8) WHERE n > -1e9 AND sd > 0'
:compare
\set q 'SELECT count(*), sum(n) FROM dp.privatize(''SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2'', 1.0, ''discrete_laplace'') AS t(county text, edu text, n bigint)'
:compare
\set q 'SELECT t::text AS row FROM dp.privatize(''SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2'', 1.0, ''discrete_laplace'') AS t(county text, edu text, n bigint)'
:compare
\set q 'SELECT level, edu FROM dp.privatize(''SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2'', 1.0, ''cascade'', delta => 1e-6, hierarchy => ''{county,edu}'', options => ''{"level": true}'') AS t(county text, edu text, n float8, level int)'
:compare

-- EXECUTE on dp.privatize is checked for the scan as for the call.
CREATE ROLE regress_scan_user;
GRANT SELECT ON delinquents TO regress_scan_user;
REVOKE EXECUTE ON FUNCTION dp.privatize(text, float8, text, float8, text[], text, jsonb, text[], text, jsonb) FROM PUBLIC;
SET ROLE regress_scan_user;
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT county, count(*) FROM delinquents GROUP BY 1', 1.0)
                     AS t(county text, n bigint)$$);
RESET ROLE;
GRANT EXECUTE ON FUNCTION dp.privatize(text, float8, text, float8, text[], text, jsonb, text[], text, jsonb) TO PUBLIC;
SET ROLE regress_scan_user;
SELECT count(*) AS cells FROM dp.privatize('SELECT county, count(*) FROM delinquents GROUP BY 1', 1.0) AS t(county text, n bigint);
RESET ROLE;
REVOKE SELECT ON delinquents FROM regress_scan_user;
DROP ROLE regress_scan_user;

-- A rescan (the inner side of a nested loop) returns the same release: one
-- draw per query, as a function scan's tuplestore would.
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_material = off;
EXPLAIN (COSTS OFF) SELECT r, count(DISTINCT (county, n)) FROM runs,
    dp.privatize('SELECT county, count(*) FROM delinquents GROUP BY 1', 1.0) AS t(county text, n bigint) GROUP BY r;
SELECT count(DISTINCT (county, n)) AS distinct_rows, count(*) AS rows FROM runs,
    dp.privatize('SELECT county, count(*) FROM delinquents GROUP BY 1', 1.0) AS t(county text, n bigint);
-- With intervals, over more rows than the shim reads bounds at a time
-- (256): a rescan reads them again from the first row, the same bounds,
-- centred on the values, of one width per group size (integer), or
-- around the values (real).
CREATE TEMP TABLE long_margin AS
SELECT CASE WHEN g <= 2 THEN 1 WHEN g <= 5 THEN 2 WHEN g <= 300 THEN 3 ELSE 4 END AS grp, g AS cell,
       (g % 13)::bigint AS n
FROM generate_series(1, 700) g;
SELECT count(DISTINCT (cell, n, lower, upper)) AS distinct_rows, count(*) AS rows,
       count(DISTINCT upper - lower) AS widths, bool_and(upper - n = n - lower) AS centred
FROM runs, dp.privatize('SELECT grp, cell, n FROM long_margin', 1.0, 'integer_laplace', margins => '{grp}',
                        options => '{"interval": 0.9}') AS t(grp int, cell int, n bigint, lower bigint, upper bigint);
SELECT count(DISTINCT (cell, n, lower, upper)) AS distinct_rows, count(*) AS rows,
       bool_and(lower < n AND n < upper) AS around
FROM runs, dp.privatize('SELECT grp, cell, n FROM long_margin', 1.0, 'subspace_laplace', margins => '{grp}',
                        options => '{"interval": 0.9}') AS t(grp int, cell int, n float8, lower float8, upper float8);
DROP TABLE long_margin;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_material;

-- A backward cursor, and a prepared countyment whose epsilon is a parameter.
BEGIN;
DECLARE c SCROLL CURSOR FOR SELECT county FROM dp.privatize('SELECT county, count(*) FROM delinquents GROUP BY 1', 1.0)
    AS t(county text, n bigint) ORDER BY county;
FETCH LAST FROM c;
FETCH BACKWARD 2 FROM c;
CLOSE c;
COMMIT;
PREPARE release_at(float8) AS SELECT count(*) FROM dp.privatize('SELECT county, count(*) FROM delinquents GROUP BY 1', $1)
    AS t(county text, n bigint);
EXECUTE release_at(0.5);
SELECT dp.last_release()->>'epsilon' AS epsilon;
EXECUTE release_at(2.0);
SELECT dp.last_release()->>'epsilon' AS epsilon;
DEALLOCATE release_at;

-- Errors keep their SQLSTATE, and a cancel stops the scan's release.
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT county, count(*) FROM delinquents GROUP BY 1', -1.0)
                     AS t(county text, n bigint)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT county, count(*) FROM delinquents GROUP BY 1', 1.0)
                     AS t(county int, n bigint)$$);
SET statement_timeout = '300ms';
SELECT count(*) FROM dp.privatize('SELECT g, 1 FROM generate_series(1, 10000000) g', 1.0, 'discrete_laplace')
AS t(g int, n bigint);
RESET statement_timeout;
DROP TABLE runs;
