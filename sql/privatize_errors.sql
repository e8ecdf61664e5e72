-- Every bad input gets a clear error with its SQLSTATE, and leaves the
-- session usable.
\set q 'SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2'
SELECT sqlstate_of(format($f$SELECT * FROM dp.privatize(%L, %s, %L, delta => %s, margins => %L)
                            AS t(county text, edu text, n float8)$f$, :'q', eps, mech, delta, margins)) AS error,
       eps, mech, delta, margins
FROM (VALUES (0::text, 'subspace_laplace', 'NULL', '{}'),
             ('-1', 'subspace_laplace', 'NULL', '{}'),
             ('''NaN''', 'subspace_laplace', 'NULL', '{}'),
             ('''Infinity''', 'subspace_laplace', 'NULL', '{}'),
             ('1000', 'subspace_laplace', 'NULL', '{}'),
             ('NULL', 'subspace_laplace', 'NULL', '{}'),
             ('1', 'subspace_gaussian', 'NULL', '{}'),
             ('1', 'subspace_gaussian', '0', '{}'),
             ('1', 'subspace_gaussian', '1', '{}'),
             ('1', 'subspace_gaussian', '''NaN''', '{}'),
             ('1', 'subspace_laplace', '1e-6', '{}'),
             ('1', 'laplace', 'NULL', '{}'),
             ('1', 'subspace_laplace', 'NULL', '{county,state}'),
             ('1', 'subspace_laplace', 'NULL', '{" , "}'),
             ('1', 'subspace_laplace', 'NULL', '{"county,county"}'),
             ('1', 'subspace_laplace', 'NULL', '{"county,edu"}'),
             ('1', 'subspace_laplace', 'NULL', '{county,"county,edu"}'),
             ('1', 'subspace_laplace', 'NULL', '{NULL}'))
     AS cases(eps, mech, delta, margins);

-- Margins need a mechanism that keeps them, and replace-one neighbours.
SELECT * FROM dp.privatize(:'q', 1.0, 'discrete_laplace', margins => '{county}') AS t(county text, edu text, n bigint);
SELECT * FROM dp.privatize(:'q', 1.0, 'subspace_laplace', margins => '{county}',
                           options => '{"neighbours": "add_remove"}') AS t(county text, edu text, n float8);
SELECT * FROM dp.privatize(:'q', 1.0, 'subspace_laplace', options => '{"stdev": true}') AS t(county text, edu text, n float8);
SELECT * FROM dp.privatize(:'q', 1.0, 'subspace_laplace', options => '{"stddev": "yes"}') AS t(county text, edu text, n float8);
-- A value of the wrong JSON type is refused, even when its text would do.
SELECT * FROM dp.privatize(:'q', 1.0, 'subspace_laplace', options => '{"stddev": "true"}') AS t(county text, edu text, n float8);
SELECT * FROM dp.privatize(:'q', 1.0, 'discrete_laplace', options => '{"interval": "0.9"}') AS t(county text, edu text, n bigint);
SELECT * FROM dp.privatize(:'q', 1.0, 'integer_laplace', margins => '{county}', options => '{"iterations": [100]}')
    AS t(county text, edu text, n bigint);
SELECT * FROM dp.privatize(:'q', 1.0, 'discrete_laplace', options => '{"neighbours": null}') AS t(county text, edu text, n bigint);
SELECT * FROM dp.privatize(:'q', 1.0, 'subspace_laplace', options => '[1]') AS t(county text, edu text, n float8);
-- An option only some mechanisms take, given to another, names those that take it.
SELECT * FROM dp.privatize(:'q', 1.0, 'discrete_laplace', options => '{"iterations": 500}') AS t(county text, edu text, n bigint);
-- Invariants that pin every cell leave nothing to protect.
SELECT * FROM dp.privatize(:'q', 1.0, 'subspace_laplace', margins => '{"county,edu"}') AS t(county text, edu text, n float8);
SELECT * FROM dp.privatize($$SELECT county, count(*) FROM delinquents GROUP BY 1$$, 1.0, 'subspace_laplace',
                           margins => '{county}') AS t(county text, n float8);

-- Source problems.
SELECT * FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents WHERE false GROUP BY 1, 2$$, 1.0,
                           'discrete_laplace') AS t(county text, edu text, n bigint);
SELECT * FROM dp.privatize($$VALUES ('a', -1)$$, 1.0, 'discrete_laplace') AS t(k text, n bigint);
SELECT * FROM dp.privatize($$VALUES ('a', NULL::int)$$, 1.0, 'discrete_laplace') AS t(k text, n bigint);
SELECT * FROM dp.privatize($$VALUES ('a', 1.5)$$, 1.0, 'discrete_laplace') AS t(k text, n bigint);
SELECT * FROM dp.privatize($$VALUES ('a', 'many')$$, 1.0, 'discrete_laplace') AS t(k text, n bigint);
SELECT * FROM dp.privatize($$VALUES ('a', 1), ('b', 2), ('a', 3)$$, 1.0, 'discrete_laplace') AS t(k text, n bigint);
SELECT * FROM dp.privatize('DELETE FROM delinquents', 1.0, 'discrete_laplace') AS t(k text, n bigint);
SELECT * FROM dp.privatize('SELECT 1; SELECT 2', 1.0, 'discrete_laplace') AS t(n bigint);
SELECT * FROM dp.privatize($$WITH gone AS (DELETE FROM delinquents RETURNING county) SELECT county, count(*) FROM gone GROUP BY 1$$,
                           1.0, 'discrete_laplace') AS t(county text, n bigint);
SELECT * FROM dp.privatize('SELECT county, count(*) INTO stolen FROM delinquents GROUP BY 1', 1.0,
                           'discrete_laplace') AS t(county text, n bigint);
SELECT * FROM dp.privatize('SELEC 1', 1.0, 'discrete_laplace') AS t(n bigint);
SELECT * FROM dp.privatize('SELECT * FROM no_such_table', 1.0, 'discrete_laplace') AS t(n bigint);
SELECT * FROM dp.privatize(NULL, 1.0, 'discrete_laplace') AS t(n bigint);
SELECT * FROM dp.privatize(:'q', 1.0, NULL) AS t(county text, edu text, n bigint);
SELECT count(*) AS children_still_there FROM delinquents;

-- Counts near 2^63: a sum, a noisy count or a rollup that leaves bigint is
-- out of range (22003), for any role. This congenial release once crashed
-- the server (its start summed the counts in 64 bits and divided by the
-- wrapped total).
SELECT * FROM dp.privatize($$SELECT a, b, 9223372036854775807 FROM generate_series(1,2) a, generate_series(1,2) b$$,
                           1.0, 'congenial', margins => '{a,b}') AS t(a int, b int, n bigint);
SELECT * FROM dp.privatize($$SELECT a, b, 4611686018427387904 FROM generate_series(1,2) a, generate_series(1,2) b$$,
                           1.0, 'congenial', margins => '{a,b}') AS t(a int, b int, n bigint);
-- Rollups of two counts of 3 * 2^61 each, whatever their noise.
SELECT * FROM dp.privatize($$SELECT a, b, 6917529027641081856 FROM generate_series(1,2) a, generate_series(1,2) b$$,
                           1.0, 'discrete_laplace', hierarchy => '{a}') AS t(a int, b int, n bigint);
SELECT * FROM dp.privatize($$SELECT a, b, 6917529027641081856 FROM generate_series(1,2) a, generate_series(1,2) b$$,
                           1.0, 'integer_cascade', delta => 1e-6, hierarchy => '{a,b}') AS t(a int, b int, n bigint);
-- Zero-sum noise on twenty cells at 2^63 - 1 moves one of them up.
SELECT dp.total_preserving_count(9223372036854775807, 1.0) OVER () FROM generate_series(1, 20);
-- Real values beyond float8's range are refused, not released as NaN or
-- Infinity: a three-way split of a variance near float8's largest.
SELECT * FROM dp.privatize($$SELECT a, b, 1 FROM generate_series(1,2) a, generate_series(1,3) b$$,
                           NULL, 'cascade', delta => 1e-6, hierarchy => '{a,b}',
                           options => '{"level_variance": [1e308, 1.7e308, 1.7e308]}') AS t(a int, b int, n float8);
SELECT dp.cascade_range_variance('gaussian_cascade', '{3}', '{1.7e308, 1.7e308}', '{}', 0, 0, 1);

-- Domain problems.
SELECT * FROM dp.privatize(:'q', 1.0, 'discrete_laplace',
                           domain => $$SELECT DISTINCT county, edu FROM delinquents WHERE (county, edu) <> ('Alpha', 'Very High')$$)
    AS t(county text, edu text, n bigint);
SELECT * FROM dp.privatize(:'q', 1.0, 'discrete_laplace',
                           domain => $$SELECT DISTINCT county, edu FROM delinquents UNION ALL SELECT 'Alpha', 'Low'$$)
    AS t(county text, edu text, n bigint);
SELECT * FROM dp.privatize(:'q', 1.0, 'discrete_laplace', domain => $$SELECT DISTINCT county FROM delinquents$$)
    AS t(county text, edu text, n bigint);
SELECT * FROM dp.privatize(:'q', 1.0, 'discrete_laplace', domain => $$SELECT DISTINCT county, 1 FROM delinquents$$)
    AS t(county text, edu text, n bigint);

-- Too large for the configured limit (SQLSTATE 54000).
SET dp.max_cells = 10;
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2',
                     1.0, 'discrete_laplace') AS t(county text, edu text, n bigint)$$) AS too_many_cells;
RESET dp.max_cells;

-- A cancelled release (statement_timeout) is an ordinary cancel error.
SET statement_timeout = '300ms';
SELECT count(*) FROM dp.privatize($$SELECT i, 1 FROM generate_series(1, 50000000) i$$, 1.0, 'discrete_laplace')
    AS t(i int, n bigint);
RESET statement_timeout;

-- The session is intact after all of the above.
SELECT count(*) AS cells FROM dp.privatize(:'q', 1.0, 'discrete_laplace') AS t(county text, edu text, n bigint);
