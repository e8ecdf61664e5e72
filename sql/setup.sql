-- Shared set-up for the pg_regress suites: the extension, the demo table
-- (4x4 delinquent children, one row per child) and a helper that turns an
-- error into "SQLSTATE: message" so suites can assert the code.
CREATE EXTENSION invariant_dp;
CREATE TABLE delinquents (county text NOT NULL, edu text NOT NULL);
INSERT INTO delinquents
SELECT county, edu
FROM (VALUES ('Alpha', 'Low', 15), ('Alpha', 'Medium', 1), ('Alpha', 'High', 3), ('Alpha', 'Very High', 1),
             ('Beta', 'Low', 20), ('Beta', 'Medium', 10), ('Beta', 'High', 10), ('Beta', 'Very High', 15),
             ('Gamma', 'Low', 3), ('Gamma', 'Medium', 10), ('Gamma', 'High', 10), ('Gamma', 'Very High', 2),
             ('Delta', 'Low', 12), ('Delta', 'Medium', 14), ('Delta', 'High', 7), ('Delta', 'Very High', 2))
     AS cells(county, edu, n),
     generate_series(1, n);
SELECT count(*) AS children FROM delinquents;

CREATE FUNCTION sqlstate_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE query;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
