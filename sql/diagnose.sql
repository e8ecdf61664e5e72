-- dp.diagnose: MCMC health of the lattice sampler as rows. Values are
-- random; only properties that hold for every run are printed.
LOAD 'invariant_dp';  -- SET dp.seed is honoured once the library is loaded
SET dp.seed = 7;
CREATE TEMP TABLE d AS
SELECT * FROM dp.diagnose($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 0.25, 'integer_laplace',
                          margins => '{county,edu}', options => '{"coupled_pairs": 40, "sampler": "chain"}');
RESET dp.seed;
-- One row per summary metric; the curve has at most curve_points (50) rows,
-- fewer when the pairs meet within fewer sweeps than that.
SELECT metric, CASE WHEN metric = 'tv_upper_bound' THEN count(*) BETWEEN 2 AND 50 ELSE count(*) = 1 END AS rows_ok,
       bool_and(iteration IS NULL) AS no_iteration
FROM d GROUP BY 1 ORDER BY 1;
-- The TV bound never increases and ends below 0.05; R-hat near 1; the
-- share of updates that changed the noise in (0, 1] (a pair block nearly
-- always does).
SELECT bool_and(ok) AS tv_bound_non_increasing
FROM (SELECT value <= lag(value, 1, 1.0) OVER (ORDER BY iteration) AS ok FROM d WHERE metric = 'tv_upper_bound') x;
SELECT (SELECT value FROM d WHERE metric = 'tv_upper_bound_at_release') < 0.05 AS converged_at_release,
       (SELECT value FROM d WHERE metric = 'iterations_to_tv_below_0.05')
         <= (SELECT value FROM d WHERE metric = 'release_iterations') AS default_iterations_suffice,
       (SELECT bool_and(value BETWEEN 0.99 AND 1.1) FROM d WHERE metric LIKE 'rhat%') AS rhat_near_one,
       (SELECT bool_and(value > 0 AND value <= 1) FROM d WHERE metric LIKE 'acceptance%') AS acceptance_rates;
-- Where the coupled pairs do not meet (the l1 chain on a 20 x 20 table
-- within a few sweeps) the bound is censored: it is named so, never
-- tv_upper_bound, and a WARNING says what that means for the guarantee.
SET dp.seed = 7;
CREATE TEMP TABLE censored AS
SELECT * FROM dp.diagnose($$SELECT i, j, 5 FROM generate_series(1, 20) i, generate_series(1, 20) j$$, 1.0,
                          'integer_laplace', margins => '{i,j}', options => '{"coupled_pairs": 3, "iterations": 2}');
RESET dp.seed;
SELECT (SELECT value FROM censored WHERE metric = 'censored_pairs') > 0 AS some_pairs_censored,
       (SELECT count(*) FROM censored WHERE metric LIKE 'tv_upper_bound%') AS rows_named_as_a_bound,
       (SELECT count(*) FROM censored WHERE metric = 'tv_censored_bound_at_release') AS censored_bound_at_release;
-- Errors.
SELECT * FROM dp.diagnose($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 0.25, 'subspace_laplace',
                          margins => '{county,edu}');
SELECT * FROM dp.diagnose($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 0.25, 'integer_laplace',
                          margins => '{county,edu}', options => '{"coupled_pairs": 0}');
SELECT * FROM dp.diagnose($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 0.25, 'integer_laplace',
                          margins => '{county,state}');
-- One margin (a partition of the cells), or none: the release draws
-- exactly and runs no chain.
SELECT * FROM dp.diagnose($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 0.25, 'integer_laplace',
                          margins => '{county}');
SELECT * FROM dp.diagnose($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 0.25, 'integer_gaussian',
                          delta => 1e-6);

-- Progress of long runs as NOTICEs, opt-in (0: every step; -1, the default: off).
SET dp.progress_interval = 0;
SELECT count(*) AS cells
FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 0.5, 'integer_laplace',
                  margins => '{county,edu}', options => '{"iterations": 1000, "sampler": "chain"}') AS t(county text, edu text, n bigint);
RESET dp.progress_interval;
SELECT count(*) AS cells_without_notices
FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 0.5, 'integer_laplace',
                  margins => '{county,edu}', options => '{"iterations": 1000, "sampler": "chain"}') AS t(county text, edu text, n bigint);

-- integer_laplace_l2 on a complete table runs the scale-mixture Gibbs
-- sampler, whose coupled pairs meet within a few iterations at any size:
-- a 100 x 100 table, 30 pairs. The bound falls below 0.05 before the
-- release's iterations.
SET dp.seed = 8;
CREATE TEMP TABLE d2 AS
SELECT * FROM dp.diagnose($$SELECT i, j, 5 FROM generate_series(1, 100) i, generate_series(1, 100) j$$, 1.0,
                          'integer_laplace_l2', margins => '{i,j}', options => '{"coupled_pairs": 30}');
RESET dp.seed;
SELECT (SELECT value FROM d2 WHERE metric = 'tv_upper_bound_at_release') < 0.05 AS converged_at_release,
       (SELECT value FROM d2 WHERE metric = 'iterations_to_tv_below_0.05') BETWEEN 1
         AND (SELECT value FROM d2 WHERE metric = 'release_iterations') - 1 AS default_iterations_suffice,
       (SELECT value FROM d2 WHERE metric = 'release_iterations') AS release_iterations,
       (SELECT bool_and(value BETWEEN 0.99 AND 1.1) FROM d2 WHERE metric LIKE 'rhat%') AS rhat_near_one;
