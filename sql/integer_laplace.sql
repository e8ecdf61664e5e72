-- integer_laplace: integer releases whose declared totals are exact, through
-- dp.privatize (the window function: total_preserving_count.sql). Only
-- properties that hold for every draw are printed, plus statistics under a
-- fixed seed with thresholds derived from the noise law.

-- County totals exact, integers, one row per cell.
CREATE TEMP TABLE r AS
SELECT * FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 0.5, 'integer_laplace',
                           margins => '{county}', options => '{"stddev": true}')
AS t(county text, edu text, n bigint, sd float8);
SELECT count(*) AS cells, pg_typeof(min(n)) AS type,
       bool_and(sd = (SELECT min(sd) FROM r)) AS same_sd_in_groups_of_four FROM r;
SELECT r.county, r.total = t.total AS county_total_exact
FROM (SELECT county, sum(n) AS total FROM r GROUP BY 1) r
JOIN (SELECT county, count(*) AS total FROM delinquents GROUP BY 1) t USING (county) ORDER BY 1;
SELECT m->>'mechanism' AS mechanism, m->>'output' AS output, m->'invariants'->>'structure' AS structure,
       m->'noise'->>'exact_parameter' AS b, m->>'covariance' AS covariance
FROM dp.last_release() AS m;

-- The grand total alone, and nested margins (the finest one counts).
SELECT sum(n) AS released_total
FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 1.0, 'integer_laplace',
                  margins => '{""}') AS t(county text, edu text, n bigint);
SELECT dp.last_release()->'invariants' AS invariants;

-- Crossing margins: integer noise on the lattice (the delinquent table
-- with both margins: rank 7, lattice dimension 9). Every draw keeps every
-- row and column total, for each lattice mechanism. On a 4 x 4 table the l1
-- law has no exact sampler: integer_laplace draws it by a chain only when
-- named ({"sampler": "chain"}).
CREATE TEMP TABLE lattice_releases AS
SELECT mechanism, draw, t.*
FROM unnest('{integer_laplace,integer_laplace_l2,integer_gaussian}'::text[]) mechanism,
     generate_series(1, 3) draw,
     LATERAL dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 0.5, mechanism,
                          delta => CASE WHEN mechanism = 'integer_gaussian' THEN 1e-6 END,
                          margins => '{county,edu}',
                          options => CASE WHEN mechanism = 'integer_laplace' THEN '{"stddev": true, "sampler": "chain"}'
                                          ELSE '{"stddev": true}' END::jsonb)
     AS t(county text, edu text, n bigint, sd float8);
SELECT count(*) AS released_cells FROM lattice_releases;
SELECT mechanism, count(*) AS checks,
       bool_and(county_ok) AS county_totals_exact, bool_and(edu_ok) AS edu_totals_exact
FROM (SELECT mechanism, draw,
             bool_and(c.total = (SELECT count(*) FROM delinquents d WHERE d.county = c.county)) AS county_ok,
             NULL::boolean AS edu_ok, 0 AS n
      FROM (SELECT mechanism, draw, county, sum(n) AS total FROM lattice_releases GROUP BY 1, 2, 3) c
      GROUP BY 1, 2
      UNION ALL
      SELECT mechanism, draw, NULL, bool_and(e.total = (SELECT count(*) FROM delinquents d WHERE d.edu = e.edu)), 0
      FROM (SELECT mechanism, draw, edu, sum(n) AS total FROM lattice_releases GROUP BY 1, 2, 3) e
      GROUP BY 1, 2) checks
GROUP BY mechanism ORDER BY mechanism;
SELECT m->>'mechanism' AS mechanism, m->'sampler'->>'exact' AS exact, m->'sampler'->>'iterations' AS iterations,
       m->>'l1_sensitivity' AS shortest_move_l1, m->'noise'->>'exact_parameter' AS sigma2
FROM dp.last_release() AS m;
SELECT * FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 0.5, 'integer_laplace',
                           margins => '{county,edu}', options => '{"iterations": 0}') AS t(county text, edu text, n bigint);

-- The guarantee it prints. Unnamed, the 4 x 4 table is drawn exactly, by
-- rejection over its lines; a 12 x 12 table has no exact sampler, and
-- without the chain named there is no uncertified release:
SELECT count(*) AS cells FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 0.5,
                           'integer_laplace', margins => '{county,edu}') AS t(county text, edu text, n bigint);
SELECT m->>'exact' AS exact, m->'sampler'->>'method' LIKE 'exact: each table drawn by rejection over its lines%' AS by_rows
FROM dp.last_release() AS m;
SELECT * FROM dp.privatize($$SELECT i, j, 5 FROM generate_series(1, 12) i, generate_series(1, 12) j$$, 1.0,
                           'integer_laplace', margins => '{i,j}') AS t(i int, j int, n bigint);
-- Named, the first fields of its metadata say the guarantee is not certified.
SELECT count(*) AS cells FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 0.5,
                           'integer_laplace', margins => '{county,edu}', options => '{"sampler": "chain"}')
    AS t(county text, edu text, n bigint);
SELECT m->>'exact' AS exact, m->>'delta' AS delta, left(m->>'privacy', 70) AS privacy FROM dp.last_release() AS m;
-- Tables with a line of two or three levels (sex by anything; the congenial
-- paper's 2 x 23 table) are drawn exactly, and say so.
SELECT count(*) AS cells, bool_and(n >= -1000) AS integers
FROM dp.privatize($$SELECT s, a, 10 + (s * a) % 7 FROM generate_series(1, 2) s, generate_series(1, 23) a$$, 1.0,
                  margins => '{s,a}') AS t(s int, a int, n bigint);
SELECT m->>'exact' AS exact, m->>'delta' AS delta, left(m->>'privacy', 30) AS privacy,
       m->'sampler'->>'iterations' AS iterations, m->'sampler'->>'stddev' AS stddev
FROM dp.last_release() AS m;
CREATE TEMP TABLE three_line AS
SELECT * FROM dp.privatize($$SELECT r, c, (r + 5 * c) % 9 FROM generate_series(1, 3) r, generate_series(1, 40) c$$, 1.0,
                           margins => '{r,c}', options => '{"stddev": true}') AS t(r int, c int, n bigint, sd float8);
SELECT (SELECT bool_and(s = t) FROM (SELECT r, sum(n) AS s, sum((r + 5 * c) % 9) AS t FROM three_line GROUP BY r) x)
         AS row_totals_exact,
       (SELECT bool_and(s = t) FROM (SELECT c, sum(n) AS s, sum((r + 5 * c) % 9) AS t FROM three_line GROUP BY c) x)
         AS column_totals_exact,
       (SELECT count(DISTINCT sd) FROM three_line) AS distinct_sd,
       dp.last_release()->>'exact' AS exact;
-- Its covariance is c Pi_N (the law is invariant under permuting rows and
-- columns), c estimated from further exact draws and published, so a
-- cell, or any sum of cells, has an error bar (an estimate) and a row's or
-- a column's sum, a margin, has none.
CREATE TEMP TABLE three_line_law AS SELECT dp.last_release() AS law;
SELECT jsonb_array_length(law->'noise'->'covariance_scale') AS scales,
       law->'noise'->'covariance_scale'->0->'shape' AS shape, left(law->>'covariance', 40) AS covariance
FROM three_line_law;
SELECT (SELECT dp.sum_variance(t, l.law) > 0 FROM three_line t, three_line_law l WHERE c <= 2 AND r = 1)
         AS cells_have_variance,
       (SELECT dp.sum_variance(t, l.law) FROM three_line t, three_line_law l WHERE r = 1) AS row_variance,
       (SELECT dp.sum_variance(t, l.law) FROM three_line t, three_line_law l WHERE c = 1) AS column_variance;

-- integer_laplace is the default mechanism.
SELECT sum(n) AS released_total, pg_typeof(sum(n)) AS type
FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 1.0, margins => '{""}')
     AS t(county text, edu text, n bigint);
SELECT dp.last_release()->>'mechanism' AS default_mechanism;

-- integer_gaussian on a complete two-way table with both margins: the exact
-- lattice Gaussian, in time linear in the cells (a million here), every row
-- and column total exact, every count an integer.
CREATE TEMP TABLE wide AS
SELECT * FROM dp.privatize($$SELECT i, j, (i * j) % 7 FROM generate_series(1, 1000) i, generate_series(1, 1000) j$$,
                           1.0, 'integer_gaussian', delta => 1e-6, margins => '{i,j}') AS t(i int, j int, n bigint);
SELECT count(*) AS cells, pg_typeof(min(n)) AS type FROM wide;
SELECT bool_and(total = truth) AS every_row_total_exact
FROM (SELECT i, sum(n) AS total FROM wide GROUP BY i) w
JOIN (SELECT i, sum((i * j) % 7) AS truth FROM generate_series(1, 1000) i, generate_series(1, 1000) j GROUP BY i) t USING (i);
SELECT bool_and(total = truth) AS every_column_total_exact
FROM (SELECT j, sum(n) AS total FROM wide GROUP BY j) w
JOIN (SELECT j, sum((i * j) % 7) AS truth FROM generate_series(1, 1000) i, generate_series(1, 1000) j GROUP BY j) t USING (j);
SELECT m->'invariants'->>'structure' AS structure, m->'sampler'->>'exact' AS exact,
       m->'sampler'->>'method' LIKE 'exact: Klein%' AS klein, m->'l2_sensitivity' AS l2_sensitivity
FROM dp.last_release() AS m;

-- A cube with its three two-way margins: exact too (structure k_way).
CREATE TEMP TABLE cube AS
SELECT * FROM dp.privatize($$SELECT a, b, c, (a + 2 * b + 3 * c) % 5 FROM generate_series(1, 30) a,
                             generate_series(1, 30) b, generate_series(1, 30) c$$,
                           1.0, 'integer_gaussian', delta => 1e-6, margins => '{"a,b","a,c","b,c"}')
     AS t(a int, b int, c int, n bigint);
SELECT count(*) AS cells,
       (SELECT bool_and(s = t) FROM (SELECT sum(n) AS s, sum((a + 2 * b + 3 * c) % 5) AS t FROM cube GROUP BY a, b) x)
         AS ab_exact,
       (SELECT bool_and(s = t) FROM (SELECT sum(n) AS s, sum((a + 2 * b + 3 * c) % 5) AS t FROM cube GROUP BY a, c) x)
         AS ac_exact,
       (SELECT bool_and(s = t) FROM (SELECT sum(n) AS s, sum((a + 2 * b + 3 * c) % 5) AS t FROM cube GROUP BY b, c) x)
         AS bc_exact
FROM cube;
SELECT m->'invariants'->>'structure' AS structure, m->'sampler'->>'exact' AS exact, m->'l2_sensitivity' AS l2_sensitivity
FROM dp.last_release() AS m;

-- integer_laplace and integer_laplace_l2 on complete tables, no basis: l1
-- redraws random pairs of rows and of columns exactly (pair blocks), l2
-- runs the scale-mixture Gibbs sampler (exact lattice Gaussian draws), the
-- cube l1 heat-bath along random basic moves. A 60 x 50 table and a
-- 12 x 10 x 8 cube: every declared total exact, the sd pooled per table,
-- the sampler and its iterations stated.
CREATE TEMP TABLE swept AS
SELECT mechanism, t.*
FROM unnest('{integer_laplace,integer_laplace_l2}'::text[]) mechanism,
     LATERAL dp.privatize($$SELECT i, j, (i + 3 * j) % 11 FROM generate_series(1, 60) i, generate_series(1, 50) j$$,
                          1.0, mechanism, margins => '{i,j}',
                          options => CASE WHEN mechanism = 'integer_laplace' THEN '{"stddev": true, "sampler": "chain"}'
                                          ELSE '{"stddev": true}' END::jsonb)
     AS t(i int, j int, n bigint, sd float8);
SELECT mechanism, count(*) AS cells, count(DISTINCT sd) AS distinct_sd, min(sd) > 1 AS sd_positive,
       (SELECT bool_and(s = t) FROM (SELECT i, sum(n) AS s, sum((i + 3 * j) % 11) AS t FROM swept w
                                     WHERE w.mechanism = x.mechanism GROUP BY i) r) AS row_totals_exact,
       (SELECT bool_and(s = t) FROM (SELECT j, sum(n) AS s, sum((i + 3 * j) % 11) AS t FROM swept w
                                     WHERE w.mechanism = x.mechanism GROUP BY j) c) AS column_totals_exact
FROM swept x GROUP BY mechanism ORDER BY mechanism;
SELECT m->'sampler'->>'exact' AS exact, m->'sampler'->>'iterations' AS iterations,
       m->'sampler'->>'method' LIKE 'mcmc: Gibbs sampler on the Gaussian scale mixture%' AS scale_mixture,
       m->>'l1_sensitivity' AS shortest_move_l1
FROM dp.last_release() AS m;
SELECT count(*) AS cells
FROM dp.privatize($$SELECT i, j, (i + 3 * j) % 11 FROM generate_series(1, 60) i, generate_series(1, 50) j$$,
                  1.0, 'integer_laplace', margins => '{i,j}', options => '{"sampler": "chain"}') AS t(i int, j int, n bigint);
SELECT m->'sampler'->>'exact' AS exact, m->'sampler'->>'iterations' AS sweeps,
       m->'sampler'->>'method' LIKE 'mcmc: exact redraws of random pairs of rows and of columns%' AS pair_blocks,
       m->>'l1_sensitivity' AS shortest_move_l1
FROM dp.last_release() AS m;
CREATE TEMP TABLE swept_cube AS
SELECT * FROM dp.privatize($$SELECT a, b, c, (a + 2 * b + 3 * c) % 5 FROM generate_series(1, 12) a,
                             generate_series(1, 10) b, generate_series(1, 8) c$$,
                           1.0, 'integer_laplace', margins => '{"a,b","a,c","b,c"}', options => '{"sampler": "chain"}')
    AS t(a int, b int, c int, n bigint);
SELECT count(*) AS cells,
       (SELECT bool_and(s = t) FROM (SELECT sum(n) AS s, sum((a + 2 * b + 3 * c) % 5) AS t FROM swept_cube GROUP BY a, b) x)
         AS ab_exact,
       (SELECT bool_and(s = t) FROM (SELECT sum(n) AS s, sum((a + 2 * b + 3 * c) % 5) AS t FROM swept_cube GROUP BY a, c) x)
         AS ac_exact,
       (SELECT bool_and(s = t) FROM (SELECT sum(n) AS s, sum((a + 2 * b + 3 * c) % 5) AS t FROM swept_cube GROUP BY b, c) x)
         AS bc_exact
FROM swept_cube;
SELECT m->'sampler'->>'iterations' AS sweeps, m->'sampler'->>'method' LIKE 'mcmc: heat-bath updates%' AS table_chain,
       m->>'l1_sensitivity' AS shortest_move_l1
FROM dp.last_release() AS m;

-- congenial on a complete two-way table: the table chain restricted to
-- non-negative tables, started from the public totals. Non-negative
-- integers, both margins exact, the sampler and its start stated.
CREATE TEMP TABLE congenial_swept AS
SELECT * FROM dp.privatize($$SELECT i, j, CASE WHEN (i * j) % 3 = 0 THEN (i + j) % 9 ELSE 0 END
                             FROM generate_series(1, 40) i, generate_series(1, 30) j$$,
                           1.0, 'congenial', margins => '{i,j}') AS t(i int, j int, n bigint);
SELECT count(*) AS cells, min(n) >= 0 AS non_negative,
       (SELECT bool_and(s = t) FROM (SELECT i, sum(n) AS s, sum(CASE WHEN (i * j) % 3 = 0 THEN (i + j) % 9 ELSE 0 END) AS t
                                     FROM congenial_swept GROUP BY i) r) AS row_totals_exact,
       (SELECT bool_and(s = t) FROM (SELECT j, sum(n) AS s, sum(CASE WHEN (i * j) % 3 = 0 THEN (i + j) % 9 ELSE 0 END) AS t
                                     FROM congenial_swept GROUP BY j) c) AS column_totals_exact
FROM congenial_swept;
SELECT m->'sampler'->>'iterations' AS sweeps, m->'sampler'->>'method' LIKE 'mcmc: heat-bath along random 2x2 swaps%' AS table_chain,
       m->'sampler'->>'start' LIKE '%public row and column totals%' AS public_start, m->>'l1_sensitivity' AS shortest_move_l1
FROM dp.last_release() AS m;
