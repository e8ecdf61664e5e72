-- Crossing margins through SQL (the targets in test/bench/README.md): one release each of a
-- k x k table with both margins, the time psql reports; then dp.diagnose
-- at 100 x 100 and 300 x 300. Run by scripts/bench in a throwaway cluster;
-- the figures are in test/bench/README.md.
\timing on
CREATE EXTENSION IF NOT EXISTS invariant_dp;
\echo integer_gaussian 1000 x 1000 (exact)
SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 1000) i, generate_series(1, 1000) j', 1.0,
                                  'integer_gaussian', delta => 1e-6, margins => '{i,j}') AS t(i int, j int, n bigint);
\echo integer_laplace exact: 2 x 23 (twice: the first call loads the library), 2 x 1000000, 3 x 300000
SELECT count(*) FROM dp.privatize('SELECT s, a, 10 + (s * a) % 7 FROM generate_series(1, 2) s, generate_series(1, 23) a',
                                  1.0, margins => '{s,a}') AS t(s int, a int, n bigint);
SELECT count(*) FROM dp.privatize('SELECT s, a, 10 + (s * a) % 7 FROM generate_series(1, 2) s, generate_series(1, 23) a',
                                  1.0, margins => '{s,a}') AS t(s int, a int, n bigint);
SELECT count(*) FROM dp.privatize('SELECT s, a, (s + a) % 50 FROM generate_series(1, 2) s, generate_series(1, 1000000) a',
                                  1.0, margins => '{s,a}') AS t(s int, a int, n bigint);
SELECT count(*) FROM dp.privatize('SELECT s, a, (s + a) % 50 FROM generate_series(1, 3) s, generate_series(1, 300000) a',
                                  1.0, margins => '{s,a}') AS t(s int, a int, n bigint);
\echo integer_laplace 100 x 100, 300 x 300, 1000 x 1000 (pair blocks, default sweeps, the chain named)
SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 100) i, generate_series(1, 100) j', 1.0,
                                  'integer_laplace', margins => '{i,j}', options => '{"sampler": "chain"}') AS t(i int, j int, n bigint);
SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 300) i, generate_series(1, 300) j', 1.0,
                                  'integer_laplace', margins => '{i,j}', options => '{"sampler": "chain"}') AS t(i int, j int, n bigint);
SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 1000) i, generate_series(1, 1000) j', 1.0,
                                  'integer_laplace', margins => '{i,j}', options => '{"sampler": "chain"}') AS t(i int, j int, n bigint);
\echo integer_laplace_l2 300 x 300 and 1000 x 1000 (scale-mixture Gibbs sampler, default iterations)
SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 300) i, generate_series(1, 300) j', 1.0,
                                  'integer_laplace_l2', margins => '{i,j}') AS t(i int, j int, n bigint);
SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 1000) i, generate_series(1, 1000) j', 1.0,
                                  'integer_laplace_l2', margins => '{i,j}') AS t(i int, j int, n bigint);
\echo congenial 100 x 100 and 300 x 300 (table chain restricted to y >= 0, heat-bath moves)
SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 100) i, generate_series(1, 100) j', 1.0,
                                  'congenial', margins => '{i,j}') AS t(i int, j int, n bigint);
SET statement_timeout = '300s';
SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 300) i, generate_series(1, 300) j', 1.0,
                                  'congenial', margins => '{i,j}') AS t(i int, j int, n bigint);
RESET statement_timeout;
\echo dp.diagnose integer_laplace_l2 at 100 x 100 (100 pairs) and 300 x 300 (100 pairs)
SELECT metric, value FROM dp.diagnose('SELECT i, j, 10 FROM generate_series(1, 100) i, generate_series(1, 100) j', 1.0,
                                      'integer_laplace_l2', margins => '{i,j}')
WHERE metric NOT IN ('tv_upper_bound');
SELECT metric, value FROM dp.diagnose('SELECT i, j, 10 FROM generate_series(1, 300) i, generate_series(1, 300) j', 1.0,
                                      'integer_laplace_l2', margins => '{i,j}')
WHERE metric NOT IN ('tv_upper_bound');
\echo dp.diagnose integer_laplace at 100 x 100 (20 pairs) and 300 x 300 (4 pairs): censored, bound 1
SELECT metric, value FROM dp.diagnose('SELECT i, j, 10 FROM generate_series(1, 100) i, generate_series(1, 100) j', 1.0,
                                      'integer_laplace', margins => '{i,j}', options => '{"coupled_pairs": 20}')
WHERE metric NOT IN ('tv_upper_bound');
SELECT metric, value FROM dp.diagnose('SELECT i, j, 10 FROM generate_series(1, 300) i, generate_series(1, 300) j', 1.0,
                                      'integer_laplace', margins => '{i,j}', options => '{"coupled_pairs": 4}')
WHERE metric NOT IN ('tv_upper_bound');
