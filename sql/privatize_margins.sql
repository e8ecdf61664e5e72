-- dp.privatize keeps every declared margin exact. Noisy values are never
-- printed; only properties that hold for every draw.

-- The 4x4 table with both margins (rank 7, null dimension 9).
CREATE TEMP TABLE r AS
SELECT * FROM dp.privatize(
    source    => $$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$,
    epsilon   => 0.5, delta => 1e-6,
    mechanism => 'subspace_gaussian',
    margins   => '{county,edu}')
AS t(county text, edu text, n float8);
SELECT count(*) AS cells, bool_or(n <> round(n)) AS real_valued FROM r;
-- Each margin to 1e-9 relative (float8 rounding; docs/mechanisms.md, "Real-valued noise that keeps the margins").
SELECT bool_and(abs(r.total - t.total) <= 1e-9 * t.total) AS county_margins_exact
FROM (SELECT county, sum(n) AS total FROM r GROUP BY 1) r
JOIN (SELECT county, count(*) AS total FROM delinquents GROUP BY 1) t USING (county);
SELECT bool_and(abs(r.total - t.total) <= 1e-9 * t.total) AS edu_margins_exact
FROM (SELECT edu, sum(n) AS total FROM r GROUP BY 1) r
JOIN (SELECT edu, count(*) AS total FROM delinquents GROUP BY 1) t USING (edu);
SELECT m->>'mechanism' AS mechanism, m->>'output' AS output, m->>'neighbours' AS neighbours,
       m->'invariants'->>'structure' AS structure, m->'invariants'->>'rank' AS rank,
       m->'invariants'->>'null_dimension' AS null_dimension, m->>'cells' AS cells,
       (m->'noise'->>'scale')::float8 > 0 AS has_scale
FROM dp.last_release() AS m;

-- The analytic Gaussian sigma for (0.5, 1e-6) and l2 sensitivity sqrt(2).
SELECT round((dp.last_release()->'noise'->>'scale')::numeric, 4) AS sigma;

-- stddev option: sd = sigma * sqrt((1 - 1/4)(1 - 1/4)) for every cell.
SELECT count(*) AS cells,
       bool_and(abs(sd - (dp.last_release()->'noise'->>'scale')::float8 * 0.75) < 1e-9) AS sd_is_sigma_times_3_4
FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 0.5, 'subspace_gaussian',
                  delta => 1e-6, margins => '{county,edu}', options => '{"stddev": true}')
     AS t(county text, edu text, n float8, sd float8);

-- Grand total only, with subspace_laplace.
SELECT abs(sum(n) - 135) <= 1e-9 * 135 AS grand_total_exact, count(*) AS cells
FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 1.0, 'subspace_laplace',
                  margins => '{""}') AS t(county text, edu text, n float8);
SELECT dp.last_release()->'invariants' AS invariants, dp.last_release()->>'delta' AS delta;

-- Nested margins: the coarser one is redundant (rank = number of counties).
SELECT count(*) AS cells
FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 1.0, 'subspace_laplace',
                  margins => '{"",county}') AS t(county text, edu text, n float8);
SELECT dp.last_release()->'invariants' AS invariants;

-- Integer mechanisms: integers, one per cell, no invariant.
SELECT count(*) AS cells, pg_typeof(min(n)) AS type
FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 1.0, 'discrete_laplace')
     AS t(county text, edu text, n bigint);
SELECT m->>'mechanism' AS mechanism, m->'noise'->>'exact_parameter' AS b, m->>'l1_sensitivity' AS l1
FROM dp.last_release() AS m;
SELECT count(*) AS cells
FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 1.0, 'discrete_gaussian',
                  delta => 1e-6) AS t(county text, edu text, n bigint);

-- A domain releases zero cells too: a fifth county with no children.
SELECT count(*) AS cells, count(*) FILTER (WHERE county = 'Epsilon') AS epsilon_cells,
       abs(sum(n) FILTER (WHERE county = 'Epsilon')) <= 1e-9 AS empty_county_total_exact
FROM dp.privatize(
    source  => $$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$,
    domain  => $$SELECT c, e FROM unnest('{Alpha,Beta,Gamma,Delta,Epsilon}'::text[]) c,
                                  unnest('{Low,Medium,High,Very High}'::text[]) e$$,
    epsilon => 1.0, mechanism => 'subspace_laplace', margins => '{county,edu}')
AS t(county text, edu text, n float8);

-- Random tables and margin sets: every declared margin holds in every draw.
DO $$
DECLARE
  trial int;
  margin_sets text[] := ARRAY['{a}', '{a,b}', '{"a,b",c}', '{"a,b","b,c"}', '{"",a,"b,c"}', '{"a,c",b}'];
  margins text[];
  worst float8;
  worst_all float8 := 0;
BEGIN
  PERFORM setseed(0.25);
  FOR trial IN 1..24 LOOP
    DROP TABLE IF EXISTS cube;
    CREATE TEMP TABLE cube AS
      SELECT a, b, c, (random() * 50)::int AS n
      FROM generate_series(1, 2 + trial % 3) a, generate_series(1, 3 + trial % 4) b, generate_series(1, 2 + trial % 2) c
      WHERE random() < 0.9;
    margins := margin_sets[1 + trial % array_length(margin_sets, 1)]::text[];
    DROP TABLE IF EXISTS rel;
    CREATE TEMP TABLE rel AS SELECT * FROM dp.privatize('SELECT a, b, c, n FROM cube', 0.7, 'subspace_gaussian',
        delta => 1e-5, margins => margins) AS t(a int, b int, c int, n float8);
    IF NOT EXISTS (SELECT 1 FROM rel) OR (SELECT count(*) FROM rel) <> (SELECT count(*) FROM cube) THEN
      RAISE EXCEPTION 'trial %: wrong number of cells', trial;
    END IF;
    -- check only the declared margins
    FOR worst IN
      SELECT max(abs(d)) FROM (
        SELECT sum(rel.n - cube.n) / greatest(1, sum(cube.n)) AS d, a, b, c
        FROM rel JOIN cube USING (a, b, c)
        GROUP BY GROUPING SETS ((a), (a, b), (c), (b, c), (), (a, c), (b))) g
      WHERE (margins @> '{a}' AND a IS NOT NULL AND b IS NULL AND c IS NULL)
         OR (margins @> '{b}' AND b IS NOT NULL AND a IS NULL AND c IS NULL)
         OR (margins @> '{"a,b"}' AND a IS NOT NULL AND b IS NOT NULL AND c IS NULL)
         OR (margins @> '{"b,c"}' AND b IS NOT NULL AND c IS NOT NULL AND a IS NULL)
         OR (margins @> '{"a,c"}' AND a IS NOT NULL AND c IS NOT NULL AND b IS NULL)
         OR (margins @> '{c}' AND c IS NOT NULL AND a IS NULL AND b IS NULL)
         OR (margins @> '{""}' AND a IS NULL AND b IS NULL AND c IS NULL)
    LOOP
      worst_all := greatest(worst_all, coalesce(worst, 0));
    END LOOP;
  END LOOP;
  RAISE NOTICE 'declared margins within 1e-9 relative in 24 random trials: %', worst_all <= 1e-9;
END $$;

-- dp.seed (superuser only) makes a release reproducible.
SET dp.seed = 42;
CREATE TEMP TABLE first AS SELECT * FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$,
    1.0, 'discrete_laplace') AS t(county text, edu text, n bigint);
SET dp.seed = 42;
CREATE TEMP TABLE second AS SELECT * FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$,
    1.0, 'discrete_laplace') AS t(county text, edu text, n bigint);
CREATE TEMP TABLE third AS SELECT * FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$,
    1.0, 'discrete_laplace') AS t(county text, edu text, n bigint);
SELECT (SELECT array_agg(n ORDER BY county, edu) FROM first) = (SELECT array_agg(n ORDER BY county, edu) FROM second)
       AS same_seed_same_release,
       (SELECT array_agg(n ORDER BY county, edu) FROM second) <> (SELECT array_agg(n ORDER BY county, edu) FROM third)
       AS stream_continues;
RESET dp.seed;

-- Nobody else can set or read the seed; anyone may release what they can read.
CREATE ROLE dp_regress_analyst;
GRANT SELECT ON delinquents TO dp_regress_analyst;
SET ROLE dp_regress_analyst;
SET dp.seed = 1;
SHOW dp.seed;
SELECT count(*) AS analyst_release_cells
FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$, 1.0, 'discrete_laplace')
     AS t(county text, edu text, n bigint);
RESET ROLE;
-- The source runs with the caller's privileges: no read, no release.
REVOKE SELECT ON delinquents FROM dp_regress_analyst;
SET ROLE dp_regress_analyst;
SELECT count(*) FROM dp.privatize($$SELECT county, count(*) FROM delinquents GROUP BY 1$$, 1.0, 'discrete_laplace')
     AS t(county text, n bigint);
RESET ROLE;
DROP ROLE dp_regress_analyst;

-- The guarantee each mechanism prints, on each structure: exact at the top
-- (no chain drew it), delta a number or null when exact and a text naming
-- the uncertified TV when a chain drew it, privacy opening with the
-- guarantee it certifies. One row per mechanism and structure.
CREATE FUNCTION guarantee_of(mechanism text, margins text[], options jsonb DEFAULT '{}',
    OUT exact text, OUT delta_kind text, OUT privacy text) LANGUAGE plpgsql AS $$
BEGIN
    PERFORM count(*) FROM dp.privatize('SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2', 1.0, mechanism,
        delta => CASE WHEN mechanism IN ('integer_gaussian', 'discrete_gaussian', 'subspace_gaussian') THEN 1e-6 END,
        margins => margins, options => options) AS t(county text, edu text, n float8);
    exact := dp.last_release()->>'exact';
    delta_kind := jsonb_typeof(dp.last_release()->'delta');
    privacy := split_part(dp.last_release()->>'privacy', ' for ', 1);
END $$;
SELECT m.mechanism, s.margins, s.options, g.*
FROM (VALUES ('discrete_laplace'), ('discrete_gaussian'), ('integer_laplace'), ('integer_gaussian'),
             ('integer_laplace_l2'), ('congenial'), ('subspace_gaussian'), ('subspace_laplace'), ('project_l2'))
         AS m(mechanism),
     (VALUES ('{}'::text[], '{}'::jsonb), ('{county}', '{}'), ('{county,edu}', '{}'),
             ('{county,edu}', '{"sampler": "chain"}')) AS s(margins, options),
     LATERAL guarantee_of(m.mechanism, s.margins, s.options) g
WHERE (m.mechanism NOT LIKE 'discrete_%' OR s.margins = '{}')
  AND (s.options = '{}' OR m.mechanism = 'integer_laplace')
ORDER BY 1, 2, 3;
DROP FUNCTION guarantee_of(text, text[], jsonb);
