-- pgTAP: the bad-input matrix. Every argument of every function in schema dp
-- gets every bad value of its type (NULL, empty, huge, non-finite, negative,
-- injection-like text, a catalog table for a regclass, ...) while the other
-- arguments keep a valid value. Each call must end in success or an error
-- whose SQLSTATE is not an internal one (class XX or 58) and whose message
-- names no C++ internals, within statement_timeout. The matrix is built from
-- the catalog: a function added to dp without a valid call below fails the
-- coverage test, so nothing new goes unchecked.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS invariant_dp;
SELECT plan(5);

SET LOCAL statement_timeout = '5s';
SET LOCAL client_min_messages = warning;
CREATE TEMP TABLE t AS SELECT i % 3 AS k, i % 2 AS j, i AS day FROM generate_series(1, 30) i;
CREATE TABLE bad_inputs_raw AS SELECT k::text AS county, j::text AS edu FROM t;
REVOKE ALL ON bad_inputs_raw FROM PUBLIC;
DO $$
BEGIN
    PERFORM dp.set_budget('bad inputs', 1000);
    PERFORM dp.register_release('bad_inputs_release', 'bad inputs',
                                'SELECT county, edu, count(*) FROM bad_inputs_raw GROUP BY 1, 2',
                                'county text, edu text, n bigint', 0.5, margins => '{county}', options => jsonb_build_object('keys', 'public'));
END
$$;
-- A stored session release and its law, for the error bars' explicit form.
CREATE TABLE bad_inputs_session AS
SELECT * FROM dp.privatize('SELECT county, edu, count(*) FROM bad_inputs_raw GROUP BY 1, 2', 0.5, margins => '{county}')
    AS r(county text, edu text, n bigint);
CREATE TABLE bad_inputs_law AS SELECT dp.last_release() AS law;

-- A valid call per function (several for some: dp.privatize and the
-- request checks also with the non-negative cascade over a hierarchy):
-- the call's text around its arguments, and each argument as an SQL
-- expression. Internal support functions of the
-- aggregate take `internal` arguments SQL cannot pass; they are named here
-- with that reason, and exercised through the aggregate itself.
CREATE TEMP TABLE valid_call (fn text, head text, args text[], tail text);
INSERT INTO valid_call VALUES
('privatize(text,double precision,text,double precision,text[],text,jsonb,text[],text,jsonb)', 'SELECT count(*) FROM dp.privatize(',
 ARRAY['''SELECT k, j, count(*) FROM t GROUP BY 1, 2''', '1.0', '''integer_laplace''', 'NULL', '''{k}''', 'NULL', '''{}''', 'NULL', 'NULL', 'NULL'],
 ') AS r(k int, j int, n bigint)'),
('privatize(text,double precision,text,double precision,text[],text,jsonb,text[],text,jsonb)', 'SELECT count(*) FROM dp.privatize(',
 ARRAY['''SELECT k, j, count(*) FROM t GROUP BY 1, 2''', '1.0', '''nonnegative_cascade''', 'NULL', '''{k}''', 'NULL',
       '''{"stddev": true, "interval": 0.9}''', '''{k,j}''', 'NULL', 'NULL'],
 ') AS r(k int, j int, n bigint, sd float8, lower bigint, upper bigint)'),
('check_request(text,double precision,double precision,text[],jsonb,text[],text,jsonb)', 'SELECT dp.check_request(',
 ARRAY['''nonnegative_cascade''', '1.0', 'NULL', '''{k}''', '''{"level_variance": [1, 1, 2]}''', '''{k,j}''', 'NULL', 'NULL'], ')'),
('last_release()', 'SELECT dp.last_release(', '{}', ')'),
('total_preserving_count(bigint,double precision)', 'SELECT count(x) FROM (SELECT dp.total_preserving_count(', ARRAY['n', '0.5'],
 ') OVER (PARTITION BY k) AS x FROM (SELECT k, count(*) AS n FROM t GROUP BY 1) c) w'),
('noisy_count(double precision)', 'SELECT count(x) FROM (SELECT dp.noisy_count(', ARRAY['1.0'], ') AS x FROM t GROUP BY k) g'),
('noisy_count(double precision,double precision)', 'SELECT count(x) FROM (SELECT dp.noisy_count(', ARRAY['1.0', '1e-6'],
 ') AS x FROM t GROUP BY k) g'),
('diagnose(text,double precision,text,double precision,text[],jsonb)', 'SELECT count(*) FROM dp.diagnose(',
 ARRAY['''SELECT k, j, count(*) FROM t GROUP BY 1, 2''', '1.0', '''integer_laplace''', 'NULL', '''{k,j}''',
       '''{"iterations": 200, "coupled_pairs": 4}'''], ')'),
('privatize_as_owner(regrole,text,text,double precision,text,double precision,text[],text,jsonb,text[],text,jsonb)',
 'SELECT count(*) FROM dp.privatize_as_owner(',
 ARRAY['current_user::regrole', '''public''', '''SELECT k, count(*) FROM t GROUP BY 1''', '1.0', '''discrete_laplace''',
       'NULL', '''{}''', 'NULL', '''{}''', 'NULL', 'NULL', 'NULL'], ') AS r(k int, n bigint)'),
('check_request(text,double precision,double precision,text[],jsonb,text[],text,jsonb)', 'SELECT dp.check_request(',
 ARRAY['''integer_laplace''', '1.0', 'NULL', '''{}''', '''{}''', 'NULL', 'NULL', 'NULL'], ')'),
('source_relations(text)', 'SELECT dp.source_relations(', ARRAY['''SELECT * FROM t'''], ')'),
('source_functions(text)', 'SELECT dp.source_functions(', ARRAY['''SELECT * FROM t'''], ')'),
('check_source_objects(text)', 'SELECT dp.check_source_objects(', ARRAY['''SELECT * FROM bad_inputs_raw'''], ')'),
('column_list(text)', 'SELECT dp.column_list(', ARRAY['''a text, n bigint'''], ')'),
('set_budget(text,numeric,numeric)', 'SELECT dp.set_budget(', ARRAY['''other budget''', '1', '0'], ')'),
('check_source_protected(text)', 'SELECT dp.check_source_protected(', ARRAY['''SELECT * FROM bad_inputs_raw'''], ')'),
('create_release_table(text,text)', 'SELECT dp.create_release_table(', ARRAY['''bad_inputs_table''', '''a text, n bigint'''], ')'),
('release_table_name(text[])', 'SELECT dp.release_table_name(', ARRAY['''{public,bad_inputs_table}'''], ')'),
('check_release_registration(text,text,text,double precision,text,double precision,text[],text,jsonb,text[],text,jsonb)',
 'SELECT dp.check_release_registration(',
 ARRAY['''bad inputs''', '''SELECT county, count(*) FROM bad_inputs_raw GROUP BY 1''', '''county text, n bigint''', '0.5',
       '''integer_laplace''', 'NULL', '''{}''', 'NULL', '''{"keys": "public"}''', 'NULL', 'NULL', 'NULL'], ')'),
('check_stream_registration(text,text,text,text,double precision,double precision,integer,jsonb,text,jsonb)',
 'SELECT count(*) FROM dp.check_stream_registration(',
 ARRAY['''bad inputs''', '''bad_inputs_stream''', '''SELECT county, edu FROM bad_inputs_raw''', '''county text, n float8''',
       '0.5', '1e-6', '10', '''{}''', '''edu''', '''{"max_groups_per_unit": 3, "max_rows_per_group": 1}'''], ')'),
('check_privacy_unit(text,jsonb)', 'SELECT dp.check_privacy_unit(',
 ARRAY['''edu''', '''{"max_groups_per_unit": 3, "max_rows_per_group": 1}'''], ')'),
('check_stream_table(regclass)', 'SELECT dp.check_stream_table(', ARRAY['''bad_inputs_release'''], ')'),
('revoke_unused_draw_rights(regrole)', 'SELECT dp.revoke_unused_draw_rights(', ARRAY['''pg_monitor'''], ')'),
('register_release(text,text,text,text,double precision,text,double precision,text[],text,jsonb,text[],text,jsonb)',
 'SELECT dp.register_release(',
 ARRAY['''bad_inputs_other''', '''bad inputs''', '''SELECT county, count(*) FROM bad_inputs_raw GROUP BY 1''',
       '''county text, n bigint''', '0.5', '''integer_laplace''', 'NULL', '''{}''', 'NULL', '''{"keys": "public"}''', 'NULL', 'NULL', 'NULL'], ')'),
('grant_release(regclass,regrole)', 'SELECT dp.grant_release(', ARRAY['''bad_inputs_release''', '''pg_monitor'''], ')'),
('drop_release(regclass)', 'SELECT dp.drop_release(', ARRAY['''bad_inputs_release'''], ')'),
('release_columns(regclass)', 'SELECT dp.release_columns(', ARRAY['''bad_inputs_release'''], ')'),
('refresh_release(regclass)', 'SELECT dp.refresh_release(', ARRAY['''bad_inputs_release'''], ')'),
('draw(anyelement)', 'SELECT count(*) FROM dp.draw(', ARRAY['NULL::bad_inputs_release'], ')'),
('release_cost(regclass)', 'SELECT count(*) FROM dp.release_cost(', ARRAY['''bad_inputs_release'''], ')'),
('cascade_range_variance(text,integer[],double precision[],integer[],double precision,bigint,bigint)',
 'SELECT dp.cascade_range_variance(',
 ARRAY['''lattice_gaussian_cascade''', '''{2,2,2}''', '''{1,0.5,0.25}''', '''{}''', '1e-20', '0', '3'], ')'),
('range_variance_bounds(jsonb,bigint,bigint)', 'SELECT dp.range_variance_bounds(',
 ARRAY['''{"error_law": "lattice_gaussian_cascade", "hierarchy": {"children": [2, 2, 2]},
           "noise": {"level_variance": [1, 0.5, 0.25], "variance_deficit_bound": 1e-20}}''', '0', '3'], ')'),
('range_variance(jsonb,bigint,bigint)', 'SELECT dp.range_variance(',
 ARRAY['''{"error_law": "gaussian_cascade", "hierarchy": {"children": [2, 2, 2]}, "noise": {"level_variance": [1, 0.5, 0.25]}}''',
       '0', '3'], ')'),
('grant_refresh(regclass,regrole)', 'SELECT dp.grant_refresh(', ARRAY['''bad_inputs_release''', '''pg_monitor'''], ')'),
('revoke_refresh(regclass,regrole)', 'SELECT dp.revoke_refresh(', ARRAY['''bad_inputs_release''', '''pg_monitor'''], ')'),
('cascade_stream_variance(double precision,double precision,integer,text,jsonb)', 'SELECT dp.cascade_stream_variance(',
 ARRAY['0.5', '1e-6', '10', '''replace_one''', '''{"max_groups_per_unit": 3, "max_rows_per_group": 1}'''], ')'),
('cascade_stream_range_variance(double precision,bigint,bigint)', 'SELECT dp.cascade_stream_range_variance(',
 ARRAY['2.0', '0', '5'], ')'),
('stream_append_as_owner(regclass,regrole,text,text,text[],text,double precision,integer,text,jsonb)',
 'SELECT count(*) FROM dp.stream_append_as_owner(',
 ARRAY['''bad_inputs_release''', 'current_user::regrole', '''public''', '''SELECT day, k FROM t''', '''{}''',
       'NULL', '1.0', '10', '''k''', '''{"max_groups_per_unit": 3, "max_rows_per_group": 1}'''], ')'),
('register_stream(text,text,text,text,double precision,double precision,integer,jsonb,text,jsonb)', 'SELECT dp.register_stream(',
 ARRAY['''bad_inputs_stream''', '''bad inputs''', '''SELECT county, edu FROM bad_inputs_raw''',
       '''county text, n float8''', '0.5', '1e-6', '10', '''{}''', '''edu''',
       '''{"max_groups_per_unit": 3, "max_rows_per_group": 1}'''], ')'),
('stream_range_variance(regclass,bigint,bigint)', 'SELECT dp.stream_range_variance(',
 ARRAY['''bad_inputs_release''', '0', '1'], ')'),
('pinned_search_path()', 'SELECT dp.pinned_search_path(', '{}', ')'),
('pin_query(regclass,text,text)', 'SELECT dp.pin_query(', ARRAY['''bad_inputs_release''', '''probe''', '''SELECT 1'''], ')'),
('pin_registered_source(regclass)', 'SELECT dp.pin_registered_source(', ARRAY['''bad_inputs_release'''], ')'),
('check_draw(regclass,regrole,boolean)', 'SELECT count(*) FROM dp.check_draw(',
 ARRAY['''bad_inputs_release''', 'current_user::regrole', 'false'], ')'),
('charge_draw(regclass,regrole,regrole,boolean)', 'SELECT count(*) FROM dp.charge_draw(',
 ARRAY['''bad_inputs_release''', 'current_user::regrole', 'current_user::regrole', 'false'], ')'),
('store_draw(regclass,bigint)', 'SELECT dp.store_draw(', ARRAY['''bad_inputs_release''', '1'], ')'),
('stream_draw_cost(regclass)', 'SELECT count(*) FROM dp.stream_draw_cost(', ARRAY['''bad_inputs_release'''], ')'),
('store_stream_draw(regclass,bigint,text)', 'SELECT dp.store_stream_draw(',
 ARRAY['''bad_inputs_release''', '1', '''SELECT 1'''], ')'),
('note_failed_draw(bigint,text)', 'SELECT dp.note_failed_draw(', ARRAY['1', '''XX000'''], ')'),
('check_release_objects(regclass,regrole,text,regclass,regclass)', 'SELECT dp.check_release_objects(',
 ARRAY['''bad_inputs_release''', 'current_user::regrole', '''public''', '''bad_inputs_release''', 'NULL'], ')'),
('trusted_search_path(text)', 'SELECT dp.trusted_search_path(', ARRAY['''public, pg_temp'''], ')'),
('revoke_from_all_but_owner(regclass)', 'SELECT dp.revoke_from_all_but_owner(', ARRAY['''bad_inputs_release'''], ')'),
('margin_of_error(record,double precision)', 'SELECT dp.margin_of_error(', ARRAY['r', '0.9'], ') FROM bad_inputs_release r'),
('margin_of_error(record,double precision,jsonb)', 'SELECT dp.margin_of_error(',
 ARRAY['r', '0.9', '(SELECT law FROM bad_inputs_law)'], ') FROM bad_inputs_session r'),
('sum_variance(record)', 'SELECT dp.sum_variance(', ARRAY['r'], ') FROM bad_inputs_release r'),
('sum_variance(record,jsonb)', 'SELECT dp.sum_variance(', ARRAY['r', '(SELECT law FROM bad_inputs_law)'],
 ') FROM bad_inputs_session r'),
('error_bar(record,double precision)', 'SELECT dp.error_bar(', ARRAY['r', '0.9'], ') FROM bad_inputs_release r'),
('error_bar(record,double precision,jsonb)', 'SELECT dp.error_bar(',
 ARRAY['r', '0.9', '(SELECT law FROM bad_inputs_law)'], ') FROM bad_inputs_session r');

CREATE TEMP TABLE not_callable (fn text PRIMARY KEY, why text);
INSERT INTO not_callable VALUES
('noisy_count_transition(internal,double precision)', 'aggregate support (internal): exercised through dp.noisy_count'),
('noisy_count_transition(internal,double precision,double precision)', 'aggregate support (internal): exercised through dp.noisy_count'),
('noisy_count_combine(internal,internal)', 'aggregate support (internal): exercised through dp.noisy_count'),
('noisy_count_serialize(internal)', 'aggregate support (internal): exercised through dp.noisy_count'),
('noisy_count_deserialize(bytea,internal)', 'aggregate support (internal): exercised through dp.noisy_count'),
('noisy_count_final(internal)', 'aggregate support (internal): exercised through dp.noisy_count'),
('privatize_support(internal)', 'planner support (internal): called by the planner for dp.privatize'),
('error_bar_rows(internal,record)', 'aggregate support (internal): exercised through dp.sum_variance'),
('error_bar_rows(internal,record,jsonb)', 'aggregate support (internal): exercised through dp.sum_variance'),
('error_bar_rows(internal,record,double precision)', 'aggregate support (internal): exercised through dp.margin_of_error'),
('error_bar_rows(internal,record,double precision,jsonb)', 'aggregate support (internal): exercised through dp.margin_of_error'),
('error_bar_combine(internal,internal)', 'aggregate support (internal): exercised through dp.margin_of_error'),
('error_bar_serialize(internal)', 'aggregate support (internal): exercised through dp.margin_of_error'),
('error_bar_deserialize(bytea,internal)', 'aggregate support (internal): exercised through dp.margin_of_error'),
('margin_of_error_final(internal)', 'aggregate support (internal): exercised through dp.margin_of_error'),
('sum_variance_final(internal)', 'aggregate support (internal): exercised through dp.sum_variance'),
('error_bar_final(internal)', 'aggregate support (internal): exercised through dp.error_bar');

-- Bad values by the argument's type (SQL expressions).
CREATE TEMP TABLE bad_value (type text, expr text);
INSERT INTO bad_value
SELECT 'text', e FROM unnest(ARRAY['NULL', '''''', 'repeat(''x'', 100000)', 'E''\x01''', '''x''''); DROP TABLE t; --''',
                                   '''SELECT 1; SELECT 2''', '''%s%n''']) e
UNION ALL SELECT 'double precision', e FROM unnest(ARRAY['NULL', '''NaN''::float8', '''Infinity''::float8',
                                   '''-Infinity''::float8', '0', '-1', '1e-300', '1e300']) e
UNION ALL SELECT 'numeric', e FROM unnest(ARRAY['NULL', '''NaN''::numeric', '''Infinity''::numeric', '0', '-1', '1e100']) e
UNION ALL SELECT 'integer', e FROM unnest(ARRAY['NULL', '0', '-1', '2147483647']) e
UNION ALL SELECT 'bigint', e FROM unnest(ARRAY['NULL', '0', '-1', '9223372036854775807']) e
UNION ALL SELECT 'boolean', e FROM unnest(ARRAY['NULL', 'true']) e
UNION ALL SELECT 'text[]', e FROM unnest(ARRAY['NULL', '''{}''', '''{NULL}''', '''{""}''', 'array_fill(''x''::text, ARRAY[100000])',
                                   '''{"x); DROP TABLE t; --"}''']) e
UNION ALL SELECT 'integer[]', e FROM unnest(ARRAY['NULL', '''{}''', '''{NULL}''', '''{-1}''', '''{2147483647}''',
                                   'array_fill(1, ARRAY[1000000])']) e
UNION ALL SELECT 'double precision[]', e FROM unnest(ARRAY['NULL', '''{}''', '''{NULL}''', '''{NaN}''', '''{-1}''',
                                   '''{Infinity}''']) e
UNION ALL SELECT 'jsonb', e FROM unnest(ARRAY['NULL', '''null''', '''[]''', '''{"unknown": 1}''', '''"text"''',
                                   'repeat(''['', 5000)::text || repeat('']'', 5000)']) e
UNION ALL SELECT 'regclass', e FROM unnest(ARRAY['NULL', '0::oid::regclass', '''pg_authid''::regclass', '''t''::regclass',
                                   '''dp.budgets''::regclass']) e
UNION ALL SELECT 'regrole', e FROM unnest(ARRAY['NULL', '0::oid::regrole', '''pg_signal_backend''::regrole']) e
UNION ALL SELECT 'anyelement', e FROM unnest(ARRAY['NULL::int', 'NULL::pg_authid', 'NULL::t', 'NULL::dp.budgets']) e
-- A row that is no release table's: anonymous, another table's, a catalog's.
UNION ALL SELECT 'record', e FROM unnest(ARRAY['NULL::record', 'ROW(1, 2)', '(SELECT t FROM t LIMIT 1)',
                                   '(SELECT b FROM dp.budgets b LIMIT 1)', 'ROW(''0'', ''0'', 1)::bad_inputs_session']) e;

-- The catalog's functions of dp, by signature.
CREATE TEMP VIEW dp_functions AS
SELECT p.oid, p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS raw_signature,
       regexp_replace(p.oid::regprocedure::text, '^dp\.', '') AS fn, p.proargtypes
FROM pg_proc p WHERE p.pronamespace = 'dp'::regnamespace;

SELECT is(ARRAY(SELECT f.fn FROM dp_functions f
                WHERE f.fn NOT IN (SELECT fn FROM valid_call) AND f.fn NOT IN (SELECT fn FROM not_callable)
                ORDER BY 1),
          '{}'::text[], 'every function in dp has a valid call in the matrix (or a stated reason it has none)');

-- The matrix: one call per (function, argument, bad value).
CREATE TEMP TABLE outcome (fn text, arg int, value text, sqlstate text, message text, ms float8);
DO $$
DECLARE
    c record;
    b record;
    i int;
    args text[];
    query text;
    state text;
    message text;
    started timestamptz;
BEGIN
    FOR c IN SELECT v.*, f.proargtypes FROM valid_call v JOIN dp_functions f USING (fn) LOOP
        FOR i IN 1 .. coalesce(array_length(c.args, 1), 0) LOOP
            FOR b IN SELECT expr FROM bad_value WHERE type = format_type(c.proargtypes[i - 1], NULL) LOOP
                args := c.args;
                args[i] := b.expr;
                query := c.head || array_to_string(args, ', ') || c.tail;
                state := '00000';
                message := NULL;
                started := clock_timestamp();
                BEGIN
                    EXECUTE query;
                EXCEPTION WHEN OTHERS THEN
                    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT;
                END;
                INSERT INTO outcome VALUES (c.fn, i, b.expr, state, message,
                                            1000 * extract(epoch FROM clock_timestamp() - started));
            END LOOP;
        END LOOP;
    END LOOP;
END
$$;

SELECT cmp_ok((SELECT count(*)::int FROM outcome), '>=', 250, 'the matrix made its calls: ' ||
              (SELECT count(*) FROM outcome) || ' calls over ' || (SELECT count(DISTINCT fn) FROM outcome) || ' functions');
SELECT is(ARRAY(SELECT format('%s arg %s = %s: %s %s', fn, arg, left(value, 40), sqlstate, message)
                FROM outcome
                WHERE left(sqlstate, 2) IN ('XX', '58') OR sqlstate = '57014'
                   OR message ~* '(std::|invariant_dp::|exception|terminate called|basic_string)'
                ORDER BY 1),
          '{}'::text[], 'no call ends in an internal error, a C++ message or a timeout');
SELECT cmp_ok((SELECT max(ms) FROM outcome), '<', 5000::float8, 'every call returns within statement_timeout');

-- Partition selection: every selector of the options catalogue refuses the
-- same bad requests with the same SQLSTATE (a bad share, margins, public
-- keys, no delta, a budget too small to calibrate).
CREATE TEMP TABLE selection_refusal (method text, request text, sqlstate text);
DO $$
DECLARE
    m text;
    r record;
    state text;
BEGIN
    FOREACH m IN ARRAY ARRAY['truncated_geometric', 'dp_sips', 'laplace', 'gaussian', 'auto'] LOOP
        FOR r IN SELECT * FROM (VALUES
            ('share 0', 'discrete_laplace', 1.0, 1e-6, '{}'::text[], jsonb_build_object('partition_selection',
                jsonb_build_object('method', m, 'budget_share', 0))),
            ('share as text', 'discrete_laplace', 1.0, 1e-6, '{}', jsonb_build_object('partition_selection',
                jsonb_build_object('method', m, 'budget_share', '0.5'))),
            ('margins', 'integer_laplace', 1.0, 1e-6, '{k}', jsonb_build_object('partition_selection', m)),
            ('public keys', 'discrete_laplace', 1.0, 1e-6, '{}',
                jsonb_build_object('partition_selection', m, 'keys', 'public')),
            ('no delta', 'discrete_laplace', 1.0, NULL, '{}', jsonb_build_object('partition_selection', m)),
            ('tiny budget', 'discrete_laplace', 1e-300, 1e-300, '{}', jsonb_build_object('partition_selection', m))
        ) v(request, mechanism, epsilon, delta, margins, options) LOOP
            state := '00000';
            BEGIN
                PERFORM count(*) FROM dp.privatize('SELECT k, j, count(*) FROM t GROUP BY 1, 2', r.epsilon,
                    r.mechanism, delta => r.delta, margins => r.margins, options => r.options)
                    AS x(k int, j int, n bigint);
            EXCEPTION WHEN OTHERS THEN
                GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE;
            END;
            INSERT INTO selection_refusal VALUES (m, r.request, state);
        END LOOP;
    END LOOP;
END
$$;
SELECT is(ARRAY(SELECT request || ': ' || string_agg(method || ' ' || sqlstate, ', ' ORDER BY method)
                FROM selection_refusal GROUP BY request
                HAVING count(DISTINCT sqlstate) > 1 OR bool_or(sqlstate = '00000') ORDER BY request),
          '{}'::text[], 'every partition selector refuses the same bad requests with the same SQLSTATE');
SELECT * FROM finish();
ROLLBACK;
