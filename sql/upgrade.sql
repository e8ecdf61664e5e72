-- Upgrades: every released version, installed from the scripts it shipped
-- (test/upgrade/) and filled with governed releases, is updated with the
-- scripts this build makes and must end with exactly the objects of a fresh
-- install: the same function definitions (pg_get_functiondef), tables and
-- columns, constraints, views, aggregates, comments, privileges, extension
-- members and dumped tables. The data must survive and work afterwards.
-- Runs with `make upgradecheck` (the released scripts must be installed).
\set VERBOSITY terse
LOAD 'invariant_dp';  -- SET dp.seed is honoured once the library is loaded
SET dp.seed = '11';

-- One row per property of every object of the extension, by name (never
-- by oid: a fresh install and an upgraded one have different oids).
CREATE FUNCTION extension_catalog() RETURNS TABLE (object text, property text, value text)
LANGUAGE sql STABLE AS $$
    WITH ext AS (SELECT oid FROM pg_extension WHERE extname = 'invariant_dp'),
    members AS (
        SELECT d.classid, d.objid, d.objsubid, pg_describe_object(d.classid, d.objid, d.objsubid) AS name
        FROM pg_depend d, ext WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid
                                AND d.deptype = 'e')
    SELECT name, 'member', '' FROM members
    UNION ALL
    SELECT m.name, 'definition',
           CASE WHEN p.prokind = 'a' THEN
                    format('aggregate %s sfunc %s stype %s final %s combine %s serial %s deserial %s parallel %s',
                           p.oid::regprocedure, a.aggtransfn, a.aggtranstype::regtype, a.aggfinalfn,
                           a.aggcombinefn, a.aggserialfn, a.aggdeserialfn, p.proparallel)
                ELSE pg_get_functiondef(p.oid) END
    FROM members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
    LEFT JOIN pg_aggregate a ON a.aggfnoid = p.oid
    UNION ALL
    SELECT m.name, 'acl', coalesce(p.proacl::text, 'default')
    FROM members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
    UNION ALL
    SELECT m.name, format('column %s', a.attnum),
           format('%s %s%s%s', a.attname, format_type(a.atttypid, a.atttypmod),
                  CASE WHEN a.attnotnull THEN ' not null' ELSE '' END,
                  coalesce(' default ' || pg_get_expr(ad.adbin, ad.adrelid), ''))
    FROM members m JOIN pg_attribute a ON m.classid = 'pg_class'::regclass AND a.attrelid = m.objid
    LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
    WHERE a.attnum > 0 AND NOT a.attisdropped
    UNION ALL
    SELECT m.name, format('constraint %s', c.conname), pg_get_constraintdef(c.oid)
    FROM members m JOIN pg_constraint c ON m.classid = 'pg_class'::regclass AND c.conrelid = m.objid
    UNION ALL
    SELECT m.name, format('index %s', i.indexrelid::regclass), pg_get_indexdef(i.indexrelid)
    FROM members m JOIN pg_index i ON m.classid = 'pg_class'::regclass AND i.indrelid = m.objid
    UNION ALL
    SELECT m.name, 'relation', format('kind %s options %s acl %s', c.relkind, c.reloptions, c.relacl)
    FROM members m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid
    UNION ALL
    SELECT m.name, 'view', pg_get_viewdef(m.objid)
    FROM members m JOIN pg_class c ON m.classid = 'pg_class'::regclass AND c.oid = m.objid AND c.relkind = 'v'
    UNION ALL
    SELECT pg_describe_object(d.classoid, d.objoid, d.objsubid), 'comment', d.description
    FROM pg_description d JOIN members m ON m.classid = d.classoid AND m.objid = d.objoid
    UNION ALL
    SELECT 'extension', 'dumped', c.relname::text
    FROM pg_extension e, unnest(e.extconfig) AS config(oid) JOIN pg_class c ON c.oid = config.oid
    WHERE e.extname = 'invariant_dp'
    UNION ALL
    SELECT 'schema dp', 'acl', nspacl::text FROM pg_namespace WHERE nspname = 'dp'
$$;

-- A governed release in the shape every version since 0.2.0 registers.
CREATE FUNCTION register_edu_counts() RETURNS regclass LANGUAGE sql AS $$
    SELECT dp.set_budget('survey', 1.0);
    SELECT dp.register_release('edu_counts', 'survey', 'SELECT edu, count(*) FROM delinquents GROUP BY 1',
                               'edu text, n bigint', 0.25, margins => '{""}')
$$;

-- The fresh install of this version.
DROP EXTENSION invariant_dp;
CREATE EXTENSION invariant_dp;
SELECT extversion FROM pg_extension WHERE extname = 'invariant_dp';
CREATE TABLE fresh_catalog AS SELECT * FROM extension_catalog();

-- The differences between the current catalog and the fresh one, both ways.
CREATE FUNCTION catalog_differences() RETURNS TABLE (side text, object text, property text, value text)
LANGUAGE sql STABLE AS $$
    (SELECT 'upgraded only', * FROM extension_catalog() EXCEPT SELECT 'upgraded only', * FROM fresh_catalog)
    UNION ALL
    (SELECT 'fresh only', * FROM fresh_catalog EXCEPT SELECT 'fresh only', * FROM extension_catalog())
    ORDER BY 2, 3, 1
$$;

SELECT count(*) FILTER (WHERE property = 'definition') AS routines, count(*) FILTER (WHERE property LIKE 'column %') AS columns
FROM fresh_catalog;
-- The comparison can fail: a dropped comment shows as a difference.
COMMENT ON FUNCTION dp.last_release() IS NULL;
SELECT side, object, property FROM catalog_differences();
DROP EXTENSION invariant_dp;

-- From 0.1.0 straight to this version.
CREATE EXTENSION invariant_dp VERSION '0.1.0';
-- 0.1.0's seven-argument dp.privatize on today's library.
SELECT county, sum(n) AS total FROM dp.privatize('SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2', 1.0,
                                                 margins => '{county}') AS t(county text, edu text, n bigint)
GROUP BY county ORDER BY county;
ALTER EXTENSION invariant_dp UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'invariant_dp';
SELECT * FROM catalog_differences();
DROP EXTENSION invariant_dp;

-- From 0.2.0 and 0.3.0, each with a release registered (and its draws
-- refused: the library refuses the unpaid draws of SQL older than 0.4.0).
CREATE EXTENSION invariant_dp VERSION '0.2.0';
SELECT register_edu_counts();
SELECT sqlstate_of($$SELECT dp.refresh_release('edu_counts')$$);
ALTER EXTENSION invariant_dp UPDATE;
SELECT * FROM catalog_differences();
SELECT release, dataset, mechanism, epsilon, margins, hierarchy, source_view IS NOT NULL AS pinned FROM dp.releases;
SELECT dp.refresh_release('edu_counts') > 0 AS drawn;
SELECT dp.drop_release('edu_counts');
DROP EXTENSION invariant_dp;

CREATE EXTENSION invariant_dp VERSION '0.3.0';
SELECT register_edu_counts();
ALTER EXTENSION invariant_dp UPDATE;
SELECT * FROM catalog_differences();
SELECT dp.refresh_release('edu_counts') > 0 AS drawn;
SELECT dp.drop_release('edu_counts');
DROP EXTENSION invariant_dp;

-- From 0.4.0, with a release registered: its draws are refused until the
-- SQL is updated to the library's version.
CREATE EXTENSION invariant_dp VERSION '0.4.0';
SELECT register_edu_counts();
SELECT sqlstate_of($$SELECT dp.refresh_release('edu_counts')$$);
ALTER EXTENSION invariant_dp UPDATE;
SELECT * FROM catalog_differences();
SELECT dp.refresh_release('edu_counts') > 0 AS drawn;
SELECT dp.drop_release('edu_counts');
DROP EXTENSION invariant_dp;

-- From 0.5.0, with a release registered: its draws are
-- refused until the SQL is updated to the library's version (0.5.0's draw
-- functions resolve names through the caller's search_path), then the
-- budget and the audit survive and drawing goes on.
CREATE EXTENSION invariant_dp VERSION '0.5.0';
SELECT dp.set_budget('survey', 1.0);
SELECT dp.register_release('edu_counts', 'survey', 'SELECT edu, count(*) FROM delinquents GROUP BY 1',
                           'edu text, n bigint', 0.25, margins => '{""}', options => '{"keys": "public"}');
SELECT sqlstate_of($$SELECT dp.refresh_release('edu_counts')$$);
ALTER EXTENSION invariant_dp UPDATE;
SELECT dp.refresh_release('edu_counts') > 0 AS drawn;
SELECT extversion FROM pg_extension WHERE extname = 'invariant_dp';
SELECT * FROM catalog_differences();
-- The release's source stays pinned as a view owned by its owner, outside the extension.
SELECT r.release, v.relname LIKE 'source_of_%' AS pinned, v.relowner = r.owner AS owned_by_owner,
       r.table_oid = r.release::oid AS bound, r.search_path LIKE '%pg_temp' AS pg_temp_last,
       NOT EXISTS (SELECT FROM pg_depend d WHERE d.objid = v.oid AND d.deptype = 'e') AS not_a_member
FROM dp.releases r JOIN pg_class v ON v.oid = r.source_view;
SELECT sum(n) AS total FROM edu_counts;
SELECT epsilon_spent, (SELECT count(*) FROM dp.draws) AS draws FROM dp.budgets;
SELECT dp.refresh_release('edu_counts') > 0 AS drawn;
SELECT epsilon_spent, (SELECT count(*) FROM dp.draws) AS draws FROM dp.budgets;
SELECT epsilon_remaining, draws_remaining FROM dp.release_cost('edu_counts');
SELECT count(*) AS rows FROM dp.privatize('SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2', 1.0,
                                          hierarchy => '{county,edu}') AS t(county text, edu text, n bigint);
SELECT dp.drop_release('edu_counts');
DROP EXTENSION invariant_dp;

-- From 0.6.0, the last release: draws logged under a release's name, one
-- made before the name's current registration (a dropped release's) and one
-- after it, with a chain's move acceptance in its law. The update gives
-- each the identity of the registration it was drawn for (none for the
-- dropped one's), takes the move acceptance out, and the laws shown are the
-- current registration's own. The draw after the registration carries the
-- whole law 0.6.0 published for it, which names no error_law: the update
-- adds it, and the release's error bars are those of a law drawn now.
CREATE EXTENSION invariant_dp VERSION '0.6.0';
SELECT dp.set_budget('survey', 1.0);
SELECT dp.register_release('edu_counts', 'survey', 'SELECT edu, count(*) FROM delinquents GROUP BY 1',
                           'edu text, n bigint', 0.25, margins => '{""}', options => '{"keys": "public"}');
INSERT INTO dp.draws (release, dataset, drawn_by, drawn_at, mechanism, epsilon, margins, options, noise_law, cells)
VALUES ('public.edu_counts', 'survey', current_user, now() - interval '1 day', 'congenial', 0.25, '{}', '{}',
        '{"mechanism": "congenial", "sampler": {"exact": false, "move_acceptance": 0.42}}', 4),
       ('public.edu_counts', 'survey', current_user, now() + interval '1 second', 'integer_laplace', 0.25, '{}', '{}',
        $law${"keys": "public (declared): exactly the source's cells, stated public by the caller", "cells": 4, "delta": null, "exact": true, "noise": {"law": "discrete Laplace, P(z) proportional to exp(-|z|_1/b), conditioned on every declared margin (z sums to 0 over each margin group)", "scale": 8, "calibration": "b = l1_sensitivity / epsilon, rounded up to a rational", "unit_variance": 127.83346346097646, "exact_parameter": "8/1", "scale_parameter": "b"}, "family": "conditioning", "output": "integer", "epsilon": 0.25, "privacy": "epsilon-differential privacy for databases that differ in one person's record and agree on every declared margin; the margins are released exactly and are not protected (induced subspace DP, Gao, Gong and Yu 2022, Def. 2.6)", "sampler": {"exact": true, "method": "exact", "stddev": "exact"}, "mechanism": "integer_laplace", "covariance": "cells of different margin groups independent; within a group of k cells Var(z_i) = sd_i^2 and Cov(z_i, z_j) = -sd_i^2 / (k - 1)", "invariants": {"rank": 1, "margins": [[]], "structure": "partition", "null_dimension": 3}, "neighbours": "replace_one", "non_negative": false, "privacy_unit": null, "l1_sensitivity": 2, "l2_sensitivity": 1.4142135623730951, "partition_selection": null, "expected_total_squared_error": 268.11986892857}$law$, 4),
       ('public.edu_counts', 'survey', current_user, now() - interval '2 days', 'cascade_stream', 0.25, '{}', '{}',
        '{"mechanism": "cascade_stream", "variance": 2.5}', 1);
SELECT sqlstate_of($$SELECT dp.refresh_release('edu_counts')$$);
ALTER EXTENSION invariant_dp UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'invariant_dp';
SELECT * FROM catalog_differences();
SELECT d.mechanism, d.release_id IS NOT DISTINCT FROM r.release_id AS this_registration, d.release_id IS NULL AS none,
       d.noise_law #> '{sampler,move_acceptance}' IS NULL AS no_move_acceptance
FROM dp.draws d LEFT JOIN dp.releases r ON true ORDER BY d.draw_id;
-- Each law logged by 0.6.0 now says its error bars' family, as new laws do.
SELECT noise_law->>'mechanism' AS mechanism, noise_law->>'error_law' AS error_law FROM dp.draws ORDER BY draw_id;
SELECT noise_law->>'mechanism' AS law_shown FROM dp.release_laws;
SELECT dp.refresh_release('edu_counts') > 0 AS drawn;
-- The law stored by 0.6.0 and the law of the draw just made (the same
-- request) give every education level, and the total, the same margin.
SELECT coalesce(e.edu, 'all') AS edu, dp.margin_of_error(e, 0.9, stored.noise_law) AS margin_stored_by_0_6_0,
       dp.margin_of_error(e, 0.9, l.noise_law) AS margin_drawn_now
FROM edu_counts e, dp.release_laws l,
     (SELECT noise_law FROM dp.draws WHERE mechanism = 'integer_laplace' ORDER BY draw_id LIMIT 1) stored
GROUP BY ROLLUP (e.edu) ORDER BY e.edu;
SELECT count(*) AS draws_of_this_registration FROM dp.draws d JOIN dp.releases r USING (release_id);
SELECT dp.drop_release('edu_counts');

-- Leave the database as the other suites expect it.
DROP EXTENSION invariant_dp;
CREATE EXTENSION invariant_dp;
