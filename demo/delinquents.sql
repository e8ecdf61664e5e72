-- The fictitious 4x4 "delinquent children" table (FCSM 2005, Statistical
-- Policy Working Paper 22, Table 4, as used by Dharangutte, Gao, Gong and Yu
-- 2023, arXiv:2212.00936, with Gamma's row total corrected to 25): one row
-- per child.
CREATE TABLE delinquents (county text NOT NULL, edu text NOT NULL);
INSERT INTO delinquents
SELECT county, edu
FROM (VALUES ('Alpha', 'Low', 15), ('Alpha', 'Medium', 1), ('Alpha', 'High', 3), ('Alpha', 'Very High', 1),
             ('Beta', 'Low', 20), ('Beta', 'Medium', 10), ('Beta', 'High', 10), ('Beta', 'Very High', 15),
             ('Gamma', 'Low', 3), ('Gamma', 'Medium', 10), ('Gamma', 'High', 10), ('Gamma', 'Very High', 2),
             ('Delta', 'Low', 12), ('Delta', 'Medium', 14), ('Delta', 'High', 7), ('Delta', 'Very High', 2))
     AS cells(county, edu, n),
     generate_series(1, n);
