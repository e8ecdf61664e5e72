-- Governed sources: what a source or domain query reads and calls (analysed,
-- never run; administrators only, since analysis locks the tables a query
-- names), the checks a registration makes, and pinning: a governed
-- query is stored as a view in schema dp when it is registered, so every
-- object it uses is bound by identity then. src/pg/source_relations.c,
-- object_owners.c, column_list.c.

CREATE OR REPLACE FUNCTION dp.source_relations(source text) RETURNS regclass[]
AS 'MODULE_PATHNAME', 'dp_source_relations'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dp.source_relations(text) IS
'Every table, view and partition a query reads (after view expansion). The query is analysed, never run.';
REVOKE EXECUTE ON FUNCTION dp.source_relations(text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION dp.source_functions(source text) RETURNS regprocedure[]
AS 'MODULE_PATHNAME', 'dp_source_functions'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dp.source_functions(text) IS
'The functions a query reads rows from (in FROM) that are not PostgreSQL''s own. The query is analysed, never run.';
REVOKE EXECUTE ON FUNCTION dp.source_functions(text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION dp.check_source_objects(source text) RETURNS void
AS 'MODULE_PATHNAME', 'dp_check_source_objects'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dp.check_source_objects(text) IS
'Raises 42501 if a query calls a volatile function, or uses a function, view or domain owned by a role other '
'than the caller or a superuser. The query is analysed, never run.';
REVOKE EXECUTE ON FUNCTION dp.check_source_objects(text) FROM PUBLIC;

-- A governed source must name what it reads (so that PUBLIC can read none of
-- it), be read-only, and use only objects nobody else can redefine. It
-- analyses the source under the caller's search_path, the one the source
-- is written in, so its own body names every function, operator and type
-- with its schema: no name in it is resolved through that search_path.
CREATE OR REPLACE FUNCTION dp.check_source_protected(source text) RETURNS void
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    relation pg_catalog.regclass;
    fn pg_catalog.regprocedure;
BEGIN
    FOREACH fn IN ARRAY dp.source_functions(source) LOOP
        RAISE EXCEPTION USING ERRCODE = '42501',
            MESSAGE = pg_catalog.format('source reads rows through function %s, which the protection check cannot see into', fn),
            DETAIL = 'A governed source must name the relations it reads, so that none of them is readable by PUBLIC.',
            HINT = 'Read the tables directly, or through a view.';
    END LOOP;
    PERFORM dp.check_source_objects(source);
    FOREACH relation IN ARRAY dp.source_relations(source) LOOP
        IF pg_catalog.has_any_column_privilege('public', relation, 'SELECT') THEN
            RAISE EXCEPTION USING ERRCODE = '42501',
                MESSAGE = pg_catalog.format('source reads %s, which PUBLIC can read', relation),
                DETAIL = 'A governed release is private only if its raw rows cannot be read around it.',
                HINT = pg_catalog.format('REVOKE SELECT ON %s FROM PUBLIC, then register again.', relation);
        END IF;
    END LOOP;
END
$$;

COMMENT ON FUNCTION dp.check_source_protected(text) IS
'Raises 42501 if PUBLIC can read any relation the query reads, or if it reads rows through a function.';
REVOKE EXECUTE ON FUNCTION dp.check_source_protected(text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION dp.column_list(columns text) RETURNS text
AS 'MODULE_PATHNAME', 'dp_column_list'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dp.column_list(text) IS
'A column definition list (name type, ...) parsed as exactly that and rebuilt with quoted names; raises 22023 '
'for anything else (defaults, constraints, table clauses, more statements) and 42501 for a type owned by '
'another role than the caller or a superuser.';

-- Keeps the schemas of a search_path that only trusted roles (the caller
-- and superusers) can create objects in; a NOTICE names each one left out.
CREATE OR REPLACE FUNCTION dp.trusted_search_path(search_path text) RETURNS text
AS 'MODULE_PATHNAME', 'dp_trusted_search_path'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dp.trusted_search_path(text) IS
'Internal: the schemas of a search_path that no role but the caller and superusers owns or may create objects '
'in; a NOTICE names each one left out.';
REVOKE EXECUTE ON FUNCTION dp.trusted_search_path(text) FROM PUBLIC;

-- The caller's schemas as they resolve now ("$user" expanded, schemas that
-- do not exist left out, no temporary schema), then pg_temp explicitly last,
-- keeping only schemas no other role can write: the schemas a stored
-- source's functions resolve names in at every draw (a schema another role
-- could create a function in would let that role redirect them). It reads
-- the caller's search_path, so it names everything with its schema.
CREATE OR REPLACE FUNCTION dp.pinned_search_path() RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
    SELECT dp.trusted_search_path(pg_catalog.concat_ws(', ', pg_catalog.string_agg(pg_catalog.quote_ident(s), ', ' ORDER BY i), 'pg_temp'))
    FROM pg_catalog.unnest(pg_catalog.current_schemas(false)) WITH ORDINALITY AS a(s, i)
    WHERE NOT pg_catalog.starts_with(s, 'pg_temp_') AND NOT pg_catalog.starts_with(s, 'pg_toast_temp_')
$$;

COMMENT ON FUNCTION dp.pinned_search_path() IS
'Internal: the caller''s effective schemas ("$user" expanded, no temporary schema, none another role can write), '
'then pg_temp last.';
REVOKE EXECUTE ON FUNCTION dp.pinned_search_path() FROM PUBLIC;

-- Only its owner may use a relation of a governed release's: privileges
-- ALTER DEFAULT PRIVILEGES gave others when it was created are taken back.
CREATE OR REPLACE FUNCTION dp.revoke_from_all_but_owner(relation regclass) RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    grantee oid;
BEGIN
    FOR grantee IN SELECT DISTINCT a.grantee
                   FROM pg_class c, aclexplode(c.relacl) a
                   WHERE c.oid = relation AND a.grantee <> c.relowner LOOP
        EXECUTE format('REVOKE ALL ON %s FROM %s', relation,
                       CASE WHEN grantee = 0 THEN 'PUBLIC' ELSE quote_ident(grantee::regrole::text) END);
    END LOOP;
END
$$;

COMMENT ON FUNCTION dp.revoke_from_all_but_owner(regclass) IS
'Internal: takes every privilege on a relation from every role but its owner.';
REVOKE EXECUTE ON FUNCTION dp.revoke_from_all_but_owner(regclass) FROM PUBLIC;

-- A governed query stored as a view: its relations, functions, operators
-- and types are bound by identity when it is registered, so no object
-- created later (a temporary view, a schema named like the owner, an
-- overloading function) can redirect it, and none it uses can be dropped
-- while it is registered. The query is written in the caller's search_path,
-- so this body names everything with its schema.
CREATE OR REPLACE FUNCTION dp.pin_query(release regclass, kind text, query text) RETURNS regclass
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    view_name pg_catalog.text := pg_catalog.format('%s_of_%s', kind, release::pg_catalog.oid);
    pinned pg_catalog.regclass;
BEGIN
    EXECUTE pg_catalog.format('CREATE VIEW dp.%I AS %s', view_name, query);
    pinned := pg_catalog.to_regclass(pg_catalog.format('dp.%I', view_name));
    -- It returns the true counts: nobody but its owner may read it.
    PERFORM dp.revoke_from_all_but_owner(pinned);
    EXECUTE pg_catalog.format('COMMENT ON VIEW %s IS %L', pinned,
                              pg_catalog.format('The %s query of governed release %s, pinned when it was registered.',
                                                kind, release));
    RETURN pinned;
END
$$;

COMMENT ON FUNCTION dp.pin_query(regclass, text, text) IS
'Internal: stores a governed release''s source or domain query as a view in schema dp, bound when registered.';
REVOKE EXECUTE ON FUNCTION dp.pin_query(regclass, text, text) FROM PUBLIC;

-- Pins the stored source (and domain) of a release registered before 0.4.0,
-- as it resolves now under the search_path it was registered with: ALTER
-- EXTENSION UPDATE does it for every release, an administrator does it for
-- a release restored from an older dump. Run it only where nobody can have
-- planted look-alike objects since.
CREATE OR REPLACE FUNCTION dp.pin_registered_source(release regclass) RETURNS regclass
LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r dp.releases;
    pinned regclass;
    pinned_domain regclass;
    registered_path text;
BEGIN
    SELECT * INTO r FROM dp.releases WHERE dp.releases.release = pin_registered_source.release;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704', MESSAGE = format('%s is not a governed release', release);
    END IF;
    IF EXISTS (SELECT FROM pg_class c WHERE c.oid = r.source_view) THEN
        RETURN r.source_view;
    END IF;
    -- "$user" meant the owner when it was registered, not whoever pins now.
    registered_path := regexp_replace(r.search_path, '"?\$user"?', quote_ident(r.owner::text), 'g');
    -- The stored source resolves in the registered schemas; nothing else
    -- this function runs does.
    PERFORM pg_catalog.set_config('search_path', registered_path, true);
    PERFORM dp.check_source_objects(r.source);
    pinned := dp.pin_query(r.release, 'source', r.source);
    IF r.domain IS NOT NULL THEN
        PERFORM dp.check_source_objects(r.domain);
        pinned_domain := dp.pin_query(r.release, 'domain', r.domain);
    END IF;
    registered_path := dp.pinned_search_path();
    PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
    UPDATE dp.releases SET source_view = pinned, domain_view = pinned_domain,
                           search_path = registered_path, table_oid = r.release::oid
    WHERE dp.releases.release = r.release;
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
