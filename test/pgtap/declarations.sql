-- pgTAP: every SQL object of invariant_dp is declared as README documents:
-- types, volatility (anything that draws noise is VOLATILE), strictness,
-- parallel safety, and a comment.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS invariant_dp;
SELECT plan(51);

SELECT has_schema('dp');
SELECT has_function('dp', 'privatize', ARRAY['text', 'double precision', 'text', 'double precision', 'text[]', 'text', 'jsonb', 'text[]', 'text', 'jsonb']);
SELECT function_returns('dp', 'privatize', ARRAY['text', 'double precision', 'text', 'double precision', 'text[]', 'text', 'jsonb', 'text[]', 'text', 'jsonb'], 'setof record');
SELECT volatility_is('dp', 'privatize', ARRAY['text', 'double precision', 'text', 'double precision', 'text[]', 'text', 'jsonb', 'text[]', 'text', 'jsonb'], 'volatile');
SELECT isnt_strict('dp', 'privatize', ARRAY['text', 'double precision', 'text', 'double precision', 'text[]', 'text', 'jsonb', 'text[]', 'text', 'jsonb']);
SELECT is((SELECT proparallel FROM pg_proc WHERE oid = 'dp.privatize(text, float8, text, float8, text[], text, jsonb, text[], text, jsonb)'::regprocedure),
          'u'::"char", 'dp.privatize is PARALLEL UNSAFE (it runs the source query through SPI)');
SELECT is((SELECT pronargdefaults FROM pg_proc WHERE oid = 'dp.privatize(text, float8, text, float8, text[], text, jsonb, text[], text, jsonb)'::regprocedure),
          8::int2, 'dp.privatize: mechanism (integer_laplace), delta, margins, domain, options, hierarchy, privacy_unit and bounds have defaults');
SELECT is((SELECT pg_get_function_arg_default(oid, 3) FROM pg_proc
           WHERE oid = 'dp.privatize(text, float8, text, float8, text[], text, jsonb, text[], text, jsonb)'::regprocedure),
          '''integer_laplace''::text', 'the default mechanism is integer_laplace');

SELECT has_function('dp', 'last_release', ARRAY[]::text[]);
SELECT function_returns('dp', 'last_release', ARRAY[]::text[], 'jsonb');
SELECT volatility_is('dp', 'last_release', ARRAY[]::text[], 'volatile');

SELECT is_aggregate('dp', 'noisy_count', ARRAY['double precision']);
SELECT is_aggregate('dp', 'noisy_count', ARRAY['double precision', 'double precision']);
SELECT function_returns('dp', 'noisy_count', ARRAY['double precision'], 'bigint');
SELECT is((SELECT proparallel FROM pg_proc WHERE oid = 'dp.noisy_count(float8)'::regprocedure),
          's'::"char", 'dp.noisy_count(float8) is PARALLEL SAFE');
SELECT is((SELECT proparallel FROM pg_proc WHERE oid = 'dp.noisy_count(float8, float8)'::regprocedure),
          's'::"char", 'dp.noisy_count(float8, float8) is PARALLEL SAFE');
SELECT isnt((SELECT aggcombinefn FROM pg_aggregate WHERE aggfnoid = 'dp.noisy_count(float8)'::regprocedure),
            0::regproc, 'dp.noisy_count has a combine function');
SELECT isnt((SELECT aggserialfn FROM pg_aggregate WHERE aggfnoid = 'dp.noisy_count(float8)'::regprocedure),
            0::regproc, 'dp.noisy_count has a serialize function');
SELECT isnt((SELECT aggdeserialfn FROM pg_aggregate WHERE aggfnoid = 'dp.noisy_count(float8)'::regprocedure),
            0::regproc, 'dp.noisy_count has a deserialize function');
SELECT volatility_is('dp', 'noisy_count_final', ARRAY['internal'], 'volatile');
SELECT is((SELECT proparallel FROM pg_proc WHERE oid = 'dp.noisy_count_final(internal)'::regprocedure),
          'r'::"char", 'the noise-drawing final function is PARALLEL RESTRICTED (leader only)');

SELECT volatility_is('dp', 'total_preserving_count', ARRAY['bigint', 'double precision'], 'volatile');

-- Error bars: parallel aggregates whose finals read the table under the
-- query's snapshot, in the leader.
SELECT is_aggregate('dp', 'margin_of_error', ARRAY['record', 'double precision']);
SELECT is_aggregate('dp', 'error_bar', ARRAY['record', 'double precision', 'jsonb']);
SELECT function_returns('dp', 'error_bar', ARRAY['record', 'double precision'], 'dp.error_bar');
SELECT is((SELECT array_agg(DISTINCT p.proparallel) FROM pg_proc p
           WHERE p.pronamespace = 'dp'::regnamespace AND p.proname IN ('margin_of_error', 'sum_variance', 'error_bar')),
          ARRAY['s']::"char"[], 'the error-bar aggregates are PARALLEL SAFE');
SELECT is((SELECT count(*)::int FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
           WHERE p.pronamespace = 'dp'::regnamespace AND p.proname IN ('margin_of_error', 'sum_variance', 'error_bar')
             AND a.aggcombinefn <> 0 AND a.aggserialfn <> 0 AND a.aggdeserialfn <> 0), 6,
          'each of the six error-bar aggregates combines, serializes and deserializes its partial states');
SELECT volatility_is('dp', 'margin_of_error_final', ARRAY['internal'], 'stable');
SELECT is((SELECT array_agg(p.proparallel ORDER BY p.proname) FROM pg_proc p
           WHERE p.pronamespace = 'dp'::regnamespace
             AND p.proname IN ('margin_of_error_final', 'sum_variance_final', 'error_bar_final')),
          ARRAY['r', 'r', 'r']::"char"[], 'the error-bar finals (they read the table) are PARALLEL RESTRICTED');
SELECT is((SELECT count(*)::int FROM pg_proc p
           WHERE p.pronamespace = 'dp'::regnamespace AND p.proname = 'error_bar_rows' AND p.provolatile <> 'i'), 0,
          'the error-bar transitions (row identities only) are IMMUTABLE');

SELECT has_function('dp', 'diagnose', ARRAY['text', 'double precision', 'text', 'double precision', 'text[]', 'jsonb']);
SELECT function_returns('dp', 'diagnose', ARRAY['text', 'double precision', 'text', 'double precision', 'text[]', 'jsonb'], 'setof record');
SELECT is((SELECT proparallel FROM pg_proc WHERE oid = 'dp.diagnose(text, float8, text, float8, text[], jsonb)'::regprocedure),
          'u'::"char", 'dp.diagnose is PARALLEL UNSAFE (it runs the source query through SPI)');

-- Every function of the extension has a comment.
SELECT is((SELECT count(*)::int FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
           WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'invariant_dp')
             AND obj_description(p.oid, 'pg_proc') IS NULL), 0, 'every function has a COMMENT');
-- Anything that draws noise is volatile: no immutable or stable function returns a release.
SELECT is((SELECT count(*)::int FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
           WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'invariant_dp')
             AND p.proname IN ('privatize', 'noisy_count_final', 'last_release', 'total_preserving_count')
             AND p.provolatile <> 'v'), 0,
          'noise-drawing functions are volatile');

-- Settings.
SELECT is((SELECT context FROM pg_settings WHERE name = 'dp.seed'), 'superuser', 'dp.seed can only be set by a superuser');
SELECT is((SELECT setting FROM pg_settings WHERE name = 'dp.seed'), '', 'dp.seed is empty by default (OS CSPRNG)');
SELECT is((SELECT setting::int FROM pg_settings WHERE name = 'dp.max_cells'), 10000000, 'dp.max_cells default');
SELECT is((SELECT context FROM pg_settings WHERE name = 'dp.max_cells'), 'superuser', 'dp.max_cells is set by a superuser');
SELECT is((SELECT extversion FROM pg_extension WHERE extname = 'invariant_dp'),
          (SELECT default_version FROM pg_available_extensions WHERE name = 'invariant_dp'), 'extension version');

-- Governed releases.
SELECT is((SELECT count(*)::int FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
           WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'invariant_dp')
             AND p.prosecdef AND NOT ('search_path=pg_catalog, pg_temp' = ANY (coalesce(p.proconfig, '{}')))),
          0, 'every SECURITY DEFINER function pins search_path to pg_catalog, pg_temp');
-- Privileged work runs in the draw worker, and what a role may know of
-- releases comes through security-barrier views: no function runs with
-- its definer's rights, so none can be made to read for its caller.
SELECT is((SELECT count(*)::int FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
           WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'invariant_dp') AND p.prosecdef),
          0, 'no function of the extension is SECURITY DEFINER');
SELECT is((SELECT array_agg(c.relname::text || ':' || coalesce(array_to_string(c.reloptions, ','), '')
                            ORDER BY c.relname::text COLLATE "C")
           FROM pg_class c
           WHERE c.relnamespace = 'dp'::regnamespace AND c.relkind = 'v' AND has_table_privilege('public', c.oid, 'SELECT')),
          ARRAY['release_costs:security_barrier=true', 'release_laws:security_barrier=true',
                'stream_parameters:security_barrier=true'],
          'PUBLIC reads only the cost, law and stream-parameter views, all security barriers');
SELECT is((SELECT array_agg(p.proname::text ORDER BY p.proname::text COLLATE "C") FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
           WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'invariant_dp')
             AND NOT has_function_privilege('public', p.oid, 'EXECUTE')),
          ARRAY['charge_draw', 'check_draw', 'check_privacy_unit', 'check_release_objects', 'check_release_registration', 'check_source_objects',
                'check_source_protected', 'check_stream_registration', 'check_stream_table', 'create_release_table',
                'draw', 'drop_release', 'grant_refresh', 'grant_release', 'note_failed_draw', 'pin_query',
                'pin_registered_source', 'pinned_search_path', 'privatize_as_owner', 'refresh_release',
                'register_release', 'register_stream', 'release_table_name', 'revoke_from_all_but_owner',
                'revoke_refresh', 'revoke_unused_draw_rights', 'set_budget', 'source_functions', 'source_relations',
                'store_draw', 'store_stream_draw', 'stream_append_as_owner', 'stream_draw_cost', 'trusted_search_path'],
          'administration, drawing, source analysis (it locks tables) and the run-as-owner reader are not executable by PUBLIC');
SELECT is((SELECT array_agg(c.relname::text ORDER BY c.relname::text COLLATE "C")
           FROM pg_extension e, unnest(e.extconfig) AS config(oid) JOIN pg_class c ON c.oid = config.oid
           WHERE e.extname = 'invariant_dp'),
          ARRAY['budgets', 'draws', 'draws_draw_id_seq', 'refreshers', 'release_ids', 'releases', 'streams'],
          'the catalog (a stream''s secret state included) is kept by pg_dump');
SELECT is((SELECT count(*)::int FROM pg_class c
           WHERE c.relnamespace = 'dp'::regnamespace AND c.relkind = 'r'
             AND has_any_column_privilege('public', c.oid, 'SELECT')),
          0, 'PUBLIC cannot read the catalog');
SELECT volatility_is('dp', 'refresh_release', ARRAY['regclass'], 'volatile');
SELECT volatility_is('dp', 'draw', ARRAY['anyelement'], 'volatile');
-- Streams: the append draws noise; calibration and range variances are pure.
SELECT volatility_is('dp', 'stream_append_as_owner',
                     ARRAY['regclass', 'regrole', 'text', 'text', 'text[]', 'text', 'double precision', 'integer',
                           'text', 'jsonb'], 'volatile');
SELECT volatility_is('dp', 'cascade_stream_variance', ARRAY['double precision', 'double precision', 'integer', 'text', 'jsonb'],
                     'immutable');
SELECT is((SELECT count(*)::int FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
           WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'invariant_dp')
             AND has_function_privilege('public', p.oid, 'EXECUTE')
             AND pg_get_function_result(p.oid) ~ 'state'), 0,
          'no function PUBLIC may call returns a stream''s state');

SELECT * FROM finish();
ROLLBACK;
