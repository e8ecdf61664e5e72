-- The governed layer under attack, by each role docs/governed-releases.md,
-- "Who may do what", describes: an
-- analyst (reads releases), a refresher (may draw, the role a pg_cron job
-- runs as) and a role with CREATE on the database. Every promise of
-- "Governed releases" is checked against the attacks that once broke it and
-- their variations: the stored source cannot be redirected, no table is
-- read through the extension's functions, no draw is visible unless it was
-- charged, sources are read-only, and settings cannot widen anything.
-- Outputs are deterministic: totals (exact margins), counts, booleans.
\set VERBOSITY terse
CREATE ROLE regress_sec_analyst;
CREATE ROLE regress_sec_refresher;
CREATE ROLE regress_sec_creator;
GRANT CREATE ON DATABASE :"DBNAME" TO regress_sec_creator;
GRANT CREATE ON SCHEMA public TO regress_sec_refresher, regress_sec_creator;
REVOKE ALL ON delinquents FROM PUBLIC;

SELECT dp.set_budget('security', 100);
SELECT dp.register_release('public.sec_counts', 'security',
    source  => $$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$,
    columns => 'county text, edu text, n bigint',
    epsilon => 1, margins => '{county}', options => jsonb_build_object('keys', 'public'));
SELECT dp.grant_release('sec_counts', 'regress_sec_analyst');
SELECT dp.grant_refresh('sec_counts', 'regress_sec_refresher');
-- The true county totals, to compare every draw with.
CREATE TABLE sec_truth AS SELECT county, count(*) AS total FROM delinquents GROUP BY 1;
GRANT SELECT ON sec_truth TO PUBLIC;
-- A draw is genuine if it has the source's cells and its county totals are the true ones.
CREATE FUNCTION sec_genuine() RETURNS boolean LANGUAGE sql AS $$
    SELECT (SELECT count(*) FROM sec_counts) = 16
       AND NOT EXISTS (SELECT county, sum(n) FROM sec_counts GROUP BY 1
                       EXCEPT SELECT county, total FROM sec_truth)
$$;

-- 1. Redirecting the stored source. -----------------------------------------
-- The refresher's temporary objects shadow nothing the refresh reads: a
-- temporary view named like the source's table, a temporary function that
-- would make the caller a superuser, temporary operators and functions
-- overloading what the source calls.
SET SESSION AUTHORIZATION regress_sec_refresher;
CREATE FUNCTION pg_temp.pwn() RETURNS int LANGUAGE plpgsql AS $$BEGIN ALTER ROLE regress_sec_refresher SUPERUSER; RETURN 1; END$$;
CREATE TEMP VIEW delinquents AS
    SELECT county, edu FROM (VALUES ('Alpha', 'Low'), ('Beta', 'High')) v(county, edu) WHERE pg_temp.pwn() = 1;
CREATE FUNCTION pg_temp.count(text) RETURNS bigint LANGUAGE sql AS 'SELECT 1000::bigint';
CREATE FUNCTION pg_temp.texteq_evil(text, text) RETURNS boolean LANGUAGE sql AS 'SELECT pg_temp.pwn() = 1';
CREATE OPERATOR pg_temp.= (LEFTARG = text, RIGHTARG = text, FUNCTION = pg_temp.texteq_evil);
SET search_path = pg_temp, public;
SELECT dp.refresh_release('public.sec_counts') > 0 AS drawn;
RESET search_path;
DISCARD TEMP;
RESET SESSION AUTHORIZATION;
SELECT rolsuper AS refresher_became_superuser FROM pg_roles WHERE rolname = 'regress_sec_refresher';
SELECT sec_genuine() AS genuine_after_temp_objects;

-- A role with CREATE on the database makes a schema named like the owner
-- ("$user" in the registered search_path) holding a look-alike table; a
-- role with CREATE on public adds an overloading function.
SELECT format('CREATE SCHEMA %I AUTHORIZATION regress_sec_creator', current_user) AS owner_schema,
       format('CREATE TABLE %I.delinquents AS SELECT ''Alpha''::text AS county, ''Low''::text AS edu '
              'FROM generate_series(1, 500)', current_user) AS shadow \gset
SET SESSION AUTHORIZATION regress_sec_creator;
:owner_schema;
SET SESSION AUTHORIZATION regress_sec_creator;
:shadow;
CREATE FUNCTION public.count(text) RETURNS bigint LANGUAGE sql IMMUTABLE AS 'SELECT 1000::bigint';
RESET SESSION AUTHORIZATION;
SELECT dp.refresh_release('sec_counts') > 0 AS drawn;
SELECT sec_genuine() AS genuine_after_owner_schema;
SELECT format('DROP SCHEMA %I CASCADE', current_user) AS drop_owner_schema \gset
:drop_owner_schema;

-- search_path set for the session, the role and the database does not reach the source.
ALTER ROLE regress_sec_refresher SET search_path = regress_nowhere, pg_temp;
SELECT format('ALTER DATABASE %I SET search_path = regress_nowhere', current_database()) AS db_path \gset
:db_path;
SET SESSION AUTHORIZATION regress_sec_refresher;
SET search_path = regress_nowhere;
SELECT dp.refresh_release('public.sec_counts') > 0 AS drawn;
RESET search_path;
RESET SESSION AUTHORIZATION;
SELECT sec_genuine() AS genuine_after_search_paths;
ALTER ROLE regress_sec_refresher RESET search_path;
SELECT format('ALTER DATABASE %I RESET search_path', current_database()) AS db_path \gset
:db_path;

-- Sources that use another role's objects are refused when registered:
-- that role could redefine them later.
SET SESSION AUTHORIZATION regress_sec_creator;
CREATE FUNCTION public.creator_label(text) RETURNS text LANGUAGE sql STABLE AS 'SELECT $1';
CREATE VIEW public.creator_view AS SELECT 1 AS x;
CREATE DOMAIN public.creator_count AS bigint CHECK (VALUE >= 0);
RESET SESSION AUTHORIZATION;
SELECT sqlstate_of($$SELECT dp.register_release('bad_counts', 'security',
    'SELECT public.creator_label(county) AS c, count(*) FROM delinquents GROUP BY 1', 'c text, n bigint', 1, options => jsonb_build_object('keys', 'public'))$$);
REVOKE ALL ON public.creator_view FROM PUBLIC;
SELECT sqlstate_of($$SELECT dp.register_release('bad_counts', 'security',
    'SELECT county, count(*) FROM delinquents, public.creator_view GROUP BY 1', 'county text, n bigint', 1, options => jsonb_build_object('keys', 'public'))$$);
-- Every draw writes the release table: a column type whose owner could
-- change its checks would run that owner's code at each draw.
SELECT sqlstate_of($$SELECT dp.register_release('bad_counts', 'security',
    'SELECT county, count(*) FROM delinquents GROUP BY 1', 'county text, n public.creator_count', 1, options => jsonb_build_object('keys', 'public'))$$);
SELECT to_regclass('bad_counts') IS NULL AS nothing_created;

-- 2. Reading tables through the extension's functions. ------------------------
SET SESSION AUTHORIZATION regress_sec_refresher;
SET application_name = 'pg_restore';
SELECT sqlstate_of($$SELECT * FROM dp.draw(NULL::pg_authid)$$);
SELECT sqlstate_of($$SELECT * FROM dp.draw(NULL::dp.streams)$$);
SELECT sqlstate_of($$SELECT * FROM dp.draw(NULL::sec_truth)$$);
RESET application_name;
SELECT sqlstate_of($$SELECT * FROM dp.releases$$);
-- The steps of a draw are the worker's own: nobody else may call them.
SELECT sqlstate_of($$SELECT * FROM dp.check_draw('sec_counts', 'regress_sec_refresher', false)$$);
SELECT sqlstate_of($$SELECT * FROM dp.charge_draw('sec_counts', 'regress_sec_refresher', 'regress_sec_refresher', false)$$);
SELECT sqlstate_of($$SELECT dp.store_draw('sec_counts', 1)$$);
SELECT sqlstate_of($$SELECT * FROM dp.stream_draw_cost('sec_counts')$$);
SELECT sqlstate_of($$SELECT dp.store_stream_draw('sec_counts', 1, 'SELECT 1')$$);
SELECT sqlstate_of($$SELECT dp.check_release_objects('sec_counts', 'regress_sec_refresher', 'public', 'sec_truth', NULL)$$);
-- Parse analysis locks the tables a query names: only administrators may ask for it.
SELECT sqlstate_of($$SELECT dp.source_relations('SELECT * FROM dp.budgets')$$);
SELECT sqlstate_of($$SELECT dp.check_source_objects('SELECT * FROM dp.budgets')$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize_as_owner('regress_sec_refresher', 'public', 'SELECT 1 AS k, 1', 1, 'discrete_laplace', NULL, '{}', NULL, '{}', NULL, NULL, NULL) AS t(k int, n bigint)$$);
RESET SESSION AUTHORIZATION;
-- Even the extension owner cannot run the internal draw outside a draw worker.
SELECT sqlstate_of($$SELECT * FROM dp.privatize_as_owner(current_user::regrole, 'public', 'SELECT 1 AS k, 1', 1, 'discrete_laplace', NULL, '{}', NULL, '{}', NULL, NULL, NULL) AS t(k int, n bigint)$$);
-- After revoke_refresh, neither function draws for the refresher.
SELECT dp.revoke_refresh('sec_counts', 'regress_sec_refresher');
SET SESSION AUTHORIZATION regress_sec_refresher;
SELECT sqlstate_of($$SELECT dp.refresh_release('sec_counts')$$);
SELECT sqlstate_of($$SELECT count(*) FROM dp.draw(NULL::sec_counts)$$);
SET application_name = 'pg_restore';
SELECT sqlstate_of($$SELECT count(*) FROM dp.draw(NULL::sec_counts)$$);
RESET application_name;
RESET SESSION AUTHORIZATION;
SELECT dp.grant_refresh('sec_counts', 'regress_sec_refresher');
-- What a release costs is visible only to whoever owns, reads or refreshes it.
SET SESSION AUTHORIZATION regress_sec_creator;
SELECT sqlstate_of($$SELECT * FROM dp.release_cost('sec_counts')$$);
SELECT count(*) AS visible_costs FROM dp.release_costs;
RESET SESSION AUTHORIZATION;
SET SESSION AUTHORIZATION regress_sec_analyst;
SELECT epsilon FROM dp.release_cost('sec_counts');
RESET SESSION AUTHORIZATION;

-- 3. No uncharged draw. ----------------------------------------------------------
-- Whatever the caller's transaction does after a draw, the draw was charged.
CREATE TEMP TABLE spent AS SELECT epsilon_spent, (SELECT count(*) FROM dp.draws) AS draws FROM dp.budgets WHERE dataset = 'security';
GRANT SELECT ON spent TO PUBLIC;
SET SESSION AUTHORIZATION regress_sec_refresher;
BEGIN;
SELECT count(*) AS rows_seen FROM dp.draw(NULL::sec_counts);
ROLLBACK;
BEGIN;
SELECT dp.refresh_release('sec_counts') > 0 AS drawn;
ROLLBACK;
SELECT sqlstate_of($$SELECT dp.refresh_release('sec_counts') / 0$$);
SELECT sqlstate_of($$SELECT count(*) FROM dp.draw(NULL::sec_counts) WHERE 1 / (n - n) = 1$$);
RESET SESSION AUTHORIZATION;
SELECT b.epsilon_spent - s.epsilon_spent AS charged, (SELECT count(*) FROM dp.draws) - s.draws AS audited
FROM dp.budgets b, spent s WHERE b.dataset = 'security';
-- A materialized view refreshed in a transaction that rolls back is charged too.
CREATE MATERIALIZED VIEW sec_nightly AS SELECT * FROM dp.draw(NULL::sec_counts) WITH NO DATA;
UPDATE spent SET epsilon_spent = (SELECT epsilon_spent FROM dp.budgets WHERE dataset = 'security');
BEGIN;
REFRESH MATERIALIZED VIEW sec_nightly;
ROLLBACK;
SELECT b.epsilon_spent - s.epsilon_spent AS charged FROM dp.budgets b, spent s WHERE b.dataset = 'security';
-- A draw waiting on a lock its own caller holds is refused at once, not hung.
BEGIN;
SELECT dp.set_budget('security', 100);
SELECT sqlstate_of($$SELECT dp.refresh_release('sec_counts')$$);
ROLLBACK;
-- A draw is cancellable: statement_timeout stops its worker. It was charged
-- before the source ran (before any noise existed), and stays charged; the
-- audit row says it did not complete, and the previous draw stays.
CREATE FUNCTION sec_pause() RETURNS int LANGUAGE plpgsql STABLE AS $$BEGIN PERFORM pg_sleep(30); RETURN 1; END$$;
SELECT dp.register_release('slow_counts', 'security',
    'SELECT county, count(*) FROM delinquents WHERE (SELECT sec_pause()) = 1 GROUP BY 1', 'county text, n bigint', 1, options => jsonb_build_object('keys', 'public'))
    IS NOT NULL AS registered;
UPDATE spent SET epsilon_spent = (SELECT epsilon_spent FROM dp.budgets WHERE dataset = 'security');
SET statement_timeout = '1s';
SELECT dp.refresh_release('slow_counts');
RESET statement_timeout;
SELECT b.epsilon_spent - s.epsilon_spent AS charged, (SELECT count(*) FROM dp.draws WHERE release = 'public.slow_counts') AS draws,
       (SELECT note FROM dp.draws WHERE release = 'public.slow_counts') AS note, (SELECT count(*) FROM slow_counts) AS stored
FROM dp.budgets b, spent s WHERE b.dataset = 'security';
SELECT dp.drop_release('slow_counts');
DROP FUNCTION sec_pause();
-- In a read-only transaction nothing is drawn.
BEGIN READ ONLY;
SELECT sqlstate_of($$SELECT dp.refresh_release('sec_counts')$$);
ROLLBACK;

-- 4. Sources are read-only. --------------------------------------------------------
CREATE TABLE sec_log (at timestamptz);
CREATE SEQUENCE sec_seq;
CREATE FUNCTION sec_write() RETURNS int LANGUAGE plpgsql AS $$BEGIN INSERT INTO public.sec_log VALUES (now()); RETURN 1; END$$;
CREATE FUNCTION sec_stable_write() RETURNS int LANGUAGE plpgsql STABLE AS $$BEGIN RETURN public.sec_write(); END$$;
SELECT sqlstate_of($$SELECT dp.register_release('bad_counts', 'security',
    'SELECT county, count(*) FROM delinquents WHERE sec_write() = 1 GROUP BY 1', 'county text, n bigint', 1, options => jsonb_build_object('keys', 'public'))$$);
SELECT sqlstate_of($$SELECT dp.register_release('bad_counts', 'security',
    'SELECT county, count(*) + nextval(''sec_seq'') - nextval(''sec_seq'') FROM delinquents GROUP BY 1', 'county text, n bigint', 1, options => jsonb_build_object('keys', 'public'))$$);
SELECT sqlstate_of($$SELECT dp.register_release('bad_counts', 'security',
    'WITH w AS (INSERT INTO sec_log VALUES (now()) RETURNING 1) SELECT county, count(*) FROM delinquents GROUP BY 1', 'county text, n bigint', 1, options => jsonb_build_object('keys', 'public'))$$);
-- A STABLE function that lies and writes is stopped when the source runs.
SELECT dp.register_release('liar_counts', 'security',
    'SELECT county, count(*) FROM delinquents WHERE sec_stable_write() = 1 GROUP BY 1', 'county text, n bigint', 1, options => jsonb_build_object('keys', 'public')) IS NOT NULL AS registered;
SELECT sqlstate_of($$SELECT dp.refresh_release('liar_counts')$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT county, count(*) FROM delinquents WHERE sec_stable_write() = 1 GROUP BY 1', 1, 'discrete_laplace') AS t(county text, n bigint)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT county, count(*) + nextval(''sec_seq'') - nextval(''sec_seq'') FROM delinquents GROUP BY 1', 1, 'discrete_laplace') AS t(county text, n bigint)$$);
SELECT count(*) AS writes, (SELECT last_value FROM sec_seq) AS sequence_at, (SELECT is_called FROM sec_seq) AS sequence_used FROM sec_log;
SELECT count(*) AS liar_draws FROM dp.draws WHERE release = 'liar_counts';
SELECT dp.drop_release('liar_counts');

-- 5. A seed anywhere but a superuser's SET in one session is refused. --------------
ALTER SYSTEM SET dp.seed = '1';
SELECT sqlstate_of($$ALTER ROLE regress_sec_analyst SET dp.seed = '1'$$);
SET SESSION AUTHORIZATION regress_sec_analyst;
SELECT sqlstate_of($$SET dp.seed = '1'$$);
SELECT sqlstate_of($$SELECT current_setting('dp.seed')$$);
RESET SESSION AUTHORIZATION;
-- A superuser's seed reaches parallel workers with the rest of the session
-- (they load the library and restore the leader's settings): a parallel
-- query of a seeded session runs.
SET dp.seed = '1';
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE TABLE sec_parallel AS SELECT g FROM generate_series(1, 20000) g;
EXPLAIN (COSTS OFF) SELECT count(*) FROM sec_parallel;
SELECT count(*) AS counted_in_parallel FROM sec_parallel;
DROP TABLE sec_parallel;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET dp.seed;

-- 6. Bad administrator input leaves nothing half-done. -------------------------------
SELECT sqlstate_of($$SELECT dp.set_budget('security', 'NaN')$$);
SELECT sqlstate_of($$SELECT dp.set_budget('security', 'Infinity')$$);
SELECT sqlstate_of($$SELECT dp.set_budget('security', 1, 'NaN')$$);
SELECT sqlstate_of($$SELECT dp.set_budget('fresh', 'NaN')$$);
SELECT count(*) AS nan_budgets FROM dp.budgets WHERE epsilon_total = 'NaN' OR delta_total = 'NaN';
SELECT sqlstate_of($$SELECT dp.register_release('inj_counts', 'security', 'SELECT county, count(*) FROM delinquents GROUP BY 1',
    'county text, n bigint); DROP TABLE sec_truth; --', 1, options => jsonb_build_object('keys', 'public'))$$);
SELECT sqlstate_of($$SELECT dp.register_release('inj_counts', 'security', 'SELECT county, count(*) FROM delinquents GROUP BY 1',
    'county text, n bigint DEFAULT sec_write()', 1, options => jsonb_build_object('keys', 'public'))$$);
SELECT sqlstate_of($$SELECT dp.register_release('inj_counts', 'security', 'SELECT county, count(*) FROM delinquents GROUP BY 1',
    'county text, n bigint) INHERITS (sec_truth', 1, options => jsonb_build_object('keys', 'public'))$$);
SELECT sqlstate_of($$SELECT dp.register_release('inj_counts', 'security', 'SELECT county, count(*) FROM delinquents GROUP BY 1; DROP TABLE sec_truth',
    'county text, n bigint', 1, options => jsonb_build_object('keys', 'public'))$$);
SELECT to_regclass('inj_counts') IS NULL AS nothing_created, to_regclass('sec_truth') IS NOT NULL AS truth_kept,
       (SELECT count(*) FROM sec_log) AS writes;
SELECT sqlstate_of($$SELECT dp.register_release('d_counts', 'security', 'SELECT county, count(*) FROM delinquents GROUP BY 1',
    'county text, n bigint', 1, 'discrete_laplace', delta => 0, options => jsonb_build_object('keys', 'public'))$$);
SELECT to_regclass('d_counts') IS NULL AS nothing_created;
SELECT count(dp.drop_release(r.release)) AS dropped FROM dp.releases r WHERE r.release::text = 'd_counts';

-- 7. Code and data of other roles that a draw could reach. -----------------------
-- A function the source calls resolves names at every draw: in the pinned
-- schemas, which never include one another role may create objects in.
-- Here the refresher (CREATE on public) plants a better-matching
-- date_trunc(text, date) that would run as the owner: public was left out
-- of the pinned search_path, the body finds pg_catalog's, the draw is genuine.
CREATE FUNCTION public.sec_month(d date) RETURNS date LANGUAGE sql STABLE AS $$SELECT date_trunc('month', d)::date$$;
CREATE TABLE sec_visits AS SELECT county, edu, date '2026-01-01' + (i % 60) AS day
FROM delinquents, generate_series(1, 90, 30) i;
REVOKE ALL ON sec_visits FROM PUBLIC;
SELECT dp.register_release('sec_monthly', 'security',
    'SELECT public.sec_month(day) AS month, count(*) FROM sec_visits GROUP BY 1', 'month date, n bigint', 1,
    margins => '{""}', options => jsonb_build_object('keys', 'public')) IS NOT NULL AS registered;
SELECT search_path NOT LIKE '%public%' AS public_left_out FROM dp.releases WHERE release = 'sec_monthly'::regclass;
SELECT dp.grant_refresh('sec_monthly', 'regress_sec_refresher');
SET SESSION AUTHORIZATION regress_sec_refresher;
CREATE FUNCTION public.date_trunc(text, date) RETURNS timestamp LANGUAGE plpgsql
    AS $$BEGIN RAISE EXCEPTION 'attacker code ran as %', current_user; END$$;
SELECT dp.refresh_release('sec_monthly') > 0 AS drawn;
RESET SESSION AUTHORIZATION;
SELECT sum(n) = (SELECT count(*) FROM sec_visits) AS total_exact, count(*) AS months FROM sec_monthly;
DROP FUNCTION public.date_trunc(text, date);
-- A called function that sets its own search_path to such a schema is refused.
CREATE FUNCTION public.sec_month_public(d date) RETURNS date LANGUAGE sql STABLE SET search_path = public
    AS $$SELECT date_trunc('month', d)::date$$;
SELECT sqlstate_of($$SELECT dp.register_release('bad_counts', 'security',
    'SELECT public.sec_month_public(day) AS month, count(*) FROM sec_visits GROUP BY 1', 'month date, n bigint', 1, options => jsonb_build_object('keys', 'public'))$$);
-- A schema named like the owner ("$user"), made by another role before the
-- release is registered, is left out too.
SELECT format('CREATE SCHEMA %I AUTHORIZATION regress_sec_creator', current_user) AS owner_schema \gset
:owner_schema;
SELECT dp.register_release('sec_user_schema', 'security', 'SELECT county, count(*) FROM delinquents GROUP BY 1',
    'county text, n bigint', 1, options => jsonb_build_object('keys', 'public')) IS NOT NULL AS registered;
SELECT search_path NOT LIKE format('%%%s%%', current_user) AS user_schema_left_out
FROM dp.releases WHERE release = 'sec_user_schema'::regclass;
SELECT dp.drop_release('sec_user_schema');
SELECT format('DROP SCHEMA %I', current_user) AS drop_owner_schema \gset
:drop_owner_schema;
-- A table read by a source must be its owner's (or a superuser's): its
-- owner could turn it into a view or give it row-level security policies,
-- which run code with the reader's rights.
CREATE TABLE sec_other_table (county text);
ALTER TABLE sec_other_table OWNER TO regress_sec_creator;
SELECT sqlstate_of($$SELECT dp.register_release('bad_counts', 'security',
    'SELECT county, count(*) FROM sec_other_table GROUP BY 1', 'county text, n bigint', 1, options => jsonb_build_object('keys', 'public'))$$);
DROP TABLE sec_other_table;
-- Default privileges reach neither the pinned view (it holds the true
-- counts) nor the release table (readers get SELECT from dp.grant_release).
ALTER DEFAULT PRIVILEGES GRANT ALL ON TABLES TO regress_sec_analyst;
SELECT dp.register_release('sec_defaults', 'security', 'SELECT county, count(*) FROM delinquents GROUP BY 1',
    'county text, n bigint', 1, options => jsonb_build_object('keys', 'public')) IS NOT NULL AS registered;
ALTER DEFAULT PRIVILEGES REVOKE ALL ON TABLES FROM regress_sec_analyst;
SELECT has_table_privilege('regress_sec_analyst', source_view, 'SELECT') AS analyst_reads_source,
       has_table_privilege('regress_sec_analyst', release, 'SELECT') AS analyst_reads_release,
       has_table_privilege('regress_sec_analyst', release, 'TRIGGER') AS analyst_may_add_triggers
FROM dp.releases WHERE release = 'sec_defaults'::regclass;
-- A trigger on a release table would run at every draw with the catalog
-- owner's rights: such a draw is refused before it is charged.
GRANT TRIGGER ON sec_defaults TO regress_sec_refresher;
SELECT dp.grant_refresh('sec_defaults', 'regress_sec_refresher');
UPDATE spent SET epsilon_spent = (SELECT epsilon_spent FROM dp.budgets WHERE dataset = 'security');
SET SESSION AUTHORIZATION regress_sec_refresher;
CREATE FUNCTION public.sec_trigger() RETURNS trigger LANGUAGE plpgsql
    AS $$BEGIN RAISE EXCEPTION 'attacker trigger ran as %', current_user; END$$;
CREATE TRIGGER sec_attack BEFORE INSERT ON sec_defaults FOR EACH ROW EXECUTE FUNCTION public.sec_trigger();
SELECT sqlstate_of($$SELECT dp.refresh_release('sec_defaults')$$);
RESET SESSION AUTHORIZATION;
SELECT b.epsilon_spent - s.epsilon_spent AS charged FROM dp.budgets b, spent s WHERE b.dataset = 'security';
DROP TRIGGER sec_attack ON sec_defaults;
DROP FUNCTION public.sec_trigger();
-- ... and so is a draw whose pinned view someone was granted.
GRANT SELECT ON dp.releases TO regress_sec_analyst;
SELECT format('GRANT SELECT ON %s TO regress_sec_analyst', source_view) AS grant_view
FROM dp.releases WHERE release = 'sec_defaults'::regclass \gset
REVOKE SELECT ON dp.releases FROM regress_sec_analyst;
:grant_view;
SELECT sqlstate_of($$SELECT dp.refresh_release('sec_defaults')$$);
SELECT dp.drop_release('sec_defaults');
-- Errors raised once a draw is charged can carry the source's data (a
-- value that divides by zero): the refresher sees only that the draw
-- failed, under one SQLSTATE for every such failure; the owner sees all.
INSERT INTO delinquents VALUES ('Zeta (one family)', 'Low');
SELECT dp.register_release('sec_domain', 'security',
    $$SELECT county, count(*) / (CASE WHEN county LIKE 'Zeta%' THEN 0 ELSE 1 END) FROM delinquents GROUP BY 1$$,
    'county text, n bigint', 1,
    domain => $$SELECT * FROM (VALUES ('Alpha'), ('Beta'), ('Gamma'), ('Delta')) c(county)$$) IS NOT NULL AS registered;
SELECT dp.grant_refresh('sec_domain', 'regress_sec_refresher');
SET SESSION AUTHORIZATION regress_sec_refresher;
SELECT sqlstate_of($$SELECT dp.refresh_release('sec_domain')$$);
RESET SESSION AUTHORIZATION;
SELECT sqlstate_of($$SELECT dp.refresh_release('sec_domain')$$);
SELECT note LIKE 'failed after its charge%' AS audited_as_failed
FROM dp.draws WHERE release = 'public.sec_domain' ORDER BY draw_id DESC LIMIT 1;
DELETE FROM delinquents WHERE county = 'Zeta (one family)';
SELECT dp.drop_release('sec_domain');
-- A failure that depends on the noise (a constraint on the release table)
-- is paid for: every attempt is charged, so repeating it reveals nothing
-- unpaid, and the refresher sees no value.
SELECT dp.register_release('sec_checked', 'security', 'SELECT county, count(*) FROM delinquents GROUP BY 1',
    'county text, n bigint', 1, options => jsonb_build_object('keys', 'public')) IS NOT NULL AS registered;
ALTER TABLE sec_checked ADD CHECK (n < -1000000);
SELECT dp.grant_refresh('sec_checked', 'regress_sec_refresher');
UPDATE spent SET epsilon_spent = (SELECT epsilon_spent FROM dp.budgets WHERE dataset = 'security');
SET SESSION AUTHORIZATION regress_sec_refresher;
SELECT sqlstate_of($$SELECT dp.refresh_release('sec_checked')$$);
SELECT sqlstate_of($$SELECT dp.refresh_release('sec_checked')$$);
RESET SESSION AUTHORIZATION;
SELECT b.epsilon_spent - s.epsilon_spent AS charged, (SELECT count(*) FROM dp.draws WHERE release = 'public.sec_checked') AS audited
FROM dp.budgets b, spent s WHERE b.dataset = 'security';
SELECT dp.drop_release('sec_checked');
-- grant_release checks what the pinned views read, not the source text as
-- it would resolve now: a look-alike schema cannot fool it.
SELECT format('CREATE SCHEMA %I AUTHORIZATION regress_sec_creator', current_user) AS owner_schema \gset
:owner_schema;
SELECT format('CREATE TABLE %I.delinquents (county text, edu text)', current_user) AS decoy \gset
SET SESSION AUTHORIZATION regress_sec_creator;
:decoy;
RESET SESSION AUTHORIZATION;
GRANT SELECT ON public.delinquents TO regress_sec_creator;
SELECT sqlstate_of($$SELECT dp.grant_release('sec_counts', 'regress_sec_creator')$$);
REVOKE SELECT ON public.delinquents FROM regress_sec_creator;
SELECT format('DROP SCHEMA %I CASCADE', current_user) AS drop_owner_schema \gset
:drop_owner_schema;
-- A tiny epsilon does not break the cost view for everyone.
SELECT dp.register_release('sec_tiny', 'security', 'SELECT county, count(*) FROM delinquents GROUP BY 1',
    'county text, n bigint', 1e-20, options => jsonb_build_object('keys', 'public')) IS NOT NULL AS registered;
SELECT draws_remaining FROM dp.release_costs WHERE release = 'sec_tiny'::regclass;
SELECT dp.drop_release('sec_tiny');
-- A seed in a function's SET clause (readable by every role in pg_proc),
-- stored in a session where the library was not loaded yet: it is ignored
-- when the library loads inside the call, and refused at every later call.
\c
CREATE FUNCTION sec_seeded() RETURNS bigint LANGUAGE sql SET dp.seed = '42'
    AS $$SELECT n FROM dp.privatize('SELECT 1 AS k, 5::bigint', 0.001, 'discrete_laplace') AS t(k int, n bigint)$$;
SELECT sec_seeded() IS NOT NULL AS drawn_unseeded;
SELECT sqlstate_of($$SELECT sec_seeded()$$);
DROP FUNCTION sec_seeded();
SELECT dp.drop_release('sec_monthly');
DROP FUNCTION public.sec_month(date), public.sec_month_public(date);
DROP TABLE sec_visits;

-- A refresher's look-alike of a function the draw path once called without
-- its schema, first in its search_path: the draw resolves no name through
-- it, before or after the refresher's grant is withdrawn, nor for a table
-- that is not a release (test/cluster/shadowing.sh shadows every name).
SET SESSION AUTHORIZATION regress_sec_refresher;
CREATE FUNCTION public.to_regprocedure(text) RETURNS regprocedure LANGUAGE plpgsql AS $$
BEGIN
    IF current_user <> 'regress_sec_refresher' THEN
        EXECUTE 'ALTER ROLE regress_sec_refresher SUPERUSER';
    END IF;
    RETURN pg_catalog.to_regprocedure($1);
END $$;
SET search_path = public, pg_catalog;
SELECT dp.refresh_release('public.sec_counts') > 0 AS drawn;
SELECT sqlstate_of($$SELECT dp.refresh_release('public.sec_truth')$$);
RESET search_path;
RESET SESSION AUTHORIZATION;
SELECT dp.revoke_refresh('sec_counts', 'regress_sec_refresher');
SET SESSION AUTHORIZATION regress_sec_refresher;
SET search_path = public, pg_catalog;
SELECT sqlstate_of($$SELECT dp.refresh_release('public.sec_counts')$$);
RESET search_path;
RESET SESSION AUTHORIZATION;
SELECT rolsuper AS refresher_became_superuser FROM pg_roles WHERE rolname = 'regress_sec_refresher';
-- Withdrawing the last grant took EXECUTE back.
SELECT has_function_privilege('regress_sec_refresher', 'dp.refresh_release(regclass)', 'EXECUTE') AS may_execute;
DROP FUNCTION public.to_regprocedure(text);
SELECT sec_genuine() AS genuine_after_look_alike;

-- Settings stored for the database (ALTER DATABASE ... SET, which its owner
-- may run without being a superuser) reach no draw worker: not a role to
-- draw as, not plpgsql's checks turned into errors, not a time zone that
-- would move a stream's periods, not a date style its keys are written in.
CREATE TABLE sec_days AS SELECT timestamptz '2026-03-01 12:00+00' + (i % 3) * interval '1 day' AS at
    FROM generate_series(1, 90) i;
REVOKE ALL ON sec_days FROM PUBLIC;
SELECT dp.set_budget('security days', 10, 0.01);
SELECT dp.register_stream('sec_daily', 'security days',
    $$SELECT date_trunc('day', at)::date AS day, count(*) FROM sec_days GROUP BY 1$$, 'day date, n float8', 1, 1e-6, 4)
    IS NOT NULL AS registered;
ALTER DATABASE :"DBNAME" SET role = 'regress_sec_creator';
ALTER DATABASE :"DBNAME" SET plpgsql.extra_errors = 'all';
ALTER DATABASE :"DBNAME" SET TimeZone = 'Pacific/Kiritimati';
ALTER DATABASE :"DBNAME" SET DateStyle = 'SQL, DMY';
ALTER DATABASE :"DBNAME" SET IntervalStyle = 'sql_standard';
SELECT dp.refresh_release('sec_counts') > 0 AS drawn;
SELECT sec_genuine() AS genuine_under_database_settings;
SELECT drawn_by = current_user AS drawn_by_caller FROM dp.draws ORDER BY draw_id DESC LIMIT 1;
SELECT dp.refresh_release('sec_daily') > 0 AS stream_drawn;
SELECT released, last_key FROM dp.streams WHERE release = 'sec_daily'::regclass;
SELECT string_agg(day::text, ' ' ORDER BY day) AS periods FROM sec_daily;
ALTER DATABASE :"DBNAME" RESET ALL;
SELECT dp.drop_release('sec_daily');
DROP TABLE sec_days;

-- Once charged, a draw does not fail for what the data holds: a key the
-- domain does not list and rows without a unit appear in the source, and
-- the refresher's draws still succeed (the refresher would otherwise learn
-- that they exist, which the charged epsilon does not cover).
CREATE TABLE sec_people AS SELECT p AS person, (ARRAY['Alpha', 'Beta'])[1 + p % 2] AS county
    FROM generate_series(1, 40) p;
REVOKE ALL ON sec_people FROM PUBLIC;
SELECT dp.register_release('sec_known', 'security', 'SELECT person, county FROM sec_people', 'county text, n bigint', 1,
    domain => $$SELECT * FROM (VALUES ('Alpha'), ('Beta')) d(county)$$, privacy_unit => 'person',
    bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}') IS NOT NULL AS registered;
SELECT dp.grant_refresh('sec_known', 'regress_sec_refresher');
INSERT INTO sec_people VALUES (41, 'Omega'), (NULL, 'Alpha'), (NULL, 'Beta');
SET SESSION AUTHORIZATION regress_sec_refresher;
SELECT dp.refresh_release('public.sec_known') > 0 AS drawn;
RESET SESSION AUTHORIZATION;
SELECT string_agg(county, ', ' ORDER BY county) AS cells FROM sec_known;
-- dp.privatize, by the analyst who reads the rows, still says what is wrong.
SELECT sqlstate_of($$SELECT count(*) FROM dp.privatize('SELECT person, county FROM sec_people', 1,
    domain => 'SELECT * FROM (VALUES (''Alpha''), (''Beta'')) d(county)', privacy_unit => 'person',
    bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}') AS t(county text, n bigint)$$);
-- ... and leaves rows outside the domain out when asked, as a key set does.
SELECT string_agg(k, ', ' ORDER BY k) AS cells
FROM dp.privatize($$SELECT k, count(*) FROM (VALUES ('Alpha'), ('Omega')) v(k) GROUP BY 1$$, 1,
                  domain => $$SELECT * FROM (VALUES ('Alpha'), ('Beta')) d(k)$$,
                  options => '{"rows_outside_domain": "drop"}') AS t(k text, n bigint);
SELECT sqlstate_of($$SELECT count(*) FROM dp.privatize('SELECT 1 AS k, 1', 1, domain => 'SELECT 1',
                                                       options => '{"rows_outside_domain": "ignore"}') AS t(k int, n bigint)$$);
SELECT dp.drop_release('sec_known');
DROP TABLE sec_people;

-- Clean up.
DROP MATERIALIZED VIEW sec_nightly;
SELECT dp.drop_release('sec_counts');
SELECT count(*) AS pinned_views_left FROM pg_class WHERE relnamespace = 'dp'::regnamespace AND relkind = 'v'
    AND relname LIKE '%\_of\_%';
DELETE FROM dp.budgets WHERE dataset = 'security';
DROP FUNCTION public.count(text), public.creator_label(text);
DROP VIEW public.creator_view;
DROP DOMAIN public.creator_count;
DROP TABLE sec_truth, sec_log;
DROP SEQUENCE sec_seq;
DROP FUNCTION sec_genuine(), sec_write(), sec_stable_write();
REVOKE CREATE ON DATABASE :"DBNAME" FROM regress_sec_creator;
REVOKE CREATE ON SCHEMA public FROM regress_sec_refresher, regress_sec_creator;
DROP OWNED BY regress_sec_analyst, regress_sec_refresher, regress_sec_creator;
DROP ROLE regress_sec_analyst, regress_sec_refresher, regress_sec_creator;
