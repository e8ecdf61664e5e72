-- A slice of a U.S.-shaped geography for the block bias study
-- (block_bias.sql), small enough for project_nn_integer (at most 40,000
-- cells): 2 states, 10 counties, 237 tracts, 711 block groups and 23,415
-- blocks, 911,354 people. Sizes are drawn as in the national
-- benchmark's geography (test/bench/us_geography.sql): counties
-- log-normal, a tract per ~3,900 people, a block group per ~1,400, some 33
-- blocks per block group, a third of the blocks empty, the others
-- log-normal (so blocks run from 0 to a few thousand people). Keys are
-- integer ids; setseed makes the slice the same on every run.
SELECT setseed(0.0715);
CREATE TABLE slice_counties AS
SELECT county, 1 + (county > 6)::int AS state, 70000 * exp(1.0 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()))
       AS population
FROM generate_series(1, 10) county;
CREATE TABLE slice_block_groups AS
WITH tracts AS (
    SELECT c.state, c.county, c.population / greatest(1, round(c.population / 3900)) AS population
    FROM slice_counties c, LATERAL generate_series(1, greatest(1, round(c.population / 3900)::int))),
numbered AS (SELECT row_number() OVER (ORDER BY county) AS tract, * FROM tracts)
SELECT row_number() OVER (ORDER BY tract) AS block_group, t.state, t.county, t.tract,
       t.population / greatest(1, round(t.population / 1400)) AS population,
       greatest(1, round(29.4 * exp(0.5 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()))))::int AS blocks
FROM numbered t, LATERAL generate_series(1, greatest(1, round(t.population / 1400)::int));
CREATE TABLE slice_blocks AS
SELECT g.state::int, g.county::int, g.tract::int, g.block_group::int, (row_number() OVER (ORDER BY g.block_group))::int AS block,
       CASE WHEN random() < 1.0 / 3 THEN 0
            ELSE round(1.5 * g.population / g.blocks
                       * exp(1.2 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) - 0.72))::int END AS population
FROM slice_block_groups g, LATERAL generate_series(1, g.blocks);
DROP TABLE slice_block_groups;
-- Every node's true count, identified by its level and the id at that level.
CREATE TABLE slice_truth AS
SELECT 0 AS level, 0 AS node, sum(population) AS population FROM slice_blocks
UNION ALL SELECT 1, state, sum(population) FROM slice_blocks GROUP BY 2
UNION ALL SELECT 2, county, sum(population) FROM slice_blocks GROUP BY 2
UNION ALL SELECT 3, tract, sum(population) FROM slice_blocks GROUP BY 2
UNION ALL SELECT 4, block_group, sum(population) FROM slice_blocks GROUP BY 2
UNION ALL SELECT 5, block, population FROM slice_blocks;
