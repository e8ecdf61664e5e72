-- invariant_dp 0.3.0 -> 0.4.0: governed releases that hold under attack.
--
-- A refresher (a role granted dp.grant_refresh, the role a pg_cron job runs
-- as) could redirect the stored source through temporary objects or a
-- schema named like its owner, read any table through dp.draw, and draw
-- without paying by rolling back. Now:
-- * a governed source (and domain) is stored as a view in schema dp when it
--   is registered: every object it uses is bound by identity then, and none
--   can be dropped while it is registered; it may not call volatile
--   functions nor use another role's functions, views or domains;
-- * every draw runs in a background worker whose own transaction charges the
--   budget, stores the draw and audits it, and commits before the caller
--   reads anything (dp.refresh_release and dp.draw are C functions now);
--   only registered releases are drawn, for entitled roles only;
-- * a restore is recognised by the release table's identity (its oid),
--   which no session can fake, instead of application_name;
-- * costs and stream parameters are shown only to roles that own, read or
--   refresh the release (views dp.release_costs, dp.stream_parameters);
-- * budgets are finite, column lists are column lists only.

\echo Use "ALTER EXTENSION invariant_dp UPDATE TO '0.4.0'" to load this file. \quit

-- Catalog ----------------------------------------------------------------------

ALTER TABLE dp.releases ADD COLUMN source_view regclass, ADD COLUMN domain_view regclass, ADD COLUMN table_oid oid;
COMMENT ON COLUMN dp.releases.source_view IS 'The source, pinned as a view in schema dp when registered; draws read it.';
COMMENT ON COLUMN dp.releases.domain_view IS 'The domain query, pinned like the source (NULL: none).';
COMMENT ON COLUMN dp.releases.table_oid IS
'The release table''s oid at its last draw: a restore recreates the table, and the next dp.draw returns the '
'restored draw instead of drawing.';
COMMENT ON COLUMN dp.releases.search_path IS
'The schemas the registering role''s search_path resolved to then, pg_temp last: where functions the source calls '
'resolve names at each draw.';

-- A NaN budget compared above every number and was never exhausted: such a
-- budget (only an attack could have stored one) is closed, with a warning.
DO $$
BEGIN
    IF EXISTS (SELECT FROM dp.budgets WHERE NOT (epsilon_total < 'Infinity')) THEN
        RAISE WARNING 'closing budgets with a non-finite epsilon: %',
            (SELECT string_agg(dataset, ', ') FROM dp.budgets WHERE NOT (epsilon_total < 'Infinity'));
        UPDATE dp.budgets SET epsilon_total = epsilon_spent + 0 WHERE NOT (epsilon_total < 'Infinity');
        UPDATE dp.budgets SET epsilon_total = 1e-300 WHERE epsilon_total = 0;
    END IF;
END
$$;
ALTER TABLE dp.budgets ADD CONSTRAINT budget_finite
    CHECK (epsilon_total < 'Infinity' AND epsilon_spent < 'Infinity' AND delta_spent < 'Infinity');


-- ==== registration helpers ====

CREATE FUNCTION dp.check_source_objects(source text) RETURNS void
AS 'MODULE_PATHNAME', 'dp_check_source_objects'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dp.check_source_objects(text) IS
'Raises 42501 if a query calls a volatile function, or uses a function, view or domain owned by a role other '
'than the caller or a superuser. The query is analysed, never run.';

CREATE FUNCTION dp.column_list(columns text) RETURNS text
AS 'MODULE_PATHNAME', 'dp_column_list'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dp.column_list(text) IS
'A column definition list (name type, ...) parsed as exactly that and rebuilt with quoted names; raises 22023 '
'for anything else (defaults, constraints, table clauses, more statements) and 42501 for a type owned by '
'another role than the caller or a superuser.';

-- The caller's schemas as they resolve now ("$user" expanded, schemas that
-- do not exist left out, no temporary schema), then pg_temp explicitly last:
-- the schemas a stored source's functions resolve names in at every draw.
CREATE FUNCTION dp.pinned_search_path() RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT concat_ws(', ', string_agg(quote_ident(s), ', ' ORDER BY i), 'pg_temp')
    FROM unnest(pg_catalog.current_schemas(false)) WITH ORDINALITY AS a(s, i)
    WHERE s NOT LIKE 'pg\_temp\_%' AND s NOT LIKE 'pg\_toast\_temp\_%'
$$;

COMMENT ON FUNCTION dp.pinned_search_path() IS
'Internal: the caller''s effective schemas ("$user" expanded, no temporary schema), then pg_temp last.';

-- A governed query stored as a view: its relations, functions, operators
-- and types are bound by identity when it is registered, so no object
-- created later (a temporary view, a schema named like the owner, an
-- overloading function) can redirect it, and none it uses can be dropped
-- while it is registered.
CREATE FUNCTION dp.pin_query(release regclass, kind text, query text) RETURNS regclass
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    view_name text := format('%s_of_%s', kind, release::oid);
BEGIN
    EXECUTE format('CREATE VIEW dp.%I AS %s', view_name, query);
    EXECUTE format('REVOKE ALL ON dp.%I FROM PUBLIC', view_name);
    EXECUTE format('COMMENT ON VIEW dp.%I IS %L', view_name,
                   format('The %s query of governed release %s, pinned when it was registered.', kind, release));
    RETURN format('dp.%I', view_name)::regclass;
END
$$;

COMMENT ON FUNCTION dp.pin_query(regclass, text, text) IS
'Internal: stores a governed release''s source or domain query as a view in schema dp, bound when registered.';

REVOKE EXECUTE ON FUNCTION dp.pin_query(regclass, text, text) FROM PUBLIC;

-- ==== drawing ====

-- Runs only inside a draw worker (src/pg/refresh_worker.c), connected as the
-- catalog's owner, in a transaction that commits before the caller reads.
CREATE FUNCTION dp.draw_in_worker(release regclass, caller regrole, session_role regrole, may_restore boolean,
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

-- For REFRESH MATERIALIZED VIEW: a new draw, returned with the release's own
-- row type, e.g. CREATE MATERIALIZED VIEW v AS SELECT * FROM dp.draw(NULL::state_counts).
CREATE OR REPLACE FUNCTION dp.draw(release anyelement) RETURNS SETOF anyelement
AS 'MODULE_PATHNAME', 'dp_draw'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION dp.draw(anyelement) IS
'Draws a new release (charging the budget, like dp.refresh_release) and returns its rows. '
'For materialized views: CREATE MATERIALIZED VIEW v AS SELECT * FROM dp.draw(NULL::release_table). '
'The first call after a restore (the release table was recreated) returns the restored draw without drawing.';

-- Refreshing spends budget: only roles the administrator grants may do it.
REVOKE EXECUTE ON FUNCTION dp.refresh_release(regclass), dp.draw(anyelement) FROM PUBLIC;

-- ==== reading what a release costs ====

-- The releases the current role may know about: its own (as a member of the
-- owner), those it may read, those it may refresh. A view, so current_user
-- is the querying role while the catalog is read with the view owner's rights.
CREATE VIEW dp.visible_releases WITH (security_barrier) AS
SELECT r.release
FROM dp.releases r
WHERE pg_has_role(r.owner, 'MEMBER')
   OR has_table_privilege(r.release, 'SELECT')
   OR EXISTS (SELECT FROM dp.refreshers f WHERE f.release = r.release AND pg_has_role(f.refresher, 'MEMBER'));

COMMENT ON VIEW dp.visible_releases IS
'Internal: the governed releases the current role owns, may read or may refresh.';

CREATE VIEW dp.release_costs WITH (security_barrier) AS
SELECT r.release, r.dataset, c.epsilon, c.delta,
       b.epsilon_total - b.epsilon_spent AS epsilon_remaining,
       b.delta_total - b.delta_spent AS delta_remaining,
       -- A paid stream: its remaining periods, not the budget, bound its appends.
       CASE WHEN c.epsilon = 0 THEN (2::numeric ^ s.horizon - s.released)::bigint
            ELSE floor(least((b.epsilon_total - b.epsilon_spent) / c.epsilon::numeric,
                             CASE WHEN coalesce(c.delta, 0) > 0
                                  THEN (b.delta_total - b.delta_spent) / c.delta::numeric END))::bigint
       END AS draws_remaining,
       (SELECT max(d.drawn_at) FROM dp.draws d WHERE d.release = r.release::text) AS last_drawn_at
FROM dp.releases r
     JOIN dp.visible_releases v ON v.release = r.release
     JOIN dp.budgets b ON b.dataset = r.dataset
     LEFT JOIN dp.streams s ON s.release = r.release
     CROSS JOIN LATERAL (SELECT CASE WHEN s.state IS NOT NULL THEN 0 ELSE r.epsilon END AS epsilon,
                                CASE WHEN s.state IS NOT NULL THEN 0 ELSE r.delta END AS delta) c;

COMMENT ON VIEW dp.release_costs IS
'What one draw of each governed release the current role owns, reads or refreshes costs, and what its '
'dataset''s budget has left. A stream whose first draw is paid costs nothing more; draws_remaining is then '
'its periods left.';

GRANT SELECT ON dp.release_costs TO PUBLIC;

CREATE OR REPLACE FUNCTION dp.release_cost(release regclass)
RETURNS TABLE (dataset text, epsilon float8, delta float8, epsilon_remaining numeric,
               delta_remaining numeric, draws_remaining bigint, last_drawn_at timestamptz)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY
    SELECT c.dataset, c.epsilon, c.delta, c.epsilon_remaining, c.delta_remaining, c.draws_remaining, c.last_drawn_at
    FROM dp.release_costs c WHERE c.release = release_cost.release;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704', MESSAGE = format('%s is not a governed release', release),
            HINT = 'Only releases you own, may read or may refresh are shown.';
    END IF;
END
$$;

COMMENT ON FUNCTION dp.release_cost(regclass) IS
'What one draw of a governed release costs and what its dataset''s budget has left, without drawing '
'(dp.release_costs for one release). A stream whose first draw is paid costs nothing more; draws_remaining is '
'then its periods left.';

CREATE VIEW dp.stream_parameters WITH (security_barrier) AS
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

-- ==== administration ====

CREATE OR REPLACE FUNCTION dp.set_budget(dataset text, epsilon numeric, delta numeric DEFAULT 0) RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- numeric has NaN and Infinity; NaN compares above every number, so the
    -- table's CHECKs alone would take it. A budget is a finite number.
    IF dataset IS NULL OR epsilon IS NULL OR delta IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'dataset, epsilon and delta must not be NULL';
    END IF;
    IF NOT (epsilon > 0 AND epsilon < 'Infinity') OR NOT (delta >= 0 AND delta < 1) THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('invalid budget for dataset "%s": epsilon %s, delta %s', dataset, epsilon, delta),
            DETAIL = 'epsilon must be a positive finite number and delta in [0, 1).';
    END IF;
    INSERT INTO dp.budgets AS b (dataset, epsilon_total, delta_total)
    VALUES (set_budget.dataset, set_budget.epsilon, set_budget.delta)
    ON CONFLICT ON CONSTRAINT budgets_pkey DO UPDATE
        SET epsilon_total = excluded.epsilon_total, delta_total = excluded.delta_total;
EXCEPTION WHEN check_violation THEN
    RAISE EXCEPTION USING ERRCODE = '22023',
        MESSAGE = format('invalid budget for dataset "%s": epsilon %s, delta %s', dataset, epsilon, delta),
        DETAIL = 'epsilon must be a positive finite number, delta in [0, 1), and neither below what draws have already spent.';
END
$$;

-- A governed source must name what it reads (so that PUBLIC can read none of
-- it), be read-only, and use only objects nobody else can redefine.
CREATE OR REPLACE FUNCTION dp.check_source_protected(source text) RETURNS void
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    relation regclass;
    fn regprocedure;
BEGIN
    FOREACH fn IN ARRAY dp.source_functions(source) LOOP
        RAISE EXCEPTION USING ERRCODE = '42501',
            MESSAGE = format('source reads rows through function %s, which the protection check cannot see into', fn),
            DETAIL = 'A governed source must name the relations it reads, so that none of them is readable by PUBLIC.',
            HINT = 'Read the tables directly, or through a view.';
    END LOOP;
    PERFORM dp.check_source_objects(source);
    FOREACH relation IN ARRAY dp.source_relations(source) LOOP
        IF has_any_column_privilege('public', relation, 'SELECT') THEN
            RAISE EXCEPTION USING ERRCODE = '42501',
                MESSAGE = format('source reads %s, which PUBLIC can read', relation),
                DETAIL = 'A governed release is private only if its raw rows cannot be read around it.',
                HINT = format('REVOKE SELECT ON %s FROM PUBLIC, then register again.', relation);
        END IF;
    END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION dp.create_release_table(release text, columns text) RETURNS regclass
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    name text[] := parse_ident(release);
    target text;
BEGIN
    IF array_length(name, 1) NOT IN (1, 2) THEN
        RAISE EXCEPTION USING ERRCODE = '42602', MESSAGE = format('invalid release name "%s"', release),
            HINT = 'Use table or schema.table.';
    END IF;
    target := CASE array_length(name, 1) WHEN 1 THEN format('%I', name[1])
                                         ELSE format('%I.%I', name[1], name[2]) END;
    -- Only names and types reach CREATE TABLE (dp.column_list rebuilds them).
    EXECUTE format('CREATE TABLE %s (%s)', target, dp.column_list(columns));
    RETURN target::regclass;
END
$$;

CREATE OR REPLACE FUNCTION dp.register_release(
    release   text,
    dataset   text,
    source    text,
    columns   text,
    epsilon   float8,
    mechanism text   DEFAULT 'integer_laplace',
    delta     float8 DEFAULT NULL,
    margins   text[] DEFAULT '{}',
    domain    text   DEFAULT NULL,
    options   jsonb  DEFAULT '{}',
    hierarchy text[] DEFAULT NULL
) RETURNS regclass
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    created regclass;
BEGIN
    IF NOT EXISTS (SELECT FROM dp.budgets b WHERE b.dataset = register_release.dataset) THEN
        RAISE EXCEPTION USING ERRCODE = '42704',
            MESSAGE = format('dataset "%s" has no budget', dataset),
            HINT = 'Create it first: SELECT dp.set_budget(dataset, epsilon, delta).';
    END IF;
    IF epsilon IS NULL THEN
        -- The budget is charged in epsilon: a governed draw states it.
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'epsilon must not be NULL',
            DETAIL = 'A governed release charges its dataset''s budget epsilon per draw.';
    END IF;
    IF source IS NULL OR columns IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'source and columns must not be NULL';
    END IF;
    -- Refuse a bad mechanism, epsilon, delta or option now, not at the first draw.
    PERFORM dp.check_request(mechanism, epsilon, delta, margins, options, hierarchy);
    PERFORM dp.check_source_protected(source);
    IF domain IS NOT NULL THEN
        PERFORM dp.check_source_protected(domain);
    END IF;
    created := dp.create_release_table(release, columns);
    INSERT INTO dp.releases (release, dataset, owner, search_path, source, mechanism, epsilon, delta, margins,
                             domain, options, hierarchy, source_view, domain_view, table_oid)
    VALUES (created, dataset, current_user::regrole, dp.pinned_search_path(), source, mechanism, epsilon, delta,
            coalesce(margins, '{}'), domain, coalesce(options, '{}'), hierarchy,
            dp.pin_query(created, 'source', source),
            CASE WHEN domain IS NOT NULL THEN dp.pin_query(created, 'domain', domain) END,
            created::oid);
    RETURN created;
END
$$;

CREATE OR REPLACE FUNCTION dp.register_stream(
    release  text,
    dataset  text,
    source   text,
    columns  text,
    epsilon  float8,
    delta    float8,
    horizon  integer DEFAULT 20,
    options  jsonb   DEFAULT '{}'
) RETURNS regclass
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    created regclass;
    neighbours text := coalesce(options->>'neighbours', 'replace_one');
    variance float8;
    unknown text;
BEGIN
    IF NOT EXISTS (SELECT FROM dp.budgets b WHERE b.dataset = register_stream.dataset) THEN
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
    IF unknown IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = format('unknown stream option "%s"', unknown),
            HINT = 'A stream takes only {"neighbours": "replace_one" | "add_remove"}.';
    END IF;
    -- Validates epsilon, delta, horizon and neighbours before anything is created.
    variance := dp.cascade_stream_variance(epsilon, delta, horizon, neighbours);
    PERFORM dp.check_source_protected(source);
    created := dp.create_release_table(release, columns);
    IF (SELECT array_agg(atttypid ORDER BY attnum) FROM pg_attribute
        WHERE attrelid = created AND attnum > 0 AND NOT attisdropped) IS DISTINCT FROM
       ARRAY[(SELECT atttypid FROM pg_attribute WHERE attrelid = created AND attnum = 1), 'float8'::regtype::oid] THEN
        RAISE EXCEPTION USING ERRCODE = '42804', MESSAGE = 'a stream has two columns: the period, then a float8 count',
            HINT = 'E.g. columns => ''day date, n float8''.';
    END IF;
    INSERT INTO dp.releases (release, dataset, owner, search_path, source, mechanism, epsilon, delta, options,
                             source_view, table_oid)
    VALUES (created, dataset, current_user::regrole, dp.pinned_search_path(), source, 'cascade_stream',
            epsilon, delta, jsonb_build_object('neighbours', neighbours, 'horizon', horizon),
            dp.pin_query(created, 'source', source), created::oid);
    INSERT INTO dp.streams (release, horizon, neighbours, variance) VALUES (created, horizon, neighbours, variance);
    RETURN created;
END
$$;

CREATE OR REPLACE FUNCTION dp.drop_release(release regclass) RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    r dp.releases;
BEGIN
    DELETE FROM dp.releases WHERE dp.releases.release = drop_release.release RETURNING * INTO r;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704', MESSAGE = format('%s is not a governed release', release);
    END IF;
    EXECUTE format('DROP TABLE %s', release);
    -- The pinned queries go with it (unless someone already dropped them).
    IF EXISTS (SELECT FROM pg_class c WHERE c.oid = r.source_view) THEN
        EXECUTE format('DROP VIEW %s', r.source_view);
    END IF;
    IF EXISTS (SELECT FROM pg_class c WHERE c.oid = r.domain_view) THEN
        EXECUTE format('DROP VIEW %s', r.domain_view);
    END IF;
END
$$;


-- Pins the stored source (and domain) of a release registered before 0.4.0,
-- as it resolves now under the search_path it was registered with: ALTER
-- EXTENSION UPDATE does it for every release, an administrator does it for
-- a release restored from an older dump. Run it only where nobody can have
-- planted look-alike objects since.
CREATE FUNCTION dp.pin_registered_source(release regclass) RETURNS regclass
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    r dp.releases;
    saved text := current_setting('search_path');
    pinned regclass;
    pinned_domain regclass;
BEGIN
    SELECT * INTO r FROM dp.releases WHERE dp.releases.release = pin_registered_source.release;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704', MESSAGE = format('%s is not a governed release', release);
    END IF;
    IF EXISTS (SELECT FROM pg_class c WHERE c.oid = r.source_view) THEN
        RETURN r.source_view;
    END IF;
    -- "$user" meant the owner when it was registered, not whoever pins now.
    PERFORM set_config('search_path',
                       regexp_replace(r.search_path, '"?\$user"?', quote_ident(r.owner::text), 'g'), true);
    PERFORM dp.check_source_objects(r.source);
    pinned := dp.pin_query(r.release, 'source', r.source);
    IF r.domain IS NOT NULL THEN
        PERFORM dp.check_source_objects(r.domain);
        pinned_domain := dp.pin_query(r.release, 'domain', r.domain);
    END IF;
    UPDATE dp.releases SET source_view = pinned, domain_view = pinned_domain,
                           search_path = dp.pinned_search_path(), table_oid = r.release::oid
    WHERE dp.releases.release = r.release;
    PERFORM set_config('search_path', saved, true);
    EXECUTE format('ALTER VIEW %s OWNER TO %I', pinned, r.owner::text);
    IF pinned_domain IS NOT NULL THEN
        EXECUTE format('ALTER VIEW %s OWNER TO %I', pinned_domain, r.owner::text);
    END IF;
    RETURN pinned;
END
$$;

COMMENT ON FUNCTION dp.pin_registered_source(regclass) IS
'Pins the source (and domain) of a governed release registered before 0.4.0, or restored from a dump of one, '
'as it resolves now under the search_path it was registered with. ALTER EXTENSION UPDATE does it for every '
'release; run it only where nobody can have planted look-alike objects since.';

REVOKE EXECUTE ON FUNCTION dp.pin_registered_source(regclass) FROM PUBLIC;

-- Every release registered before 0.4.0 is pinned now. One that no longer
-- passes the checks stays unpinned, with a warning, and refuses to draw.
DO $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT release FROM dp.releases ORDER BY release LOOP
        BEGIN
            PERFORM dp.pin_registered_source(r.release);
            -- Views made by an extension script would belong to the extension
            -- (not dumped); a pinned source belongs to its release.
            EXECUTE (SELECT string_agg(format('ALTER EXTENSION invariant_dp DROP VIEW %s', v), '; ')
                     FROM (SELECT source_view AS v FROM dp.releases WHERE release = r.release
                           UNION ALL SELECT domain_view FROM dp.releases
                           WHERE release = r.release AND domain_view IS NOT NULL) p);
        EXCEPTION WHEN OTHERS THEN
            RAISE WARNING 'the source of governed release % could not be pinned: %', r.release, SQLERRM
                USING HINT = 'It refuses to draw until it is dropped and registered again.';
        END;
    END LOOP;
END
$$;
