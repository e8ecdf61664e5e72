-- The governed layer under attack, by each role the README describes: an
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
    epsilon => 1, margins => '{county}');
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
    'SELECT public.creator_label(county) AS c, count(*) FROM delinquents GROUP BY 1', 'c text, n bigint', 1)$$);
REVOKE ALL ON public.creator_view FROM PUBLIC;
SELECT sqlstate_of($$SELECT dp.register_release('bad_counts', 'security',
    'SELECT county, count(*) FROM delinquents, public.creator_view GROUP BY 1', 'county text, n bigint', 1)$$);
-- Every draw writes the release table: a column type whose owner could
-- change its checks would run that owner's code at each draw.
SELECT sqlstate_of($$SELECT dp.register_release('bad_counts', 'security',
    'SELECT county, count(*) FROM delinquents GROUP BY 1', 'county text, n public.creator_count', 1)$$);
SELECT to_regclass('bad_counts') IS NULL AS nothing_created;

-- 2. Reading tables through the extension's functions. ------------------------
SET SESSION AUTHORIZATION regress_sec_refresher;
SET application_name = 'pg_restore';
SELECT sqlstate_of($$SELECT * FROM dp.draw(NULL::pg_authid)$$);
SELECT sqlstate_of($$SELECT * FROM dp.draw(NULL::dp.streams)$$);
SELECT sqlstate_of($$SELECT * FROM dp.draw(NULL::sec_truth)$$);
RESET application_name;
SELECT sqlstate_of($$SELECT * FROM dp.releases$$);
SELECT sqlstate_of($$SELECT * FROM dp.draw_in_worker('sec_counts', 'regress_sec_refresher', 'regress_sec_refresher', false)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize_as_owner('regress_sec_refresher', 'public', 'SELECT 1 AS k, 1', 1, 'discrete_laplace', NULL, '{}', NULL, '{}', NULL) AS t(k int, n bigint)$$);
RESET SESSION AUTHORIZATION;
-- Even the extension owner cannot run the internal draw outside a draw worker.
SELECT sqlstate_of($$SELECT * FROM dp.privatize_as_owner(current_user::regrole, 'public', 'SELECT 1 AS k, 1', 1, 'discrete_laplace', NULL, '{}', NULL, '{}', NULL) AS t(k int, n bigint)$$);
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
-- A draw is cancellable: statement_timeout stops its worker, nothing is charged.
CREATE FUNCTION sec_pause() RETURNS int LANGUAGE plpgsql STABLE AS $$BEGIN PERFORM pg_sleep(30); RETURN 1; END$$;
SELECT dp.register_release('slow_counts', 'security',
    'SELECT county, count(*) FROM delinquents WHERE (SELECT sec_pause()) = 1 GROUP BY 1', 'county text, n bigint', 1)
    IS NOT NULL AS registered;
UPDATE spent SET epsilon_spent = (SELECT epsilon_spent FROM dp.budgets WHERE dataset = 'security');
SET statement_timeout = '1s';
SELECT dp.refresh_release('slow_counts');
RESET statement_timeout;
SELECT b.epsilon_spent - s.epsilon_spent AS charged, (SELECT count(*) FROM dp.draws WHERE release = 'slow_counts') AS draws
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
CREATE FUNCTION sec_write() RETURNS int LANGUAGE plpgsql AS $$BEGIN INSERT INTO sec_log VALUES (now()); RETURN 1; END$$;
CREATE FUNCTION sec_stable_write() RETURNS int LANGUAGE plpgsql STABLE AS $$BEGIN RETURN sec_write(); END$$;
SELECT sqlstate_of($$SELECT dp.register_release('bad_counts', 'security',
    'SELECT county, count(*) FROM delinquents WHERE sec_write() = 1 GROUP BY 1', 'county text, n bigint', 1)$$);
SELECT sqlstate_of($$SELECT dp.register_release('bad_counts', 'security',
    'SELECT county, count(*) + nextval(''sec_seq'') - nextval(''sec_seq'') FROM delinquents GROUP BY 1', 'county text, n bigint', 1)$$);
SELECT sqlstate_of($$SELECT dp.register_release('bad_counts', 'security',
    'WITH w AS (INSERT INTO sec_log VALUES (now()) RETURNING 1) SELECT county, count(*) FROM delinquents GROUP BY 1', 'county text, n bigint', 1)$$);
-- A STABLE function that lies and writes is stopped when the source runs.
SELECT dp.register_release('liar_counts', 'security',
    'SELECT county, count(*) FROM delinquents WHERE sec_stable_write() = 1 GROUP BY 1', 'county text, n bigint', 1) IS NOT NULL AS registered;
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

-- 6. Bad administrator input leaves nothing half-done. -------------------------------
SELECT sqlstate_of($$SELECT dp.set_budget('security', 'NaN')$$);
SELECT sqlstate_of($$SELECT dp.set_budget('security', 'Infinity')$$);
SELECT sqlstate_of($$SELECT dp.set_budget('security', 1, 'NaN')$$);
SELECT sqlstate_of($$SELECT dp.set_budget('fresh', 'NaN')$$);
SELECT count(*) AS nan_budgets FROM dp.budgets WHERE epsilon_total = 'NaN' OR delta_total = 'NaN';
SELECT sqlstate_of($$SELECT dp.register_release('inj_counts', 'security', 'SELECT county, count(*) FROM delinquents GROUP BY 1',
    'county text, n bigint); DROP TABLE sec_truth; --', 1)$$);
SELECT sqlstate_of($$SELECT dp.register_release('inj_counts', 'security', 'SELECT county, count(*) FROM delinquents GROUP BY 1',
    'county text, n bigint DEFAULT sec_write()', 1)$$);
SELECT sqlstate_of($$SELECT dp.register_release('inj_counts', 'security', 'SELECT county, count(*) FROM delinquents GROUP BY 1',
    'county text, n bigint) INHERITS (sec_truth', 1)$$);
SELECT sqlstate_of($$SELECT dp.register_release('inj_counts', 'security', 'SELECT county, count(*) FROM delinquents GROUP BY 1; DROP TABLE sec_truth',
    'county text, n bigint', 1)$$);
SELECT to_regclass('inj_counts') IS NULL AS nothing_created, to_regclass('sec_truth') IS NOT NULL AS truth_kept,
       (SELECT count(*) FROM sec_log) AS writes;
SELECT sqlstate_of($$SELECT dp.register_release('d_counts', 'security', 'SELECT county, count(*) FROM delinquents GROUP BY 1',
    'county text, n bigint', 1, 'discrete_laplace', delta => 0)$$);
SELECT to_regclass('d_counts') IS NULL AS nothing_created;
SELECT count(dp.drop_release(r.release)) AS dropped FROM dp.releases r WHERE r.release::text = 'd_counts';

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
