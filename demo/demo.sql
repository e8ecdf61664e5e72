-- Demo of invariant_dp: run by scripts/demo in a throwaway cluster.
\pset footer off
CREATE EXTENSION invariant_dp;
\i demo/delinquents.sql

\echo
\echo '== A private release of the delinquent-children table =='
\echo 'subspace_gaussian, epsilon 0.5, delta 1e-6, county and education margins exact'
CREATE TEMP TABLE released AS
SELECT * FROM dp.privatize(
    source    => $$SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2$$,
    epsilon   => 0.5, delta => 1e-6,
    mechanism => 'subspace_gaussian',
    margins   => '{county,edu}',
    options   => '{"stddev": true}')
AS t(county text, edu text, n float8, sd float8);

SELECT r.county, r.edu, t.n AS true_n, round(r.n::numeric, 2) AS released_n, round(r.sd::numeric, 2) AS noise_sd
FROM released r
JOIN (SELECT county, edu, count(*) AS n FROM delinquents GROUP BY 1, 2) t USING (county, edu)
ORDER BY r.county, r.edu;

\echo '== Margins: true totals beside released totals (exact up to float8 rounding) =='
SELECT 'county' AS margin, county AS level, t.n AS true_total, round(sum(r.n)::numeric, 9) AS released_total
FROM released r JOIN (SELECT county, count(*) AS n FROM delinquents GROUP BY 1) t USING (county)
GROUP BY county, t.n
UNION ALL
SELECT 'edu', edu, t.n, round(sum(r.n)::numeric, 9)
FROM released r JOIN (SELECT edu, count(*) AS n FROM delinquents GROUP BY 1) t USING (edu)
GROUP BY edu, t.n
ORDER BY 1, 2;

\echo '== The noise law published with the release =='
SELECT jsonb_pretty(dp.last_release() - 'privacy') AS release_metadata;
SELECT dp.last_release() ->> 'privacy' AS privacy_guarantee;
