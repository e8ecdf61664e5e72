-- Crossing margins through SQL (issue 14's targets): one release each of a
-- k x k table with both margins, the time psql reports. Run by scripts/bench
-- in a throwaway cluster; the figures are in test/bench/README.md.
\timing on
CREATE EXTENSION IF NOT EXISTS invariant_dp;
\echo integer_gaussian 1000 x 1000 (exact)
SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 1000) i, generate_series(1, 1000) j', 1.0,
                                  'integer_gaussian', delta => 1e-6, margins => '{i,j}') AS t(i int, j int, n bigint);
\echo integer_laplace 100 x 100, 300 x 300, 1000 x 1000 (table chain, heat-bath, default sweeps)
SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 100) i, generate_series(1, 100) j', 1.0,
                                  'integer_laplace', margins => '{i,j}') AS t(i int, j int, n bigint);
SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 300) i, generate_series(1, 300) j', 1.0,
                                  'integer_laplace', margins => '{i,j}') AS t(i int, j int, n bigint);
SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 1000) i, generate_series(1, 1000) j', 1.0,
                                  'integer_laplace', margins => '{i,j}') AS t(i int, j int, n bigint);
\echo integer_laplace_l2 300 x 300 (table chain, Metropolis)
SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 300) i, generate_series(1, 300) j', 1.0,
                                  'integer_laplace_l2', margins => '{i,j}') AS t(i int, j int, n bigint);
\echo congenial 100 x 100 and 300 x 300 (lattice walk on a basis; at most 5 minutes)
SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 100) i, generate_series(1, 100) j', 1.0,
                                  'congenial', margins => '{i,j}') AS t(i int, j int, n bigint);
SET statement_timeout = '300s';
SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 300) i, generate_series(1, 300) j', 1.0,
                                  'congenial', margins => '{i,j}') AS t(i int, j int, n bigint);
