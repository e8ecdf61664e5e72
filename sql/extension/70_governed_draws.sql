-- Drawing a governed release: dp.refresh_release and dp.draw (C,
-- src/pg/refresh_worker.c) run every draw in a background worker whose own
-- transaction checks the entitlement, charges the budget, stores the draw
-- and audits it, and commits before the caller reads anything.

-- The release table's columns as a column definition list.
CREATE OR REPLACE FUNCTION dp.release_columns(release regclass) RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
    SELECT string_agg(format('%I %s', attname, format_type(atttypid, atttypmod)), ', ' ORDER BY attnum)
    FROM pg_attribute
    WHERE attrelid = release AND attnum > 0 AND NOT attisdropped
$$;

COMMENT ON FUNCTION dp.release_columns(regclass) IS
'A table''s columns as a column definition list (name type, ...).';

CREATE OR REPLACE FUNCTION dp.privatize_as_owner(
    owner       regrole,
    search_path text,
    source      text,
    epsilon     float8,
    mechanism   text,
    delta       float8,
    margins     text[],
    domain      text,
    options     jsonb,
    hierarchy   text[]
) RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dp_privatize_as_owner'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION dp.privatize_as_owner(regrole, text, text, float8, text, float8, text[], text, jsonb, text[]) IS
'Internal: dp.privatize with the source run as owner under search_path. Called only by dp.refresh_release.';
REVOKE EXECUTE ON FUNCTION dp.privatize_as_owner(regrole, text, text, float8, text, float8, text[], text, jsonb, text[]) FROM PUBLIC;

CREATE OR REPLACE FUNCTION dp.cascade_stream_variance(epsilon float8, delta float8, horizon integer, neighbours text)
RETURNS float8
AS 'MODULE_PATHNAME', 'dp_cascade_stream_variance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dp.cascade_stream_variance(float8, float8, integer, text) IS
'The node noise variance that makes a stream of up to 2^horizon periods (epsilon, delta)-DP in total '
'(analytic Gaussian on the depth-horizon cascade; neighbours replace_one or add_remove).';

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
    OUT appended bigint,
    OUT last_key text,
    OUT new_state text
)
AS 'MODULE_PATHNAME', 'dp_stream_append_as_owner'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION dp.stream_append_as_owner(regclass, regrole, text, text, text[], text, float8, integer) IS
'Internal: runs a stream''s source as owner under search_path, checks its released periods are unchanged, '
'appends the new periods to the release table and returns the new secret state. Called only by '
'dp.refresh_release.';
REVOKE EXECUTE ON FUNCTION dp.stream_append_as_owner(regclass, regrole, text, text, text[], text, float8, integer) FROM PUBLIC;

-- Runs only inside a draw worker (src/pg/refresh_worker.c), connected as the
-- catalog's owner, in a transaction that commits before the caller reads.
CREATE OR REPLACE FUNCTION dp.draw_in_worker(release regclass, caller regrole, session_role regrole, may_restore boolean,
                                  OUT draw_id bigint, OUT release_owner regrole)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r dp.releases;
    b dp.budgets;
    s dp.streams;
    is_stream boolean;
    cost_epsilon numeric;
    cost_delta numeric;
    cells bigint;
    past text[];
    added record;
BEGIN
    SELECT * INTO r FROM dp.releases WHERE dp.releases.release = draw_in_worker.release;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704', MESSAGE = format('%s is not a governed release', release);
    END IF;
    IF NOT pg_has_role(caller, r.owner, 'MEMBER')
       AND NOT EXISTS (SELECT FROM dp.refreshers f
                       WHERE f.release = r.release AND pg_has_role(caller, f.refresher, 'MEMBER')) THEN
        RAISE EXCEPTION USING ERRCODE = '42501',
            MESSAGE = format('role %s may not refresh %s', caller, release),
            HINT = format('An administrator can allow it: SELECT dp.grant_refresh(%L, %L).', release::text, caller);
    END IF;
    release_owner := r.owner;
    -- A restore recreates the release table (a new oid) and copies its rows
    -- and the catalog: the REFRESH MATERIALIZED VIEW it replays must return
    -- the restored draw, not draw and charge again. No session can make a
    -- table's oid differ from the one recorded, so this cannot be faked.
    IF may_restore AND r.table_oid IS DISTINCT FROM r.release::oid THEN
        UPDATE dp.releases SET table_oid = r.release::oid WHERE dp.releases.release = r.release;
        EXECUTE format('SELECT count(*) FROM %s', r.release) INTO cells;
        INSERT INTO dp.draws (release, dataset, drawn_by, drawn_as, mechanism, epsilon, delta, margins, options,
                              noise_law, cells, note)
        VALUES (r.release::text, r.dataset, session_role::name, caller::name, r.mechanism, 0, 0, r.margins,
                r.options,
                coalesce((SELECT d.noise_law FROM dp.draws d WHERE d.release = r.release::text
                          ORDER BY d.draw_id DESC LIMIT 1), '{}'),
                cells, 'restored: the restored draw was returned; nothing was drawn or charged')
        RETURNING dp.draws.draw_id INTO draw_in_worker.draw_id;
        RETURN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_class c WHERE c.oid = r.source_view) THEN
        RAISE EXCEPTION USING ERRCODE = '55000',
            MESSAGE = format('the registered source of %s is not pinned', release),
            DETAIL = 'A governed source is kept as a view in schema dp; this one was dropped, or the release was '
                     'registered before 0.4.0 and restored from a dump.',
            HINT = format('An administrator can pin it: SELECT dp.pin_registered_source(%L); or drop the release '
                          'and register it again.', release::text);
    END IF;
    -- The row lock serializes every draw against this dataset's budget.
    SELECT * INTO b FROM dp.budgets WHERE dp.budgets.dataset = r.dataset FOR UPDATE;
    -- A stream's row lock serializes its appends: two concurrent refreshes
    -- must not both draw the same new periods from the same state.
    SELECT * INTO s FROM dp.streams WHERE dp.streams.release = r.release FOR UPDATE;
    is_stream := FOUND;
    -- A stream pays once, at its first draw, for its whole horizon.
    cost_epsilon := CASE WHEN is_stream AND s.state IS NOT NULL THEN 0 ELSE r.epsilon::numeric END;
    cost_delta := CASE WHEN is_stream AND s.state IS NOT NULL THEN 0 ELSE coalesce(r.delta, 0)::numeric END;
    IF b.epsilon_spent + cost_epsilon > b.epsilon_total OR b.delta_spent + cost_delta > b.delta_total THEN
        RAISE EXCEPTION USING ERRCODE = '53Z01',
            MESSAGE = format('privacy budget of dataset "%s" is exhausted', r.dataset),
            DETAIL = format('A draw of %s costs epsilon %s, delta %s; the budget has epsilon %s, delta %s left.',
                            release, cost_epsilon, cost_delta, b.epsilon_total - b.epsilon_spent,
                            b.delta_total - b.delta_spent),
            HINT = 'The previous draw stays readable. An administrator can raise the budget with dp.set_budget.';
    END IF;
    IF is_stream THEN
        -- The released periods, in period order, for the source's past to be checked against.
        EXECUTE format('SELECT coalesce(array_agg(%1$I::text ORDER BY %1$I), ''{}'') FROM %2$s',
                       (SELECT attname FROM pg_attribute WHERE attrelid = release AND attnum = 1), release)
            INTO past;
        SELECT * INTO added
        FROM dp.stream_append_as_owner(release, r.owner, r.search_path, format('SELECT * FROM %s', r.source_view),
                                       past, s.state, s.variance, s.horizon);
        UPDATE dp.streams SET released = released + added.appended,
                              last_key = coalesce(added.last_key, dp.streams.last_key), state = added.new_state
        WHERE dp.streams.release = r.release;
        cells := added.appended;
    ELSE
        EXECUTE format('DELETE FROM %s', release);
        EXECUTE format('INSERT INTO %s SELECT * FROM dp.privatize_as_owner($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) AS t(%s)',
                       release, dp.release_columns(release))
            USING r.owner, r.search_path, format('SELECT * FROM %s', r.source_view), r.epsilon, r.mechanism, r.delta,
                  r.margins, CASE WHEN r.domain_view IS NOT NULL THEN format('SELECT * FROM %s', r.domain_view) END,
                  r.options, r.hierarchy;
        GET DIAGNOSTICS cells = ROW_COUNT;
    END IF;
    UPDATE dp.budgets SET epsilon_spent = epsilon_spent + cost_epsilon, delta_spent = delta_spent + cost_delta
    WHERE dp.budgets.dataset = r.dataset;
    UPDATE dp.releases SET table_oid = r.release::oid WHERE dp.releases.release = r.release;
    INSERT INTO dp.draws (release, dataset, drawn_by, drawn_as, mechanism, epsilon, delta, margins, options,
                          noise_law, cells, note)
    VALUES (release::text, r.dataset, session_role::name, caller::name, r.mechanism,
            CASE WHEN is_stream THEN cost_epsilon::float8 ELSE r.epsilon END,
            CASE WHEN is_stream THEN cost_delta::float8 ELSE r.delta END,
            r.margins, r.options,
            CASE WHEN is_stream
                 THEN jsonb_build_object('mechanism', 'cascade_stream', 'variance', s.variance,
                                         'horizon', s.horizon, 'neighbours', s.neighbours,
                                         'first_period', s.released, 'periods', cells)
                 ELSE dp.last_release() END,
            cells,
            CASE WHEN NOT is_stream THEN NULL
                 WHEN s.state IS NULL
                 THEN format('first draw of the stream: charges its epsilon and delta once for up to 2^%s periods',
                             s.horizon)
                 ELSE format('append: covered by the first draw''s charge (%s periods released of at most 2^%s)',
                             s.released + cells, s.horizon) END)
    RETURNING dp.draws.draw_id INTO draw_in_worker.draw_id;
END
$$;

COMMENT ON FUNCTION dp.draw_in_worker(regclass, regrole, regrole, boolean) IS
'Internal: one governed draw (entitlement, budget, draw, charge, audit), run by dp.refresh_release and dp.draw '
'in a background worker whose transaction commits before the caller reads the draw.';
REVOKE EXECUTE ON FUNCTION dp.draw_in_worker(regclass, regrole, regrole, boolean) FROM PUBLIC;

CREATE OR REPLACE FUNCTION dp.refresh_release(release regclass) RETURNS bigint
AS 'MODULE_PATHNAME', 'dp_refresh_release'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION dp.refresh_release(regclass) IS
'Draws a new release into the release''s table and charges its dataset''s budget, in a transaction of its own '
'that commits before this call returns: rolling back the caller''s transaction does not undo the charge. '
'A stream instead appends its new periods (the released ones are never redrawn); only its first draw charges. '
'SQLSTATE 53Z01 when the budget would be exceeded (the previous draw stays). Returns the draw''s audit id.';
REVOKE EXECUTE ON FUNCTION dp.refresh_release(regclass) FROM PUBLIC;

-- For REFRESH MATERIALIZED VIEW: a new draw, returned with the release's own
-- row type, e.g. CREATE MATERIALIZED VIEW v AS SELECT * FROM dp.draw(NULL::state_counts).
CREATE OR REPLACE FUNCTION dp.draw(release anyelement) RETURNS SETOF anyelement
AS 'MODULE_PATHNAME', 'dp_draw'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION dp.draw(anyelement) IS
'Draws a new release (charging the budget, like dp.refresh_release) and returns its rows. '
'For materialized views: CREATE MATERIALIZED VIEW v AS SELECT * FROM dp.draw(NULL::release_table). '
'The first call after a restore (the release table was recreated) returns the restored draw without drawing.';
REVOKE EXECUTE ON FUNCTION dp.draw(anyelement) FROM PUBLIC;
