-- A census-like table: 3,000 counties by 20 five-year age groups (0-4 to
-- 95+). County populations are log-normal around 26,000 (the median U.S.
-- county) with a log-sd of 1.8, a little wider than the U.S. (more small,
-- rural-state counties), clamped to 50 .. 5 million; each county splits its population
-- over the age groups by national shares, perturbed by +-30 % per county and
-- rounded, so small counties have many small and empty old-age cells. The
-- source reads this table of counts directly.
SELECT setseed(0.2020);
CREATE TABLE census_counties AS
SELECT county,
       least(5000000, greatest(50, round(exp(ln(26000) + 1.8 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())))))::int
         AS population
FROM generate_series(1, 3000) AS county;
-- National shares of the 20 age groups (percent; roughly the 2020 census).
CREATE TABLE census_age_shares (age int PRIMARY KEY, share float8);
INSERT INTO census_age_shares
SELECT ord, share FROM unnest(ARRAY[5.7, 6.0, 6.3, 6.4, 6.6, 7.1, 6.9, 6.7, 6.2, 6.1, 6.2, 6.6, 6.4, 5.6, 4.6, 3.3, 2.1, 1.3, 0.6, 0.2])
    WITH ORDINALITY AS s(share, ord);
CREATE TABLE census_cells AS
SELECT c.county, a.age, round(c.population * a.share / 100.0 * (0.7 + 0.6 * random()))::bigint AS n
FROM census_counties c CROSS JOIN census_age_shares a;
ANALYZE census_cells;
