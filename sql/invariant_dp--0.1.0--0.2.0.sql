-- invariant_dp 0.1.0 -> 0.2.0: governed releases.
--
-- A release is private only if its noise cannot be averaged away and the raw
-- rows cannot be read around it. A governed release is a table the extension
-- fills: the administrator registers the source once, with the mechanism and
-- the privacy cost of one draw, against a dataset's total budget; analysts
-- read the stored draw (re-reading costs nothing) and never need SELECT on
-- the raw tables. Every draw charges the budget in the same transaction that
-- stores it, under a row lock, so concurrent refreshes cannot overspend and a
-- failed or interrupted refresh leaves the previous release and the budget
-- untouched. README.md, "Governed releases", walks through it.

\echo Use "ALTER EXTENSION invariant_dp UPDATE TO '0.2.0'" to load this file. \quit

-- Catalog ---------------------------------------------------------------------
-- Budgets are numeric: 0.1 spent ten times is exactly 1, so a budget of 1
-- allows exactly ten draws of 0.1 (float8 would round either way).

CREATE TABLE dp.budgets (
    dataset       text PRIMARY KEY,
    epsilon_total numeric NOT NULL CHECK (epsilon_total > 0),
    delta_total   numeric NOT NULL DEFAULT 0 CHECK (delta_total >= 0 AND delta_total < 1),
    epsilon_spent numeric NOT NULL DEFAULT 0 CHECK (epsilon_spent >= 0),
    delta_spent   numeric NOT NULL DEFAULT 0 CHECK (delta_spent >= 0),
    created_by    name NOT NULL DEFAULT current_user,
    created_at    timestamptz NOT NULL DEFAULT now(),
    -- The last line of defence: no code path can commit an overspent budget.
    CONSTRAINT budget_not_overspent CHECK (epsilon_spent <= epsilon_total AND delta_spent <= delta_total)
);

COMMENT ON TABLE dp.budgets IS
'Total privacy budget of each dataset and what its draws have spent (basic composition: epsilons add, deltas add).';

CREATE TABLE dp.releases (
    release       regclass PRIMARY KEY,
    dataset       text NOT NULL REFERENCES dp.budgets ON UPDATE CASCADE,
    owner         regrole NOT NULL,
    search_path   text NOT NULL,
    source        text NOT NULL,
    mechanism     text NOT NULL,
    epsilon       float8 NOT NULL,
    delta         float8,
    margins       text[] NOT NULL DEFAULT '{}',
    domain        text,
    options       jsonb NOT NULL DEFAULT '{}',
    registered_at timestamptz NOT NULL DEFAULT now()
);

COMMENT ON TABLE dp.releases IS
'Governed releases: the table that holds each release''s current draw, the source it is drawn from '
'(run with the privileges and search_path of owner, the role that registered it), the mechanism and the '
'cost of one draw.';

CREATE TABLE dp.draws (
    draw_id     bigserial PRIMARY KEY,
    release     regclass NOT NULL,
    dataset     text NOT NULL,
    drawn_by    name NOT NULL,
    drawn_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    mechanism   text NOT NULL,
    epsilon     float8 NOT NULL,
    delta       float8,
    margins     text[] NOT NULL,
    options     jsonb NOT NULL,
    noise_law   jsonb NOT NULL,
    cells       bigint NOT NULL
);

COMMENT ON TABLE dp.draws IS
'Audit log: one row per draw of a governed release (who, when, mechanism, epsilon, delta, invariants, '
'and the noise law published with it).';

-- pg_dump keeps the rows of the extension's catalog (the tables themselves
-- are recreated by CREATE EXTENSION).
SELECT pg_catalog.pg_extension_config_dump('dp.budgets', '');
SELECT pg_catalog.pg_extension_config_dump('dp.releases', '');
SELECT pg_catalog.pg_extension_config_dump('dp.draws', '');
SELECT pg_catalog.pg_extension_config_dump('dp.draws_draw_id_seq', '');

-- Nothing in the catalog is readable by PUBLIC; analysts use the functions.
REVOKE ALL ON dp.budgets, dp.releases, dp.draws FROM PUBLIC;

-- C helpers -------------------------------------------------------------------

CREATE FUNCTION dp.privatize_as_owner(
    owner       regrole,
    search_path text,
    source      text,
    epsilon   float8,
    mechanism text,
    delta     float8,
    margins   text[],
    domain    text,
    options   jsonb
) RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dp_privatize_as_owner'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION dp.privatize_as_owner(regrole, text, text, float8, text, float8, text[], text, jsonb) IS
'Internal: dp.privatize with the source run as owner under search_path. Called only by dp.refresh_release.';

-- Running a query as another role is the definer's privilege alone.
REVOKE EXECUTE ON FUNCTION dp.privatize_as_owner(regrole, text, text, float8, text, float8, text[], text, jsonb) FROM PUBLIC;

CREATE FUNCTION dp.check_request(
    mechanism text,
    epsilon   float8,
    delta     float8 DEFAULT NULL,
    margins   text[] DEFAULT '{}',
    options   jsonb  DEFAULT '{}'
) RETURNS void
AS 'MODULE_PATHNAME', 'dp_check_request'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;

COMMENT ON FUNCTION dp.check_request(text, float8, float8, text[], jsonb) IS
'Raises the error dp.privatize would raise for these arguments before reading its source; returns nothing if they are valid.';

CREATE FUNCTION dp.source_relations(source text) RETURNS regclass[]
AS 'MODULE_PATHNAME', 'dp_source_relations'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dp.source_relations(text) IS
'Every table, view and partition a query reads (after view expansion). The query is analysed, never run.';

-- Administration (SECURITY INVOKER: needs the catalog privileges, which only
-- the extension owner has unless granted). Their search_path is the
-- administrator's own, since the source text is written in it; everything of
-- the extension they use is schema-qualified. ----------------------------------

CREATE FUNCTION dp.set_budget(dataset text, epsilon numeric, delta numeric DEFAULT 0) RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    INSERT INTO dp.budgets AS b (dataset, epsilon_total, delta_total)
    VALUES (set_budget.dataset, set_budget.epsilon, set_budget.delta)
    ON CONFLICT ON CONSTRAINT budgets_pkey DO UPDATE
        SET epsilon_total = excluded.epsilon_total, delta_total = excluded.delta_total;
EXCEPTION WHEN check_violation THEN
    RAISE EXCEPTION USING ERRCODE = '22023',
        MESSAGE = format('invalid budget for dataset "%s": epsilon %s, delta %s', dataset, epsilon, delta),
        DETAIL = 'epsilon must be positive, delta in [0, 1), and neither below what draws have already spent.';
END
$$;

COMMENT ON FUNCTION dp.set_budget(text, numeric, numeric) IS
'Creates a dataset''s total privacy budget, or changes it (never below what is already spent).';

-- The relations a source reads must not be readable by PUBLIC: a protected
-- source is deny-by-default, readable only through its releases.
CREATE FUNCTION dp.check_source_protected(source text) RETURNS void
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    relation regclass;
BEGIN
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
'Raises 42501 if PUBLIC can read any relation the query reads.';

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
    options   jsonb  DEFAULT '{}'
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
    -- Refuse a bad mechanism, epsilon, delta or option now, not at the first draw.
    PERFORM dp.check_request(mechanism, epsilon, delta, margins, options);
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
                             domain, options)
    VALUES (created, dataset, current_user::regrole, current_setting('search_path'), source, mechanism, epsilon, delta,
            coalesce(margins, '{}'), domain, coalesce(options, '{}'));
    RETURN created;
END
$$;

COMMENT ON FUNCTION dp.register_release(text, text, text, text, float8, text, float8, text[], text, jsonb) IS
'Registers a governed release: creates table release(columns) to hold its current draw (empty until the '
'first dp.refresh_release) and records the source, which later runs with the registering role''s '
'privileges. columns is dp.privatize''s column definition list, e.g. ''state text, n bigint''. '
'The source''s relations must not be readable by PUBLIC.';

CREATE FUNCTION dp.grant_release(release regclass, analyst regrole) RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    r dp.releases;
    relation regclass;
BEGIN
    SELECT * INTO r FROM dp.releases WHERE dp.releases.release = grant_release.release;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704', MESSAGE = format('%s is not a governed release', release);
    END IF;
    FOREACH relation IN ARRAY dp.source_relations(r.source) || dp.source_relations(coalesce(r.domain, 'SELECT')) LOOP
        IF has_any_column_privilege(analyst, relation, 'SELECT') THEN
            RAISE EXCEPTION USING ERRCODE = '42501',
                MESSAGE = format('role %s can read %s, which release %s is drawn from', analyst, relation, release),
                DETAIL = 'An analyst who reads the raw rows can average the noise away or read around it.',
                HINT = format('REVOKE SELECT ON %s FROM %s, then grant the release.', relation, analyst);
        END IF;
    END LOOP;
    EXECUTE format('GRANT SELECT ON %s TO %I', release, analyst::text);
END
$$;

COMMENT ON FUNCTION dp.grant_release(regclass, regrole) IS
'Lets an analyst read a governed release (SELECT on its table), after checking the analyst cannot read '
'any relation its source reads.';

CREATE FUNCTION dp.drop_release(release regclass) RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
    DELETE FROM dp.releases WHERE dp.releases.release = drop_release.release;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704', MESSAGE = format('%s is not a governed release', release);
    END IF;
    EXECUTE format('DROP TABLE %s', release);
END
$$;

COMMENT ON FUNCTION dp.drop_release(regclass) IS
'Drops a governed release and its table. Its draws stay in the audit log; the budget stays spent.';

REVOKE EXECUTE ON FUNCTION dp.set_budget(text, numeric, numeric),
                           dp.register_release(text, text, text, text, float8, text, float8, text[], text, jsonb),
                           dp.grant_release(regclass, regrole),
                           dp.drop_release(regclass)
    FROM PUBLIC;

-- Drawing and reading (SECURITY DEFINER: the only paths to the raw rows) --------

-- The release table's columns as a column definition list.
CREATE FUNCTION dp.release_columns(release regclass) RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
    SELECT string_agg(format('%I %s', attname, format_type(atttypid, atttypmod)), ', ' ORDER BY attnum)
    FROM pg_attribute
    WHERE attrelid = release AND attnum > 0 AND NOT attisdropped
$$;

COMMENT ON FUNCTION dp.release_columns(regclass) IS
'A table''s columns as a column definition list (name type, ...).';

CREATE FUNCTION dp.refresh_release(release regclass) RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r dp.releases;
    b dp.budgets;
    cost_delta numeric;
    cells bigint;
    draw bigint;
BEGIN
    SELECT * INTO r FROM dp.releases WHERE dp.releases.release = refresh_release.release;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704', MESSAGE = format('%s is not a governed release', release);
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
    EXECUTE format('INSERT INTO %s SELECT * FROM dp.privatize_as_owner($1, $2, $3, $4, $5, $6, $7, $8, $9) AS t(%s)',
                   release, dp.release_columns(release))
        USING r.owner, r.search_path, r.source, r.epsilon, r.mechanism, r.delta, r.margins, r.domain, r.options;
    GET DIAGNOSTICS cells = ROW_COUNT;
    UPDATE dp.budgets SET epsilon_spent = epsilon_spent + r.epsilon::numeric, delta_spent = delta_spent + cost_delta
    WHERE dp.budgets.dataset = r.dataset;
    INSERT INTO dp.draws (release, dataset, drawn_by, mechanism, epsilon, delta, margins, options, noise_law, cells)
    VALUES (release, r.dataset, session_user, r.mechanism, r.epsilon, r.delta, r.margins, r.options,
            dp.last_release(), cells)
    RETURNING draw_id INTO draw;
    RETURN draw;
END
$$;

COMMENT ON FUNCTION dp.refresh_release(regclass) IS
'Draws a new release into the release''s table and charges its dataset''s budget, atomically. '
'SQLSTATE 53Z01 when the budget would be exceeded (the previous draw stays). Returns the draw''s audit id.';

-- For REFRESH MATERIALIZED VIEW: a new draw, returned with the release's own
-- row type, e.g. CREATE MATERIALIZED VIEW v AS SELECT * FROM dp.draw(NULL::state_counts).
CREATE FUNCTION dp.draw(release anyelement) RETURNS SETOF anyelement
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
    PERFORM dp.refresh_release(target);
    RETURN QUERY EXECUTE format('SELECT * FROM %s', target);
END
$$;

COMMENT ON FUNCTION dp.draw(anyelement) IS
'Draws a new release (charging the budget, like dp.refresh_release) and returns its rows. '
'For materialized views: CREATE MATERIALIZED VIEW v AS SELECT * FROM dp.draw(NULL::release_table).';

CREATE FUNCTION dp.release_cost(release regclass)
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
           (SELECT max(d.drawn_at) FROM dp.draws d WHERE d.release = r.release)
    FROM dp.releases r JOIN dp.budgets b ON b.dataset = r.dataset
    WHERE r.release = release_cost.release;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704', MESSAGE = format('%s is not a governed release', release);
    END IF;
END
$$;

COMMENT ON FUNCTION dp.release_cost(regclass) IS
'What one draw of a governed release costs and what its dataset''s budget has left, without drawing.';

-- Refreshing spends budget: only roles the administrator grants may do it.
REVOKE EXECUTE ON FUNCTION dp.refresh_release(regclass), dp.draw(anyelement) FROM PUBLIC;
