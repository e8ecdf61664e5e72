-- docs/reference.md lists every function of the extension ("Every function
-- at a glance"), with whether PUBLIC may execute it: the list must be the
-- catalog's, so a function added, dropped or re-granted without its
-- documentation fails here. psql reads the table from the markdown file
-- (pg_prove runs from the repository's root).
\set ON_ERROR_STOP 1
\set documented `grep -oE '^\| .dp\.[a-z_]+\([^)]*\). \| [a-z]+ \| .[^|]*. \| (yes|no) \|' docs/reference.md | sed -E 's/^\| .(dp\.[a-z_]+\([^)]*\)). \| [a-z]+ \| .[^|]*. \| (yes|no) \|$/\1:\2/' | LC_ALL=C sort | tr '\n' ' '`
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS invariant_dp;
SELECT plan(2);

SELECT is(
    (SELECT string_agg(replace(replace(p.oid::regprocedure::text, 'double precision', 'float8'), ' ', '') || ':' ||
                       CASE WHEN has_function_privilege('public', p.oid, 'EXECUTE') THEN 'yes' ELSE 'no' END,
                       ' ' ORDER BY replace(replace(p.oid::regprocedure::text, 'double precision', 'float8'), ' ', '')
                                    COLLATE "C") || ' '
     FROM pg_proc p WHERE p.pronamespace = 'dp'::regnamespace),
    :'documented',
    'docs/reference.md lists every dp function, with who may execute it, as the catalog has them');
-- The check can fail: a function the catalog does not have is told apart.
SELECT isnt(:'documented' || 'dp.not_a_function():yes ', :'documented', 'a documented extra function is noticed');

SELECT * FROM finish();
ROLLBACK;
