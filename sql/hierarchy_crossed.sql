-- Two crossed hierarchies (geography x age): one row per (row node, column
-- node) pair, each rollup the sum of its children along both trees; the
-- cascade's Kronecker noise; the other mechanisms rolled up; errors.
\set VERBOSITY terse
LOAD 'invariant_dp';  -- SET dp.seed is honoured once the library is loaded
SET dp.seed = '7';
-- 3 states with 2, 3 and 1 counties (10 row nodes); age groups child
-- (0-9, 10-17), adult (18-64), senior (65-79, 80+) (9 column nodes): a grid
-- of 6 x 5 = 30 cells, 90 rows.
CREATE TABLE geo_age AS
SELECT g.state, g.county, a.age_group, a.age
FROM (VALUES ('S1', 'S1C1'), ('S1', 'S1C2'), ('S2', 'S2C1'), ('S2', 'S2C2'), ('S2', 'S2C3'), ('S3', 'S3C1'))
       g(state, county),
     (VALUES ('child', '0-9'), ('child', '10-17'), ('adult', '18-64'), ('senior', '65-79'), ('senior', '80+'))
       a(age_group, age),
     LATERAL generate_series(1, 3 + length(g.county) * 2 + ascii(right(g.county, 1)) % 7 + length(a.age));
CREATE VIEW geo_age_counts AS SELECT state, county, age_group, age, count(*) FROM geo_age GROUP BY 1, 2, 3, 4;
SELECT count(*) AS cells, sum(count) AS people FROM geo_age_counts;

-- Consistency: each row with rl < 2 against the sum of its children along the
-- rows (row level + 1, same column node), and each with cl < 2 along the
-- columns. Returns the parents checked and the worst relative gap.
CREATE FUNCTION check_crossed(rows_query text, OUT row_parents bigint, OUT row_gap float8,
                              OUT col_parents bigint, OUT col_gap float8) LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($q$
    WITH r AS (%s)
    SELECT count(*), coalesce(max(abs(p.n - c.total) / greatest(abs(p.n), 1)), 0)
    FROM r p
    JOIN LATERAL (SELECT sum(c.n) AS total FROM r c
                  WHERE c.rl = p.rl + 1 AND c.cl = p.cl
                    AND (p.rl < 1 OR c.state = p.state)
                    AND c.age_group IS NOT DISTINCT FROM p.age_group AND c.age IS NOT DISTINCT FROM p.age) c ON true
    WHERE p.rl < 2$q$, rows_query) INTO row_parents, row_gap;
  EXECUTE format($q$
    WITH r AS (%s)
    SELECT count(*), coalesce(max(abs(p.n - c.total) / greatest(abs(p.n), 1)), 0)
    FROM r p
    JOIN LATERAL (SELECT sum(c.n) AS total FROM r c
                  WHERE c.cl = p.cl + 1 AND c.rl = p.rl
                    AND (p.cl < 1 OR c.age_group = p.age_group)
                    AND c.state IS NOT DISTINCT FROM p.state AND c.county IS NOT DISTINCT FROM p.county) c ON true
    WHERE p.cl < 2$q$, rows_query) INTO col_parents, col_gap;
END $$;

-- cascade: 10 x 9 rows; the NULL pattern follows the two levels.
CREATE TABLE crossed_cascade AS
SELECT * FROM dp.privatize('SELECT * FROM geo_age_counts ORDER BY 1, 2, 3, 4', 1.0, 'cascade', delta => 1e-9,
                           hierarchy => '{state,county}',
                           options => '{"crossed": ["age_group", "age"], "level": true, "stddev": true}')
AS t(state text, county text, age_group text, age text, n float8, sd float8, rl int, cl int);
SELECT count(*) AS rows FROM crossed_cascade;
SELECT rl, cl, count(*) AS rows, bool_and(state IS NULL) AS no_state, bool_and(county IS NULL) AS no_county,
       bool_and(age_group IS NULL) AS no_group, bool_and(age IS NULL) AS no_age,
       bool_and(state IS NOT NULL OR rl = 0) AND bool_and(county IS NOT NULL OR rl < 2)
       AND bool_and(age_group IS NOT NULL OR cl = 0) AND bool_and(age IS NOT NULL OR cl < 2) AS printed_above
FROM crossed_cascade GROUP BY rl, cl ORDER BY rl, cl;
SELECT row_parents, row_gap < 1e-12 AS rows_consistent, col_parents, col_gap < 1e-12 AS cols_consistent
FROM check_crossed('SELECT * FROM crossed_cascade');
-- Every rectangle's sd is sqrt(v_rows(depth) * v_cols(depth)) from the
-- published law; with uniform levels all rectangles alike (the paper's
-- "every dyadic rectangle at sigma^2").
SELECT bool_and(abs(sd - sqrt((dp.last_release()->'noise'->'row_level_variance'->>rl)::float8
                              * (dp.last_release()->'noise'->'column_level_variance'->>cl)::float8)) < 1e-12 * sd)
       AS sd_matches_law,
       count(DISTINCT round(sd::numeric, 9)) AS distinct_sds
FROM crossed_cascade;
SELECT dp.last_release()->>'mechanism' AS mechanism, dp.last_release()->'hierarchy'->>'crossed' AS crossed,
       dp.last_release()->'hierarchy'->'rows'->>'nodes' AS row_nodes,
       dp.last_release()->'hierarchy'->'columns'->>'nodes' AS col_nodes,
       dp.last_release()->>'cells' AS cells,
       jsonb_array_length(dp.last_release()->'noise'->'row_level_variance') AS row_levels,
       jsonb_array_length(dp.last_release()->'noise'->'column_level_variance') AS col_levels,
       dp.last_release()->'noise'->'calibration'->>'derived_from' AS derived_from,
       (dp.last_release()->>'rho')::float8 > 0 AS rho_reported;
-- Calibrated to rho-zCDP instead (epsilon NULL).
SELECT count(*) FROM dp.privatize('SELECT * FROM geo_age_counts', NULL, 'cascade', delta => 1e-9,
                                  hierarchy => '{state,county}', options => '{"crossed": ["age_group", "age"], "rho": 0.5}')
AS t(state text, county text, age_group text, age text, n float8);
SELECT (dp.last_release()->>'rho')::float8 AS rho, dp.last_release()->'noise'->'calibration'->>'derived_from' AS derived_from;

-- Integer mechanism with state totals exact: integer sums along both trees.
CREATE TABLE crossed_integer AS
SELECT * FROM dp.privatize('SELECT * FROM geo_age_counts', 0.5, margins => '{state}',
                           hierarchy => '{state,county}', options => '{"crossed": ["age_group", "age"], "level": true}')
AS t(state text, county text, age_group text, age text, n bigint, rl int, cl int);
SELECT count(*) AS rows FROM crossed_integer;
SELECT row_parents, row_gap = 0 AS rows_exact, col_parents, col_gap = 0 AS cols_exact
FROM check_crossed('SELECT * FROM crossed_integer');
SELECT bool_and(i.n = (SELECT sum(count) FROM geo_age_counts c WHERE c.state = i.state)) AS state_totals_exact,
       count(*) AS states
FROM crossed_integer i WHERE rl = 1 AND cl = 0;
SELECT dp.last_release()->>'mechanism' AS mechanism, dp.last_release()->'hierarchy'->>'crossed' AS crossed;
-- Real mechanism without margins: a rectangle's sd is the cells' sd times
-- sqrt(its number of cells).
CREATE TABLE crossed_gaussian AS
SELECT * FROM dp.privatize('SELECT * FROM geo_age_counts', 1.0, 'subspace_gaussian', delta => 1e-6,
                           hierarchy => '{state,county}',
                           options => '{"crossed": ["age_group", "age"], "level": true, "stddev": true}')
AS t(state text, county text, age_group text, age text, n float8, sd float8, rl int, cl int);
SELECT row_parents, row_gap < 1e-12 AS rows_consistent, col_parents, col_gap < 1e-12 AS cols_consistent
FROM check_crossed('SELECT * FROM crossed_gaussian');
SELECT bool_and(abs(g.sd - leaf.sd * sqrt(
         (SELECT count(*) FROM geo_age_counts c
          WHERE (g.state IS NULL OR c.state = g.state) AND (g.county IS NULL OR c.county = g.county)
            AND (g.age_group IS NULL OR c.age_group = g.age_group) AND (g.age IS NULL OR c.age = g.age)))) < 1e-9 * g.sd)
       AS sd_adds_variances
FROM crossed_gaussian g, (SELECT min(sd) AS sd FROM crossed_gaussian WHERE rl = 2 AND cl = 2) leaf;

-- Per-rectangle intervals ({"interval": 0.9}). integer_cascade: from the
-- law of each rectangle, one half-width per rectangle variance (row level,
-- column level), each the margin of that rectangle alone and of its
-- children's rows read as a sum.
CREATE TABLE crossed_integer_intervals AS
SELECT * FROM dp.privatize('SELECT * FROM geo_age_counts', 1.0, 'integer_cascade', delta => 1e-9,
    hierarchy => '{state,county}', options => '{"crossed": ["age_group", "age"], "level": true, "interval": 0.9}')
    AS t(state text, county text, age_group text, age text, n bigint, rl int, cl int, lower bigint, upper bigint);
CREATE TABLE crossed_integer_law AS SELECT dp.last_release() AS law;
SELECT law->'interval'->>'kind' AS kind, law->'interval'->>'method' AS method FROM crossed_integer_law;
SELECT rl, cl, count(*) AS rows, min(upper - n) AS half_width, bool_and(upper - n = n - lower) AS symmetric,
       count(DISTINCT upper - n) AS widths
FROM crossed_integer_intervals GROUP BY rl, cl ORDER BY rl, cl;
SELECT p.state, p.age_group, p.upper - p.n AS interval,
       (SELECT dp.margin_of_error(x, 0.9, (SELECT law FROM crossed_integer_law)) FROM crossed_integer_intervals x
        WHERE x.rl = 1 AND x.cl = 1 AND x.state = p.state AND x.age_group = p.age_group) AS alone,
       (SELECT dp.margin_of_error(x, 0.9, (SELECT law FROM crossed_integer_law)) FROM crossed_integer_intervals x
        WHERE x.rl = 2 AND x.cl = 1 AND x.state = p.state AND x.age_group = p.age_group) AS from_counties
FROM crossed_integer_intervals p WHERE p.rl = 1 AND p.cl = 1 ORDER BY 1, 2;
-- Two rectangles of different levels: a sum's margin from its own law.
SELECT (dp.error_bar(x, 0.9, (SELECT law FROM crossed_integer_law))).margin_kind,
       (dp.error_bar(x, 0.9, (SELECT law FROM crossed_integer_law))).method
FROM crossed_integer_intervals x
WHERE (x.rl = 2 AND x.cl = 2 AND x.county = 'S1C1' AND x.age = '80+') OR (x.rl = 1 AND x.cl = 1 AND x.state = 'S3' AND x.age_group = 'child');
-- cascade: the normal quantile at each rectangle's standard deviation.
SELECT count(*) AS rows, bool_and(abs((upper - n) - 1.6448536269514722 * sd) < 1e-9 * sd) AS normal_quantile,
       dp.last_release()->'interval'->>'kind' AS kind
FROM dp.privatize('SELECT * FROM geo_age_counts', 1.0, 'cascade', delta => 1e-9, hierarchy => '{state,county}',
                  options => '{"crossed": ["age_group", "age"], "level": true, "stddev": true, "interval": 0.9}')
     AS t(state text, county text, age_group text, age text, n float8, sd float8, rl int, cl int, lower float8,
          upper float8);
-- A rollup of another mechanism's cells has no per-row intervals.
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM geo_age_counts', 1.0, 'integer_gaussian', delta => 1e-9,
                     hierarchy => '{state,county}', options => '{"crossed": ["age_group", "age"], "interval": 0.9}')
                     AS t(state text, county text, age_group text, age text, n bigint, lower bigint, upper bigint)$$);
-- A missing cell is refused (the grid must be full) ...
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM geo_age_counts WHERE NOT (county = ''S2C2'' AND age = ''80+'')',
                     1.0, 'cascade', delta => 1e-9, hierarchy => '{state,county}', options => '{"crossed": ["age_group", "age"]}')
                     AS t(state text, county text, age_group text, age text, n float8)$$);
-- ... unless a domain lists every cell: the missing one is released as a 0 count.
SELECT count(*) AS rows FROM dp.privatize('SELECT * FROM geo_age_counts WHERE NOT (county = ''S2C2'' AND age = ''80+'')',
                     1.0, 'cascade', delta => 1e-9, domain => 'SELECT state, county, age_group, age FROM geo_age_counts',
                     hierarchy => '{state,county}', options => '{"crossed": ["age_group", "age"]}')
AS t(state text, county text, age_group text, age text, n float8);

-- Errors.
-- unknown crossed column
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM geo_age_counts', 1.0, 'cascade', delta => 1e-9,
                     hierarchy => '{state,county}', options => '{"crossed": ["age_group", "age_band"]}')
                     AS t(state text, county text, age_group text, age text, n float8)$$);
-- a column in both hierarchies
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM geo_age_counts', 1.0, 'cascade', delta => 1e-9,
                     hierarchy => '{state,county}', options => '{"crossed": ["county", "age"]}')
                     AS t(state text, county text, age_group text, age text, n float8)$$);
-- crossed without a hierarchy
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM geo_age_counts', 1.0,
                     options => '{"crossed": ["age_group", "age"]}')
                     AS t(state text, county text, age_group text, age text, n bigint)$$);
-- a key column in neither hierarchy
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM geo_age_counts', 1.0, 'cascade', delta => 1e-9,
                     hierarchy => '{state,county}', options => '{"crossed": ["age"]}')
                     AS t(state text, county text, age_group text, age text, n float8)$$);
-- {"level": true} needs two level columns
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM geo_age_counts', 1.0, 'cascade', delta => 1e-9,
                     hierarchy => '{state,county}', options => '{"crossed": ["age_group", "age"], "level": true}')
                     AS t(state text, county text, age_group text, age text, n float8, level int)$$);
-- malformed option
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM geo_age_counts', 1.0, 'cascade', delta => 1e-9,
                     hierarchy => '{state,county}', options => '{"crossed": "age"}')
                     AS t(state text, county text, age_group text, age text, n float8)$$);
-- cascade with margins, per-level targets, stddev with margins
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM geo_age_counts', 1.0, 'cascade', delta => 1e-9,
                     margins => '{state}', hierarchy => '{state,county}', options => '{"crossed": ["age_group", "age"]}')
                     AS t(state text, county text, age_group text, age text, n float8)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM geo_age_counts', 1.0, 'cascade', delta => 1e-9,
                     hierarchy => '{state,county}', options => '{"crossed": ["age_group", "age"], "level_variance": [4, 2, 1]}')
                     AS t(state text, county text, age_group text, age text, n float8)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT * FROM geo_age_counts', 1.0, margins => '{state}',
                     hierarchy => '{state,county}', options => '{"crossed": ["age_group", "age"], "stddev": true}')
                     AS t(state text, county text, age_group text, age text, n bigint, sd float8)$$);
-- a NULL key without the level columns
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT state, county, NULL::text AS age_group, age, sum(count)::bigint FROM geo_age_counts GROUP BY 1, 2, 3, 4', 1.0,
                     hierarchy => '{state,county}', options => '{"crossed": ["age_group", "age"]}')
                     AS t(state text, county text, age_group text, age text, n bigint)$$);
