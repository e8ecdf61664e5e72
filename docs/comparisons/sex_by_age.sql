-- Gong and Meng 2020 (arXiv:2008.10202) section 4: the 2 x 23 sex-by-age table with the total,
-- female and voting-age totals (margins {sex} and {voting} over cells keyed
-- by sex, age band and voting age) and non-negativity. One release, then the
-- mean L1/L2 distance to the confidential table over 100 releases.
\set source 'SELECT sex, age_band, voting, count(*) FROM sex_by_age_persons GROUP BY 1, 2, 3'
\set margins '{sex,voting}'
\pset footer off
LOAD 'invariant_dp';  -- dp.seed is honoured once the library is loaded
SET dp.seed = '2020';

CREATE TEMP TABLE truth AS SELECT sex, age_band, voting, count(*) AS n FROM sex_by_age_persons GROUP BY 1, 2, 3;

\echo '#### One congenial release (epsilon 2: base noise b = 2 per cell, the paper''s eps0 = 0.5)'
\echo
CREATE TEMP TABLE one_release AS
SELECT * FROM dp.privatize(:'source', 2.0, 'congenial', margins => :'margins')
AS t(sex text, age_band int, voting boolean, n bigint);
SELECT (dp.last_release()->'noise'->>'scale')::float8 AS noise_scale_b, dp.last_release()->>'family' AS family,
       dp.last_release()->'sampler'->>'method' AS sampler;
SELECT sex, string_agg(n::text, ' ' ORDER BY age_band) AS "cells by age band" FROM one_release GROUP BY 1 ORDER BY 1;
SELECT 'confidential' AS "table", (SELECT sum(n) FROM truth) AS total, (SELECT sum(n) FROM truth WHERE sex = 'F') AS female,
       (SELECT sum(n) FROM truth WHERE voting) AS voting_age, (SELECT min(n) FROM truth) AS smallest_cell
UNION ALL
SELECT 'congenial release', sum(n), sum(n) FILTER (WHERE sex = 'F'), sum(n) FILTER (WHERE voting), min(n) FROM one_release;
SELECT sum(abs(r.n - t.n)) AS l1_distance, round(sqrt(sum((r.n - t.n) ^ 2))::numeric, 2) AS l2_distance
FROM one_release r JOIN truth t USING (sex, age_band, voting);

CREATE TEMP TABLE distances (method text, ord int, run int, l1 float8, l2 float8, negative int);
DO $$
DECLARE
    m record;
    r int;
BEGIN
    FOR m IN SELECT * FROM (VALUES
        (1, 'raw discrete Laplace, b = 1 (paper: DG eps = 1)', 'discrete_laplace', 2.0, '{}'::text[]),
        (2, 'project_nn_l2 of it (NNL2)', 'project_nn_l2', 2.0, '{sex,voting}'),
        (3, 'project_nn_integer of it (TopDown-style)', 'project_nn_integer', 2.0, '{sex,voting}'),
        (4, 'congenial, base b = 2 (paper: eps0 = 0.5)', 'congenial', 2.0, '{sex,voting}'),
        (5, 'raw discrete Laplace, b = 2 (paper: DG eps = 0.5)', 'discrete_laplace', 1.0, '{}')) AS v(ord, label, name, epsilon, margins)
    LOOP
        FOR r IN 1..100 LOOP
            INSERT INTO distances
            SELECT m.label, m.ord, r, sum(abs(t.n - u.n)), sqrt(sum((t.n - u.n) ^ 2)), count(*) FILTER (WHERE t.n < 0)
            FROM dp.privatize('SELECT sex, age_band, voting, count(*) FROM sex_by_age_persons GROUP BY 1, 2, 3',
                              m.epsilon, m.name, margins => m.margins) AS t(sex text, age_band int, voting boolean, n float8)
            JOIN truth u USING (sex, age_band, voting);
        END LOOP;
    END LOOP;
END $$;

\echo
\echo '#### Mean distance to the confidential table over 100 releases'
\echo
SELECT method, round(avg(l1)::numeric, 1) AS "mean L1", round(avg(l2)::numeric, 2) AS "mean L2",
       round(avg(negative)::numeric, 2) AS "negative cells per release"
FROM distances GROUP BY method, ord ORDER BY ord;
