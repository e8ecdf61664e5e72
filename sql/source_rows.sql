-- A source of rows: options {"source": "rows"} lets the source return one
-- row per person, its key columns only, and the release counts them, as
-- GROUP BY ... count(*) would, without PostgreSQL's aggregate. The cells
-- are the distinct key tuples, in the order of their first rows.
\set VERBOSITY terse
SELECT dp.last_release() IS NULL AS no_release_yet;

-- The same cells, counts and noise as the aggregated source: with the same
-- seed and the cells in the same order, the same release.
SET dp.seed = 31;
CREATE TEMP TABLE from_rows AS
SELECT * FROM dp.privatize($$SELECT county, edu FROM delinquents ORDER BY county, edu$$, 1.0,
                           options => '{"source": "rows"}') AS t(county text, edu text, n bigint);
SET dp.seed = 31;
CREATE TEMP TABLE from_counts AS
SELECT * FROM dp.privatize($$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2 ORDER BY 1, 2$$, 1.0)
    AS t(county text, edu text, n bigint);
SELECT count(*) AS cells, bool_and(r.n = c.n) AS same_values
FROM from_rows r FULL JOIN from_counts c USING (county, edu);
SELECT dp.last_release() ->> 'cells' AS cells;

-- With margins and a domain: every domain cell, the margins exact.
SET dp.seed = 32;
SELECT county, sum(n) AS released, (SELECT count(*) FROM delinquents d WHERE d.county = t.county) AS truth
FROM dp.privatize($$SELECT county, edu FROM delinquents$$, 1.0, 'integer_gaussian', delta => 1e-6,
                  margins => '{county,edu}',
                  domain => $$SELECT c, e FROM (SELECT DISTINCT county FROM delinquents) a(c),
                                               (SELECT DISTINCT edu FROM delinquents) b(e)$$,
                  options => '{"source": "rows"}') AS t(county text, edu text, n bigint)
GROUP BY county ORDER BY county;

-- A NULL key is a cell of its own, as GROUP BY makes it.
SET dp.seed = 33;
SELECT k IS NULL AS null_key, n FROM dp.privatize($$SELECT k FROM (VALUES ('a'), (NULL), ('a'), (NULL), (NULL)) v(k)$$,
                                                 1.0, options => '{"source": "rows", "keys": "public"}')
    AS t(k text, n bigint) ORDER BY 1;

-- Partition selection and hierarchies read the counted cells too.
SET dp.seed = 34;
SELECT count(*) AS shown FROM dp.privatize($$SELECT g FROM generate_series(1, 3000) i, LATERAL (SELECT i % 3) s(g)$$,
                                           1.0, delta => 1e-6,
                                           options => '{"source": "rows", "partition_selection": "laplace"}')
    AS t(g int, n bigint);
SET dp.seed = 35;
SELECT level, count(*) AS nodes, sum(n) AS total
FROM dp.privatize($$SELECT county, edu FROM delinquents$$, 1.0, 'cascade', delta => 1e-6, hierarchy => '{county}',
                  margins => '{""}', options => '{"source": "rows", "level": true}')
    AS t(county text, edu text, n float8, level integer)
GROUP BY level ORDER BY level;
RESET dp.seed;

-- Refusals.
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT county, edu FROM delinquents', 1.0,
    options => '{"source": "table"}') AS t(county text, edu text, n bigint)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT county, edu, 1 AS patient FROM delinquents', 1.0,
    privacy_unit => 'patient', bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}',
    options => '{"source": "counts"}') AS t(county text, edu text, n bigint)$$);
-- The column definition list is the keys and the count, as for counts.
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT county, edu FROM delinquents', 1.0,
    options => '{"source": "rows"}') AS t(county text, n bigint)$$);
-- An empty source, as an empty aggregate.
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT county FROM delinquents WHERE false', 1.0,
    options => '{"source": "rows"}') AS t(county text, n bigint)$$);
-- Each row counts against dp.max_cells, and the hint says so.
SET dp.max_cells = 100;
\set VERBOSITY default
SELECT * FROM dp.privatize('SELECT county FROM delinquents', 1.0, options => '{"source": "rows"}')
    AS t(county text, n bigint);
\set VERBOSITY terse
RESET dp.max_cells;
-- dp.diagnose reads a source of rows too: its chain runs on the rows'
-- distinct cells, the same diagnosis as from the aggregated source.
SET dp.seed = 36;
CREATE TEMP TABLE diagnosed_rows AS
SELECT * FROM dp.diagnose('SELECT county, edu FROM delinquents', 0.25, 'integer_laplace', margins => '{county,edu}',
                          options => '{"coupled_pairs": 10, "sampler": "chain", "source": "rows"}');
SET dp.seed = 36;
CREATE TEMP TABLE diagnosed_counts AS
SELECT * FROM dp.diagnose('SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2', 0.25, 'integer_laplace',
                          margins => '{county,edu}', options => '{"coupled_pairs": 10, "sampler": "chain"}');
RESET dp.seed;
SELECT count(*) AS rows, bool_and(r.value = c.value) AS same_values
FROM diagnosed_rows r JOIN diagnosed_counts c USING (metric) WHERE r.iteration IS NOT DISTINCT FROM c.iteration;
SELECT (SELECT count(*) FROM diagnosed_rows) = (SELECT count(*) FROM diagnosed_counts) AS same_rows;

-- A governed release of rows: its draws count the rows, and the error bars
-- of its sums know its key columns (dp.release_laws).
SELECT dp.set_budget('rows survey', epsilon => 2.0);
SELECT dp.register_release('public.rows_release', 'rows survey',
    source  => $$SELECT county, edu FROM delinquents$$,
    columns => 'c text, e text, n bigint',
    epsilon => 0.5, margins => '{county}', options => '{"keys": "public", "source": "rows"}');
SELECT key_columns FROM dp.release_laws WHERE release = 'public.rows_release'::regclass;
SELECT dp.refresh_release('public.rows_release') > 0 AS drawn;
SELECT c, sum(n) AS released, (SELECT count(*) FROM delinquents d WHERE d.county = r.c) AS truth,
       dp.margin_of_error(r, 0.9) AS moe
FROM rows_release r GROUP BY c ORDER BY c;
SELECT dp.margin_of_error(r, 0.9) > 0 AS low_moe_positive FROM rows_release r WHERE e = 'Low';
SELECT dp.drop_release('public.rows_release');
