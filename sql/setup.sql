-- Shared set-up for the pg_regress suites: the extension, the demo table
-- (4x4 delinquent children, one row per child) and a helper that turns an
-- error into "SQLSTATE: message" so suites can assert the code.
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
