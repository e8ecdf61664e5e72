-- Administering governed releases: budgets, registration, who may read and
-- who may refresh. SECURITY INVOKER: they need the catalog's privileges,
-- which only the extension's owner has unless granted. Each runs under
-- search_path pg_catalog, pg_temp, except what must read the
-- administrator's own search_path (the source text, the release table's
-- name and column types are written in it): those name every function,
-- operator and type with its schema, so a schema another role put in that
-- search_path (ALTER DATABASE ... SET by a database's owner) runs nothing.

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

COMMENT ON FUNCTION dp.set_budget(text, numeric, numeric) IS
'Creates a dataset''s total privacy budget, or changes it (never below what is already spent).';
REVOKE EXECUTE ON FUNCTION dp.set_budget(text, numeric, numeric) FROM PUBLIC;

-- A release's name as table or schema.table, quoted for CREATE TABLE.
CREATE OR REPLACE FUNCTION dp.release_table_name(name text[]) RETURNS text
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF coalesce(array_length(name, 1), 0) NOT IN (1, 2) THEN
        RAISE EXCEPTION USING ERRCODE = '42602', MESSAGE = format('invalid release name "%s"', array_to_string(name, '.')),
            HINT = 'Use table or schema.table.';
    END IF;
    RETURN CASE array_length(name, 1) WHEN 1 THEN format('%I', name[1]) ELSE format('%I.%I', name[1], name[2]) END;
END
$$;

COMMENT ON FUNCTION dp.release_table_name(text[]) IS
'Internal: a governed release''s name (table or schema.table, as parse_ident splits it) quoted for CREATE TABLE.';
REVOKE EXECUTE ON FUNCTION dp.release_table_name(text[]) FROM PUBLIC;

CREATE OR REPLACE FUNCTION dp.create_release_table(release text, columns text) RETURNS regclass
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    name pg_catalog.text[] := pg_catalog.parse_ident(release);
    target pg_catalog.text;
    created pg_catalog.regclass;
BEGIN
    target := dp.release_table_name(name);
    -- Only names and types reach CREATE TABLE (dp.column_list rebuilds them).
    EXECUTE pg_catalog.format('CREATE TABLE %s (%s)', target, dp.column_list(columns));
    -- Where CREATE TABLE put it: an unqualified name in the current schema.
    created := pg_catalog.to_regclass(CASE WHEN name[2] IS NULL
                                           THEN pg_catalog.format('%I.%I', pg_catalog.current_schema(), name[1])
                                           ELSE target END);
    -- Readers get SELECT from dp.grant_release, nothing from default privileges.
    PERFORM dp.revoke_from_all_but_owner(created);
    RETURN created;
END
$$;

COMMENT ON FUNCTION dp.create_release_table(text, text) IS
'Internal: creates a governed release''s table (table or schema.table) from a column definition list.';
REVOKE EXECUTE ON FUNCTION dp.create_release_table(text, text) FROM PUBLIC;

-- What dp.register_release checks before it creates anything (but the
-- source's protection, which is analysed in the administrator's search_path).
-- The request's arguments as dp.privatize's (src/sql/request_arguments.sql).
CREATE OR REPLACE FUNCTION dp.check_release_registration(
    dataset text,
    @request_arguments_without_defaults(source),
    columns text,
    @request_arguments_without_defaults(epsilon, mechanism, delta, margins, domain, options, hierarchy, privacy_unit, bounds)
) RETURNS void
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (SELECT FROM dp.budgets b WHERE b.dataset = check_release_registration.dataset) THEN
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
    PERFORM dp.check_request(mechanism, epsilon, delta, margins, options, hierarchy, privacy_unit, bounds);
    -- An error after the charge is published to the refresher: one whose
    -- occurrence depends on the counts would tell what no guarantee covers.
    -- Only congenial takes the rejection sampler (dp.check_request refused
    -- it for any other mechanism).
    IF options->>'sampler' = 'rejection' THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = 'a governed release cannot use congenial''s rejection sampler',
            DETAIL = 'It stops with an error when a group exhausts its budget of proposals, and whether that happens '
                     'depends on the counts: the error, seen after the draw was charged, would tell the refresher '
                     'something about the data that no guarantee covers.',
            HINT = 'Omit the sampler option: the default finishes such a group by the lattice walk and does not '
                   'publish whether it did.';
    END IF;
    -- Without a domain the released cells are the source's rows: which keys
    -- exist is published exactly, draw after draw. The administrator says
    -- whether that is acceptable, or has them chosen privately.
    IF domain IS NULL AND NOT coalesce(options ? 'partition_selection', false)
       AND coalesce(options->>'keys', '') <> 'public' THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = 'a governed release must say which cells it may show',
            DETAIL = 'Without a domain the released cells are the source''s rows, so which keys exist would be '
                     'published exactly at every draw.',
            HINT = 'Pass a domain listing the public cells; or options => ''{"partition_selection": "laplace"}'' '
                   '(with delta) to choose them privately; or options => ''{"keys": "public"}'' if every cell the '
                   'source can return is public knowledge.';
    END IF;
END
$$;

COMMENT ON FUNCTION dp.check_release_registration IS
'Internal: refuses a governed release''s registration that names no budget, lacks epsilon, source or columns, '
'makes a request dp.privatize would refuse, does not say which cells it may show, or names a sampler that can '
'fail after the charge for reasons that depend on the data.';
REVOKE EXECUTE ON FUNCTION dp.check_release_registration FROM PUBLIC;

-- The request's arguments as dp.privatize's (src/sql/request_arguments.sql).
CREATE OR REPLACE FUNCTION dp.register_release(
    release   text,
    dataset   text,
    @request_arguments(source),
    columns   text,
    @request_arguments(epsilon, mechanism, delta, margins, domain, options, hierarchy, privacy_unit, bounds)
) RETURNS regclass
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    created pg_catalog.regclass;
BEGIN
    PERFORM dp.check_release_registration(dataset, source, columns, epsilon, mechanism, delta, margins, domain,
                                          options, hierarchy, privacy_unit, bounds);
    PERFORM dp.check_source_protected(source);
    IF domain IS NOT NULL THEN
        PERFORM dp.check_source_protected(domain);
    END IF;
    created := dp.create_release_table(release, columns);
    INSERT INTO dp.releases (release, dataset, owner, search_path, source, mechanism, epsilon, delta, margins,
                             domain, options, hierarchy, source_view, domain_view, table_oid, privacy_unit, bounds)
    VALUES (created, dataset, current_user::pg_catalog.regrole, dp.pinned_search_path(), source, mechanism, epsilon,
            delta, coalesce(margins, '{}'), domain, coalesce(options, '{}'), hierarchy,
            dp.pin_query(created, 'source', source),
            CASE WHEN domain IS NOT NULL THEN dp.pin_query(created, 'domain', domain) END,
            created::pg_catalog.oid, privacy_unit, bounds);
    RETURN created;
END
$$;

COMMENT ON FUNCTION dp.register_release IS
'Registers a governed release: creates table release(columns) to hold its current draw (empty until the '
'first dp.refresh_release) and records the source, which later runs with the registering role''s '
'privileges. columns is dp.privatize''s column definition list, e.g. ''state text, n bigint''. '
'The source''s relations must not be readable by PUBLIC. privacy_unit and bounds as for dp.privatize: the '
'source then returns rows (unit and keys) and each unit''s contribution is bounded at every draw.';
REVOKE EXECUTE ON FUNCTION dp.register_release FROM PUBLIC;

CREATE OR REPLACE FUNCTION dp.grant_release(release regclass, analyst regrole) RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r dp.releases;
    relation regclass;
BEGIN
    SELECT * INTO r FROM dp.releases WHERE dp.releases.release = grant_release.release;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704', MESSAGE = format('%s is not a governed release', release);
    END IF;
    -- The pinned views, as every draw reads them: the stored text could resolve to other objects now.
    FOREACH relation IN ARRAY dp.source_relations(format('SELECT * FROM %s', r.source_view))
                              || dp.source_relations(CASE WHEN r.domain_view IS NULL THEN 'SELECT'
                                                          ELSE format('SELECT * FROM %s', r.domain_view) END) LOOP
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
REVOKE EXECUTE ON FUNCTION dp.grant_release(regclass, regrole) FROM PUBLIC;

CREATE OR REPLACE FUNCTION dp.grant_refresh(release regclass, refresher regrole) RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
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
REVOKE EXECUTE ON FUNCTION dp.grant_refresh(regclass, regrole) FROM PUBLIC;

-- EXECUTE on the draw functions, taken back from a role once it may draw
-- nothing: it refreshes no release and owns none.
CREATE OR REPLACE FUNCTION dp.revoke_unused_draw_rights(role regrole) RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT EXISTS (SELECT FROM dp.refreshers f WHERE f.refresher = role)
       AND NOT EXISTS (SELECT FROM dp.releases r WHERE r.owner = role) THEN
        EXECUTE format('REVOKE EXECUTE ON FUNCTION dp.refresh_release(regclass), dp.draw(anyelement) FROM %I',
                       role::text);
    END IF;
END
$$;

COMMENT ON FUNCTION dp.revoke_unused_draw_rights(regrole) IS
'Internal: takes EXECUTE on dp.refresh_release and dp.draw back from a role that refreshes and owns no release.';
REVOKE EXECUTE ON FUNCTION dp.revoke_unused_draw_rights(regrole) FROM PUBLIC;

CREATE OR REPLACE FUNCTION dp.revoke_refresh(release regclass, refresher regrole) RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    DELETE FROM dp.refreshers r WHERE r.release = revoke_refresh.release AND r.refresher = revoke_refresh.refresher;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704',
            MESSAGE = format('role %s may not refresh %s anyway', refresher, release);
    END IF;
    PERFORM dp.revoke_unused_draw_rights(refresher);
END
$$;

COMMENT ON FUNCTION dp.revoke_refresh(regclass, regrole) IS
'Withdraws dp.grant_refresh; EXECUTE on dp.refresh_release and dp.draw goes too once the role refreshes no release.';
REVOKE EXECUTE ON FUNCTION dp.revoke_refresh(regclass, regrole) FROM PUBLIC;

CREATE OR REPLACE FUNCTION dp.drop_release(release regclass) RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r dp.releases;
    refreshers regrole[];
    refresher regrole;
BEGIN
    SELECT array_agg(f.refresher) INTO refreshers FROM dp.refreshers f WHERE f.release = drop_release.release;
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
    FOREACH refresher IN ARRAY coalesce(refreshers, '{}') LOOP
        PERFORM dp.revoke_unused_draw_rights(refresher);
    END LOOP;
END
$$;

COMMENT ON FUNCTION dp.drop_release(regclass) IS
'Drops a governed release and its table. Its draws stay in the audit log; the budget stays spent.';
REVOKE EXECUTE ON FUNCTION dp.drop_release(regclass) FROM PUBLIC;
