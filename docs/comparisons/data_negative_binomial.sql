-- Twenty synthetic 2 x 23 tables with i.i.d. Negative Binomial(100, 0.05)
-- cells (Gong and Meng 2020, arXiv:2008.10202, section 4.1: successes before 100 failures with
-- success probability 0.05; mean 5.26, variance 5.54), one row per person.
-- A cell is a sum of 100 geometric counts, each floor(ln U / ln 0.05).
-- setseed makes the tables the same on every run.
SELECT setseed(0.2020);
CREATE TABLE nb_cells AS
SELECT t AS table_id, sex, band, n
FROM generate_series(1, 20) AS t, unnest(ARRAY['F', 'M']) AS sex, generate_series(1, 23) AS band,
     LATERAL (SELECT sum(floor(ln(1 - random()) / ln(0.05)))::int AS n
              FROM generate_series(1, 100) WHERE t > 0 AND band > 0 AND sex IS NOT NULL) AS draw
ORDER BY 1, 2, 3;
CREATE TABLE nb_persons AS
SELECT table_id, sex, band, band >= 5 AS voting FROM nb_cells, generate_series(1, n) ORDER BY 1, 2, 3;
