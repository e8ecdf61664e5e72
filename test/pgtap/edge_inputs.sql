-- pgTAP: NULL, empty and odd inputs never crash; each gets its documented
-- error code or result.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS invariant_dp;
SELECT plan(15);

CREATE TEMP TABLE t AS SELECT i % 3 AS k, i % 2 AS j FROM generate_series(1, 30) i;

SELECT throws_ok($$SELECT * FROM dp.privatize(NULL, NULL, NULL) AS t(n bigint)$$, '22004', NULL, 'all-NULL arguments');
SELECT throws_ok($$SELECT * FROM dp.privatize('SELECT k, count(*) FROM t GROUP BY 1', NULL, 'discrete_laplace') AS t(k int, n bigint)$$,
                 '22004', 'epsilon must not be NULL', 'NULL epsilon');
SELECT throws_ok($$SELECT * FROM dp.privatize('', 1, 'discrete_laplace') AS t(n bigint)$$, '22023', NULL, 'empty source');
SELECT throws_ok($$SELECT * FROM dp.privatize('SELECT k, count(*) FROM t WHERE false GROUP BY 1', 1, 'discrete_laplace') AS t(k int, n bigint)$$,
                 '22000', 'source returned no rows', 'empty input');
SELECT throws_ok($$SELECT * FROM dp.privatize('SELECT k, count(*) FROM t GROUP BY 1', 1, '') AS t(k int, n bigint)$$,
                 '22023', 'unknown mechanism ""', 'empty mechanism');
SELECT lives_ok($$SELECT * FROM dp.privatize('SELECT k, count(*) FROM t GROUP BY 1', 1, 'discrete_laplace', margins => NULL, options => NULL, domain => NULL) AS t(k int, n bigint)$$,
                'NULL margins, options and domain mean none');
SELECT lives_ok($$SELECT * FROM dp.privatize('SELECT k, count(*) FROM t GROUP BY 1', 1, 'subspace_laplace', margins => '{}') AS t(k int, n float8)$$,
                'empty margins array');
SELECT throws_ok($$SELECT * FROM dp.privatize('SELECT k, count(*) FROM t GROUP BY 1', 1, 'subspace_laplace', margins => '{k}') AS t(k int, n float8)$$,
                 '22023', 'the invariants leave no cell to protect', 'one key column with its own margin pins every cell');
SELECT is((SELECT count(*)::int FROM dp.privatize('SELECT 7::bigint', 1, 'discrete_laplace') AS t(n bigint)), 1, 'one cell, no key');
SELECT lives_ok($$SELECT * FROM dp.privatize('SELECT k, j, count(*) FROM t GROUP BY 1, 2', 100, 'subspace_gaussian', delta => 0.999999, margins => '{k}') AS t(k int, j int, n float8)$$,
                'extreme but valid epsilon and delta');
SELECT lives_ok($$SELECT * FROM dp.privatize('SELECT k, j, count(*) FROM t GROUP BY 1, 2', 1e-6, 'subspace_gaussian', delta => 1e-15, margins => '{k}') AS t(k int, j int, n float8)$$,
                'tiny epsilon and delta');
SELECT throws_ok($$SELECT * FROM dp.privatize('SELECT k, 9007199254740993 FROM t GROUP BY 1', 1, 'subspace_laplace') AS t(k int, n float8)$$,
                 '22003', 'count too large for a real-valued release', 'counts above 2^53 refused for real outputs');
SELECT is((SELECT dp.noisy_count(1) FROM t WHERE false), NULL, 'noisy_count of no rows is NULL');
SELECT throws_ok($$SELECT dp.noisy_count('Infinity') FROM t$$, '22023', 'epsilon must be positive and finite', 'noisy_count infinite epsilon');
SELECT ok(dp.last_release() IS NOT NULL, 'last_release after a release');

SELECT * FROM finish();
ROLLBACK;
