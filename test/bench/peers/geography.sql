-- Workload 3 of the peer benchmark: the synthetic U.S. geography of
-- test/bench/us_geography.sql (run first, into us_blocks) cut to its
-- states, counties and tracts, with one person per 100 people (at least
-- one per tract, so every tract is a cell): about 3.3 million rows every
-- peer reads in minutes. geo_tracts lists the tracts, the public domain
-- the peers group by.
\set ON_ERROR_STOP 1
CREATE TABLE geo_tracts AS
SELECT state, county, tract, greatest(1, round(sum(population) / 100.0))::int AS people
FROM us_blocks GROUP BY 1, 2, 3;
CREATE TABLE geo_persons AS
SELECT state, county, tract FROM geo_tracts, LATERAL generate_series(1, people)
ORDER BY random();
ALTER TABLE geo_tracts DROP COLUMN people;
DROP TABLE us_blocks;
VACUUM ANALYZE geo_persons;
SELECT count(DISTINCT state) AS states, count(DISTINCT county) AS counties, count(*) AS tracts,
       (SELECT count(*) FROM geo_persons) AS persons
FROM geo_tracts;
