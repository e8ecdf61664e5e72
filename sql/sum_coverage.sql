-- Coverage of the error bars of sums of two or more cells or nodes (and of
-- one cell of a projected law), through
-- SQL, on repeated seeded releases: each family whose sums have a known law
-- (src/core/accuracy/DERIVATIONS.md, section 14) gets its margin of error
-- from dp.margin_of_error with its law, and that margin must be neither too
-- narrow nor too wide:
--  - lower limit: the share of sums the margin m covers is at least
--    level - kZ sqrt(level (1 - level) / N);
--  - upper limit: the share the margin one step narrower covers is at most
--    level + kZ sqrt(level (1 - level) / N): the margin is the exact
--    quantile (margin_kind exact), so for a law on a lattice of step s
--    (the integers; project_l2's 1/12, 1/20) P(|X| <= m - s) < level, and for a
--    continuous law (subspace_laplace) the margin itself covers with the
--    level (within 1e-9 of the quantile).
-- N = 20,000 sums per shape (1,000 releases of 20 independent sums);
-- kZ = 4.8916: each one-sided check fails falsely at most once in 2 10^6
-- (the binomial's tail is largest at p = level, where its variance is
-- level (1 - level)), the 96 checks together at most once in 2.0 10^4 seeds.
-- Power, each limit against a wrong margin: m - s must fail the lower limit
-- and 1.3 m, rounded up to the lattice, the upper one (the noise is a few counts wide, so one
-- count moves the coverage by more than the tolerance; the shapes and
-- scales were chosen so, from the exact laws); for the continuous law and
-- the fine lattice, whose one step moves the coverage by little, 0.85 m
-- fails the lower limit.
\set VERBOSITY terse
LOAD 'invariant_dp';
SET dp.seed = 20261129;
-- Truths (their counts do not matter: the noise is data-independent) and
-- the sums: 20 per release, each over cells no other sum of the release
-- shares and with independent noise.
CREATE TEMP TABLE cov_truth (shape text, g int, r int, c int, n bigint, k int DEFAULT 1);
CREATE TEMP TABLE cov_sums (shape text, g int, r int, c int, sid int, k int DEFAULT 1);
-- A: discrete_laplace (b = 1), 100 independent cells; sums of 5.
INSERT INTO cov_truth SELECT 'A', g, 1, 1, (g * 7) % 13 FROM generate_series(1, 100) g;
INSERT INTO cov_sums SELECT 'A', g, 1, 1, (g - 1) / 5 FROM generate_series(1, 100) g;
-- B: discrete_gaussian (epsilon 4, delta 1e-3: sigma^2 = 1.39); sums of 3.
INSERT INTO cov_truth SELECT 'B', g, 1, 1, (g * 5) % 11 FROM generate_series(1, 60) g;
INSERT INTO cov_sums SELECT 'B', g, 1, 1, (g - 1) / 3 FROM generate_series(1, 60) g;
-- C: integer_laplace on one margin (b = 1), 40 groups of 4 cells; a sum is
-- one cell of each of two groups.
INSERT INTO cov_truth SELECT 'C', g, 1, c, (g * 3 + c) % 9 FROM generate_series(1, 40) g, generate_series(1, 4) c;
INSERT INTO cov_sums SELECT 'C', g, 1, 1, (g - 1) / 2 FROM generate_series(1, 40) g;
-- D: integer_laplace on 20 tables of 2 x 6 with both margins (b = 2); a sum
-- takes, in one table, the first line's cells of columns 1 to 3 and the
-- second line's of columns 4 to 6.
INSERT INTO cov_truth SELECT 'D', g, r, c, (g + r * 3 + c) % 8
FROM generate_series(1, 20) g, generate_series(1, 2) r, generate_series(1, 6) c;
INSERT INTO cov_sums SELECT 'D', g, r, c, g FROM generate_series(1, 20) g, generate_series(1, 2) r, generate_series(1, 6) c
WHERE (r = 1 AND c <= 3) OR (r = 2 AND c >= 4);
-- E: integer_gaussian on 20 tables of 3 x 4 with both margins (epsilon 4,
-- delta 1e-3: sigma^2 = 3.27); a sum is the box of rows 1 and 2 of column 1.
INSERT INTO cov_truth SELECT 'E', g, r, c, (g * 2 + r + c) % 10
FROM generate_series(1, 20) g, generate_series(1, 3) r, generate_series(1, 4) c;
INSERT INTO cov_sums SELECT 'E', g, r, 1, g FROM generate_series(1, 20) g, generate_series(1, 2) r;
-- H: the same as E; a sum is no box: the cells (1, 1) and (2, 2).
INSERT INTO cov_truth SELECT 'H', g, r, c, (g + r * 2 + c) % 9
FROM generate_series(1, 20) g, generate_series(1, 3) r, generate_series(1, 4) c;
INSERT INTO cov_sums SELECT 'H', g, r, r, g FROM generate_series(1, 20) g, generate_series(1, 2) r;
-- I: integer_gaussian on 20 cubes of 2 x 3 x 3 with their three two-way
-- margins (epsilon 4, delta 1e-3); a sum is no box: the cells (1, 1, 1)
-- and (2, 2, 2) of one cube.
INSERT INTO cov_truth (shape, g, r, c, k, n) SELECT 'I', g, r, c, k, (g + r * 2 + c * 3 + k) % 7
FROM generate_series(1, 20) g, generate_series(1, 2) r, generate_series(1, 3) c, generate_series(1, 3) k;
INSERT INTO cov_sums (shape, g, r, c, k, sid) SELECT 'I', g, r, r, r, g FROM generate_series(1, 20) g, generate_series(1, 2) r;
-- F: integer_cascade over 20 groups of 4 leaves, the groups' totals exact
-- (epsilon 4, delta 1e-3); a sum is two children of one group.
INSERT INTO cov_truth SELECT 'F', g, 1, c, (g * 3 + c) % 7 FROM generate_series(1, 20) g, generate_series(1, 4) c;
INSERT INTO cov_sums SELECT 'F', g, 1, c, g FROM generate_series(1, 20) g, generate_series(1, 2) c;
-- G: the same over 60 groups; a sum is one leaf of each of three groups,
-- no two of one parent (independent subtrees: a metropolitan area of
-- counties in three states with the states exact).
INSERT INTO cov_truth SELECT 'G', g, 1, c, (g * 5 + c) % 6 FROM generate_series(1, 60) g, generate_series(1, 4) c;
INSERT INTO cov_sums SELECT 'G', g, 1, 1, (g - 1) / 3 FROM generate_series(1, 60) g;

-- J: integer_laplace on 20 tables of 3 x 5 with both margins (epsilon 2:
-- b = 2), drawn exactly by the three-line sampler; a sum is the cells
-- (1, 1) and (2, 2) of one table (the l1 law of three-line tables).
INSERT INTO cov_truth SELECT 'J', g, r, c, (g + r * 3 + c) % 8
FROM generate_series(1, 20) g, generate_series(1, 3) r, generate_series(1, 5) c;
INSERT INTO cov_sums SELECT 'J', g, r, r, g FROM generate_series(1, 20) g, generate_series(1, 2) r;
-- K: integer_laplace on 20 tables of 4 x 4 with both margins (epsilon 10/3:
-- b = 6/5), drawn exactly by rejection over lines; a sum is the 2 x 2 block
-- of rows 1 and 2 and columns 1 and 2 of one table (the l1 law of four-line
-- tables: a Fourier integral over three angles).
INSERT INTO cov_truth SELECT 'K', g, r, c, (g + r * 2 + c * 3) % 7
FROM generate_series(1, 20) g, generate_series(1, 4) r, generate_series(1, 4) c;
INSERT INTO cov_sums SELECT 'K', g, r, c, g FROM generate_series(1, 20) g, generate_series(1, 2) r, generate_series(1, 2) c;
-- L: integer_laplace on 20 tables of 4 x 4 with both margins (epsilon 4/3:
-- b = 3), drawn exactly by rejection over lines; a sum is the cells (1, 1)
-- and (2, 2) of one table: one cell of each of two lines, whose law one
-- Fourier integral over the lines' angles gives (the inversion of K's
-- sums would cost some 10^8 line transforms at this scale).
INSERT INTO cov_truth SELECT 'L', g, r, c, (g * 3 + r + c * 2) % 9
FROM generate_series(1, 20) g, generate_series(1, 4) r, generate_series(1, 4) c;
INSERT INTO cov_sums SELECT 'L', g, r, r, g FROM generate_series(1, 20) g, generate_series(1, 2) r;

-- M: subspace_laplace on 20 tables of 3 x 4 with both margins (epsilon
-- 0.5: b = 2), real-valued; a sum is the cells (1, 1) and (2, 2) of one
-- table (a combination of independent Laplace variables, weighted by the
-- pair's projection onto the null space of the margins).
INSERT INTO cov_truth SELECT 'M', g, r, c, (g * 2 + r + c * 3) % 8
FROM generate_series(1, 20) g, generate_series(1, 3) r, generate_series(1, 4) c;
INSERT INTO cov_sums SELECT 'M', g, r, r, g FROM generate_series(1, 20) g, generate_series(1, 2) r;
-- N: the same law on 20 tables of 4 x 5; a "sum" is the cell (1, 1) of
-- one table: its margin is the cell's interval (the same law, one code
-- path).
INSERT INTO cov_truth SELECT 'N', g, r, c, (g + r * 2 + c) % 9
FROM generate_series(1, 20) g, generate_series(1, 4) r, generate_series(1, 5) c;
INSERT INTO cov_sums SELECT 'N', g, 1, 1, g FROM generate_series(1, 20) g;
-- O: project_l2 on 20 tables of 3 x 4 with both margins (epsilon 0.5:
-- discrete Laplace cells at b = 2, projected); a sum is the cells (1, 1)
-- and (2, 2) of one table, whose noise lives on the lattice of step 1/12
-- (discrete Laplace cells weighted by the pair's projection).
INSERT INTO cov_truth SELECT 'O', g, r, c, (g * 3 + r * 2 + c) % 7
FROM generate_series(1, 20) g, generate_series(1, 3) r, generate_series(1, 4) c;
INSERT INTO cov_sums SELECT 'O', g, r, r, g FROM generate_series(1, 20) g, generate_series(1, 2) r;
-- P: the same law on 20 tables of 4 x 5 (lattice step 1/20); a "sum" is
-- the cell (1, 1) of one table: its margin is the cell's interval.
INSERT INTO cov_truth SELECT 'P', g, r, c, (g * 2 + r + c * 3) % 9
FROM generate_series(1, 20) g, generate_series(1, 4) r, generate_series(1, 5) c;
INSERT INTO cov_sums SELECT 'P', g, 1, 1, g FROM generate_series(1, 20) g;

-- Indexed: each run joins its release's rows to both tables, so a plan
-- that scans them once per row cannot cost seconds.
CREATE INDEX ON cov_truth (shape, g, r, c, k);
CREATE INDEX ON cov_sums (shape, g, r, c, k);
ANALYZE cov_truth;
ANALYZE cov_sums;

-- Each shape's release: the call (its epsilon written as a function of the
-- run number, so that a lateral join draws once per run), and how its rows
-- name the line r, the column c and the layer k (a rollup row's keys are
-- NULL and join nothing), and the law's step (1: integer counts; 0: a
-- continuous law; 1/12 and 1/20: project_l2's lattices on 3 x 4 and 4 x 5
-- tables).
CREATE TEMP TABLE cov_release (shape text PRIMARY KEY, call text, r text, c text, k text DEFAULT '1',
                               step float8 DEFAULT 1);
INSERT INTO cov_release VALUES
  ('A', $$dp.privatize('SELECT g, n FROM cov_truth WHERE shape = ''A''', 2.0 + 0 * run,
          'discrete_laplace') AS x(g int, n bigint)$$, '1', '1'),
  ('B', $$dp.privatize('SELECT g, n FROM cov_truth WHERE shape = ''B''', 4.0 + 0 * run,
          'discrete_gaussian', delta => 1e-3) AS x(g int, n bigint)$$, '1', '1'),
  ('C', $$dp.privatize('SELECT g, c, n FROM cov_truth WHERE shape = ''C''', 2.0 + 0 * run,
          'integer_laplace', margins => '{g}') AS x(g int, c int, n bigint)$$, '1', 'x.c'),
  ('D', $$dp.privatize('SELECT g, r, c, n FROM cov_truth WHERE shape = ''D''', 2.0 + 0 * run,
          'integer_laplace', margins => '{"g,r","g,c"}') AS x(g int, r int, c int, n bigint)$$, 'x.r', 'x.c'),
  ('E', $$dp.privatize('SELECT g, r, c, n FROM cov_truth WHERE shape = ''E''', 4.0 + 0 * run,
          'integer_gaussian', delta => 1e-3, margins => '{"g,r","g,c"}') AS x(g int, r int, c int, n bigint)$$,
   'x.r', 'x.c'),
  ('H', $$dp.privatize('SELECT g, r, c, n FROM cov_truth WHERE shape = ''H''', 4.0 + 0 * run,
          'integer_gaussian', delta => 1e-3, margins => '{"g,r","g,c"}') AS x(g int, r int, c int, n bigint)$$,
   'x.r', 'x.c'),
  ('F', $$dp.privatize('SELECT g, c, n FROM cov_truth WHERE shape = ''F''', 4.0 + 0 * run,
          'integer_cascade', delta => 1e-3, margins => '{g}', hierarchy => '{g,c}') AS x(g int, c int, n bigint)$$,
   '1', 'x.c'),
  ('G', $$dp.privatize('SELECT g, c, n FROM cov_truth WHERE shape = ''G''', 4.0 + 0 * run,
          'integer_cascade', delta => 1e-3, margins => '{g}', hierarchy => '{g,c}') AS x(g int, c int, n bigint)$$,
   '1', 'x.c');
INSERT INTO cov_release VALUES
  ('J', $$dp.privatize('SELECT g, r, c, n FROM cov_truth WHERE shape = ''J''', 2.0 + 0 * run,
          'integer_laplace', margins => '{"g,r","g,c"}') AS x(g int, r int, c int, n bigint)$$, 'x.r', 'x.c', '1'),
  ('K', $$dp.privatize('SELECT g, r, c, n FROM cov_truth WHERE shape = ''K''', 10.0 / 3 + 0 * run,
          'integer_laplace', margins => '{"g,r","g,c"}') AS x(g int, r int, c int, n bigint)$$, 'x.r', 'x.c', '1'),
  ('L', $$dp.privatize('SELECT g, r, c, n FROM cov_truth WHERE shape = ''L''', 4.0 / 3 + 0 * run,
          'integer_laplace', margins => '{"g,r","g,c"}') AS x(g int, r int, c int, n bigint)$$, 'x.r', 'x.c', '1'),
  ('I', $$dp.privatize('SELECT g, r, c, k, n FROM cov_truth WHERE shape = ''I''', 4.0 + 0 * run,
          'integer_gaussian', delta => 1e-3, margins => '{"g,r,c","g,r,k","g,c,k"}')
          AS x(g int, r int, c int, k int, n bigint)$$, 'x.r', 'x.c', 'x.k');
INSERT INTO cov_release VALUES
  ('M', $$dp.privatize('SELECT g, r, c, n FROM cov_truth WHERE shape = ''M''', 0.5 + 0 * run,
          'subspace_laplace', margins => '{"g,r","g,c"}') AS x(g int, r int, c int, n float8)$$, 'x.r', 'x.c', '1', 0),
  ('N', $$dp.privatize('SELECT g, r, c, n FROM cov_truth WHERE shape = ''N''', 0.5 + 0 * run,
          'subspace_laplace', margins => '{"g,r","g,c"}') AS x(g int, r int, c int, n float8)$$, 'x.r', 'x.c', '1', 0),
  ('O', $$dp.privatize('SELECT g, r, c, n FROM cov_truth WHERE shape = ''O''', 0.5 + 0 * run,
          'project_l2', margins => '{"g,r","g,c"}') AS x(g int, r int, c int, n float8)$$, 'x.r', 'x.c', '1', 1.0 / 12),
  ('P', $$dp.privatize('SELECT g, r, c, n FROM cov_truth WHERE shape = ''P''', 0.5 + 0 * run,
          'project_l2', margins => '{"g,r","g,c"}') AS x(g int, r int, c int, n float8)$$, 'x.r', 'x.c', '1', 1.0 / 20);

-- Per release, each sum's noise (released minus true): one query per shape,
-- each release materialized once (a function scan the planner put inside a
-- join could be drawn again for every row it meets).
CREATE TEMP TABLE cov_runs (shape text, run int, sid int, noise float8);
CREATE FUNCTION pg_temp.release_many(which text, runs int) RETURNS void LANGUAGE plpgsql AS $f$
DECLARE
  d cov_release;
BEGIN
  SELECT * INTO d FROM cov_release WHERE shape = which;
  EXECUTE format($q$
    INSERT INTO cov_runs
    SELECT %1$L, run, z.sid, z.noise
    FROM generate_series(1, %2$s) run,
         LATERAL (WITH x AS MATERIALIZED (SELECT * FROM %3$s)
                  SELECT s.sid, sum(x.n - t.n) AS noise
                  FROM x JOIN cov_truth t ON t.shape = %1$L AND t.g = x.g AND t.r = %4$s AND t.c = %5$s AND t.k = %6$s
                         JOIN cov_sums s ON s.shape = %1$L AND s.g = x.g AND s.r = %4$s AND s.c = %5$s AND s.k = %6$s
                  GROUP BY s.sid) z$q$, which, runs, d.call, d.r, d.c, d.k);
END $f$;
SELECT pg_temp.release_many(shape, 1000) FROM cov_release ORDER BY shape;

-- The margins, from one more release of each shape stored with its law:
-- dp.margin_of_error over each sum's rows, at three levels. Every sum of a
-- shape has one margin (it follows from the law and the keys).
CREATE TEMP TABLE cov_margins (shape text, level float8, margin float8, margins bigint, kinds text);
CREATE FUNCTION pg_temp.margins_of(which text) RETURNS void LANGUAGE plpgsql AS $f$
DECLARE
  d cov_release;
BEGIN
  SELECT * INTO d FROM cov_release WHERE shape = which;
  DROP TABLE IF EXISTS cov_last;
  EXECUTE format('CREATE TEMP TABLE cov_last AS SELECT x.* FROM (SELECT 1 AS run) v, LATERAL %s', d.call);
  EXECUTE format($q$
    INSERT INTO cov_margins
    SELECT %1$L, level, max(m), count(DISTINCT m), string_agg(DISTINCT k, ',')
    FROM (SELECT level, s.sid, (dp.error_bar(x, level, l.law)).margin_of_error AS m,
                 (dp.error_bar(x, level, l.law)).margin_kind AS k
          FROM cov_last x JOIN cov_sums s ON s.shape = %1$L AND s.g = x.g AND s.r = %2$s AND s.c = %3$s AND s.k = %4$s,
               (SELECT dp.last_release() AS law) l, (VALUES (0.5), (0.9), (0.99)) v(level)
          GROUP BY level, s.sid) per_sum
    GROUP BY level$q$, which, d.r, d.c, d.k);
END $f$;
SELECT pg_temp.margins_of(shape) FROM cov_release ORDER BY shape;

-- The checks: share(m) for the margin m, the lower limit on it, the upper
-- limit on the share of the margin one step narrower; then the same limits
-- for the wrong margins.
WITH shares AS (
  SELECT m.shape, m.level, m.margin, m.margins, m.kinds, count(*) AS n,
         avg((abs(r.noise) <= m.margin)::int) AS share,
         avg((abs(r.noise) <= m.margin - d.step)::int) AS narrower_share,
         avg((abs(r.noise) <= CASE WHEN d.step < 1 THEN 0.85 * m.margin ELSE m.margin - d.step END)::int)
             AS wrong_narrower_share,
         avg((abs(r.noise) <= CASE WHEN d.step = 0 THEN 1.3 * m.margin
                                   ELSE d.step * ceil(1.3 * m.margin / d.step) - d.step END)::int)
             AS wider_narrower_share
  FROM cov_margins m JOIN cov_release d USING (shape) JOIN cov_runs r USING (shape)
  GROUP BY m.shape, m.level, m.margin, m.margins, m.kinds),
limits AS (SELECT *, 4.8916 * sqrt(level * (1 - level) / n) AS tol FROM shares)
SELECT shape, level, n, round(margin::numeric, 4) AS margin, margins = 1 AS one_margin, kinds, round(share, 4) AS share,
       share >= level - tol AS lower_holds, narrower_share <= level + tol AS upper_holds,
       wrong_narrower_share >= level - tol AS narrower_passes, wider_narrower_share <= level + tol AS wider_passes
FROM limits ORDER BY shape, level;
RESET dp.seed;
