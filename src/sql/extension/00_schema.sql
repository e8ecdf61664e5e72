-- invariant_dp: the current definition of every object, one file per
-- feature, concatenated in file-name order into invariant_dp--<version>.sql
-- (see the Makefile). Every statement is idempotent (CREATE OR REPLACE,
-- CREATE TABLE IF NOT EXISTS, GRANT, REVOKE), so the same text also ends
-- every upgrade script, after the catalog changes of src/sql/upgrades/.
-- The schema itself comes from the control file (schema = dp).

GRANT USAGE ON SCHEMA dp TO PUBLIC;
