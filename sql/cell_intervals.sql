-- Per-cell error bars: dp.privatize's {"interval": level} option adds two
-- columns after the count (and after the level columns), lower and upper,
-- of the count's type, covering each cell's true count with at least that
-- probability under the release's published noise law; the law says how
-- (dp.last_release() -> 'interval': level, method, kind). They are computed
-- from the law after the draw: the released values are the same with or
-- without them. Fixed seeds and ordered sources (the noise is drawn in the
-- source's row order) make the releases, hence the bounds, reproducible.
\set VERBOSITY terse
CREATE TEMP TABLE truth AS SELECT county, edu, count(*) AS n FROM delinquents GROUP BY 1, 2;
-- The module loaded (by a call of one of its functions) before dp.seed is set.
SELECT dp.last_release() IS NULL AS no_release_yet;

-- discrete_laplace: independent cells, one exact half-width for all.
SET dp.seed = 7;
CREATE TEMP TABLE dl AS
SELECT * FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2 ORDER BY 1, 2$$, 1.0, 'discrete_laplace',
                           options => '{"interval": 0.9}')
    AS t(county text, edu text, n bigint, lower bigint, upper bigint);
SELECT dp.last_release() -> 'interval' AS interval;
SELECT county, edu, n, lower, upper, lower <= n AND n <= upper AS around_n, upper - n AS half_width
FROM dl ORDER BY county, edu;
-- How many of the 16 true counts the intervals hold (at least 90 % expected
-- on average; this seed's share).
SELECT count(*) FILTER (WHERE d.lower <= t.n AND t.n <= d.upper) AS covered, count(*) AS cells
FROM dl d JOIN truth t USING (county, edu);
-- The same seed without the option: the same values.
SET dp.seed = 7;
SELECT bool_and(d.n = p.n) AS same_values
FROM dl d JOIN dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2 ORDER BY 1, 2$$, 1.0, 'discrete_laplace')
                   AS p(county text, edu text, n bigint) USING (county, edu);

-- integer_laplace on one margin: each county's cells are one conditioned
-- group; the exact quantile of a cell's conditioned law, integer bounds.
SET dp.seed = 8;
CREATE TEMP TABLE il AS
SELECT * FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2 ORDER BY 1, 2$$, 1.0, 'integer_laplace',
                           margins => '{county}', options => '{"interval": 0.9}')
    AS t(county text, edu text, n bigint, lower bigint, upper bigint);
SELECT dp.last_release() -> 'interval' AS interval;
CREATE TEMP TABLE il_law AS SELECT dp.last_release() AS law;
SELECT county, edu, n, lower, upper FROM il ORDER BY county, edu;
SELECT bool_and(i.lower <= i.n AND i.n <= i.upper) AS around_n, count(DISTINCT i.upper - i.n) AS half_widths,
       count(*) FILTER (WHERE i.lower <= t.n AND t.n <= i.upper) AS covered
FROM il i JOIN truth t USING (county, edu);

-- A table holding the release with its bounds is read by the error-bar
-- aggregates as the same table without them: lower and upper set aside.
CREATE TEMP TABLE il_plain AS SELECT county, edu, n FROM il;
SELECT edu, dp.margin_of_error(r, 0.9, (SELECT law FROM il_law)) AS moe,
       (SELECT dp.margin_of_error(p, 0.9, (SELECT law FROM il_law)) FROM il_plain p WHERE p.edu = r.edu) AS moe_plain
FROM il r GROUP BY edu ORDER BY edu;

-- integer_gaussian on both margins (a complete two-way table): exact, the
-- quantile of the cell's law (a tilted discrete Gaussian the bound decides).
SET dp.seed = 9;
SELECT bool_and(lower <= n AND n <= upper) AS around_n, min(upper - n) AS min_half_width, max(upper - n) AS max_half_width,
       pg_typeof(min(lower)) AS bound_type
FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2 ORDER BY 1, 2$$, 1.0, 'integer_gaussian',
                  delta => 1e-6, margins => '{county,edu}', options => '{"interval": 0.9}')
    AS t(county text, edu text, n bigint, lower bigint, upper bigint);
SELECT dp.last_release() -> 'interval' -> 'kind' AS kind, dp.last_release() -> 'interval' -> 'level' AS level;

-- subspace_gaussian: real values, float8 bounds, the exact normal quantile.
SET dp.seed = 10;
SELECT county, edu, round(n::numeric, 3) AS n, round(lower::numeric, 3) AS lower, round(upper::numeric, 3) AS upper
FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2 ORDER BY 1, 2$$, 1.0, 'subspace_gaussian',
                  delta => 1e-6, margins => '{county,edu}', options => '{"interval": 0.95}')
    AS t(county text, edu text, n float8, lower float8, upper float8)
WHERE county = 'Alpha' ORDER BY edu;
SELECT dp.last_release() -> 'interval' AS interval;

-- Laws with no closed-form covariance: the chain's Monte Carlo scale c of
-- Cov = c Pi, published as noise.covariance_scale, gives intervals and sums
-- labelled estimates. integer_laplace_l2 on one margin: one scale per group
-- size (each county's 4 cells, shape [4]).
SET dp.seed = 12;
CREATE TEMP TABLE l2 AS
SELECT * FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2 ORDER BY 1, 2$$, 1.0, 'integer_laplace_l2',
                           margins => '{county}', options => '{"interval": 0.9}')
    AS t(county text, edu text, n bigint, lower bigint, upper bigint);
SELECT dp.last_release() -> 'interval' -> 'kind' AS kind,
       jsonb_path_query_array(dp.last_release(), '$.noise.covariance_scale[*].shape') AS scale_shapes,
       (dp.last_release() -> 'noise' -> 'covariance_scale' -> 0 ->> 'scale')::float8 > 0 AS scale_positive;
SELECT bool_and(lower <= n AND n <= upper) AS around_n, count(DISTINCT upper - n) AS half_widths FROM l2;
-- integer_laplace's chain on an incomplete two-way table (Alpha has no
-- Medium cell): general margins, no symmetry, so the shape c Pi_N is itself
-- the estimate; c is fitted to the trace of Pi_N.
SET dp.seed = 13;
CREATE TEMP TABLE incomplete AS
SELECT * FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents WHERE NOT (county = 'Alpha' AND edu = 'Medium')
                             GROUP BY 1, 2 ORDER BY 1, 2$$, 1.0, 'integer_laplace',
                           margins => '{county,edu}', options => '{"sampler": "chain", "interval": 0.9}')
    AS t(county text, edu text, n bigint, lower bigint, upper bigint);
CREATE TEMP TABLE incomplete_law AS SELECT dp.last_release() AS law;
SELECT law -> 'invariants' ->> 'structure' AS structure, law -> 'interval' ->> 'kind' AS kind,
       law -> 'noise' -> 'covariance_scale' -> 0 -> 'shape' AS scale_shape,
       law ->> 'covariance' LIKE 'estimated: c Pi_N%' AS covariance_estimated
FROM incomplete_law;
SELECT bool_and(lower <= n AND n <= upper) AS around_n, count(*) AS cells FROM incomplete;
-- A county's total is a margin: exact, margin of error 0; a sum of four
-- cells across two counties and two levels is not, and gets a positive
-- estimated margin of error.
SELECT county, sum(n) AS total, dp.margin_of_error(i, 0.9, (SELECT law FROM incomplete_law)) AS moe
FROM incomplete i WHERE county = 'Beta' GROUP BY county;
SELECT dp.margin_of_error(i, 0.9, (SELECT law FROM incomplete_law)) > 0 AS low_moe_positive
FROM incomplete i WHERE edu IN ('Low', 'High') AND county IN ('Alpha', 'Gamma');

-- A cascade over counties with the grand total exact: one interval per
-- node, after the level column; the exact total's interval is the point.
SET dp.seed = 11;
SELECT level, count(*) AS nodes, bool_and(lower <= n AND n <= upper) AS around_n,
       round(max(upper - n)::numeric, 3) AS half_width
FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2 ORDER BY 1, 2$$, 1.0, 'cascade',
                  delta => 1e-6, hierarchy => '{county}', margins => '{""}',
                  options => '{"level": true, "interval": 0.9}')
    AS t(county text, edu text, n float8, level integer, lower float8, upper float8)
GROUP BY level ORDER BY level;
SELECT dp.last_release() -> 'interval' -> 'kind' AS kind, dp.last_release() -> 'interval' -> 'method' AS method;
RESET dp.seed;

-- One functional, one error bar: each cell's interval is the margin of that
-- cell alone (dp.margin_of_error over its row, with the release's law), on
-- integer_laplace 2 x n and 3 x n tables (both margins), an integer_gaussian
-- two-way table and an integer_cascade hierarchy; and a node's margin read
-- from its row equals the margin of its children's rows and of its cells'.
CREATE TABLE one_bar_ln AS
SELECT * FROM dp.privatize($$SELECT edu, county, count(*) FROM delinquents
                             WHERE edu IN ('Low', 'High') GROUP BY 1, 2$$, 1.0, 'integer_laplace',
                           margins => '{edu,county}', options => '{"interval": 0.9}')
    AS t(edu text, county text, n bigint, lower bigint, upper bigint);
CREATE TABLE one_bar_ln_law AS SELECT dp.last_release() AS law;
CREATE TABLE one_bar_l3 AS
SELECT * FROM dp.privatize($$SELECT edu, county, count(*) FROM delinquents
                             WHERE edu <> 'Very High' GROUP BY 1, 2$$, 1.0, 'integer_laplace',
                           margins => '{edu,county}', options => '{"interval": 0.9}')
    AS t(edu text, county text, n bigint, lower bigint, upper bigint);
CREATE TABLE one_bar_l3_law AS SELECT dp.last_release() AS law;
CREATE TABLE one_bar_g AS
SELECT * FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 1.0,
                           'integer_gaussian', delta => 1e-6, margins => '{county,edu}',
                           options => '{"interval": 0.9}')
    AS t(county text, edu text, n bigint, lower bigint, upper bigint);
CREATE TABLE one_bar_g_law AS SELECT dp.last_release() AS law;
-- The same table without one of its cells: general margins, drawn by the
-- lattice chain.
CREATE TABLE one_bar_gi AS
SELECT * FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents
                             WHERE NOT (county = 'Alpha' AND edu = 'Low') GROUP BY 1, 2$$, 1.0,
                           'integer_gaussian', delta => 1e-6, margins => '{county,edu}',
                           options => '{"interval": 0.9}')
    AS t(county text, edu text, n bigint, lower bigint, upper bigint);
CREATE TABLE one_bar_gi_law AS SELECT dp.last_release() AS law;
CREATE TABLE one_bar_c AS
SELECT * FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 1.0,
                           'integer_cascade', delta => 1e-6, hierarchy => '{county}',
                           options => '{"level": true, "interval": 0.9}')
    AS t(county text, edu text, n bigint, level integer, lower bigint, upper bigint);
CREATE TABLE one_bar_c_law AS SELECT dp.last_release() AS law;
SELECT 'integer_laplace 2 x 4' AS release, count(*) AS cells,
       bool_and(m.margin = c.upper - c.n AND c.n - c.lower = c.upper - c.n) AS interval_is_the_cells_margin
FROM one_bar_ln c, LATERAL (SELECT dp.margin_of_error(r, 0.9, (SELECT law FROM one_bar_ln_law)) AS margin
                            FROM one_bar_ln r WHERE r.edu = c.edu AND r.county = c.county) m
UNION ALL
SELECT 'integer_laplace 3 x 4', count(*), bool_and(m.margin = c.upper - c.n AND c.n - c.lower = c.upper - c.n)
FROM one_bar_l3 c, LATERAL (SELECT dp.margin_of_error(r, 0.9, (SELECT law FROM one_bar_l3_law)) AS margin
                            FROM one_bar_l3 r WHERE r.edu = c.edu AND r.county = c.county) m
UNION ALL
SELECT 'integer_gaussian 4 x 4', count(*), bool_and(m.margin = c.upper - c.n AND c.n - c.lower = c.upper - c.n)
FROM one_bar_g c, LATERAL (SELECT dp.margin_of_error(r, 0.9, (SELECT law FROM one_bar_g_law)) AS margin
                           FROM one_bar_g r WHERE r.county = c.county AND r.edu = c.edu) m
UNION ALL
SELECT 'integer_gaussian 4 x 4 without a cell', count(*),
       bool_and(m.margin = c.upper - c.n AND c.n - c.lower = c.upper - c.n)
FROM one_bar_gi c, LATERAL (SELECT dp.margin_of_error(r, 0.9, (SELECT law FROM one_bar_gi_law)) AS margin
                            FROM one_bar_gi r WHERE r.county = c.county AND r.edu = c.edu) m
UNION ALL
SELECT 'integer_cascade, every node', count(*), bool_and(m.margin = c.upper - c.n AND c.n - c.lower = c.upper - c.n)
FROM one_bar_c c, LATERAL (SELECT dp.margin_of_error(r, 0.9, (SELECT law FROM one_bar_c_law)) AS margin
                           FROM one_bar_c r WHERE r.level = c.level AND r.county IS NOT DISTINCT FROM c.county
                                              AND r.edu IS NOT DISTINCT FROM c.edu) m;
-- A county given with one of its cells (as a join may give them) is that
-- cell twice beside the county's other cells: one margin and one method
-- either way.
SELECT c.county, (a.e).margin_of_error = (b.e).margin_of_error AND (a.e).variance = (b.e).variance
                 AND (a.e).method = (b.e).method AS one_error_bar, (a.e).margin_kind
FROM (SELECT county FROM one_bar_c WHERE level = 1) c,
     LATERAL (SELECT dp.error_bar(r, 0.9, (SELECT law FROM one_bar_c_law)) AS e
              FROM one_bar_c r, generate_series(1, 2) t
              WHERE r.county = c.county AND ((t = 1 AND r.level = 1) OR (t = 2 AND r.level = 2 AND r.edu = 'Low'))) a,
     LATERAL (SELECT dp.error_bar(r, 0.9, (SELECT law FROM one_bar_c_law)) AS e
              FROM one_bar_c r, generate_series(1, 2) t
              WHERE r.county = c.county AND r.level = 2 AND (t = 1 OR r.edu = 'Low')) b
ORDER BY c.county;
-- The 3 x 4 integer_laplace table: its cells' law and the law of a sum of
-- cells (two diagonal cells, a 2 x 2 block) are computed from the l1 law,
-- not estimated: both exact.
SELECT l.law -> 'interval' ->> 'kind' AS cells_kind, l.law -> 'interval' ->> 'method' AS cells_method
FROM one_bar_l3_law l;
SELECT q.what, (dp.error_bar(r, 0.9, l.law)).margin_of_error, (dp.error_bar(r, 0.9, l.law)).margin_kind,
       (dp.error_bar(r, 0.9, l.law)).method
FROM (VALUES ('diagonal pair', ARRAY['Low/Alpha', 'Medium/Beta']),
             ('2 x 2 block', ARRAY['Low/Alpha', 'Low/Beta', 'Medium/Alpha', 'Medium/Beta'])) q(what, cells),
     one_bar_l3 r, one_bar_l3_law l
WHERE r.edu || '/' || r.county = ANY (q.cells) GROUP BY q.what ORDER BY q.what;
-- A four-line table (4 x 120, drawn by the chain): its cells' law and the
-- law of a sum of cells, by Fourier integrals over three angles, exact
-- within a margin's work; each cell's interval is that cell's margin.
SET dp.seed = 7;
CREATE TABLE one_bar_l4 AS
SELECT * FROM dp.privatize($$SELECT g, k, count(*) FROM generate_series(1, 4) g, generate_series(1, 120) k,
                             generate_series(1, 2 + (g * k) % 5) GROUP BY 1, 2$$, 1.0, 'integer_laplace',
                           margins => '{g,k}', options => '{"sampler": "chain", "interval": 0.9}')
    AS t(g int, k int, n bigint, lower bigint, upper bigint);
CREATE TABLE one_bar_l4_law AS SELECT dp.last_release() AS law;
RESET dp.seed;
SELECT l.law -> 'interval' ->> 'kind' AS cells_kind FROM one_bar_l4_law l;
SELECT count(*) AS cells, bool_and(m.margin = c.upper - c.n AND c.n - c.lower = c.upper - c.n)
           AS interval_is_the_cells_margin
FROM (SELECT * FROM one_bar_l4 WHERE k <= 3) c,
     LATERAL (SELECT dp.margin_of_error(r, 0.9, (SELECT law FROM one_bar_l4_law)) AS margin
              FROM one_bar_l4 r WHERE r.g = c.g AND r.k = c.k) m;
SELECT q.what, (dp.error_bar(r, 0.9, l.law)).margin_of_error, (dp.error_bar(r, 0.9, l.law)).margin_kind
FROM (VALUES ('pair', ARRAY['1/1', '2/2']), ('2 x 2 block', ARRAY['1/1', '1/2', '2/1', '2/2'])) q(what, cells),
     one_bar_l4 r, one_bar_l4_law l
WHERE r.g || '/' || r.k = ANY (q.cells) GROUP BY q.what ORDER BY q.what;
DROP TABLE one_bar_l4, one_bar_l4_law;
-- A short four-line table at a small epsilon (4 x 20 at epsilon 0.4, b =
-- 10, drawn by the chain), past the cell's law's work limit: its cells' law by one pass over
-- the lines' angles that only bounds the nodes of negligible weight, and a
-- pair of cells (one of each of two lines) the same way, both exact; each
-- cell's interval is that cell's margin.
SET dp.seed = 11;
CREATE TABLE one_bar_l4s AS
SELECT * FROM dp.privatize($$SELECT g, k, count(*) FROM generate_series(1, 4) g, generate_series(1, 20) k,
                             generate_series(1, 1 + (g + k) % 4) GROUP BY 1, 2$$, 0.4, 'integer_laplace',
                           margins => '{g,k}', options => '{"sampler": "chain", "interval": 0.9}')
    AS t(g int, k int, n bigint, lower bigint, upper bigint);
CREATE TABLE one_bar_l4s_law AS SELECT dp.last_release() AS law;
RESET dp.seed;
SELECT l.law -> 'interval' ->> 'kind' AS cells_kind, min(c.upper - c.n) AS min_half_width,
       max(c.upper - c.n) AS max_half_width
FROM one_bar_l4s c, one_bar_l4s_law l GROUP BY l.law;
SELECT count(*) AS cells, bool_and(m.margin = c.upper - c.n AND c.n - c.lower = c.upper - c.n)
           AS interval_is_the_cells_margin
FROM (SELECT * FROM one_bar_l4s WHERE k <= 3) c,
     LATERAL (SELECT dp.margin_of_error(r, 0.9, (SELECT law FROM one_bar_l4s_law)) AS margin
              FROM one_bar_l4s r WHERE r.g = c.g AND r.k = c.k) m;
SELECT (dp.error_bar(r, 0.9, l.law)).margin_of_error AS pair_margin, (dp.error_bar(r, 0.9, l.law)).margin_kind,
       (dp.error_bar(r, 0.9, l.law)).method
FROM one_bar_l4s r, one_bar_l4s_law l WHERE r.g || '/' || r.k IN ('1/1', '2/2') GROUP BY l.law;
DROP TABLE one_bar_l4s, one_bar_l4s_law;
-- 4 x 4 tables: at epsilon 0.5 (b = 8) the cells' law by the same pass,
-- within the release's limit, exact (and at 1/3, b = 12, by residues over
-- the asked cell's angle); at 1/4 (b = 16) past it, so the intervals are
-- estimates (the discrete Laplace quantile at the cell's variance, its
-- scale c computed). Either way the figure asked four ways has one
-- margin, one kind and one method: a cell's interval, that cell alone, the
-- rest of its row (its row's total less the cell: the cell's noise,
-- negated) and the cell with its column added.
CREATE TABLE one_bar_l44 (g int, k int, n bigint, lower bigint, upper bigint);
CREATE TABLE one_bar_l44_law (law jsonb);
PREPARE one_bar_l44_release(float8) AS
INSERT INTO one_bar_l44
SELECT * FROM dp.privatize($$SELECT g, k, count(*) FROM generate_series(1, 4) g, generate_series(1, 4) k,
                             generate_series(1, 2 + g * k % 3) GROUP BY 1, 2$$, $1, 'integer_laplace',
                           margins => '{g,k}', options => '{"interval": 0.9}')
    AS t(g int, k int, n bigint, lower bigint, upper bigint);
PREPARE one_bar_l44_asked AS
SELECT c.g, c.k, c.upper - c.n AS interval_half_width, l.law -> 'interval' ->> 'kind' AS interval_kind,
       alone.margin AS cell_alone, alone.kind AS alone_kind, rest.margin AS rest_of_its_row,
       rest.kind AS rest_kind, with_column.margin AS with_its_column, rest.method = alone.method AS one_method
FROM one_bar_l44 c, one_bar_l44_law l,
     LATERAL (SELECT (dp.error_bar(r, 0.9, l.law)).margin_of_error AS margin,
                     (dp.error_bar(r, 0.9, l.law)).margin_kind AS kind, (dp.error_bar(r, 0.9, l.law)).method AS method
              FROM one_bar_l44 r WHERE r.g = c.g AND r.k = c.k) alone,
     LATERAL (SELECT (dp.error_bar(r, 0.9, l.law)).margin_of_error AS margin,
                     (dp.error_bar(r, 0.9, l.law)).margin_kind AS kind, (dp.error_bar(r, 0.9, l.law)).method AS method
              FROM one_bar_l44 r WHERE r.g = c.g AND r.k <> c.k) rest,
     LATERAL (SELECT dp.margin_of_error(r, 0.9, l.law) AS margin
              FROM one_bar_l44 r, generate_series(1, 2) AS times
              WHERE r.k = c.k AND (times = 1 OR r.g = c.g)) with_column
WHERE (c.g, c.k) IN ((1, 1), (2, 3), (4, 4)) ORDER BY 1, 2;
SET dp.seed = 12;
EXECUTE one_bar_l44_release(0.5);
INSERT INTO one_bar_l44_law SELECT dp.last_release();
SELECT count(*) AS cells, min(upper - n) AS min_half_width, max(upper - n) AS max_half_width FROM one_bar_l44;
EXECUTE one_bar_l44_asked;
TRUNCATE one_bar_l44, one_bar_l44_law;
SET dp.seed = 13;
EXECUTE one_bar_l44_release(0.25);
INSERT INTO one_bar_l44_law SELECT dp.last_release();
RESET dp.seed;
EXECUTE one_bar_l44_asked;
DEALLOCATE one_bar_l44_release;
DEALLOCATE one_bar_l44_asked;
DROP TABLE one_bar_l44, one_bar_l44_law;
-- Each cell asked as the rest of its county's row and as the rest of its
-- edu column (each the cell's noise, negated, given the margins) has its
-- interval's margin and the cell's kind and method, on the two-way
-- releases above, the incomplete one (general margins) included.
CREATE FUNCTION pg_temp.rest_is_the_interval(rel regclass, law jsonb) RETURNS boolean LANGUAGE plpgsql AS $f$
DECLARE
  same boolean;
BEGIN
  EXECUTE format($q$SELECT bool_and((row_rest.bar).margin_of_error = c.upper - c.n
                                    AND (column_rest.bar).margin_of_error = c.upper - c.n
                                    AND (row_rest.bar).method = (alone.bar).method
                                    AND (column_rest.bar).method = (alone.bar).method
                                    AND (row_rest.bar).margin_kind = (alone.bar).margin_kind)
                    FROM %1$s c,
                         LATERAL (SELECT dp.error_bar(r, 0.9, $1) AS bar FROM %1$s r
                                  WHERE r.county = c.county AND r.edu = c.edu) alone,
                         LATERAL (SELECT dp.error_bar(r, 0.9, $1) AS bar FROM %1$s r
                                  WHERE r.county = c.county AND r.edu <> c.edu) row_rest,
                         LATERAL (SELECT dp.error_bar(r, 0.9, $1) AS bar FROM %1$s r
                                  WHERE r.edu = c.edu AND r.county <> c.county) column_rest$q$, rel)
    INTO same USING law;
  RETURN same;
END
$f$;
SELECT release, pg_temp.rest_is_the_interval(rel, law) AS rest_of_a_line_is_the_interval
FROM (VALUES ('integer_laplace 2 x 4', 'one_bar_ln'::regclass, (SELECT law FROM one_bar_ln_law)),
             ('integer_laplace 3 x 4', 'one_bar_l3'::regclass, (SELECT law FROM one_bar_l3_law)),
             ('integer_gaussian 4 x 4', 'one_bar_g'::regclass, (SELECT law FROM one_bar_g_law)),
             ('integer_gaussian 4 x 4 without a cell', 'one_bar_gi'::regclass, (SELECT law FROM one_bar_gi_law)))
    AS t(release, rel, law);
-- A sum is what its noise reads, not the rows it is asked with: on a
-- 10 x 30 project_l2 table with both margins a pair of cells, the pair
-- with its first cell's whole row of 30 added and the pair with a whole
-- column added are one random variable given the margins, with one
-- margin, kind and method (the quantile of its law: discrete Laplace cells
-- weighted by the pair's projection, on the lattice of step 1/300).
CREATE TABLE one_bar_worth (g int, k int, n float8);
SET dp.seed = 14;
INSERT INTO one_bar_worth
SELECT * FROM dp.privatize($$SELECT g, k, count(*) FROM generate_series(1, 10) g, generate_series(1, 30) k,
                             generate_series(1, 1 + (g + k) % 4) GROUP BY 1, 2$$, 1, 'project_l2',
                           margins => '{g,k}') AS t(g int, k int, n float8);
CREATE TABLE one_bar_worth_law AS SELECT dp.last_release() AS law;
RESET dp.seed;
SELECT q.what, count(*) AS rows_asked, round((dp.error_bar(r, 0.9, l.law)).margin_of_error::numeric, 6) AS margin_of_error,
       (dp.error_bar(r, 0.9, l.law)).margin_kind, (dp.error_bar(r, 0.9, l.law)).method
FROM (VALUES ('pair', 0, 0), ('pair with row 1', 1, 0), ('pair with column 5', 0, 5)) q(what, row_added, column_added),
     one_bar_worth r, generate_series(1, 2) times, one_bar_worth_law l
WHERE (times = 1 AND (r.g, r.k) IN ((1, 1), (2, 2))) OR (times = 2 AND (r.g = q.row_added OR r.k = q.column_added))
GROUP BY q.what, l.law ORDER BY q.what;
DROP TABLE one_bar_worth, one_bar_worth_law;

-- subspace_laplace: a cell's noise is a combination of independent Laplace
-- variables weighted by its row of Pi_N, and so is any sum's (weights
-- Pi_N w). Each interval is the exact quantile of the cell's law; the
-- margin of the cell alone and of the rest of its row (the row's total is
-- exact) are that interval; a pair of cells and the pair with a whole row
-- added are one law, exact, narrower than Gauss's bound at its variance.
SET dp.seed = 15;
CREATE TABLE laplace_cells AS
SELECT * FROM dp.privatize($$SELECT g, k, count(*) FROM generate_series(1, 4) g, generate_series(1, 6) k,
                             generate_series(1, 1 + (g * k) % 5) GROUP BY 1, 2$$, 0.5, 'subspace_laplace',
                           margins => '{g,k}', options => '{"interval": 0.9}')
    AS t(g int, k int, n float8, lower float8, upper float8);
CREATE TABLE laplace_cells_law AS SELECT dp.last_release() AS law;
RESET dp.seed;
SELECT law -> 'interval' ->> 'kind' AS kind, law -> 'interval' ->> 'method' AS method FROM laplace_cells_law;
SELECT count(DISTINCT round((upper - n)::numeric, 6)) AS half_widths, round(min(upper - n)::numeric, 6) AS half_width
FROM laplace_cells;
SELECT q.what, count(*) AS rows_asked, round((dp.error_bar(r, 0.9, l.law)).margin_of_error::numeric, 6) AS margin_of_error,
       (dp.error_bar(r, 0.9, l.law)).margin_kind,
       round((dp.error_bar(r, 0.9, l.law)).margin_of_error::numeric, 6) <
           round((2.0 / 3 * sqrt((dp.error_bar(r, 0.9, l.law)).variance / 0.1))::numeric, 6) AS narrower_than_gauss
FROM (VALUES ('cell (1, 1)', 1), ('rest of row 1', 2), ('pair (1, 1), (2, 2)', 3), ('pair with row 3', 4)) q(what, id),
     laplace_cells r, laplace_cells_law l
WHERE (q.id = 1 AND (r.g, r.k) = (1, 1)) OR (q.id = 2 AND r.g = 1 AND r.k <> 1)
   OR (q.id IN (3, 4) AND (r.g, r.k) IN ((1, 1), (2, 2))) OR (q.id = 4 AND r.g = 3)
GROUP BY q.what, l.law ORDER BY q.what;
DROP TABLE laplace_cells, laplace_cells_law;
-- project_l2 and subspace_laplace on one margin whose groups take twelve
-- sizes (2 to 13 cells): each cell's interval is the exact quantile of its
-- group size's law (project_l2: every size's in one pass, by convolution,
-- on that size's lattice, (q + 1/2)/g; subspace_laplace: in closed form),
-- one half-width per size; the margin of a cell alone and of the rest of
-- its group (the group's total is exact) are that interval, with its kind
-- and method.
CREATE FUNCTION pg_temp.group_intervals(mechanism text)
RETURNS TABLE (size bigint, half_widths bigint, half_width numeric, alone_and_rest_are_the_interval boolean)
LANGUAGE plpgsql AS $f$
BEGIN
  CREATE TEMP TABLE group_cells AS
  SELECT * FROM dp.privatize($$SELECT g, k, count(*) FROM generate_series(1, 24) g, generate_series(1, 2 + g % 12) k,
                               generate_series(1, 1 + (g * k) % 3) GROUP BY 1, 2$$, 1, mechanism,
                             margins => '{g}', options => '{"interval": 0.9}')
      AS t(g int, k int, n float8, lower float8, upper float8);
  CREATE TEMP TABLE group_cells_law AS SELECT dp.last_release() AS law;
  RETURN QUERY
  SELECT s.size, count(DISTINCT round((c.upper - c.n)::numeric, 6)),
         round(min(c.upper - c.n)::numeric, 6),
         bool_and(round((alone.bar).margin_of_error::numeric, 6) = round((c.upper - c.n)::numeric, 6)
                  AND round((rest.bar).margin_of_error::numeric, 6) = round((c.upper - c.n)::numeric, 6)
                  AND (alone.bar).method = l.law -> 'interval' ->> 'method'
                  AND (rest.bar).method = (alone.bar).method
                  AND (rest.bar).margin_kind = 'exact')
  FROM group_cells c
  JOIN (SELECT g, count(*) AS size FROM group_cells GROUP BY g) s USING (g)
  CROSS JOIN group_cells_law l,
       LATERAL (SELECT dp.error_bar(r, 0.9, l.law) AS bar FROM group_cells r WHERE r.g = c.g AND r.k = c.k) alone,
       LATERAL (SELECT dp.error_bar(r, 0.9, l.law) AS bar FROM group_cells r WHERE r.g = c.g AND r.k <> c.k) rest
  WHERE c.k <= 2
  GROUP BY s.size ORDER BY s.size;
  RAISE NOTICE '% intervals: %, %', mechanism, (SELECT law -> 'interval' ->> 'kind' FROM group_cells_law),
    (SELECT law -> 'interval' ->> 'method' FROM group_cells_law);
  DROP TABLE group_cells, group_cells_law;
END $f$;
SET dp.seed = 16;
SELECT * FROM pg_temp.group_intervals('project_l2');
SET dp.seed = 16;
SELECT * FROM pg_temp.group_intervals('subspace_laplace');
RESET dp.seed;
-- On a table too large to try every corner of the lattice's basis (40 x 36,
-- integer_gaussian with both margins: sides of more than 32 levels), a
-- scattered set of cells with one of them twice, the set with row 1 added,
-- and with row 40 and column 5 added are one random variable given the
-- margins, with one margin, kind and method: the corner is read from the
-- functional on every side.
CREATE TABLE one_bar_long (g int, k int, n bigint);
SET dp.seed = 15;
INSERT INTO one_bar_long
SELECT * FROM dp.privatize($$SELECT g, k, (g * 7 + k * 3) % 11 FROM generate_series(1, 40) g, generate_series(1, 36) k$$,
                           1, 'integer_gaussian', 1e-6, margins => '{g,k}') AS t(g int, k int, n bigint);
CREATE TABLE one_bar_long_law AS SELECT dp.last_release() AS law;
RESET dp.seed;
SELECT q.what, count(*) AS rows_asked, round((dp.error_bar(r, 0.9, l.law)).margin_of_error::numeric, 6) AS margin_of_error,
       (dp.error_bar(r, 0.9, l.law)).margin_kind, (dp.error_bar(r, 0.9, l.law)).method
FROM (VALUES ('cells', 0, 0), ('cells with row 1', 1, 0), ('cells with row 40 and column 5', 40, 5))
         q(what, row_added, column_added),
     one_bar_long r, generate_series(1, 4) times, one_bar_long_law l
WHERE (times = 1 AND (r.g, r.k) IN ((1, 1), (2, 3), (2, 7), (5, 5), (9, 30), (33, 12)))
   OR (times = 2 AND (r.g, r.k) = (2, 3)) OR (times = 3 AND r.g = q.row_added) OR (times = 4 AND r.k = q.column_added)
GROUP BY q.what, l.law ORDER BY q.what;
DROP TABLE one_bar_long, one_bar_long_law;
-- The incomplete table: its cells' law and sums of its cells (a pair, a
-- 2 x 2 block, a county's row: constant, since its total is kept) from the
-- lattice Gaussian's law through a basis of its lattice, not a tail bound
-- (the sub-Gaussian bound at 0.9 would be about 1.5 times wider).
SELECT l.law -> 'interval' ->> 'kind' AS cells_kind, min(c.upper - c.n) AS min_half_width,
       max(c.upper - c.n) AS max_half_width, l.law -> 'interval' ->> 'method' AS cells_method
FROM one_bar_gi c, one_bar_gi_law l GROUP BY l.law;
SELECT q.what, (dp.error_bar(r, 0.9, l.law)).margin_of_error, (dp.error_bar(r, 0.9, l.law)).margin_kind,
       (dp.error_bar(r, 0.9, l.law)).method
FROM (VALUES ('pair', ARRAY['Beta/Low', 'Gamma/High']),
             ('2 x 2 block', ARRAY['Beta/Low', 'Beta/High', 'Gamma/Low', 'Gamma/High']),
             ('county row', ARRAY['Beta/Low', 'Beta/Medium', 'Beta/High', 'Beta/Very High'])) q(what, cells),
     one_bar_gi r, one_bar_gi_law l
WHERE r.county || '/' || r.edu = ANY (q.cells) GROUP BY q.what ORDER BY q.what;
-- The grand total and each county: from its row, its children's rows, its cells' rows.
SELECT coalesce(node.county, 'total') AS node, node.upper - node.n AS interval_half_width,
       (SELECT dp.margin_of_error(r, 0.9, l.law) FROM one_bar_c r WHERE r.level = node.level
           AND r.county IS NOT DISTINCT FROM node.county) AS from_its_row,
       (SELECT dp.margin_of_error(r, 0.9, l.law) FROM one_bar_c r WHERE r.level = node.level + 1
           AND (node.county IS NULL OR r.county = node.county)) AS from_its_children,
       (SELECT dp.margin_of_error(r, 0.9, l.law) FROM one_bar_c r WHERE r.level = 2
           AND (node.county IS NULL OR r.county = node.county)) AS from_its_cells
FROM one_bar_c node, one_bar_c_law l WHERE node.level < 2 ORDER BY node.level, node.county;
DROP TABLE one_bar_ln, one_bar_ln_law, one_bar_l3, one_bar_l3_law, one_bar_g, one_bar_g_law, one_bar_gi, one_bar_gi_law,
    one_bar_c, one_bar_c_law;

-- Refusals, with their SQLSTATEs.
-- A bound past bigint's range is refused, not wrapped (one half-width, 5,
-- for every cell here; this seed puts a value within 5 of 2^63 - 1).
SET dp.seed = 4;
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT a, 9223372036854775801 FROM generate_series(1, 3) a ORDER BY a',
    1.0, 'discrete_laplace', options => '{"interval": 0.9}') AS t(a int, n bigint, lower bigint, upper bigint)$$);
RESET dp.seed;
-- A level must lie strictly between 0 and 1.
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT county, count(*) FROM delinquents GROUP BY 1', 1.0,
    options => '{"interval": 1}') AS t(county text, n bigint, lower bigint, upper bigint)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT county, count(*) FROM delinquents GROUP BY 1', 1.0,
    options => '{"interval": "most"}') AS t(county text, n bigint, lower bigint, upper bigint)$$);
-- Releases no published law gives intervals for: congenial and project_nn_l2
-- (their noise depends on the counts: no law), a hierarchy rolled up from
-- discrete_laplace cells (its nodes are sums of cells: dp.margin_of_error's).
SELECT mechanism, sqlstate_of(format(
    $q$SELECT * FROM dp.privatize('SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2', 1.0, %L,
       margins => %L, hierarchy => %L, options => '{"interval": 0.9}')
       AS t(county text, edu text, n %s, lower %s, upper %s)$q$, mechanism, margins, hierarchy, type, type, type))
FROM (VALUES ('congenial', '{county}', NULL, 'bigint'), ('project_nn_l2', '{county}', NULL, 'float8'),
             ('discrete_laplace', '{}', '{county}', 'bigint'))
     AS v(mechanism, margins, hierarchy, type);
-- The column definition list must end with lower and upper, of the count's type.
\set VERBOSITY default
SELECT * FROM dp.privatize('SELECT county, count(*) FROM delinquents GROUP BY 1', 1.0,
    options => '{"interval": 0.9}') AS t(county text, n bigint);
SELECT * FROM dp.privatize('SELECT county, count(*) FROM delinquents GROUP BY 1', 1.0,
    options => '{"interval": 0.9}') AS t(county text, n bigint, lower float8, upper float8);
\set VERBOSITY terse
