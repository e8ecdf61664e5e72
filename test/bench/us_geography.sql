-- A synthetic geography of U.S. shape for the integer cascade benchmark
-- (national_integer_cascade.sql): 50 states, exactly 3,143 counties, about
-- 85,000 tracts, 240,000 block groups and 8,000,000 blocks, about 331
-- million people. The sizes are drawn to look like the real ones, not to
-- be them: state populations and county counts per state log-normal
-- (largest state about 40 times the smallest, a handful to some 250 counties),
-- county populations heavy-tailed within each state (log-normal, sigma 1.2:
-- a median county of some tens of thousands, a few in the millions), a
-- tract per ~3,900 people, a block group per ~1,400, some 33 blocks per
-- block group, a third of the blocks empty. Deterministic (setseed).
-- Keys are global integer ids; the table us_blocks holds one row per block:
-- (state, county, tract, block_group, block, population).
\set ON_ERROR_STOP 1
SELECT setseed(0.2020);
-- A standard normal from two uniforms (Box-Muller; PostgreSQL 15 has no random_normal()).
CREATE OR REPLACE FUNCTION pg_temp.normal() RETURNS float8 LANGUAGE sql VOLATILE
AS $$ SELECT sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) $$;

DROP TABLE IF EXISTS us_blocks;
CREATE TEMP TABLE us_states AS
SELECT state, exp(1.0 * pg_temp.normal()) AS pop_weight, exp(1.0 * pg_temp.normal()) AS county_weight
FROM generate_series(1, 50) state;
-- Counties per state: at least 3, the rest by weight; remainders to the largest fractions, 3,143 in all.
CREATE TEMP TABLE us_state_counties AS
WITH shares AS (
    SELECT state, pop_weight, 3 + (3143 - 150) * county_weight / sum(county_weight) OVER () AS share FROM us_states),
ranked AS (
    SELECT state, pop_weight, floor(share)::int AS base,
           row_number() OVER (ORDER BY share - floor(share) DESC) AS rank,
           3143 - sum(floor(share)::int) OVER () AS left_over
    FROM shares)
SELECT state, 331e6 * pop_weight / sum(pop_weight) OVER () AS population,
       base + (rank <= left_over)::int AS counties
FROM ranked;

CREATE TEMP TABLE us_counties AS
WITH c AS (
    SELECT s.state, s.population AS state_population, exp(1.2 * pg_temp.normal()) AS weight
    FROM us_state_counties s, LATERAL generate_series(1, s.counties))
SELECT row_number() OVER (ORDER BY state) AS county, state,
       state_population * weight / sum(weight) OVER (PARTITION BY state) AS population
FROM c;

-- Tracts of ~3,900 people (at least one per county), fairly even in size.
CREATE TEMP TABLE us_tracts AS
WITH t AS (
    SELECT c.county, c.state, c.population AS county_population, exp(0.35 * pg_temp.normal()) AS weight
    FROM us_counties c, LATERAL generate_series(1, greatest(1, round(c.population / 3900)::int)))
SELECT row_number() OVER (ORDER BY county) AS tract, county, state,
       county_population * weight / sum(weight) OVER (PARTITION BY county) AS population
FROM t;

-- Block groups of ~1,400 people, then ~33 blocks each (log-normal counts);
-- a block is empty with probability 1/3, else log-normal around its share.
CREATE TEMP TABLE us_block_groups AS
WITH g AS (
    SELECT t.tract, t.county, t.state, t.population / greatest(1, round(t.population / 1400)) AS population
    FROM us_tracts t, LATERAL generate_series(1, greatest(1, round(t.population / 1400)::int)))
SELECT row_number() OVER (ORDER BY tract) AS block_group, tract, county, state, population,
       greatest(1, round(29.9 * exp(0.5 * pg_temp.normal())))::int AS blocks
FROM g;

CREATE TABLE us_blocks AS
SELECT g.state::int, g.county::int, g.tract::int, g.block_group::int,
       (row_number() OVER ())::int AS block,
       CASE WHEN random() < 1.0 / 3 THEN 0
            ELSE round(1.5 * g.population / g.blocks * exp(1.2 * pg_temp.normal() - 0.72))::int END AS population
FROM us_block_groups g, LATERAL generate_series(1, g.blocks);
REVOKE ALL ON us_blocks FROM PUBLIC;
ANALYZE us_blocks;

SELECT count(DISTINCT state) AS states, count(DISTINCT county) AS counties, count(DISTINCT tract) AS tracts,
       count(DISTINCT block_group) AS block_groups, count(*) AS blocks, sum(population) AS people,
       round(avg((population = 0)::int), 3) AS empty_blocks
FROM us_blocks;
-- How skewed: the smallest, median and largest state and county.
SELECT 'state' AS unit, min(p) AS smallest, percentile_disc(0.5) WITHIN GROUP (ORDER BY p) AS median, max(p) AS largest
FROM (SELECT state, sum(population) AS p FROM us_blocks GROUP BY 1) s
UNION ALL
SELECT 'county', min(p), percentile_disc(0.5) WITHIN GROUP (ORDER BY p), max(p)
FROM (SELECT county, sum(population) AS p FROM us_blocks GROUP BY 1) c
UNION ALL
SELECT 'counties per state', min(n), percentile_disc(0.5) WITHIN GROUP (ORDER BY n), max(n)
FROM (SELECT state, count(DISTINCT county) AS n FROM us_blocks GROUP BY 1) k;
