-- One state of 100 counties with populations spread over five orders of
-- magnitude (log-uniform from 1 to 100,000, minus one: a few tiny counties,
-- as in rural states; the least populous U.S. county has 82 people). The
-- source reads this table of counts directly instead of one row per person.
SELECT setseed(0.1920);
CREATE TABLE counties AS
SELECT 'S1'::text AS state, county, greatest(0, round(exp(random() * ln(100000)))::int - 1) AS population
FROM generate_series(1, 100) AS county
ORDER BY county;
