-- 0.7.0: each registration of a governed release has an identity,
-- dp.releases.release_id, which its draws in dp.draws carry; the laws and
-- costs shown for a release are those of its own draws, not of whatever was
-- drawn under its name. The draws already logged are given the identity of
-- the release registered under their name now if they were drawn after its
-- registration; a dropped release's draws keep none. Laws no longer publish
-- a chain's move acceptance (a statistic of the confidential table): it is
-- taken out of the laws already logged. Laws now say which family their
-- error bars follow ("error_law", src/core/accuracy/error_law.hpp), which
-- the error-bar functions read instead of the mechanism's name: it is added
-- to the laws already logged, from the mechanism they name (this mapping is
-- history: new laws are written with it). dp.cascade_range_variance takes
-- the law's error_law instead of its mechanism (a parameter renamed: the
-- function is made again by the definitions). From a version without the
-- governed catalog (0.1.0) the tables are created whole by the definitions.
DROP FUNCTION IF EXISTS dp.cascade_range_variance(text, integer[], float8[], integer[], float8, bigint, bigint);
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
    UPDATE dp.draws SET noise_law = noise_law || pg_catalog.jsonb_build_object('error_law', f.error_law)
    FROM (VALUES ('discrete_laplace', 'laplace_lattice'), ('integer_laplace', 'laplace_lattice'),
                 ('discrete_gaussian', 'gaussian_lattice'), ('integer_gaussian', 'gaussian_lattice'),
                 ('integer_laplace_l2', 'l2_lattice'), ('subspace_gaussian', 'projected_gaussian'),
                 ('subspace_laplace', 'projected_log_concave'), ('project_l2', 'projected_variance'),
                 ('cascade', 'gaussian_cascade'), ('integer_cascade', 'lattice_gaussian_cascade'),
                 ('cascade_stream', 'gaussian_stream'), ('congenial', 'data_dependent'),
                 ('project_nn_l2', 'data_dependent'), ('project_nn_integer', 'data_dependent'))
         AS f(mechanism, error_law)
    WHERE dp.draws.noise_law->>'mechanism' = f.mechanism AND NOT dp.draws.noise_law ? 'error_law';
END
$$;
