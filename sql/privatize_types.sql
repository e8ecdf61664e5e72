-- Keys of any type come back with their own type; NULL is a key of its own.
CREATE TEMP TABLE visits (day date, ward int, urgent boolean, cost numeric);
INSERT INTO visits
SELECT DATE '2026-01-01' + (i % 3), i % 4, i % 2 = 0, (i % 5)::numeric / 2
FROM generate_series(1, 600) i;
INSERT INTO visits VALUES (NULL, NULL, NULL, NULL), (NULL, 1, true, 0.5);

SELECT pg_typeof(day) AS day_type, pg_typeof(ward) AS ward_type, pg_typeof(urgent) AS urgent_type,
       pg_typeof(n) AS n_type, count(*) AS cells
FROM dp.privatize($$SELECT day, ward, urgent, count(*) FROM visits GROUP BY 1, 2, 3$$, 1.0, 'discrete_laplace')
     AS t(day date, ward int, urgent boolean, n bigint)
GROUP BY 1, 2, 3, 4;

-- The released keys are exactly the source's keys, NULLs included.
SELECT count(*) AS cells_matched
FROM dp.privatize($$SELECT day, ward, count(*) FROM visits GROUP BY 1, 2$$, 1.0, 'subspace_laplace',
                  margins => '{day}') AS t(day date, ward int, n float8)
JOIN (SELECT day, ward FROM visits GROUP BY 1, 2) s ON s.day IS NOT DISTINCT FROM t.day
                                                     AND s.ward IS NOT DISTINCT FROM t.ward;
-- The NULL day is a margin group of its own, released exactly.
SELECT t.day IS NULL AS null_day, abs(sum(t.n) - max(s.total)) < 1e-9 AS total_exact
FROM dp.privatize($$SELECT day, ward, count(*) FROM visits GROUP BY 1, 2$$, 1.0, 'subspace_laplace',
                  margins => '{day}') AS t(day date, ward int, n float8)
JOIN (SELECT day, count(*) AS total FROM visits GROUP BY 1) s ON s.day IS NOT DISTINCT FROM t.day
GROUP BY t.day IS NULL, t.day ORDER BY 1, t.day;

-- numeric keys and numeric / int4 counts (sum() of int8 is numeric).
SELECT count(*) AS cells, pg_typeof(min(cost)) AS key_type
FROM dp.privatize($$SELECT cost, sum(1::int8) FROM visits GROUP BY 1$$, 1.0, 'discrete_laplace')
     AS t(cost numeric, n bigint);
SELECT count(*) AS cells
FROM dp.privatize($$SELECT ward, count(*)::int4 FROM visits GROUP BY 1$$, 1.0, 'discrete_laplace')
     AS t(ward int, n numeric);
-- A single count with no key column.
SELECT count(*) AS cells FROM dp.privatize($$SELECT count(*) FROM visits$$, 1.0, 'discrete_laplace') AS t(n bigint);

-- The column definition list must mirror the source.
SELECT * FROM dp.privatize($$SELECT ward, count(*) FROM visits GROUP BY 1$$, 1.0, 'discrete_laplace')
    AS t(ward text, n bigint);
SELECT * FROM dp.privatize($$SELECT ward, count(*) FROM visits GROUP BY 1$$, 1.0, 'discrete_laplace')
    AS t(ward int, extra int, n bigint);
SELECT * FROM dp.privatize($$SELECT ward, count(*) FROM visits GROUP BY 1$$, 1.0, 'subspace_laplace')
    AS t(ward int, n bigint);
SELECT * FROM dp.privatize($$SELECT ward, count(*) FROM visits GROUP BY 1$$, 1.0, 'discrete_laplace')
    AS t(ward int, n integer);
SELECT * FROM dp.privatize($$SELECT ward, count(*) FROM visits GROUP BY 1$$, 1.0, 'discrete_laplace',
                           options => '{"stddev": true}') AS t(ward int, n bigint);
SELECT * FROM dp.privatize($$SELECT ward, ward, count(*) FROM visits GROUP BY 1$$, 1.0, 'discrete_laplace')
    AS t(ward int, w int, n bigint);
SELECT dp.privatize($$SELECT ward, count(*) FROM visits GROUP BY 1$$, 1.0, 'discrete_laplace');

-- Repeated large releases in one session: a regression test for the result
-- descriptor, which must live in per-query memory (SPI_finish frees SPI's).
CREATE TEMP TABLE persons AS SELECT (i % 50) AS state, (i % 100000) AS cell FROM generate_series(1, 1000000) i;
SELECT count(*) AS cells FROM dp.privatize('SELECT state, cell, count(*) FROM persons GROUP BY 1, 2', 1.0,
    'discrete_laplace') AS t(state int, cell int, n bigint);
SELECT count(*) AS cells FROM dp.privatize('SELECT state, cell, count(*) FROM persons GROUP BY 1, 2', 1.0,
    'discrete_laplace') AS t(state int, cell int, n bigint);
SELECT count(*) AS cells FROM dp.privatize('SELECT state, cell, count(*) FROM persons GROUP BY 1, 2', 1.0,
    'subspace_laplace', margins => '{state}') AS t(state int, cell int, n float8);

-- By-value keys are coded as 8-byte words: through an array indexed by
-- value while they are dense (growing up or down as they arrive), through
-- a hash table once they spread out. Every key must come back as it went
-- in, whichever way it was coded: the extremes of bigint, 0 beside NULL,
-- negatives, dense runs and wide gaps, in ascending, descending and
-- shuffled order; and small dense keys of other types. (Each path of the
-- encoder on its own is test_key_encoder.cpp's.)
CREATE TEMP TABLE words AS
SELECT k FROM (VALUES (9223372036854775807), (9223372036854775806), (-9223372036854775808),
                      (-9223372036854775807), (0), (-1), (NULL::int8)) v(k)
UNION SELECT i * 3 FROM generate_series(-50000, 50000) i
UNION SELECT i::int8 * 1000003 FROM generate_series(1, 2000) i;
CREATE FUNCTION pg_temp.released_words(source text) RETURNS TABLE (released bigint, extra bigint, missing bigint)
LANGUAGE sql AS $$
  WITH t AS (SELECT k FROM dp.privatize(source, 1.0, 'discrete_laplace') AS t(k bigint, n bigint))
  SELECT (SELECT count(*) FROM t), (SELECT count(*) FROM (SELECT k FROM t EXCEPT SELECT k FROM words) x),
         (SELECT count(*) FROM (SELECT k FROM words EXCEPT SELECT k FROM t) y)
$$;
SELECT 'ascending' AS arrival, * FROM pg_temp.released_words('SELECT k, count(*) FROM words GROUP BY 1 ORDER BY 1')
UNION ALL
SELECT 'descending', * FROM pg_temp.released_words('SELECT k, count(*) FROM words GROUP BY 1 ORDER BY 1 DESC')
UNION ALL
SELECT 'shuffled', * FROM pg_temp.released_words('SELECT k, count(*) FROM words GROUP BY 1 ORDER BY md5(k::text)');
-- Other by-value types: int2, int4 and date (sign-extended words), float8, bool.
SELECT count(*) AS cells,
       count(*) FILTER (WHERE (a, b, c, d, e) IN (SELECT (i - 3)::int2, -i * 7, DATE '2000-01-01' - i, i / 4.0, i % 2 = 0
                                                  FROM generate_series(-5, 5) i)) AS matched
FROM dp.privatize($$SELECT (i - 3)::int2 AS a, -i * 7 AS b, DATE '2000-01-01' - i AS c, i / 4.0::float8 AS d,
                           i % 2 = 0 AS e, 1 FROM generate_series(-5, 5) i$$, 1.0, 'discrete_laplace')
     AS t(a int2, b int, c date, d float8, e bool, n bigint);

-- By-reference keys are kept once, in the shim's arena (the core's
-- dictionary borrows their bytes), varlenas with a one-byte header when they
-- fit one: short and long text (over 126 bytes keeps four), '' beside NULL,
-- numerics and a plain-storage type (tsquery: never given a short header).
-- The source reads them from a table (short headers on disk), the domain
-- computes them (four-byte headers): equal keys must meet whatever their
-- header.
CREATE TEMP TABLE labels AS
SELECT CASE WHEN i % 97 = 0 THEN NULL WHEN i % 89 = 0 THEN '' ELSE repeat(chr(97 + i % 26), 1 + i % 300) || i END AS label,
       (i % 1000)::numeric / 7 AS amount,
       (chr(97 + i % 26) || ' & ' || chr(97 + i % 5))::tsquery AS query
FROM generate_series(1, 20000) i;
WITH t AS (SELECT label, amount, query::text AS query
           FROM dp.privatize('SELECT label, amount, query, count(*) FROM labels GROUP BY 1, 2, 3', 1.0,
                             'discrete_laplace',
                             domain => $$SELECT label || '', amount + 0, query FROM labels$$)
                AS t(label text, amount numeric, query tsquery, n bigint)),
     s AS (SELECT label, amount, query::text AS query FROM labels)
SELECT (SELECT count(*) FROM t) AS released, (SELECT count(*) FROM (SELECT * FROM s EXCEPT SELECT * FROM t) x) AS missing,
       (SELECT count(*) FROM (SELECT * FROM t EXCEPT SELECT * FROM s) y) AS extra,
       (SELECT count(*) FROM (SELECT DISTINCT * FROM s) d) AS source_cells;

-- A key column whose every row brings a new key keeps no codes while that
-- lasts (each row's code is its number). Keys must come back right when
-- that stops in the middle of a batch of rows (row 1001 repeats keys a and
-- b), for by-value and by-reference keys, with a margin exact on another
-- column; and when a domain adds keys to a source of distinct keys.
CREATE TEMP TABLE renumbered AS
SELECT g AS a, 'k' || g AS b, g % 3 AS c FROM generate_series(1, 1000) g
UNION ALL SELECT g, 'k' || g, 3 FROM generate_series(1, 130) g;
WITH t AS (SELECT * FROM dp.privatize('SELECT a, b, c, count(*) FROM renumbered GROUP BY 1, 2, 3 ORDER BY c = 3, a',
                                      1.0, 'integer_laplace', margins => '{c}') AS t(a int, b text, c int, n bigint))
SELECT (SELECT count(*) FROM t) AS released,
       (SELECT count(*) FROM (SELECT a, b, c FROM renumbered EXCEPT SELECT a, b, c FROM t) x) AS missing,
       (SELECT count(*) FROM (SELECT a, b, c FROM t EXCEPT SELECT a, b, c FROM renumbered) y) AS extra,
       (SELECT bool_and(total = exact) FROM (SELECT c, sum(n) AS total FROM t GROUP BY c) r
        JOIN (SELECT c, count(*) AS exact FROM renumbered GROUP BY c) s USING (c)) AS margin_exact;
-- (At epsilon 100 discrete_laplace noise is 0 but with probability 7e-44 a cell.)
SELECT count(*) AS cells, sum(n) FILTER (WHERE k <= 500) AS source_total, sum(n) FILTER (WHERE k > 500) AS domain_only,
       count(DISTINCT k) = 600 AND min(k) = 1 AND max(k) = 600 AS every_key
FROM dp.privatize('SELECT g AS k, 1 FROM generate_series(1, 500) g', 100, 'discrete_laplace',
                  domain => 'SELECT g FROM generate_series(600, 1, -1) g') AS t(k int, n bigint);
