-- Every request is bounded and cancellable: the attacks that once hung a
-- backend or took gigabytes now finish at once, are refused before they
-- allocate (54000), or stop at statement_timeout. Deterministic output only:
-- row counts, exact totals, SQLSTATEs.
\set VERBOSITY terse
SET statement_timeout = '10s';
-- A tiny epsilon used to cost a series of 1/epsilon terms (the published
-- per-cell sd of integer_laplace and congenial): now a few thousand.
SELECT count(*) AS cells, sum(n) AS total
FROM dp.privatize('SELECT 1 AS k, 1 UNION ALL SELECT 2, 1', 1e-8, margins => '{""}') AS t(k int, n bigint);
SELECT count(*) AS cells, sum(n) AS total
FROM dp.privatize('SELECT 1 AS k, 1 UNION ALL SELECT 2, 1', 1e-7, 'congenial', margins => '{""}') AS t(k int, n bigint);
SELECT count(*) AS cells, sum(n) AS total
FROM dp.privatize('SELECT g % 7 AS k, g, 1 FROM generate_series(1, 700) g', 1e-8, margins => '{k}',
                  options => '{"stddev": true}') AS t(k int, g int, n bigint, sd float8);
-- A congenial release whose exact sampler cannot succeed at this scale runs
-- its chain, and the chain stops at statement_timeout.
SET statement_timeout = '1s';
SELECT count(*) FROM dp.privatize('SELECT g % 7 AS k, g, 3 FROM generate_series(1, 70) g', 1e-7, 'congenial',
                                  margins => '{k}') AS t(k int, g int, n bigint);
SET statement_timeout = '10s';
-- Real-valued noise at a tiny epsilon would swamp float8: refused (22003)
-- rather than releasing margins that are no longer exact.
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT 1 AS k, 1 UNION ALL SELECT 2, 1', 1e-300, 'subspace_laplace',
                                                margins => '{""}') AS t(k int, n float8)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT 1 AS k, 1 UNION ALL SELECT 2, 1', 1e-14, 'subspace_laplace',
                                                margins => '{""}') AS t(k int, n float8)$$);
SELECT abs(sum(n) - 2) < 1e-3 AS margin_exact_to_round_off FROM dp.privatize('SELECT 1 AS k, 1 UNION ALL SELECT 2, 1', 1e-6, 'subspace_laplace',
                                                    margins => '{""}') AS t(k int, n float8);
-- ... while integer mechanisms keep margins exact far below that epsilon,
-- down to the smallest their exact sampler represents.
SELECT sum(n) AS total FROM dp.privatize('SELECT 1 AS k, 1 UNION ALL SELECT 2, 1', 1e-14, 'integer_laplace',
                                         margins => '{""}') AS t(k int, n bigint);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT 1 AS k, 1 UNION ALL SELECT 2, 1', 1e-300, 'integer_laplace',
                                                margins => '{""}') AS t(k int, n bigint)$$);
-- dp.range_variance takes arrays from anyone: a shape of billions of leaves
-- holds nothing per leaf (its answer is immediate), and a list of too many
-- internal nodes is refused before anything is allocated.
SELECT dp.range_variance('{"error_law": "gaussian_cascade", "hierarchy": {"children": [2000000000]},
                           "noise": {"level_variance": [1, 1]}}', 0, 1999999999) AS whole_root_variance;
SELECT sqlstate_of($$SELECT dp.cascade_range_variance('gaussian_cascade', array_fill(1, ARRAY[200000]),
                                                      array_fill(1.0::float8, ARRAY[200001]), '{}', 0, 0, 0)$$);
SELECT dp.range_variance('{"error_law": "gaussian_cascade", "hierarchy": {"children": [2, 2, 2]},
                           "noise": {"level_variance": [1, 0.5, 0.25]}}', 0, 3) > 0 AS whole_tree_variance;
-- Non-finite variance targets are refused, not released as NaN.
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT 1 AS k, 1 AS j, 1', NULL, 'cascade', delta => 1e-6,
                     hierarchy => '{k,j}', options => '{"level_variance": [1, 1e999, 1]}') AS t(k int, j int, n float8)$$);
SELECT count(*) AS rows, count(*) FILTER (WHERE n = 'NaN' OR n IN ('Infinity', '-Infinity')) AS non_finite_rows
FROM dp.privatize('SELECT k, j, 1 FROM generate_series(1, 3) k, generate_series(1, 3) j', 1e-300, 'cascade',
                  delta => 1e-6, hierarchy => '{k,j}', options => '{"level_variance": [1, 1e300, 1e300]}')
     AS t(k int, j int, n float8);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT k, j, 1 FROM generate_series(1, 3) k, generate_series(1, 3) j', NULL,
                     'cascade', delta => 1e-6, hierarchy => '{k,j}', options => '{"rho": 1e-300, "level_variance": [1, 1e300, 1e300]}')
                     AS t(k int, j int, n float8)$$);
-- Crossing margins (a two-way table's row and column totals) need a chain on
-- the invariant lattice (for complete tables, random 2x2 swaps and no
-- basis). Every sweep polls, and a chain whose work is estimated too large
-- is refused before anything is built for it.
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 1000) i, generate_series(1, 1000) j',
                     1.0, 'integer_laplace', margins => '{i,j}', options => '{"iterations": 5000, "sampler": "chain"}')
                     AS t(i int, j int, n bigint)$$);
-- congenial starts from a table the Clp solver finds from the totals (bounded),
-- except on complete two-way tables, where the start needs no solver.
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT g % 10 AS k, g, 3 FROM generate_series(1, 50000) g',
                     1.0, 'congenial', margins => '{k}') AS t(k int, g int, n bigint)$$);
SET statement_timeout = '1s';
SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 300) i, generate_series(1, 300) j', 1.0,
                                  'congenial', margins => '{i,j}') AS t(i int, j int, n bigint);
-- (the table chain at its default length on a million cells: a minute or two)
SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 1000) i, generate_series(1, 1000) j', 1.0,
                                  'integer_laplace', margins => '{i,j}', options => '{"sampler": "chain"}')
    AS t(i int, j int, n bigint);
-- (integer_gaussian at epsilon 10: sigma^2 about 1, below the exact sampler's reach at this size, so the chain;
-- at 300 x 300 each chain takes several seconds)
SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 300) i, generate_series(1, 300) j', 10.0,
                                  'integer_gaussian', delta => 1e-3, margins => '{i,j}') AS t(i int, j int, n bigint);
-- These may now finish within the timeout (the table chain, the exact
-- Kronecker sampler and the l2 chain got fast): what is asserted is that
-- each ends, finished or cancelled, within 3 s of its start at a 1 s timeout.
CREATE FUNCTION ends_in_time(query text, seconds float8) RETURNS boolean LANGUAGE plpgsql AS $f$
DECLARE
    started timestamptz := clock_timestamp();
BEGIN
    BEGIN
        EXECUTE query;
    EXCEPTION WHEN query_canceled THEN
        NULL;
    END;
    RETURN clock_timestamp() - started < make_interval(secs => seconds);
END
$f$;
SELECT ends_in_time($q$SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 100) i, generate_series(1, 100) j', 1.0,
                                  'congenial', margins => '{i,j}') AS t(i int, j int, n bigint)$q$, 3) AS ends_in_time;
-- The l1 table chain at its default length on 90,000 cells (about a second).
SELECT ends_in_time($q$SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 300) i, generate_series(1, 300) j', 1.0,
                                  'integer_laplace', margins => '{i,j}', options => '{"sampler": "chain"}')
                                  AS t(i int, j int, n bigint)$q$, 3) AS ends_in_time;
-- The l2 scale-mixture chain (20 iterations of an exact lattice Gaussian) on 90,000 cells.
SELECT ends_in_time($q$SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 300) i, generate_series(1, 300) j', 1.0,
                                  'integer_laplace_l2', margins => '{i,j}') AS t(i int, j int, n bigint)$q$, 3) AS ends_in_time;
-- The exact lattice Gaussian of a million-cell table polls too.
SELECT ends_in_time($q$SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 1000) i, generate_series(1, 1000) j', 1.0,
                                  'integer_gaussian', delta => 1e-6, margins => '{i,j}') AS t(i int, j int, n bigint)$q$, 3) AS ends_in_time;
SELECT 'the session is usable' AS after_cancel;
SET statement_timeout = '10s';
-- The non-negative projections solve a QP with Clp: beyond the sizes it
-- solves in seconds they are refused before any noise is drawn, and a solve
-- stops at statement_timeout (Clp's own SIGINT handler is kept out of the
-- way, so the cancel is reported as a cancel).
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 1000) i, generate_series(1, 1000) j',
                     1.0, 'project_nn_l2', margins => '{i,j}') AS t(i int, j int, n float8)$$);
SET statement_timeout = '1s';
SELECT count(*) FROM dp.privatize('SELECT i, j, 10 FROM generate_series(1, 200) i, generate_series(1, 200) j', 1.0,
                                  'project_nn_l2', margins => '{i,j}') AS t(i int, j int, n float8);
SET statement_timeout = '10s';
CREATE FUNCTION error_detail_of(query text) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
    state text;
    detail text;
BEGIN
    EXECUTE query;
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, detail = PG_EXCEPTION_DETAIL;
    RETURN state || ': ' || detail;
END
$f$;
-- Memory is bounded by bytes, not only rows: a source of long keys is
-- refused (54000) while it is read, long before dp.max_cells rows.
SET dp.max_source_memory = '4MB';
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT repeat(''x'', 2000) || g AS k, 1 FROM generate_series(1, 100000) g',
                     1, 'discrete_laplace') AS t(k text, n bigint)$$);
-- Many short keys: refused when a key dictionary would grow past the
-- limit, before it grows (the detail says so).
SELECT regexp_replace(error_detail_of($$SELECT * FROM dp.privatize('SELECT g::text AS k, 1 FROM generate_series(1, 1000000) g',
                     1, 'discrete_laplace') AS t(k text, n bigint)$$), '[0-9]+ (rows|kB)', 'N \1', 'g') AS refused;
-- The keys waiting to be coded count too: one key of 3.2 MB on every row
-- of a privacy-unit source is kept once by its dictionary, and the batch
-- of rows not yet coded holds at most a megabyte and one key more (6 MB:
-- refused; 32 MB: read).
SET dp.max_source_memory = '6MB';
SELECT sqlstate_of($$SELECT count(*) FROM dp.privatize('SELECT g AS unit, repeat(md5(''k''), 100000) AS k FROM generate_series(1, 200) g',
                     1, 'discrete_laplace', privacy_unit => 'unit', bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}')
                     AS t(k text, n bigint)$$);
SET dp.max_source_memory = '32MB';
SELECT count(*) AS cells FROM dp.privatize('SELECT g AS unit, repeat(md5(''k''), 100000) AS k FROM generate_series(1, 200) g',
                     1, 'discrete_laplace', privacy_unit => 'unit', bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}')
                     AS t(k text, n bigint);
RESET dp.max_source_memory;
SELECT count(*) AS cells FROM dp.privatize('SELECT repeat(''x'', 2000) || g AS k, 1 FROM generate_series(1, 1000) g',
                                            1, 'discrete_laplace') AS t(k text, n bigint);
-- Duplicate cells are still refused at release sizes (keys are coded as rows
-- arrive): a 5M-cell source whose last row repeats the 17th cell, and one
-- keyed by two columns whose extra row repeats (5, 0); the key is named.
SELECT error_detail_of($$SELECT count(*) FROM dp.privatize('SELECT CASE WHEN g = 5000000 THEN 17 ELSE g END AS g, 1
                         FROM generate_series(1, 5000000) g', 1.0, 'discrete_laplace') AS t(g int, n bigint)$$);
SELECT error_detail_of($$SELECT count(*) FROM dp.privatize('SELECT g % 2500000 AS a, g / 2500000 AS b, 1
                         FROM generate_series(0, 4999999) g UNION ALL SELECT 5, 0, 1', 1.0, 'subspace_laplace',
                         margins => '{a}') AS t(a int, b int, n float8)$$);
-- A release of dp.max_cells (10M) cells stops within a second of
-- statement_timeout, while its rows are read (1 s) and while they are
-- coded, noised and returned (4 s).
SET statement_timeout = '1s';
SELECT ends_in_time($q$SELECT count(*) FROM dp.privatize('SELECT g, 1 FROM generate_series(1, 10000000) g', 1.0,
                                  'discrete_laplace') AS t(g int, n bigint)$q$, 2) AS ends_in_time;
SET statement_timeout = '4s';
SELECT ends_in_time($q$SELECT count(*) FROM dp.privatize('SELECT g, 1 FROM generate_series(1, 10000000) g', 1.0,
                                  'discrete_laplace') AS t(g int, n bigint)$q$, 5) AS ends_in_time;
SET statement_timeout = '10s';
-- Pure-epsilon mechanisms take no delta, not even 0.
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT 1 AS k, 1', 1, 'discrete_laplace', delta => 0) AS t(k int, n bigint)$$);
RESET statement_timeout;
