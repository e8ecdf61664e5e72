-- Governed releases: budgets, registration, analysts without raw access,
-- refreshes that charge atomically, the audit log, and attempts to read
-- around the release.
\set VERBOSITY terse
CREATE ROLE regress_dp_analyst;
CREATE ROLE regress_dp_refresher;
CREATE SCHEMA regress_evil AUTHORIZATION regress_dp_analyst;

-- A fixed seed kept in the catalog would be readable by every role
-- (pg_db_role_setting, pg_proc.proconfig): refused once the library is
-- loaded (and a value stored before that is ignored when it loads).
LOAD 'invariant_dp';
SELECT sqlstate_of($$ALTER ROLE regress_dp_analyst SET dp.seed = '1'$$);
SELECT sqlstate_of(format('ALTER DATABASE %I SET dp.seed = %L', current_database(), '1'));
SELECT sqlstate_of($$CREATE FUNCTION seeded() RETURNS int LANGUAGE sql SET dp.seed = '1' AS 'SELECT 1'$$);
SELECT count(*) AS stored_seeds FROM pg_db_role_setting WHERE array_to_string(setconfig, ',') LIKE '%dp.seed%';

-- Administrator: a budget for the dataset, then a release of its counts.
SELECT dp.set_budget('delinquency survey', 1.0);
SELECT dp.register_release('county_edu_counts', 'delinquency survey',
    source    => 'SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2',
    columns   => 'county text, edu text, n bigint',
    epsilon   => 0.25,
    margins   => '{county}', options => jsonb_build_object('keys', 'public'));
SELECT release, dataset, owner, mechanism, epsilon, delta, margins FROM dp.releases;

-- Deny-by-default: a source PUBLIC can read is refused (directly, through a
-- view, or through a function the check cannot see into), and so is a bad
-- mechanism or an unknown dataset, before anything is created.
CREATE TABLE open_survey AS SELECT * FROM delinquents;
GRANT SELECT ON open_survey TO PUBLIC;
SELECT sqlstate_of($$SELECT dp.register_release('open_counts', 'delinquency survey',
    'SELECT county, count(*) FROM open_survey GROUP BY 1', 'county text, n bigint', 0.5, options => jsonb_build_object('keys', 'public'))$$);
CREATE VIEW open_view AS SELECT * FROM open_survey;
REVOKE ALL ON open_view FROM PUBLIC;
SELECT sqlstate_of($$SELECT dp.register_release('open_counts', 'delinquency survey',
    'SELECT county, count(*) FROM open_view GROUP BY 1', 'county text, n bigint', 0.5, options => jsonb_build_object('keys', 'public'))$$);
CREATE FUNCTION open_rows() RETURNS SETOF open_survey LANGUAGE sql STABLE AS 'SELECT * FROM open_survey';
SELECT sqlstate_of($$SELECT dp.register_release('open_counts', 'delinquency survey',
    'SELECT county, count(*) FROM open_rows() GROUP BY 1', 'county text, n bigint', 0.5, options => jsonb_build_object('keys', 'public'))$$);
SELECT dp.source_functions('SELECT county, count(*) FROM open_rows(), generate_series(1, 2) GROUP BY 1');
SELECT sqlstate_of($$SELECT dp.register_release('typo_counts', 'delinquency survey',
    'SELECT county, count(*) FROM delinquents GROUP BY 1', 'county text, n bigint', 0.5, 'integer_laplase', options => jsonb_build_object('keys', 'public'))$$);
SELECT sqlstate_of($$SELECT dp.register_release('typo_counts', 'no such dataset',
    'SELECT county, count(*) FROM delinquents GROUP BY 1', 'county text, n bigint', 0.5, options => jsonb_build_object('keys', 'public'))$$);
SELECT sqlstate_of($$SELECT dp.set_budget('delinquency survey', -1)$$);
SELECT to_regclass('open_counts') IS NULL AND to_regclass('typo_counts') IS NULL AS nothing_half_created;

-- Before spending: the cost of a draw and the budget left.
SELECT dataset, epsilon, delta, epsilon_remaining, delta_remaining, draws_remaining, last_drawn_at
FROM dp.release_cost('county_edu_counts');

-- An analyst who can read the raw table cannot be granted the release.
GRANT SELECT ON delinquents TO regress_dp_analyst;
SELECT sqlstate_of($$SELECT dp.grant_release('county_edu_counts', 'regress_dp_analyst')$$);
REVOKE SELECT ON delinquents FROM regress_dp_analyst;
SELECT dp.grant_release('county_edu_counts', 'regress_dp_analyst');
-- EXECUTE alone does not let a role spend a release's budget; grant_refresh does.
GRANT EXECUTE ON FUNCTION dp.refresh_release(regclass) TO regress_dp_refresher;
SET ROLE regress_dp_refresher;
SELECT sqlstate_of($$SELECT dp.refresh_release('county_edu_counts')$$);
RESET ROLE;
SELECT dp.grant_refresh('county_edu_counts', 'regress_dp_refresher');

-- Refresh: four draws fit in the budget of 1.0 (numeric: exactly), the fifth fails.
SET ROLE regress_dp_refresher;
SELECT dp.refresh_release('county_edu_counts') > 0 AS drawn;
RESET ROLE;
SELECT epsilon_spent FROM dp.budgets;

-- The analyst reads typed rows; the county totals are the true ones.
SET ROLE regress_dp_analyst;
SELECT county, sum(n) AS total FROM county_edu_counts GROUP BY county ORDER BY county;
SELECT count(*) AS cells FROM county_edu_counts;
-- Re-reading returns the stored draw, never a fresh one.
CREATE TEMP TABLE first_read AS SELECT * FROM county_edu_counts;
SELECT count(*) AS differences FROM (SELECT * FROM county_edu_counts EXCEPT SELECT * FROM first_read) d;
-- Reads around the release fail: the raw table, the catalog, privatize, the
-- internal runner, refreshing without a grant.
SELECT sqlstate_of('SELECT count(*) FROM delinquents');
SELECT sqlstate_of('SELECT * FROM dp.releases');
SELECT sqlstate_of('SELECT * FROM dp.budgets');
SELECT sqlstate_of('SELECT * FROM dp.draws');
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT county, count(*) FROM delinquents GROUP BY 1', 1.0)
                     AS t(county text, n bigint)$$);
SELECT sqlstate_of($$SELECT * FROM dp.privatize_as_owner('regress_dp_analyst', 'public', 'SELECT 1::text, 1::bigint', 1.0,
                     'integer_laplace', NULL, '{}', NULL, '{}', NULL, NULL, NULL) AS t(k text, n bigint)$$);
SELECT sqlstate_of($$SELECT dp.refresh_release('county_edu_counts')$$);
SELECT sqlstate_of($$SELECT * FROM dp.draw(NULL::county_edu_counts)$$);
SELECT sqlstate_of($$SELECT dp.register_release('mine', 'delinquency survey',
    'SELECT county, count(*) FROM delinquents GROUP BY 1', 'county text, n bigint', 0.5, options => jsonb_build_object('keys', 'public'))$$);
SELECT sqlstate_of($$SELECT dp.set_budget('delinquency survey', 100)$$);
-- A crafted search_path cannot redirect the definer functions: they pin
-- theirs, so the analyst's floor() (which would run with the definer's
-- rights) is never called, and neither is the analyst's table "releases".
SET search_path = regress_evil, pg_catalog, public;
CREATE FUNCTION regress_evil.floor(numeric) RETURNS numeric LANGUAGE plpgsql
    AS $$ BEGIN RAISE EXCEPTION 'hijacked: running as %', current_user; END $$;
CREATE TABLE regress_evil.releases (release regclass, dataset text);
SELECT sqlstate_of('SELECT floor(1.5::numeric)') AS unpinned_code_would_be_hijacked;
SELECT epsilon_remaining, draws_remaining FROM dp.release_cost('county_edu_counts');
RESET search_path;
-- When the release was last drawn shows whatever the session's search_path
-- (the audit names it schema-qualified).
SELECT last_drawn_at IS NOT NULL AS last_drawn_shown FROM dp.release_cost('county_edu_counts');
SELECT last_drawn_at IS NOT NULL AS last_drawn_shown_from_the_view FROM dp.release_costs
WHERE release = 'county_edu_counts'::regclass;
-- Whether its latest draw's guarantee is certified: one margin, drawn exactly.
SELECT last_draw_exact FROM dp.release_cost('county_edu_counts');
-- A crafted release argument is a regclass: a name, never SQL.
SELECT sqlstate_of($$SELECT dp.release_cost('county_edu_counts; DELETE FROM dp.budgets')$$);
SELECT sqlstate_of($$SELECT dp.release_cost('delinquents')$$);
RESET ROLE;

-- Three more draws spend the rest; the fifth is refused with 53Z01 and
-- leaves the last draw and the budget exactly as they were.
SELECT dp.refresh_release('county_edu_counts') > 0 FROM generate_series(1, 3);
CREATE TEMP TABLE before_refusal AS SELECT * FROM county_edu_counts;
SELECT sqlstate_of($$SELECT dp.refresh_release('county_edu_counts')$$);
SELECT count(*) AS differences FROM (SELECT * FROM county_edu_counts EXCEPT SELECT * FROM before_refusal) d;
SELECT epsilon_spent, epsilon_total FROM dp.budgets;
SELECT epsilon_remaining, draws_remaining FROM dp.release_cost('county_edu_counts');

-- Audit: four draws, each with who, when, mechanism, epsilon, invariants and the noise law.
SELECT release, drawn_as, count(*) FROM dp.draws GROUP BY 1, 2 ORDER BY 2;
SELECT count(*) AS draws, count(DISTINCT drawn_at) AS distinct_times, bool_and(drawn_by = session_user) AS who,
       bool_and(noise_law->>'mechanism' = 'integer_laplace') AS law, bool_and(margins = '{county}') AS margins,
       sum(epsilon) AS epsilon, min(cells) AS cells
FROM dp.draws;

-- Materialized view over a release: each REFRESH is a draw and is charged.
SELECT dp.set_budget('delinquency survey', 1.5);
CREATE MATERIALIZED VIEW county_edu_view AS SELECT * FROM dp.draw(NULL::county_edu_counts) WITH NO DATA;
REFRESH MATERIALIZED VIEW county_edu_view;
SELECT county, sum(n) AS total FROM county_edu_view GROUP BY county ORDER BY county;
SELECT epsilon_spent FROM dp.budgets;
REFRESH MATERIALIZED VIEW county_edu_view;
SELECT sqlstate_of('REFRESH MATERIALIZED VIEW county_edu_view');
SELECT count(*) AS rows_still_readable FROM county_edu_view;
SELECT epsilon_spent FROM dp.budgets;
SELECT sqlstate_of($$SELECT * FROM dp.draw(NULL::first_read)$$);
-- A session that calls itself pg_restore is no restore: application_name
-- decides nothing, so this refresh tries to draw and the spent budget
-- refuses it. A real restore is recognised by the release table's identity
-- (test/cluster/dump_restore.sh).
SET application_name = 'pg_restore';
SELECT sqlstate_of('REFRESH MATERIALIZED VIEW county_edu_view');
RESET application_name;
SELECT epsilon_spent, (SELECT count(*) FROM dp.draws) AS draws FROM dp.budgets;
SELECT count(*) AS same_rows FROM (SELECT * FROM county_edu_view INTERSECT SELECT * FROM county_edu_counts) s;

-- A governed hierarchy: county rows and their exact rollups, drawn from the same budget.
SELECT dp.set_budget('delinquency survey', 2.0);
SELECT dp.register_release('county_rollup', 'delinquency survey',
    source => 'SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2',
    columns => 'county text, edu text, n bigint', epsilon => 0.5, margins => '{county}',
    hierarchy => '{county,edu}', options => jsonb_build_object('keys', 'public'));
SELECT dp.refresh_release('county_rollup') > 0 AS drawn;
SELECT count(*) AS rows, count(*) FILTER (WHERE edu IS NULL) AS rollups,
       max(n) FILTER (WHERE county IS NULL) AS grand_total FROM county_rollup;
SELECT (SELECT hierarchy FROM dp.releases WHERE release = 'county_rollup'::regclass) AS hierarchy,
       (SELECT noise_law->'hierarchy'->>'leaves' FROM dp.draws ORDER BY draw_id DESC LIMIT 1) AS leaves;
SELECT dp.drop_release('county_rollup');

-- A governed release drawn by a chain names it at registration (its options
-- are stored and shown in dp.releases); the cost then says its latest draw
-- was not exact, and its published law says why.
SELECT dp.set_budget('chain survey', 1.0);
SELECT dp.register_release('chain_counts', 'chain survey',
    source  => 'SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2',
    columns => 'county text, edu text, n bigint', epsilon => 0.5,
    margins => '{county,edu}', options => '{"keys": "public", "sampler": "chain", "iterations": 20}');
SELECT last_draw_exact IS NULL AS not_drawn_yet FROM dp.release_cost('chain_counts');
SELECT dp.refresh_release('chain_counts') > 0 AS drawn;
SELECT last_draw_exact FROM dp.release_cost('chain_counts');
SELECT noise_law->>'exact' AS exact, noise_law->>'delta' AS delta FROM dp.release_laws
WHERE release = 'chain_counts'::regclass;
-- A registration this library would refuse (as one made by an earlier
-- version with an option it now refuses) is refused before its charge.
UPDATE dp.releases SET mechanism = 'discrete_laplace' WHERE release = 'chain_counts'::regclass;
SELECT epsilon_spent AS spent_before FROM dp.budgets WHERE dataset = 'chain survey';
SELECT sqlstate_of($$SELECT dp.refresh_release('chain_counts')$$);
SELECT epsilon_spent AS spent_after FROM dp.budgets WHERE dataset = 'chain survey';
SELECT dp.drop_release('chain_counts');
-- congenial's rejection sampler fails after the charge when a group runs
-- out of proposals, which depends on the counts: not in a governed release.
SELECT sqlstate_of($$SELECT dp.register_release('rejection_counts', 'chain survey',
    source  => 'SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2',
    columns => 'county text, edu text, n bigint', epsilon => 0.5, mechanism => 'congenial',
    margins => '{county}', options => '{"keys": "public", "sampler": "rejection"}')$$);
SELECT count(*) AS registered FROM dp.releases WHERE release::text = 'rejection_counts';

-- Clean up.
DROP MATERIALIZED VIEW county_edu_view;
SELECT dp.drop_release('county_edu_counts');
SELECT count(*) AS releases_left FROM dp.releases;
-- The audit keeps the dropped release's name.
SELECT DISTINCT release FROM dp.draws ORDER BY 1;
DROP VIEW open_view;
DROP FUNCTION open_rows();
DROP TABLE open_survey;
DELETE FROM dp.draws;
DELETE FROM dp.budgets;
DROP SCHEMA regress_evil CASCADE;
DROP OWNED BY regress_dp_analyst, regress_dp_refresher;
DROP ROLE regress_dp_analyst;
DROP ROLE regress_dp_refresher;

