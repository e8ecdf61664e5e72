-- Drawing a governed release: dp.refresh_release and dp.draw (C,
-- src/pg/draw_functions.c) run every draw in a background worker. Its first
-- transaction checks the entitlement and charges the budget; only then, in a
-- second one, is the draw made, stored and audited; both commit before the
-- caller reads anything, and a draw that fails once charged stays charged.

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

-- The request's arguments as dp.privatize's (src/sql/request_arguments.sql),
-- with no defaults: dp.store_draw passes them all.
CREATE OR REPLACE FUNCTION dp.privatize_as_owner(
    owner       regrole,
    search_path text,
    @request_arguments_without_defaults(source, epsilon, mechanism, delta, margins, domain, options, hierarchy, privacy_unit, bounds)
) RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dp_privatize_as_owner'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION dp.privatize_as_owner IS
'Internal: dp.privatize with the source run as owner under search_path. Called only by dp.refresh_release.';
REVOKE EXECUTE ON FUNCTION dp.privatize_as_owner FROM PUBLIC;

-- Whether caller may draw release now, and what one draw costs; raises
-- what refuses it (42501, 55000, 53Z01). The draw's caller runs it as the
-- catalog's owner before it starts a worker; the worker again, under the
-- budget's row lock, before it charges. A role that may not draw a release
-- learns nothing of it: the same 42501 whether it is registered or not.
CREATE OR REPLACE FUNCTION dp.check_draw(release regclass, caller regrole, may_restore boolean,
                                         OUT owner regrole, OUT cost_epsilon numeric, OUT cost_delta numeric,
                                         OUT restore boolean)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r dp.releases;
    b dp.budgets;
BEGIN
    SELECT * INTO r FROM dp.releases WHERE dp.releases.release = check_draw.release;
    IF NOT FOUND AND pg_has_role(caller, (SELECT c.relowner FROM pg_class c WHERE c.oid = check_draw.release), 'MEMBER') THEN
        RAISE EXCEPTION USING ERRCODE = '42704', MESSAGE = format('%s is not a governed release', release);
    END IF;
    IF NOT FOUND OR (NOT pg_has_role(caller, r.owner, 'MEMBER')
                     AND NOT EXISTS (SELECT FROM dp.refreshers f
                                     WHERE f.release = r.release AND pg_has_role(caller, f.refresher, 'MEMBER'))) THEN
        RAISE EXCEPTION USING ERRCODE = '42501',
            MESSAGE = format('role %s may not draw %s', caller, release),
            HINT = 'An administrator can allow it for a governed release: SELECT dp.grant_refresh(release, role).';
    END IF;
    owner := r.owner;
    -- A restore recreates the release table (a new oid) and copies its rows
    -- and the catalog: the REFRESH MATERIALIZED VIEW it replays must return
    -- the restored draw, not draw and charge again. No session can make a
    -- table's oid differ from the one recorded, so this cannot be faked.
    restore := may_restore AND r.table_oid IS DISTINCT FROM r.release::oid;
    IF restore THEN
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
    IF EXISTS (SELECT FROM dp.streams s WHERE s.release = r.release) THEN
        SELECT c.cost_epsilon, c.cost_delta INTO cost_epsilon, cost_delta FROM dp.stream_draw_cost(r.release) c;
    ELSE
        cost_epsilon := r.epsilon::numeric;
        cost_delta := coalesce(r.delta, 0)::numeric;
    END IF;
    SELECT * INTO b FROM dp.budgets WHERE dp.budgets.dataset = r.dataset;
    IF b.epsilon_spent + cost_epsilon > b.epsilon_total OR b.delta_spent + cost_delta > b.delta_total THEN
        RAISE EXCEPTION USING ERRCODE = '53Z01',
            MESSAGE = format('privacy budget of dataset "%s" is exhausted', r.dataset),
            DETAIL = format('A draw of %s costs epsilon %s, delta %s; the budget has epsilon %s, delta %s left.',
                            release, cost_epsilon, cost_delta, b.epsilon_total - b.epsilon_spent,
                            b.delta_total - b.delta_spent),
            HINT = 'The previous draw stays readable. An administrator can raise the budget with dp.set_budget.';
    END IF;
END
$$;

COMMENT ON FUNCTION dp.check_draw(regclass, regrole, boolean) IS
'Internal: whether a role may draw a governed release now and what the draw costs (42501, 55000, 53Z01 if not).';
REVOKE EXECUTE ON FUNCTION dp.check_draw(regclass, regrole, boolean) FROM PUBLIC;

-- The first transaction of a draw (src/pg/draw_worker.c): the charge,
-- committed before any noise exists, so a draw that fails or is cancelled
-- later stays paid; its audit row says so until dp.store_draw completes it.
-- The worker holds a lock on the release table across both transactions, so
-- draws of one release never overlap.
CREATE OR REPLACE FUNCTION dp.charge_draw(release regclass, caller regrole, session_role regrole, may_restore boolean,
                                          OUT draw_id bigint, OUT release_owner regrole, OUT restored boolean)
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r dp.releases;
    checked record;
    cells bigint;
BEGIN
    SELECT * INTO r FROM dp.releases WHERE dp.releases.release = charge_draw.release;
    -- The row lock serializes the charges against this dataset's budget.
    PERFORM FROM dp.budgets WHERE dp.budgets.dataset = r.dataset FOR UPDATE;
    checked := dp.check_draw(release, caller, may_restore);
    release_owner := checked.owner;
    restored := checked.restore;
    -- Refused before it is charged: what was changed under the release, and
    -- a registration this library no longer accepts (one made by an earlier
    -- version with an option it now refuses: register it again without).
    IF NOT restored THEN
        PERFORM dp.check_release_objects(r.release, r.owner, r.search_path, r.source_view, r.domain_view);
        IF NOT EXISTS (SELECT FROM dp.streams s WHERE s.release = r.release) THEN
            PERFORM dp.check_request(r.mechanism, r.epsilon, r.delta, r.margins, r.options, r.hierarchy,
                                     r.privacy_unit, r.bounds);
        END IF;
    END IF;
    IF restored THEN
        UPDATE dp.releases SET table_oid = r.release::oid WHERE dp.releases.release = r.release;
        EXECUTE format('SELECT count(*) FROM %s', r.release) INTO cells;
        INSERT INTO dp.draws (release, dataset, drawn_by, drawn_as, mechanism, epsilon, delta, margins, options,
                              noise_law, cells, note, release_id)
        VALUES (r.release::text, r.dataset, session_role::name, caller::name, r.mechanism, 0, 0, r.margins,
                r.options,
                coalesce((SELECT d.noise_law FROM dp.draws d WHERE d.release_id = r.release_id
                          ORDER BY d.draw_id DESC LIMIT 1), '{}'),
                cells, 'restored: the restored draw was returned; nothing was drawn or charged', r.release_id)
        RETURNING dp.draws.draw_id INTO charge_draw.draw_id;
        RETURN;
    END IF;
    UPDATE dp.budgets SET epsilon_spent = epsilon_spent + checked.cost_epsilon,
                          delta_spent = delta_spent + checked.cost_delta
    WHERE dp.budgets.dataset = r.dataset;
    INSERT INTO dp.draws (release, dataset, drawn_by, drawn_as, mechanism, epsilon, delta, margins, options,
                          noise_law, cells, note, release_id)
    -- Audited at what it cost (a stream's appends: 0 once its first draw paid).
    VALUES (release::text, r.dataset, session_role::name, caller::name, r.mechanism,
            checked.cost_epsilon::float8, CASE WHEN r.delta IS NULL AND checked.cost_delta = 0 THEN NULL
                                               ELSE checked.cost_delta::float8 END,
            r.margins, r.options, '{}', 0, 'charged; the draw has not completed', r.release_id)
    RETURNING dp.draws.draw_id INTO charge_draw.draw_id;
END
$$;

COMMENT ON FUNCTION dp.charge_draw(regclass, regrole, regrole, boolean) IS
'Internal: the charge of a governed draw (entitlement, budget, audit), committed before the draw is made.';
REVOKE EXECUTE ON FUNCTION dp.charge_draw(regclass, regrole, regrole, boolean) FROM PUBLIC;

-- The second transaction of a draw: checks that nothing the draw uses was
-- changed under it, draws, stores and completes the audit row.
CREATE OR REPLACE FUNCTION dp.store_draw(release regclass, draw_id bigint)
RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r dp.releases;
    n_cells bigint;
    source_query text;
BEGIN
    SELECT * INTO r FROM dp.releases WHERE dp.releases.release = store_draw.release;
    PERFORM dp.check_release_objects(r.release, r.owner, r.search_path, r.source_view, r.domain_view);
    -- Once charged, a draw fails only for what the registration fixed, not
    -- for what the data holds (the refresher would learn it): rows without a
    -- unit are left out, as are rows outside the domain.
    source_query := format('SELECT * FROM %s', r.source_view);
    IF EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = r.source_view AND a.attname = r.privacy_unit
                                                AND NOT a.attisdropped) THEN
        source_query := format('SELECT * FROM %s s WHERE s.%I IS NOT NULL', r.source_view, r.privacy_unit);
    END IF;
    UPDATE dp.releases SET table_oid = r.release::oid WHERE dp.releases.release = r.release;
    IF EXISTS (SELECT FROM dp.streams s WHERE s.release = r.release) THEN
        PERFORM dp.store_stream_draw(release, draw_id, source_query);
        RETURN;
    END IF;
    EXECUTE format('DELETE FROM %s', release);
    EXECUTE format('INSERT INTO %s SELECT * FROM dp.privatize_as_owner($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) AS t(%s)',
                   release, dp.release_columns(release))
        USING r.owner, r.search_path, source_query, r.epsilon, r.mechanism, r.delta,
              r.margins, CASE WHEN r.domain_view IS NOT NULL THEN format('SELECT * FROM %s', r.domain_view) END,
              CASE WHEN r.domain_view IS NOT NULL
                   THEN r.options || jsonb_build_object('rows_outside_domain', 'drop') ELSE r.options END,
              r.hierarchy, r.privacy_unit, r.bounds;
    GET DIAGNOSTICS n_cells = ROW_COUNT;
    UPDATE dp.draws d SET cells = n_cells, noise_law = dp.last_release(), note = NULL
    WHERE d.draw_id = store_draw.draw_id;
END
$$;

COMMENT ON FUNCTION dp.store_draw(regclass, bigint) IS
'Internal: makes and stores a governed draw charged by dp.charge_draw, and completes its audit row.';
REVOKE EXECUTE ON FUNCTION dp.store_draw(regclass, bigint) FROM PUBLIC;

-- After a draw failed once charged: the charge stays, the audit row says why.
CREATE OR REPLACE FUNCTION dp.note_failed_draw(draw_id bigint, sqlstate text)
RETURNS void
LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
    UPDATE dp.draws d SET note = format('failed after its charge (SQLSTATE %s): nothing was stored, the charge stays',
                                        sqlstate)
    WHERE d.draw_id = note_failed_draw.draw_id
$$;

COMMENT ON FUNCTION dp.note_failed_draw(bigint, text) IS
'Internal: records in the audit log that a charged draw failed before it was stored.';
REVOKE EXECUTE ON FUNCTION dp.note_failed_draw(bigint, text) FROM PUBLIC;

-- What a draw may use, checked at every draw (src/pg/draw_checks.c): the
-- release table, the pinned views and the search_path as registered, and
-- every object the source uses, with its owner's rights.
CREATE OR REPLACE FUNCTION dp.check_release_objects(release regclass, owner regrole, search_path text,
                                                    source_view regclass, domain_view regclass)
RETURNS void
AS 'MODULE_PATHNAME', 'dp_check_release_objects'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION dp.check_release_objects(regclass, regrole, text, regclass, regclass) IS
'Internal: refuses a draw (42501) whose release table, pinned views, search_path or source objects could run '
'or show code or data of a role other than the release''s owner and superusers.';
REVOKE EXECUTE ON FUNCTION dp.check_release_objects(regclass, regrole, text, regclass, regclass) FROM PUBLIC;

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
