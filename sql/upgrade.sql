-- ALTER EXTENSION ... UPDATE across versions, with governed releases in the
-- catalog: 0.1.0 -> 0.2.0 (governance) -> 0.3.0 (hierarchies) -> 0.4.0
-- (draws in a worker, pinned sources), using each version's functions in
-- between. The shared library serves every version, except that it refuses
-- the draws of SQL older than 0.4.0 (those could be rolled back unpaid).
\set VERBOSITY terse
SET dp.seed = '11';
DROP EXTENSION invariant_dp;
CREATE EXTENSION invariant_dp VERSION '0.1.0';
SELECT extversion FROM pg_extension WHERE extname = 'invariant_dp';
-- 0.1.0's seven-argument dp.privatize on today's library.
SELECT county, sum(n) AS total FROM dp.privatize('SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2', 1.0,
                                                 margins => '{county}') AS t(county text, edu text, n bigint)
GROUP BY county ORDER BY county;

ALTER EXTENSION invariant_dp UPDATE TO '0.2.0';
SELECT extversion FROM pg_extension WHERE extname = 'invariant_dp';
SELECT dp.set_budget('survey', 1.0);
SELECT dp.register_release('edu_counts', 'survey', 'SELECT edu, count(*) FROM delinquents GROUP BY 1',
                           'edu text, n bigint', 0.25, margins => '{""}');
SELECT sqlstate_of($$SELECT dp.refresh_release('edu_counts')$$);

ALTER EXTENSION invariant_dp UPDATE TO '0.3.0';
SELECT extversion FROM pg_extension WHERE extname = 'invariant_dp';
-- The catalog survived: budget, release, audit, the stored draw.
SELECT dataset, epsilon_total, epsilon_spent FROM dp.budgets;
SELECT release, dataset, mechanism, epsilon, margins, hierarchy FROM dp.releases;
SELECT count(*) AS draws FROM dp.draws;
SELECT sqlstate_of($$SELECT dp.refresh_release('edu_counts')$$);

ALTER EXTENSION invariant_dp UPDATE TO '0.4.0';
SELECT extversion FROM pg_extension WHERE extname = 'invariant_dp';
-- The release's source was pinned as a view owned by its owner, outside the extension.
SELECT r.release, v.relname LIKE 'source_of_%' AS pinned, v.relowner = r.owner AS owned_by_owner,
       r.table_oid = r.release::oid AS bound, r.search_path LIKE '%pg_temp' AS pg_temp_last,
       NOT EXISTS (SELECT FROM pg_depend d WHERE d.objid = v.oid AND d.deptype = 'e') AS not_a_member
FROM dp.releases r JOIN pg_class v ON v.oid = r.source_view;
-- ... and works with 0.4.0's functions: draws are charged, a hierarchy releases.
SELECT dp.refresh_release('edu_counts') > 0 AS drawn;
SELECT sum(n) AS total FROM edu_counts;
SELECT epsilon_spent, (SELECT count(*) FROM dp.draws) AS draws FROM dp.budgets;
SELECT epsilon_remaining, draws_remaining FROM dp.release_cost('edu_counts');
SELECT count(*) AS rows FROM dp.privatize('SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2', 1.0,
                                          hierarchy => '{county,edu}') AS t(county text, edu text, n bigint);
-- The extension's config tables are still dumped.
SELECT array_agg(c.relname::text ORDER BY c.relname::text COLLATE "C") AS dumped
FROM pg_extension e, unnest(e.extconfig) AS config(oid) JOIN pg_class c ON c.oid = config.oid
WHERE e.extname = 'invariant_dp';
SELECT count(*) AS available FROM pg_available_extension_versions WHERE name = 'invariant_dp';

-- Leave the database as the other suites expect it.
SELECT dp.drop_release('edu_counts');
DROP EXTENSION invariant_dp;
CREATE EXTENSION invariant_dp;
