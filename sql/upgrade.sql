-- ALTER EXTENSION ... UPDATE across versions, with governed releases in the
-- catalog: 0.1.0 -> 0.2.0 (governance) -> 0.3.0 (hierarchies), using each
-- version's functions in between. The shared library serves every version.
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
SELECT dp.refresh_release('edu_counts') > 0 AS drawn;
CREATE TEMP TABLE before_update AS SELECT * FROM edu_counts;
SELECT sum(n) AS total FROM edu_counts;

ALTER EXTENSION invariant_dp UPDATE TO '0.3.0';
SELECT extversion FROM pg_extension WHERE extname = 'invariant_dp';
-- The catalog survived: budget, release, audit, the stored draw.
SELECT dataset, epsilon_total, epsilon_spent FROM dp.budgets;
SELECT release, dataset, mechanism, epsilon, margins, hierarchy FROM dp.releases;
SELECT count(*) AS draws FROM dp.draws;
SELECT count(*) AS unchanged_rows FROM (SELECT * FROM edu_counts INTERSECT SELECT * FROM before_update) same;
-- ... and works with 0.3.0's functions: a new draw is charged, a hierarchy releases.
SELECT dp.refresh_release('edu_counts') > 0 AS drawn;
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
