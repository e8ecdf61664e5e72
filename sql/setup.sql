-- Shared set-up for the pg_regress suites: the extension, the demo table
-- (4x4 delinquent children, one row per child), a helper that turns an
-- error into "SQLSTATE: message" so suites can assert the code, and one
-- that checks a hierarchy release's rollups.
CREATE EXTENSION invariant_dp;
\i demo/delinquents.sql
SELECT count(*) AS children FROM delinquents;

CREATE FUNCTION sqlstate_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE query;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- Consistency of a hierarchy release with a level column (the level key
-- columns named coarsest first; the count n): each internal row against the
-- sum of the rows one level down under it. The parents checked and the
-- worst relative gap, 0 when every node is exactly the sum of its children.
CREATE FUNCTION hierarchy_gaps(rows_query text, levels text[], OUT nodes bigint, OUT worst_gap float8)
LANGUAGE plpgsql AS $$
DECLARE
  same_parent text := '';
BEGIN
  FOR i IN 1 .. cardinality(levels) LOOP
    same_parent := same_parent || format(' AND (p.level < %s OR c.%I = p.%I)', i, levels[i], levels[i]);
  END LOOP;
  EXECUTE format($q$
    WITH r AS (%s)
    SELECT count(*), coalesce(max(abs(p.n - c.total) / greatest(abs(p.n), 1)), 0)
    FROM r p
    JOIN LATERAL (SELECT sum(c.n) AS total FROM r c WHERE c.level = p.level + 1%s) c ON true
    WHERE p.level < %s$q$, rows_query, same_parent, cardinality(levels)) INTO nodes, worst_gap;
END $$;
