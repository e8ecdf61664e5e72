-- 0.5.0: the current definitions moved into src/sql/extension/ (one file per
-- feature). A draw is charged in a transaction of its own before it is made
-- (dp.charge_draw, dp.store_draw), so dp.draw_in_worker goes.
DROP FUNCTION IF EXISTS dp.draw_in_worker(regclass, regrole, regrole, boolean);
-- dp.cascade_range_variance (since 0.3.0) takes the integer cascade's
-- variance deficit bound and returns both ends (lower, upper): a new
-- signature, so the old function goes.
DROP FUNCTION IF EXISTS dp.cascade_range_variance(text, integer[], float8[], integer[], bigint, bigint);
-- A privacy unit with contribution bounds (dp.privatize's privacy_unit and
-- bounds): the releases store them, and the functions that take them have
-- new signatures, so the old ones go. A view of the caller's that calls
-- dp.privatize would block that; it is named, so it can be recreated after.
-- (IF EXISTS: an upgrade from before 0.2.0 creates the table afterwards, with them.)
ALTER TABLE IF EXISTS dp.releases ADD COLUMN IF NOT EXISTS privacy_unit text, ADD COLUMN IF NOT EXISTS bounds jsonb;
DO $$
DECLARE
    dependents text;
BEGIN
    SELECT string_agg(DISTINCT pg_describe_object(d.classid, d.objid, d.objsubid), ', ') INTO dependents
    FROM pg_depend d
    WHERE d.refclassid = 'pg_proc'::regclass
      AND d.refobjid = to_regprocedure('dp.privatize(text, float8, text, float8, text[], text, jsonb, text[])')
      AND d.deptype = 'n';
    IF dependents IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = '2BP01',
            MESSAGE = 'invariant_dp 0.5.0 changes dp.privatize''s signature, and other objects depend on it',
            DETAIL = 'Dependent objects: ' || dependents || '.',
            HINT = 'Save their definitions, drop them, run ALTER EXTENSION invariant_dp UPDATE, then recreate them.';
    END IF;
END
$$;
DROP FUNCTION IF EXISTS dp.privatize(text, float8, text, float8, text[], text, jsonb, text[]);
DROP FUNCTION IF EXISTS dp.check_request(text, float8, float8, text[], jsonb, text[]);
DROP FUNCTION IF EXISTS dp.privatize_as_owner(regrole, text, text, float8, text, float8, text[], text, jsonb, text[]);
DROP FUNCTION IF EXISTS dp.register_release(text, text, text, text, float8, text, float8, text[], text, jsonb, text[]);
DROP FUNCTION IF EXISTS dp.release_cost(regclass);
-- Streams take a privacy unit and its bounds: new signatures.
DROP FUNCTION IF EXISTS dp.register_stream(text, text, text, text, float8, float8, integer, jsonb);
DROP FUNCTION IF EXISTS dp.stream_append_as_owner(regclass, regrole, text, text, text[], text, float8, integer);
DROP FUNCTION IF EXISTS dp.cascade_stream_variance(float8, float8, integer, text);
