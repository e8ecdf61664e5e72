-- 0.7.0: each registration of a governed release has an identity,
-- dp.releases.release_id, which its draws in dp.draws carry; the laws and
-- costs shown for a release are those of its own draws, not of whatever was
-- drawn under its name. The draws already logged are given the identity of
-- the release registered under their name now if they were drawn after its
-- registration; a dropped release's draws keep none. Laws no longer publish
-- a chain's move acceptance (a statistic of the confidential table): it is
-- taken out of the laws already logged. From a version without the
-- governed catalog (0.1.0) the tables are created whole by the definitions.
CREATE SEQUENCE IF NOT EXISTS dp.release_ids;
DO $$
BEGIN
    IF pg_catalog.to_regclass('dp.releases') IS NULL THEN
        RETURN;
    END IF;
    ALTER TABLE dp.releases ADD COLUMN IF NOT EXISTS release_id bigint NOT NULL UNIQUE
        DEFAULT pg_catalog.nextval('dp.release_ids');
    ALTER TABLE dp.draws ADD COLUMN IF NOT EXISTS release_id bigint;
    UPDATE dp.draws d SET release_id = r.release_id
    FROM dp.releases r
         JOIN pg_catalog.pg_class c ON c.oid = r.release
         JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
    WHERE d.release = pg_catalog.format('%I.%I', n.nspname, c.relname) AND d.drawn_at >= r.registered_at;
    UPDATE dp.draws SET noise_law = noise_law #- '{sampler,move_acceptance}'
    WHERE noise_law #> '{sampler,move_acceptance}' IS NOT NULL;
END
$$;
