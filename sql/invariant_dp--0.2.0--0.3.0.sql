-- invariant_dp 0.2.0 -> 0.3.0: hierarchies, and conditioning versus projection.
--
-- dp.privatize gains a `hierarchy` argument (every level of a geography,
-- each node exactly the sum of its children) and the mechanisms cascade,
-- congenial, project_l2, project_nn_l2 and project_nn_integer; governed
-- releases can be hierarchies too. PostgreSQL cannot add an argument to an
-- existing function, so the functions that gain one are dropped and created
-- again (a view over dp.privatize must be dropped before this update).
-- Governed releases also get per-release refreshers, audit rows that keep the
-- release's name, a protection check that refuses sources reading through
-- opaque functions, and restores that do not draw.

\echo Use "ALTER EXTENSION invariant_dp UPDATE TO '0.3.0'" to load this file. \quit

-- dp.privatize ----------------------------------------------------------------

DROP FUNCTION dp.privatize(text, float8, text, float8, text[], text, jsonb);

CREATE FUNCTION dp.privatize(
    source    text,
    epsilon   float8,
    mechanism text   DEFAULT 'integer_laplace',
    delta     float8 DEFAULT NULL,
    margins   text[] DEFAULT '{}',
    domain    text   DEFAULT NULL,
    options   jsonb  DEFAULT '{}',
    hierarchy text[] DEFAULT NULL
) RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dp_privatize'
-- PARALLEL UNSAFE: it runs the source query through SPI, which must be free
-- to use a parallel plan of its own.
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION dp.privatize(text, float8, text, float8, text[], text, jsonb, text[]) IS
'Private release of the counts of a GROUP BY query (last column = count). '
'Mechanisms: integer_laplace (the default), integer_laplace_l2, integer_gaussian (integer, margins exact), '
'discrete_laplace, discrete_gaussian (integer, no invariants), '
'subspace_gaussian, subspace_laplace (real, margins exact), '
'congenial (integer, margins exact, non-negative: conditioning), '
'project_l2, project_nn_l2, project_nn_integer (projection baselines, TopDown-style), '
'cascade (real, Gaussian noise correlated along a hierarchy). '
'margins: each element lists key columns whose totals stay exact ('''' = grand total). '
'domain: a query listing every cell, zero cells included. '
'options: {"stddev": true} adds a per-cell noise standard deviation column; '
'{"neighbours": "add_remove"} (no margins) protects presence instead of a changed record. '
'hierarchy: key columns, coarsest first; the release then has a row for every node (rollups have NULL '
'below their level; {"level": true} adds an integer level column, 0 = grand total). '
'Call with a column definition list: AS t(key1 type, ..., n float8).';

CREATE FUNCTION dp.cascade_range_variance(
    mechanism      text,
    children       integer[],
    level_variance float8[],
    fixed_nodes    integer[],
    first_leaf     bigint,
    last_leaf      bigint
) RETURNS float8
AS 'MODULE_PATHNAME', 'dp_cascade_range_variance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dp.cascade_range_variance(text, integer[], float8[], integer[], bigint, bigint) IS
'Internal: dp.range_variance on the pieces of a published cascade noise law.';

CREATE FUNCTION dp.range_variance(noise_law jsonb, first_leaf bigint, last_leaf bigint) RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
    SELECT dp.cascade_range_variance(
        coalesce(noise_law->>'mechanism', ''),
        ARRAY(SELECT e::int FROM jsonb_array_elements_text(coalesce(noise_law->'hierarchy'->'children', '[]'))
                                 WITH ORDINALITY AS a(e, i) ORDER BY i),
        ARRAY(SELECT e::float8 FROM jsonb_array_elements_text(coalesce(noise_law->'noise'->'level_variance', '[]'))
                                    WITH ORDINALITY AS a(e, i) ORDER BY i),
        ARRAY(SELECT e::int FROM jsonb_array_elements_text(coalesce(noise_law->'invariants'->'fixed_nodes', '[]'))
                                 WITH ORDINALITY AS a(e, i) ORDER BY i),
        first_leaf, last_leaf)
$$;

COMMENT ON FUNCTION dp.range_variance(jsonb, bigint, bigint) IS
'Exact noise variance of the sum of the released leaves first_leaf..last_leaf (0-based, in the release''s '
'leaf order) of a cascade release, from its published noise law (dp.last_release() or dp.draws.noise_law).';

-- Governed releases can be hierarchies --------------------------------------------

ALTER TABLE dp.releases ADD COLUMN hierarchy text[];

DROP FUNCTION dp.check_request(text, float8, float8, text[], jsonb);

CREATE FUNCTION dp.check_request(
    mechanism text,
    epsilon   float8,
    delta     float8 DEFAULT NULL,
    margins   text[] DEFAULT '{}',
    options   jsonb  DEFAULT '{}',
    hierarchy text[] DEFAULT NULL
) RETURNS void
AS 'MODULE_PATHNAME', 'dp_check_request'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;

COMMENT ON FUNCTION dp.check_request(text, float8, float8, text[], jsonb, text[]) IS
'Raises the error dp.privatize would raise for these arguments before reading its source; returns nothing if they are valid.';

DROP FUNCTION dp.privatize_as_owner(regrole, text, text, float8, text, float8, text[], text, jsonb);

CREATE FUNCTION dp.privatize_as_owner(
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

REVOKE EXECUTE ON FUNCTION dp.privatize_as_owner(regrole, text, text, float8, text, float8, text[], text, jsonb, text[])
    FROM PUBLIC;

DROP FUNCTION dp.register_release(text, text, text, text, float8, text, float8, text[], text, jsonb);

CREATE FUNCTION dp.register_release(
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
    name text[] := parse_ident(release);
    target text;
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
    -- Refuse a bad mechanism, epsilon, delta or option now, not at the first draw.
    PERFORM dp.check_request(mechanism, epsilon, delta, margins, options, hierarchy);
    PERFORM dp.check_source_protected(source);
    IF domain IS NOT NULL THEN
        PERFORM dp.check_source_protected(domain);
    END IF;
    IF array_length(name, 1) NOT IN (1, 2) THEN
        RAISE EXCEPTION USING ERRCODE = '42602', MESSAGE = format('invalid release name "%s"', release),
            HINT = 'Use table or schema.table.';
    END IF;
    -- The caller's own schema resolution: the release lives where they say.
    target := CASE array_length(name, 1) WHEN 1 THEN format('%I', name[1])
                                         ELSE format('%I.%I', name[1], name[2]) END;
    EXECUTE format('CREATE TABLE %s (%s)', target, columns);
    created := target::regclass;
    INSERT INTO dp.releases (release, dataset, owner, search_path, source, mechanism, epsilon, delta, margins,
                             domain, options, hierarchy)
    VALUES (created, dataset, current_user::regrole, current_setting('search_path'), source, mechanism, epsilon, delta,
            coalesce(margins, '{}'), domain, coalesce(options, '{}'), hierarchy);
    RETURN created;
END
$$;

COMMENT ON FUNCTION dp.register_release(text, text, text, text, float8, text, float8, text[], text, jsonb, text[]) IS
'Registers a governed release: creates table release(columns) to hold its current draw (empty until the '
'first dp.refresh_release) and records the source, which later runs with the registering role''s '
'privileges. columns is dp.privatize''s column definition list, e.g. ''state text, n bigint''. '
'The source''s relations must not be readable by PUBLIC.';

REVOKE EXECUTE ON FUNCTION dp.register_release(text, text, text, text, float8, text, float8, text[], text, jsonb, text[])
    FROM PUBLIC;

-- Audit rows keep the release's name after it is dropped or restored
-- elsewhere (a regclass would print a bare oid), and the role in effect.
ALTER TABLE dp.draws ALTER COLUMN release TYPE text USING release::text;
ALTER TABLE dp.draws ADD COLUMN drawn_as name;
COMMENT ON COLUMN dp.draws.drawn_by IS 'The session user.';
COMMENT ON COLUMN dp.draws.drawn_as IS 'The role in effect (SET ROLE), or the session user.';

-- Who may spend a release's budget: its owner, superusers, and the roles an
-- administrator names per release (EXECUTE on the functions alone is not enough).
CREATE TABLE dp.refreshers (
    release   regclass NOT NULL REFERENCES dp.releases ON DELETE CASCADE,
    refresher regrole NOT NULL,
    PRIMARY KEY (release, refresher)
);
COMMENT ON TABLE dp.refreshers IS 'Roles allowed to draw (and so spend the budget of) each governed release.';
SELECT pg_catalog.pg_extension_config_dump('dp.refreshers', '');
REVOKE ALL ON dp.refreshers FROM PUBLIC;

CREATE FUNCTION dp.source_functions(source text) RETURNS regprocedure[]
AS 'MODULE_PATHNAME', 'dp_source_functions'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dp.source_functions(text) IS
'The functions a query reads rows from (in FROM) that are not PostgreSQL''s own. The query is analysed, never run.';

-- Functions are opaque to the relation check: a source reading rows through
-- one could read a table PUBLIC can see. Views are expanded and checked.
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

COMMENT ON FUNCTION dp.check_source_protected(text) IS
'Raises 42501 if PUBLIC can read any relation the query reads, or if it reads rows through a function.';

CREATE FUNCTION dp.grant_refresh(release regclass, refresher regrole) RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
    IF NOT EXISTS (SELECT FROM dp.releases r WHERE r.release = grant_refresh.release) THEN
        RAISE EXCEPTION USING ERRCODE = '42704', MESSAGE = format('%s is not a governed release', release);
    END IF;
    INSERT INTO dp.refreshers VALUES (release, refresher) ON CONFLICT DO NOTHING;
    EXECUTE format('GRANT EXECUTE ON FUNCTION dp.refresh_release(regclass), dp.draw(anyelement) TO %I',
                   refresher::text);
END
$$;

COMMENT ON FUNCTION dp.grant_refresh(regclass, regrole) IS
'Lets a role draw a governed release, spending its dataset''s budget (by hand, through a materialized view, '
'or on a schedule).';

CREATE FUNCTION dp.revoke_refresh(release regclass, refresher regrole) RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
    DELETE FROM dp.refreshers r WHERE r.release = revoke_refresh.release AND r.refresher = revoke_refresh.refresher;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704',
            MESSAGE = format('role %s may not refresh %s anyway', refresher, release);
    END IF;
END
$$;

COMMENT ON FUNCTION dp.revoke_refresh(regclass, regrole) IS 'Withdraws dp.grant_refresh.';

REVOKE EXECUTE ON FUNCTION dp.grant_refresh(regclass, regrole), dp.revoke_refresh(regclass, regrole) FROM PUBLIC;

CREATE OR REPLACE FUNCTION dp.refresh_release(release regclass) RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r dp.releases;
    b dp.budgets;
    cost_delta numeric;
    cells bigint;
    draw bigint;
    -- Inside a SECURITY DEFINER function current_user is the definer: the
    -- caller is the role set with SET ROLE, else the session user.
    caller name := CASE current_setting('role') WHEN 'none' THEN session_user ELSE current_setting('role') END;
BEGIN
    SELECT * INTO r FROM dp.releases WHERE dp.releases.release = refresh_release.release;
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
    cost_delta := coalesce(r.delta, 0)::numeric;
    -- The row lock serializes every draw against this dataset's budget.
    SELECT * INTO b FROM dp.budgets WHERE dp.budgets.dataset = r.dataset FOR UPDATE;
    IF b.epsilon_spent + r.epsilon::numeric > b.epsilon_total OR b.delta_spent + cost_delta > b.delta_total THEN
        RAISE EXCEPTION USING ERRCODE = '53Z01',
            MESSAGE = format('privacy budget of dataset "%s" is exhausted', r.dataset),
            DETAIL = format('A draw of %s costs epsilon %s, delta %s; the budget has epsilon %s, delta %s left.',
                            release, r.epsilon, cost_delta, b.epsilon_total - b.epsilon_spent,
                            b.delta_total - b.delta_spent),
            HINT = 'The previous draw stays readable. An administrator can raise the budget with dp.set_budget.';
    END IF;
    EXECUTE format('DELETE FROM %s', release);
    EXECUTE format('INSERT INTO %s SELECT * FROM dp.privatize_as_owner($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) AS t(%s)',
                   release, dp.release_columns(release))
        USING r.owner, r.search_path, r.source, r.epsilon, r.mechanism, r.delta, r.margins, r.domain, r.options,
              r.hierarchy;
    GET DIAGNOSTICS cells = ROW_COUNT;
    UPDATE dp.budgets SET epsilon_spent = epsilon_spent + r.epsilon::numeric, delta_spent = delta_spent + cost_delta
    WHERE dp.budgets.dataset = r.dataset;
    INSERT INTO dp.draws (release, dataset, drawn_by, drawn_as, mechanism, epsilon, delta, margins, options,
                          noise_law, cells)
    VALUES (release::text, r.dataset, session_user, caller, r.mechanism, r.epsilon, r.delta, r.margins, r.options,
            dp.last_release(), cells)
    RETURNING draw_id INTO draw;
    RETURN draw;
END
$$;

-- pg_restore replays REFRESH MATERIALIZED VIEW: that must restore the
-- published draw, not draw (and charge) a new one.
CREATE OR REPLACE FUNCTION dp.draw(release anyelement) RETURNS SETOF anyelement
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    target regclass;
BEGIN
    SELECT c.oid INTO target FROM pg_class c WHERE c.reltype = pg_typeof(release)::oid;
    IF target IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '42704',
            MESSAGE = format('type %s is not the row type of a governed release', pg_typeof(release)),
            HINT = 'Pass NULL cast to the release table''s type: dp.draw(NULL::state_counts).';
    END IF;
    IF current_setting('application_name') = 'pg_restore' THEN
        RAISE NOTICE 'pg_restore: % returns its stored draw; nothing is drawn or charged', target;
    ELSE
        PERFORM dp.refresh_release(target);
    END IF;
    RETURN QUERY EXECUTE format('SELECT * FROM %s', target);
END
$$;

COMMENT ON FUNCTION dp.draw(anyelement) IS
'Draws a new release (charging the budget, like dp.refresh_release) and returns its rows. '
'For materialized views: CREATE MATERIALIZED VIEW v AS SELECT * FROM dp.draw(NULL::release_table). '
'Under pg_restore (application_name pg_restore) it returns the stored draw without drawing.';

CREATE OR REPLACE FUNCTION dp.release_cost(release regclass)
RETURNS TABLE (dataset text, epsilon float8, delta float8, epsilon_remaining numeric,
               delta_remaining numeric, draws_remaining bigint, last_drawn_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY
    SELECT r.dataset, r.epsilon, r.delta,
           b.epsilon_total - b.epsilon_spent,
           b.delta_total - b.delta_spent,
           floor(least((b.epsilon_total - b.epsilon_spent) / r.epsilon::numeric,
                       CASE WHEN coalesce(r.delta, 0) > 0
                            THEN (b.delta_total - b.delta_spent) / r.delta::numeric END))::bigint,
           (SELECT max(d.drawn_at) FROM dp.draws d WHERE d.release = r.release::text)
    FROM dp.releases r JOIN dp.budgets b ON b.dataset = r.dataset
    WHERE r.release = release_cost.release;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704', MESSAGE = format('%s is not a governed release', release);
    END IF;
END
$$;
