-- Units and keys are told apart as SQL tells values apart: numeric 1.0,
-- 1.00 and 1 are one person, float8 0 and -0 one, interval '1 day' and
-- '24 hours' one, citext and a case-insensitive collation ignore case. With
-- at most one cell per person and the grand total exact, the released total
-- is the number of distinct people; one person alone in a key, written 80
-- ways, is one unit that partition selection almost never shows. In
-- dp.privatize, governed releases and streams. Deterministic output only.
\set VERBOSITY terse
CREATE EXTENSION IF NOT EXISTS citext;
CREATE COLLATION eq_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
-- Person p (1..6) written three ways in each type, each spelling visiting
-- another clinic.
CREATE TABLE eq_visits AS
SELECT p, s,
       (p::numeric + 0.0) * (CASE s WHEN 1 THEN 1 WHEN 2 THEN 1.0 ELSE 1.00 END) AS unit_numeric,
       CASE WHEN p = 1 THEN (CASE s WHEN 1 THEN '0' WHEN 2 THEN '-0' ELSE '0.0' END)::float8 ELSE p::float8 END AS unit_float,
       CASE s WHEN 1 THEN p * interval '1 day' WHEN 2 THEN p * interval '24 hours' ELSE p * interval '1440 minutes' END AS unit_interval,
       (CASE s WHEN 1 THEN 'ann' WHEN 2 THEN 'ANN' ELSE 'Ann' END || p)::citext AS unit_citext,
       (CASE s WHEN 1 THEN 'bob' WHEN 2 THEN 'BOB' ELSE 'Bob' END || p) COLLATE eq_ci AS unit_ci,
       ARRAY[p::numeric * (CASE s WHEN 1 THEN 1 ELSE 1.0 END)] AS unit_array,
       jsonb_build_object('id', p::numeric * (CASE s WHEN 1 THEN 1 ELSE 1.00 END)) AS unit_jsonb,
       'clinic ' || s AS clinic
FROM generate_series(1, 6) p, generate_series(1, 3) s;
REVOKE ALL ON eq_visits FROM PUBLIC;
SELECT count(DISTINCT unit_numeric) AS numeric_units, count(DISTINCT unit_float) AS float_units,
       count(DISTINCT unit_interval) AS interval_units, count(DISTINCT unit_citext) AS citext_units,
       count(DISTINCT unit_ci) AS ci_units, count(DISTINCT unit_array) AS array_units,
       count(DISTINCT unit_jsonb) AS jsonb_units, count(*) AS rows
FROM eq_visits;

-- Each person counts in one clinic (its first by the keyed order): the
-- exact grand total is the number of people, whatever the spelling.
CREATE FUNCTION eq_total(unit text) RETURNS bigint LANGUAGE sql AS $$
    SELECT sum(n)::bigint FROM dp.privatize(format('SELECT %I, clinic FROM eq_visits', unit), 1.0,
        margins => '{""}', privacy_unit => unit, bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}')
    AS t(clinic text, n bigint)
$$;
SELECT u AS unit, eq_total(u) AS people
FROM unnest('{unit_numeric,unit_float,unit_interval,unit_citext,unit_ci,unit_array,unit_jsonb}'::text[]) u;

-- Keys too: a clinic written 1, 1.0 and 1.00 (a numeric key read from rows)
-- is one cell, and the domain's 1.000 is that cell.
SELECT count(*) AS cells, sum(n) AS total
FROM dp.privatize($$SELECT p, clinic_number FROM (SELECT p, (s % 2) * (CASE s WHEN 1 THEN 1 ELSE 1.00 END) AS clinic_number
                                                  FROM generate_series(1, 6) p, generate_series(1, 3) s) v$$, 1.0,
                  margins => '{""}', privacy_unit => 'p', bounds => '{"max_groups_per_unit": 2, "max_rows_per_group": 3}')
AS t(clinic_number numeric, n bigint);
SELECT count(*) AS cells, sum(n) AS total
FROM dp.privatize($$SELECT k, count(*) FROM (VALUES (1.0), (2)) v(k) GROUP BY 1$$, 1.0, margins => '{""}',
                  domain => $$SELECT k FROM (VALUES (1.000), (2.0), (3)) v(k)$$)
AS t(k numeric, n bigint);
-- A case-insensitive key from rows, and a margin over it: 'North' and
-- 'NORTH' are one group, as GROUP BY would have them.
SELECT count(*) AS cells, sum(n) AS total
FROM dp.privatize($$SELECT p, region COLLATE eq_ci AS region, kind
                    FROM (VALUES (1, 'North', 'a'), (2, 'NORTH', 'b'), (3, 'north', 'a'), (4, 'South', 'b')) v(p, region, kind)$$,
                  1.0, margins => '{region}', privacy_unit => 'p', bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}')
AS t(region text, kind text, n bigint);

-- One person alone in a key, written 80 ways (7, 7.0, 7.00, ...): one unit,
-- which partition selection shows with probability at most delta = 1e-9.
SELECT count(*) AS lonely_keys_shown
FROM dp.privatize($$SELECT round(7, d) AS unit, 'lonely' AS k FROM generate_series(0, 79) d
                    UNION ALL SELECT p, 'crowded' FROM generate_series(100, 400) p$$,
                  1.0, 'discrete_laplace', delta => 1e-9, options => '{"partition_selection": "laplace"}',
                  privacy_unit => 'unit', bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}')
AS t(k text, n bigint) WHERE k = 'lonely';

-- A type with no hash equality cannot tell its units apart: refused.
SELECT count(*) FROM dp.privatize($$SELECT point(1, 2) AS unit, 'a' AS k$$, 1.0, privacy_unit => 'unit',
                                  bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}')
AS t(k text, n bigint);

-- A governed release with a numeric unit written three ways.
SELECT dp.set_budget('equality', 100);
SELECT dp.register_release('eq_release', 'equality', 'SELECT unit_numeric, clinic FROM eq_visits', 'clinic text, n bigint',
    1.0, margins => '{""}', privacy_unit => 'unit_numeric', bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}',
    options => '{"keys": "public"}') IS NOT NULL AS registered;
SELECT dp.refresh_release('eq_release') > 0 AS drawn;
SELECT sum(n) AS people FROM eq_release;
-- A governed stream: each person counts in its first period only, however
-- its id is written (epsilon so large the noise rounds away).
CREATE TABLE eq_events AS
SELECT date '2026-01-01' + (s - 1) AS day, (p::numeric + 0.0) * (CASE s WHEN 1 THEN 1 WHEN 2 THEN 1.0 ELSE 1.00 END) AS person
FROM generate_series(1, 6) p, generate_series(1, 3) s;
REVOKE ALL ON eq_events FROM PUBLIC;
SELECT dp.set_budget('equality stream', 1e12, 0.5);
SELECT dp.register_stream('eq_stream', 'equality stream', 'SELECT day, person FROM eq_events', 'day date, n float8',
    1e9, 1e-6, 4, privacy_unit => 'person', bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}')
    IS NOT NULL AS registered;
SELECT dp.refresh_release('eq_stream') > 0 AS drawn;
SELECT to_char(day, 'YYYY-MM-DD') AS day, round(n)::int AS people FROM eq_stream ORDER BY day;

SELECT dp.drop_release('eq_release');
SELECT dp.drop_release('eq_stream');
DELETE FROM dp.budgets WHERE dataset IN ('equality', 'equality stream');
DROP FUNCTION eq_total(text);
DROP TABLE eq_visits, eq_events;
DROP COLLATION eq_ci;
