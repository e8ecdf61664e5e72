-- Coverage of error bars through SQL: a smaller run of what the statistical
-- tests check through the C boundary (test/stat/accuracy/stat_cell_intervals.cpp,
-- test/stat/accuracy/stat_margin_of_error.cpp), as an analyst would: seeded releases
-- of a fixed 40 x 10 table with {"interval": 0.9}, each stored in a table
-- and read back by dp.sum_variance and dp.margin_of_error with its law.
-- Thresholds as in test/support/coverage_checks.hpp: kZ = 4.8916 standard
-- errors (a false failure once in 10^6 per check):
--  - an exact coverage p over N trials lies within kZ sqrt(p (1 - p) / N)
--    of p; a conservative one is at least the level minus that;
--  - the sample second moment s2 of a sum's noise (mean 0: every law is
--    symmetric) lies within kZ standard errors sqrt((m4 - s2^2) / N) of an
--    exact variance, or of certified bounds widened by as much.
-- Each check is applied to a wrong figure too (power): intervals one count
-- narrower, a variance 20 % low, the partition formula on a two-way table.
\set VERBOSITY terse
-- dp.seed is taken once the library is loaded in the session.
LOAD 'invariant_dp';
SET dp.seed = 21;
CREATE TEMP TABLE grid_truth AS
SELECT r, c, ((r * 7 + c * 3) % 20 + 1)::bigint AS n FROM generate_series(1, 40) r, generate_series(1, 10) c;
CREATE TEMP TABLE grid_release (r int, c int, n bigint, lower bigint, upper bigint);
-- Per release: the cells' half-width t, how many cells [n - t, n + t] and
-- [n - t + 1, n + t - 1] hold the truth, and one sum's noise with its
-- variance and 90 % margin of error: column 1 over rows 1 to 20, a sum
-- across the row margin's groups.
CREATE TEMP TABLE grid_runs (family text, run int, half_width bigint, cells_covered bigint, narrower_covered bigint,
                             sum_noise float8, sum_variance float8, sum_variance_lower float8, sum_moe float8,
                             cell_variance float8);
CREATE FUNCTION pg_temp.release_many(family text, mechanism text, delta float8, margins text[], runs int) RETURNS void
LANGUAGE plpgsql AS $f$
DECLARE
  law jsonb;
BEGIN
  FOR run IN 1..runs LOOP
    TRUNCATE grid_release;
    INSERT INTO grid_release
    SELECT * FROM dp.privatize('SELECT r, c, n FROM grid_truth ORDER BY r, c', 1.0, mechanism, delta => delta,
                               margins => margins, options => '{"interval": 0.9}')
        AS t(r int, c int, n bigint, lower bigint, upper bigint);
    law := dp.last_release();
    INSERT INTO grid_runs
    SELECT family, run, max(g.upper - g.n), count(*) FILTER (WHERE abs(g.n - t.n) <= g.upper - g.n),
           count(*) FILTER (WHERE abs(g.n - t.n) <= g.upper - g.n - 1),
           (SELECT sum(s.n - st.n) FROM grid_release s JOIN grid_truth st USING (r, c) WHERE s.c = 1 AND s.r <= 20),
           (SELECT (dp.error_bar(s, 0.9, law)).variance FROM grid_release s WHERE s.c = 1 AND s.r <= 20),
           (SELECT (dp.error_bar(s, 0.9, law)).variance_lower FROM grid_release s WHERE s.c = 1 AND s.r <= 20),
           (SELECT dp.margin_of_error(s, 0.9, law) FROM grid_release s WHERE s.c = 1 AND s.r <= 20),
           (SELECT dp.sum_variance(s, law) FROM grid_release s WHERE s.c = 1 AND s.r = 1)
    FROM grid_release g JOIN grid_truth t USING (r, c);
  END LOOP;
END $f$;

-- discrete_laplace, epsilon 1 (b = 2): independent cells, so the 400 cells
-- of 3,000 releases are 1.2 million independent trials of the exact
-- quantile's coverage p = 1 - 2 a^(t+1) / (1 + a), a = e^(-1/b).
SELECT pg_temp.release_many('discrete_laplace', 'discrete_laplace', NULL, '{}', 3000);
WITH runs AS (SELECT * FROM grid_runs WHERE family = 'discrete_laplace'),
     law AS (SELECT exp(-1 / 2.0) AS a, max(half_width) AS t, min(half_width) AS t_min, 400.0 * count(*) AS trials FROM runs),
     claim AS (SELECT t, t_min, trials, 1 - 2 * a ^ (t + 1) / (1 + a) AS p FROM law),
     shares AS (SELECT sum(cells_covered) / c.trials AS share, sum(narrower_covered) / c.trials AS narrower_share
                FROM runs, claim c GROUP BY c.trials)
SELECT t AS half_width, t = t_min AS one_half_width, round(p, 4) AS exact_coverage, round(share, 4) AS share,
       abs(share - p) <= 4.8916 * sqrt(p * (1 - p) / trials) AS exact_holds,
       abs(narrower_share - p) <= 4.8916 * sqrt(p * (1 - p) / trials) AS narrower_passes
FROM claim, shares;
-- The sum of 20 independent cells: its exact variance, and the same check
-- with the variance 20 % low; its margin of error (the exact quantile of
-- the sum's law: sql/sum_coverage.sql bounds its coverage from both sides)
-- holds at least 90 % of the sums.
WITH runs AS (SELECT * FROM grid_runs WHERE family = 'discrete_laplace'),
     moments AS (SELECT count(*) AS n, avg(sum_noise ^ 2) AS s2, avg(sum_noise ^ 4) AS s4,
                        min(sum_variance) AS v, max(sum_variance) AS v_max,
                        avg((abs(sum_noise) <= sum_moe)::int) AS moe_share FROM runs),
     z AS (SELECT *, sqrt((s4 - s2 * s2) / n) AS se FROM moments)
SELECT round(v::numeric, 2) AS variance, v = v_max AS one_variance, round(s2::numeric, 2) AS s2,
       abs(s2 - v) <= 4.8916 * se AS variance_holds, abs(s2 - 0.8 * v) <= 4.8916 * se AS low_variance_passes,
       moe_share >= 0.9 - 4.8916 * sqrt(0.09 / n) AS moe_holds
FROM z;

-- integer_gaussian with both margins, (1, 1e-6): a complete two-way table,
-- certified intervals and variances (within [(1 - B) V, V]). Cells of one
-- release are dependent: per-cell shares are pooled per release (N =
-- releases, conservatively). The partition formula, which knows the row
-- margin alone, gives a cell of a 10-cell row the variance c (1 - 1/10) and
-- the 20-cell sum 20 c (9/10), about twice the two-way law's; c from one
-- cell's variance c (39/40) (9/10).
SELECT pg_temp.release_many('integer_gaussian', 'integer_gaussian', 1e-6, '{r,c}', 600);
WITH runs AS (SELECT * FROM grid_runs WHERE family = 'integer_gaussian'),
     moments AS (SELECT count(*) AS n, avg(sum_noise ^ 2) AS s2, avg(sum_noise ^ 4) AS s4,
                        max(sum_variance) AS v, min(sum_variance_lower) AS v_lower,
                        max(cell_variance) / ((39 / 40.0) * (9 / 10.0)) * 20 * (9 / 10.0) AS partition_v,
                        sum(cells_covered) / (400.0 * count(*)) AS cell_share,
                        avg((abs(sum_noise) <= sum_moe)::int) AS moe_share FROM runs),
     z AS (SELECT *, sqrt((s4 - s2 * s2) / n) AS se FROM moments)
SELECT round(cell_share::numeric, 4) AS cell_share, cell_share >= 0.9 - 4.8916 * sqrt(0.09 / n) AS cells_hold,
       round(v::numeric, 1) AS variance, round(s2::numeric, 1) AS s2,
       s2 >= v_lower - 4.8916 * se AND s2 <= v + 4.8916 * se AS variance_holds,
       abs(s2 - partition_v) <= 4.8916 * se AS partition_formula_passes,
       moe_share >= 0.9 - 4.8916 * sqrt(0.09 / n) AS moe_holds
FROM z;
RESET dp.seed;
