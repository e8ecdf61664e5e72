-- Look-alikes of every function, aggregate, operator and type the
-- extension's SQL and C strings name, in a schema of the attacker's
-- (test/cluster/shadowing.sh). Run as the attacking role under
-- search_path pg_catalog, with pg_temp.shadow_names(kind, name) filled with
-- the names. Each look-alike first calls dp_test_shadow.note, which counts
-- (in a sequence: a rollback cannot undo it) and logs every call made by a
-- role other than the attackers (named dp_test_sh_*), then does what the
-- original does where that can be written in PL/pgSQL (functions and
-- operators pass their arguments on; aggregates only count rows). Each
-- polymorphic or "any" argument is instantiated at every type of
-- pg_temp.shadow_types, since a look-alike of exactly the argument types
-- is what a call resolves to before the original (CVE-2018-1058). Types are
-- shadowed by domains whose CHECK calls note: a cast to the look-alike runs it.
\set ON_ERROR_STOP on
CREATE SCHEMA dp_test_shadow;
GRANT USAGE ON SCHEMA dp_test_shadow TO PUBLIC;
CREATE SEQUENCE dp_test_shadow.breaches;
GRANT USAGE, SELECT, UPDATE ON SEQUENCE dp_test_shadow.breaches TO PUBLIC;

-- Every name in here is qualified: it runs under the attacker's search_path.
CREATE FUNCTION dp_test_shadow.note(what pg_catalog.text) RETURNS pg_catalog.bool
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT pg_catalog.starts_with(current_user::pg_catalog.text, 'dp_test_sh_') THEN
        RAISE WARNING 'invariant_dp shadow % ran as %', what, current_user;
        BEGIN
            PERFORM pg_catalog.nextval('dp_test_shadow.breaches'::pg_catalog.regclass);
        EXCEPTION WHEN OTHERS THEN
            NULL;   -- a read-only transaction: the warning above is in the server log
        END;
    END IF;
    RETURN true;
END
$$;

CREATE TEMP TABLE shadow_types(type text);
INSERT INTO shadow_types VALUES ('text'), ('name'), ('oid'), ('regclass'), ('regrole'), ('regtype'),
    ('regprocedure'), ('regnamespace'), ('int2'), ('int4'), ('int8'), ('numeric'), ('float8'), ('bool'),
    ('jsonb'), ('timestamptz');

DO $generate$
DECLARE
    f record;
    t text;
    instances text[];
    args text;
    result text;
    call_args text;
    n integer := 0;
    op record;
    body text;
BEGIN
    -- Functions and aggregates of pg_catalog with those names.
    FOR f IN
        SELECT p.oid, p.proname, p.prokind, p.proretset, p.provariadic <> 0 AS variadic, p.pronargs,
               pg_get_function_arguments(p.oid) AS args, pg_get_function_result(p.oid) AS result,
               p.proargtypes::oid[] || coalesce(p.proallargtypes, '{}') AS types
        FROM pg_proc p
        WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.prokind IN ('f', 'a')
          AND p.proname IN (SELECT s.name FROM pg_temp.shadow_names s WHERE s.kind = 'function')
    LOOP
        -- Pseudo-types PL/pgSQL cannot take or give (internal, cstring, ...) are skipped.
        CONTINUE WHEN EXISTS (SELECT FROM unnest(f.types) a(t) JOIN pg_type y ON y.oid = a.t
                              WHERE y.typtype = 'p' AND y.typname NOT IN ('any', 'anyelement', 'anyarray',
                                    'anynonarray', 'anycompatible', 'anycompatiblearray', 'anycompatiblenonarray',
                                    'record', 'void'))
                     OR f.result ~ '(internal|cstring|trigger|anyrange|anymultirange|anyenum)';
        IF f.args ~ '"any"|anyelement|anyarray|anynonarray|anycompatible' OR
           f.result ~ 'anyelement|anyarray|anynonarray|anycompatible' THEN
            SELECT array_agg(s.type) INTO instances FROM pg_temp.shadow_types s;
        ELSE
            instances := ARRAY[NULL];
        END IF;
        FOREACH t IN ARRAY instances LOOP
            args := f.args;
            result := f.result;
            IF t IS NOT NULL THEN
                args := regexp_replace(args, 'VARIADIC "any"', 'VARIADIC ' || t || '[]', 'g');
                args := regexp_replace(args, '\m(anyarray|anycompatiblearray)\M', t || '[]', 'g');
                args := regexp_replace(args, '"any"|\m(anyelement|anynonarray|anycompatiblenonarray|anycompatible)\M', t, 'g');
                result := regexp_replace(result, '\m(anyarray|anycompatiblearray)\M', t || '[]', 'g');
                result := regexp_replace(result, '\m(anyelement|anynonarray|anycompatiblenonarray|anycompatible)\M', t, 'g');
            END IF;
            n := n + 1;
            IF f.prokind = 'a' THEN
                -- A count of rows, noted at each one; the result is NULL but for bigint ones.
                EXECUTE format($f$CREATE FUNCTION dp_test_shadow.step_%s(state pg_catalog.int8 %s) RETURNS pg_catalog.int8
                                  LANGUAGE plpgsql AS $b$BEGIN PERFORM dp_test_shadow.note(%L); RETURN state OPERATOR(pg_catalog.+) 1; END$b$$f$,
                               n, CASE WHEN f.pronargs = 0 THEN '' ELSE ', ' || regexp_replace(args, '\mVARIADIC\M', '', 'g') END,
                               f.proname);
                EXECUTE format($f$CREATE FUNCTION dp_test_shadow.final_%s(state pg_catalog.int8) RETURNS %s
                                  LANGUAGE plpgsql AS $b$BEGIN RETURN %s; END$b$$f$,
                               n, result, CASE WHEN result = 'bigint' THEN 'state' ELSE 'NULL' END);
                EXECUTE format('CREATE AGGREGATE dp_test_shadow.%I(%s) (SFUNC = dp_test_shadow.step_%s, '
                               'STYPE = pg_catalog.int8, INITCOND = 0, FINALFUNC = dp_test_shadow.final_%s)',
                               f.proname, CASE WHEN f.pronargs = 0 THEN '*' ELSE args END, n, n);
                CONTINUE;
            END IF;
            -- The original, called with the look-alike's arguments.
            SELECT string_agg(CASE WHEN f.variadic AND i = f.pronargs THEN 'VARIADIC $' || i ELSE '$' || i END, ', ')
            INTO call_args FROM generate_series(1, f.pronargs) i;
            body := CASE WHEN f.proretset THEN format('RETURN QUERY SELECT * FROM pg_catalog.%I(%s);', f.proname, call_args)
                         WHEN result = 'void' THEN format('PERFORM pg_catalog.%I(%s);', f.proname, call_args)
                         ELSE format('RETURN pg_catalog.%I(%s);', f.proname, call_args) END;
            -- Functions with OUT arguments return what the original returns, through RETURN QUERY only.
            CONTINUE WHEN args ~ '\mOUT\M|\mINOUT\M' AND NOT f.proretset;
            BEGIN
                EXECUTE format($f$CREATE FUNCTION dp_test_shadow.%I(%s) RETURNS %s LANGUAGE plpgsql AS
                                  $b$BEGIN PERFORM dp_test_shadow.note(%L); %s END$b$$f$,
                               f.proname, args, result, f.proname, body);
            EXCEPTION WHEN duplicate_function THEN
                NULL;   -- two polymorphic originals instantiated alike
            END;
        END LOOP;
    END LOOP;

    -- Operators of pg_catalog with those names, between the shadow types.
    FOR op IN
        SELECT o.oprname, o.oprkind, format_type(o.oprleft, NULL) AS l, format_type(o.oprright, NULL) AS r,
               format_type(o.oprresult, NULL) AS result
        FROM pg_operator o
        WHERE o.oprnamespace = 'pg_catalog'::regnamespace
          AND o.oprname IN (SELECT s.name FROM pg_temp.shadow_names s WHERE s.kind = 'operator')
          AND (o.oprleft = 0 OR o.oprleft IN (SELECT s.type::regtype FROM pg_temp.shadow_types s)
               OR o.oprleft IN (SELECT y.typarray FROM pg_temp.shadow_types s JOIN pg_type y ON y.oid = s.type::regtype))
          AND (o.oprright IN (SELECT s.type::regtype FROM pg_temp.shadow_types s)
               OR o.oprright IN (SELECT y.typarray FROM pg_temp.shadow_types s JOIN pg_type y ON y.oid = s.type::regtype))
    LOOP
        n := n + 1;
        IF op.oprkind = 'b' THEN
            EXECUTE format($f$CREATE FUNCTION dp_test_shadow.op_%s(a %s, b %s) RETURNS %s LANGUAGE plpgsql AS
                              $b$BEGIN PERFORM dp_test_shadow.note(%L); RETURN a OPERATOR(pg_catalog.%s) b; END$b$$f$,
                           n, op.l, op.r, op.result, 'operator ' || op.oprname, op.oprname);
            EXECUTE format('CREATE OPERATOR dp_test_shadow.%s (LEFTARG = %s, RIGHTARG = %s, FUNCTION = dp_test_shadow.op_%s)',
                           op.oprname, op.l, op.r, n);
        ELSE
            EXECUTE format($f$CREATE FUNCTION dp_test_shadow.op_%s(b %s) RETURNS %s LANGUAGE plpgsql AS
                              $b$BEGIN PERFORM dp_test_shadow.note(%L); RETURN OPERATOR(pg_catalog.%s) b; END$b$$f$,
                           n, op.r, op.result, 'operator ' || op.oprname, op.oprname);
            EXECUTE format('CREATE OPERATOR dp_test_shadow.%s (RIGHTARG = %s, FUNCTION = dp_test_shadow.op_%s)',
                           op.oprname, op.r, n);
        END IF;
    END LOOP;

    -- Types, last: the look-alikes above name the originals.
    FOR t IN SELECT DISTINCT y.typname FROM pg_type y
             WHERE y.typnamespace = 'pg_catalog'::regnamespace AND y.typtype = 'b' AND y.typcategory <> 'A'
               AND y.typname IN (SELECT s.name FROM pg_temp.shadow_names s WHERE s.kind = 'type')
    LOOP
        EXECUTE format('CREATE DOMAIN dp_test_shadow.%I AS pg_catalog.%I CHECK (dp_test_shadow.note(%L))',
                       t, t, 'type ' || t);
    END LOOP;
    RAISE NOTICE 'shadows: % functions and aggregates, operators and types', n;
END
$generate$;
