-- dp.total_preserving_count(n, epsilon) OVER (PARTITION BY ...): the window
-- function that releases integer_laplace counts with each partition's
-- total exact. Only properties that hold for every draw are printed, plus
-- statistics under a fixed seed with thresholds derived from the noise law.

-- The window function: each state's total exact.
CREATE TEMP TABLE counties AS
SELECT s AS state, c AS county, (1 + floor(exp(random() * 9)))::bigint AS n
FROM (SELECT setseed(0.5)) seed, generate_series(1, 5) s, generate_series(1, 20) c;
SELECT state, sum(noisy) = sum(n) AS state_total_exact, count(*) AS counties
FROM (SELECT state, n, dp.total_preserving_count(n, 0.192) OVER (PARTITION BY state) AS noisy FROM counties) x
GROUP BY state ORDER BY state;

-- The Census county example (Dharangutte, Gao, Gong and Yu 2023,
-- arXiv:2212.00936): 100 counties of
-- widely varying size, state total fixed, epsilon = 0.192, 400 releases
-- under a fixed seed. b = 2/0.192, noise sd about 14.7 per county, so each
-- county's mean noise has sd about 0.74: all 100 means within 5 sd (4 of
-- them), and the slope of mean noise on log(size) within 5 of its sd
-- (about 0.74 / (sd(log size) * 10)). The post-processed TopDown-style
-- baseline shows a negative slope here; conditioning does not.
SET dp.seed = 20261122;
CREATE TEMP TABLE releases AS
SELECT release, county, n, dp.total_preserving_count(n, 0.192) OVER (PARTITION BY release) - n AS noise
FROM (SELECT county, n FROM counties WHERE state = 1
      UNION ALL SELECT county + 20 * (state - 1), n FROM counties WHERE state > 1) c,
     generate_series(1, 400) release;
RESET dp.seed;
SELECT bool_and(release_sum = 0) AS every_release_keeps_the_total
FROM (SELECT release, sum(noise) AS release_sum FROM releases GROUP BY release) x;
WITH means AS (SELECT county, ln(min(n)) AS log_size, avg(noise) AS mean_noise FROM releases GROUP BY county)
SELECT count(*) AS counties,
       max(abs(mean_noise)) < 5 * 0.74 AS means_near_zero,
       abs(regr_slope(mean_noise, log_size)) < 5 * 0.74 / (stddev_samp(log_size) * 10) AS no_trend_in_size
FROM means;

-- Errors.
SELECT dp.total_preserving_count(n, 0) OVER () FROM counties;
SELECT dp.total_preserving_count(NULL, 1) OVER () FROM counties;
SELECT dp.total_preserving_count(-1, 1) OVER ();
SELECT dp.total_preserving_count(n, random() + 0.5) OVER () FROM counties;
-- A partition of one row releases its count exactly: its total is the count.
SELECT dp.total_preserving_count(7, 1) OVER () AS single_row;
