-- Governed streams: a growing time series appended without redrawing.
-- Each refresh appends the periods that are new since the last one;
-- released periods are never redrawn (src/core/hierarchy/streaming_cascade.hpp:
-- the leaves of a binary cascade grown to the right). The first draw
-- charges the stream's (epsilon, delta) once for its whole horizon of
-- 2^horizon periods; later appends charge nothing, and appends past the
-- horizon are refused. Its catalog, registration, calibration, the append
-- a draw runs (src/pg/stream_append.c) and what readers may know of it.

CREATE TABLE IF NOT EXISTS dp.streams (
    release    regclass PRIMARY KEY REFERENCES dp.releases ON DELETE CASCADE,
    horizon    integer NOT NULL CHECK (horizon BETWEEN 0 AND 62),
    neighbours text NOT NULL CHECK (neighbours IN ('replace_one', 'add_remove')),
    variance   float8 NOT NULL CHECK (variance > 0),
    released   bigint NOT NULL DEFAULT 0 CHECK (released >= 0),
    last_key   text,
    state      text
);

COMMENT ON TABLE dp.streams IS
'Governed streams: releases appended period by period. horizon: at most 2^horizon periods; variance: the '
'noise variance of every node of the cascade (public); released and last_key: the periods released so far. '
'state is SECRET.';
COMMENT ON COLUMN dp.streams.state IS
'SECRET: the noise of the released and pending cascade nodes. Whoever reads it can subtract the noise from '
'the release. NULL until the first draw; pg_dump copies it (protect dumps like the raw data).';

-- pg_dump keeps its rows: a stream's state must survive a dump, or it
-- cannot grow again.
SELECT pg_catalog.pg_extension_config_dump('dp.streams', '');
REVOKE ALL ON dp.streams FROM PUBLIC;

-- A privacy unit and contribution bounds come together or not at all; the
-- rule and its words are the core's, as for dp.privatize.
CREATE OR REPLACE FUNCTION dp.check_privacy_unit(privacy_unit text, bounds jsonb) RETURNS void
AS 'MODULE_PATHNAME', 'dp_check_privacy_unit'
LANGUAGE C STABLE PARALLEL SAFE;

COMMENT ON FUNCTION dp.check_privacy_unit(text, jsonb) IS
'Internal: refuses a privacy unit without contribution bounds, or bounds without a privacy unit.';
REVOKE EXECUTE ON FUNCTION dp.check_privacy_unit(text, jsonb) FROM PUBLIC;

-- What dp.register_stream checks before it creates anything; returns the
-- stream's node variance and neighbouring relation.
CREATE OR REPLACE FUNCTION dp.check_stream_registration(
    dataset text, release text, source text, columns text, epsilon float8, delta float8, horizon integer,
    options jsonb, privacy_unit text, bounds jsonb, OUT variance float8, OUT neighbours text)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    unknown text;
BEGIN
    IF NOT EXISTS (SELECT FROM dp.budgets b WHERE b.dataset = check_stream_registration.dataset) THEN
        RAISE EXCEPTION USING ERRCODE = '42704',
            MESSAGE = format('dataset "%s" has no budget', dataset),
            HINT = 'Create it first: SELECT dp.set_budget(dataset, epsilon, delta).';
    END IF;
    IF release IS NULL OR source IS NULL OR columns IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'release, source and columns must not be NULL';
    END IF;
    IF epsilon IS NULL OR delta IS NULL OR horizon IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'epsilon, delta and horizon must not be NULL',
            DETAIL = 'A stream charges its dataset''s budget epsilon and delta once, for 2^horizon periods.';
    END IF;
    SELECT k INTO unknown FROM jsonb_object_keys(coalesce(options, '{}')) AS k WHERE k <> 'neighbours' LIMIT 1;
    IF unknown = 'mechanism' THEN
        -- src/core/hierarchy/integer_cascade_sampler.hpp, "Streams".
        RAISE EXCEPTION USING ERRCODE = '0A000',
            MESSAGE = 'a stream is released only by the real-valued streaming cascade',
            DETAIL = 'The integer cascade does not carry over to streams: the law of its first periods depends on '
                     'the horizon, and its exact sampler may redraw every period, which a stream cannot do once '
                     'periods are published.',
            HINT = 'For integer counts, register a release with mechanism => ''integer_cascade'' and a hierarchy '
                   'over the periods; each draw redraws every period.';
    END IF;
    IF unknown IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = format('unknown stream option "%s"', unknown),
            HINT = 'A stream takes only {"neighbours": "replace_one" | "add_remove"}.';
    END IF;
    -- A unit with many rows (events) counts in its first max_groups_per_unit
    -- periods, max_rows_per_group rows in each (src/core/hierarchy/stream_units.hpp).
    PERFORM dp.check_privacy_unit(privacy_unit, bounds);
    neighbours := coalesce(options->>'neighbours', 'replace_one');
    -- Validates epsilon, delta, horizon, neighbours and bounds before anything is created.
    variance := dp.cascade_stream_variance(epsilon, delta, horizon, neighbours, bounds);
END
$$;

COMMENT ON FUNCTION dp.check_stream_registration(text, text, text, text, float8, float8, integer, jsonb, text, jsonb) IS
'Internal: refuses a governed stream''s registration that names no budget, lacks an argument, takes an unknown '
'option or bounds without a unit; returns its node variance and neighbouring relation.';
REVOKE EXECUTE ON FUNCTION dp.check_stream_registration(text, text, text, text, float8, float8, integer, jsonb, text, jsonb) FROM PUBLIC;

-- A stream's release table: the period, then a float8 count.
CREATE OR REPLACE FUNCTION dp.check_stream_table(created regclass) RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF (SELECT array_agg(atttypid ORDER BY attnum) FROM pg_attribute
        WHERE attrelid = created AND attnum > 0 AND NOT attisdropped) IS DISTINCT FROM
       ARRAY[(SELECT atttypid FROM pg_attribute WHERE attrelid = created AND attnum = 1), 'float8'::regtype::oid] THEN
        RAISE EXCEPTION USING ERRCODE = '42804', MESSAGE = 'a stream has two columns: the period, then a float8 count',
            HINT = 'E.g. columns => ''day date, n float8''.';
    END IF;
END
$$;

COMMENT ON FUNCTION dp.check_stream_table(regclass) IS
'Internal: refuses (42804) a stream''s release table that is not a period column and a float8 count.';
REVOKE EXECUTE ON FUNCTION dp.check_stream_table(regclass) FROM PUBLIC;

CREATE OR REPLACE FUNCTION dp.register_stream(
    release  text,
    dataset  text,
    source   text,
    columns  text,
    epsilon  float8,
    delta    float8,
    horizon  integer DEFAULT 20,
    options  jsonb   DEFAULT '{}',
    privacy_unit text DEFAULT NULL,
    bounds   jsonb   DEFAULT NULL
) RETURNS regclass
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    checked record;
    created pg_catalog.regclass;
BEGIN
    checked := dp.check_stream_registration(dataset, release, source, columns, epsilon, delta, horizon, options,
                                            privacy_unit, bounds);
    PERFORM dp.check_source_protected(source);
    created := dp.create_release_table(release, columns);
    PERFORM dp.check_stream_table(created);
    INSERT INTO dp.releases (release, dataset, owner, search_path, source, mechanism, epsilon, delta, options,
                             source_view, table_oid, privacy_unit, bounds)
    VALUES (created, dataset, current_user::pg_catalog.regrole, dp.pinned_search_path(), source, 'cascade_stream',
            epsilon, delta, pg_catalog.jsonb_build_object('neighbours', checked.neighbours, 'horizon', horizon),
            dp.pin_query(created, 'source', source), created::pg_catalog.oid, privacy_unit, bounds);
    INSERT INTO dp.streams (release, horizon, neighbours, variance)
    VALUES (created, horizon, checked.neighbours, checked.variance);
    RETURN created;
END
$$;

COMMENT ON FUNCTION dp.register_stream(text, text, text, text, float8, float8, integer, jsonb, text, jsonb) IS
'Registers a governed stream: a release of a growing time series. source returns one period column, then '
'the count (e.g. SELECT day, count(*) FROM events GROUP BY 1); columns like ''day date, n float8''. Each '
'dp.refresh_release appends the new periods without redrawing the released ones. The first draw charges '
'(epsilon, delta) once for at most 2^horizon periods; later appends charge nothing. With privacy_unit and '
'bounds the source returns the period, then the unit (one row per event): a unit counts in its first '
'max_groups_per_unit periods, with at most max_rows_per_group rows in each.';
REVOKE EXECUTE ON FUNCTION dp.register_stream(text, text, text, text, float8, float8, integer, jsonb, text, jsonb) FROM PUBLIC;

CREATE OR REPLACE FUNCTION dp.cascade_stream_variance(epsilon float8, delta float8, horizon integer, neighbours text,
                                                      bounds jsonb DEFAULT NULL)
RETURNS float8
AS 'MODULE_PATHNAME', 'dp_cascade_stream_variance'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

COMMENT ON FUNCTION dp.cascade_stream_variance(float8, float8, integer, text, jsonb) IS
'The node noise variance that makes a stream of up to 2^horizon periods (epsilon, delta)-DP in total '
'(analytic Gaussian on the depth-horizon cascade; neighbours replace_one or add_remove). bounds: a privacy '
'unit''s (max_groups_per_unit periods, max_rows_per_group rows in each); NULL for one row per person. '
'NULL if any other argument is NULL.';

CREATE OR REPLACE FUNCTION dp.cascade_stream_range_variance(variance float8, first_period bigint, last_period bigint)
RETURNS float8
AS 'MODULE_PATHNAME', 'dp_cascade_stream_range_variance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dp.cascade_stream_range_variance(float8, bigint, bigint) IS
'Noise variance of the sum of periods first_period..last_period (0-based) of a stream of node variance variance.';

CREATE OR REPLACE FUNCTION dp.stream_append_as_owner(
    release     regclass,
    owner       regrole,
    search_path text,
    source      text,
    past_keys   text[],
    state       text,
    variance    float8,
    horizon     integer,
    privacy_unit text,
    bounds      jsonb,
    OUT appended bigint,
    OUT last_key text,
    OUT new_state text
)
AS 'MODULE_PATHNAME', 'dp_stream_append_as_owner'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION dp.stream_append_as_owner(regclass, regrole, text, text, text[], text, float8, integer, text, jsonb) IS
'Internal: runs a stream''s source as owner under search_path, checks its released periods are unchanged '
'(with a privacy unit: that they count the same units), appends the new periods to the release table and '
'returns the new secret state. Called only by dp.refresh_release.';
REVOKE EXECUTE ON FUNCTION dp.stream_append_as_owner(regclass, regrole, text, text, text[], text, float8, integer, text, jsonb) FROM PUBLIC;

CREATE OR REPLACE VIEW dp.stream_parameters WITH (security_barrier) AS
SELECT s.release, s.horizon, s.neighbours, s.variance, s.released, s.last_key
FROM dp.streams s JOIN dp.visible_releases v ON v.release = s.release;

COMMENT ON VIEW dp.stream_parameters IS
'The public noise parameters of the governed streams the current role owns, reads or refreshes (never their '
'secret state).';
GRANT SELECT ON dp.stream_parameters TO PUBLIC;

CREATE OR REPLACE FUNCTION dp.stream_range_variance(release regclass, first_period bigint, last_period bigint)
RETURNS float8
LANGUAGE plpgsql STABLE STRICT SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    s dp.stream_parameters;
BEGIN
    SELECT * INTO s FROM dp.stream_parameters p WHERE p.release = stream_range_variance.release;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704', MESSAGE = format('%s is not a governed stream', release),
            HINT = 'Only streams you own, may read or may refresh are shown.';
    END IF;
    IF last_period >= s.released THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('period %s of %s is not released', last_period, release),
            DETAIL = format('%s periods are released, numbered from 0 in period order.', s.released);
    END IF;
    RETURN dp.cascade_stream_range_variance(s.variance, first_period, last_period);
END
$$;

COMMENT ON FUNCTION dp.stream_range_variance(regclass, bigint, bigint) IS
'Exact noise variance of the sum of a stream''s released periods first_period..last_period (0-based, in '
'period order), from its public noise parameters.';

-- A stream's steps of a governed draw (src/pg/draw_worker.c runs the
-- draw; dp.check_draw and dp.store_draw hand a stream's steps to these).

-- What one draw of a stream costs: its first draw pays its epsilon and
-- delta once, for its whole horizon; its appends nothing more.
CREATE OR REPLACE FUNCTION dp.stream_draw_cost(release regclass, OUT cost_epsilon numeric, OUT cost_delta numeric)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    SELECT CASE WHEN s.state IS NOT NULL THEN 0 ELSE r.epsilon::numeric END,
           CASE WHEN s.state IS NOT NULL THEN 0 ELSE coalesce(r.delta, 0)::numeric END
    INTO cost_epsilon, cost_delta
    FROM dp.streams s JOIN dp.releases r ON r.release = s.release
    WHERE s.release = stream_draw_cost.release;
END
$$;

COMMENT ON FUNCTION dp.stream_draw_cost(regclass) IS
'Internal: what one draw of a governed stream costs (its first draw pays for its horizon; appends cost nothing).';
REVOKE EXECUTE ON FUNCTION dp.stream_draw_cost(regclass) FROM PUBLIC;

-- The second transaction of a stream's draw (dp.store_draw has checked the
-- objects and built the source query): the new periods appended, the
-- stream's state kept, the audit row completed with the stream's law.
CREATE OR REPLACE FUNCTION dp.store_stream_draw(release regclass, draw_id bigint, source_query text)
RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r dp.releases;
    s dp.streams;
    past text[];
    added record;
BEGIN
    SELECT * INTO r FROM dp.releases WHERE dp.releases.release = store_stream_draw.release;
    SELECT * INTO s FROM dp.streams WHERE dp.streams.release = r.release FOR UPDATE;
    -- The released periods, in period order, for the source's past to be checked against.
    EXECUTE format('SELECT coalesce(array_agg(%1$I::text ORDER BY %1$I), ''{}'') FROM %2$s',
                   (SELECT attname FROM pg_attribute WHERE attrelid = release AND attnum = 1), release)
        INTO past;
    SELECT * INTO added
    FROM dp.stream_append_as_owner(release, r.owner, r.search_path, source_query,
                                   past, s.state, s.variance, s.horizon, r.privacy_unit, r.bounds);
    UPDATE dp.streams SET released = released + added.appended,
                          last_key = coalesce(added.last_key, dp.streams.last_key), state = added.new_state
    WHERE dp.streams.release = r.release;
    UPDATE dp.draws d
    SET cells = added.appended,
        noise_law = jsonb_build_object('mechanism', 'cascade_stream', 'error_law', 'gaussian_stream',
                                       'variance', s.variance,
                                       'horizon', s.horizon, 'neighbours', s.neighbours,
                                       'first_period', s.released, 'periods', added.appended)
                    || CASE WHEN r.privacy_unit IS NOT NULL
                            THEN jsonb_build_object('privacy_unit', r.privacy_unit, 'bounds', r.bounds)
                            ELSE '{}' END,
        note = CASE WHEN s.state IS NULL
                    THEN format('first draw of the stream: charges its epsilon and delta once for up to 2^%s periods',
                                s.horizon)
                    ELSE format('append: covered by the first draw''s charge (%s periods released of at most 2^%s)',
                                s.released + added.appended, s.horizon) END
    WHERE d.draw_id = store_stream_draw.draw_id;
END
$$;

COMMENT ON FUNCTION dp.store_stream_draw(regclass, bigint, text) IS
'Internal: appends a governed stream''s new periods in a draw charged by dp.charge_draw, keeps its state, and '
'completes its audit row with the stream''s law.';
REVOKE EXECUTE ON FUNCTION dp.store_stream_draw(regclass, bigint, text) FROM PUBLIC;
