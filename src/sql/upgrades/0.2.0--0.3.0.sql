-- 0.3.0 added hierarchies, the projection baselines, per-release refreshers
-- and streams. Functions that gained an argument are dropped here and
-- created again by src/sql/extension/ (PostgreSQL cannot add an argument to an
-- existing function; a view over dp.privatize must be dropped first).
DROP FUNCTION IF EXISTS dp.privatize(text, float8, text, float8, text[], text, jsonb);
DROP FUNCTION IF EXISTS dp.check_request(text, float8, float8, text[], jsonb);
DROP FUNCTION IF EXISTS dp.privatize_as_owner(regrole, text, text, float8, text, float8, text[], text, jsonb);
DROP FUNCTION IF EXISTS dp.register_release(text, text, text, text, float8, text, float8, text[], text, jsonb);

-- Governed releases can be hierarchies; audit rows keep the release's name
-- (text, not regclass), the role in effect and why a draw cost what it did.
ALTER TABLE IF EXISTS dp.releases ADD COLUMN IF NOT EXISTS hierarchy text[];
ALTER TABLE IF EXISTS dp.draws ALTER COLUMN release TYPE text USING release::text;
ALTER TABLE IF EXISTS dp.draws ADD COLUMN IF NOT EXISTS drawn_as name;
ALTER TABLE IF EXISTS dp.draws ADD COLUMN IF NOT EXISTS note text;
