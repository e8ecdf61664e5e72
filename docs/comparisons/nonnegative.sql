-- The non-negative cascade against the unbiased integer cascade and the
-- TopDown-style baseline project_nn_integer (discrete Laplace on every
-- leaf, non-negative least squares and controlled rounding keeping the
-- exact totals, then rolled up), every level of two hierarchies, each
-- keeping the same totals exact:
--   the 2 x 23 sex-by-age table of Gong and Meng (2020), a real published
--     table (data_sex_by_age.sql), as the hierarchy total > sex > age with
--     the two sex totals exact; epsilon 1, 1,000 releases each;
--   the slice of the U.S.-shaped geography (data_blocks.sql: 2 states,
--     23,415 blocks), state > county > tract > block group > block with the
--     state totals exact; epsilon 2, 30 releases each (at epsilon 1 the
--     non-negative cascade's draw takes minutes on this tree:
--     test/bench/README.md).
-- Per level: the bias (mean of released - true over the releases) of the
-- nodes whose true count is 0, 1 to 5, and above 5 (over a whole level it
-- is 0: each level sums to the exact totals), the root mean square error,
-- the share of nodes released as 0 (and the true share), the share within
-- +-5 of the truth; per
-- mechanism the backend's CPU seconds per release and its peak resident
-- memory (VmHWM: a fresh backend per mechanism; needs a superuser, as
-- run.sh connects). integer_cascade runs at delta 1e-9 (zCDP), the other
-- two are pure epsilon-DP.
\pset footer off
CREATE TABLE nn_truth AS
SELECT 'sex by age' AS study, 0 AS level, '' AS node, count(*)::bigint AS population FROM sex_by_age_persons
UNION ALL SELECT 'sex by age', 1, sex, count(*) FROM sex_by_age_persons GROUP BY sex
UNION ALL SELECT 'sex by age', 2, sex || '/' || age, count(*) FROM sex_by_age_persons GROUP BY sex, age
UNION ALL SELECT 'blocks', level, node::text, population FROM slice_truth;
-- Per release, level and true size (0, 1 to 5, above 5).
CREATE TABLE nn_runs (study text, mechanism text, level int, size_class int, n bigint, error_sum float8,
                      error_squares float8, zeros bigint, within_5 bigint);
CREATE TABLE nn_costs (study text, mechanism text, releases int, cpu_s numeric, peak_rss_mb numeric);
CREATE FUNCTION nn_usage(OUT cpu_s numeric, OUT peak_rss_mb numeric) LANGUAGE sql VOLATILE AS $$
    SELECT round((f[12]::bigint + f[13]::bigint) / 100.0, 2),
           round((regexp_match(pg_read_file(format('/proc/%s/status', pg_backend_pid())), 'VmHWM:\s+(\d+) kB'))[1]::numeric
                 / 1024, 0)
    FROM (SELECT string_to_array(split_part(pg_read_file(format('/proc/%s/stat', pg_backend_pid())), ') ', 2), ' ') f) s
$$;
-- One study's releases by one mechanism in this backend, with their cost.
CREATE PROCEDURE nn_study(study text, mechanism text, releases int) LANGUAGE plpgsql AS $$
#variable_conflict use_variable
DECLARE
    before numeric := (SELECT cpu_s FROM nn_usage());
    delta float8 := CASE WHEN mechanism = 'integer_cascade' THEN 1e-9 END;
BEGIN
    FOR r IN 1..releases LOOP
        IF study = 'sex by age' THEN
            INSERT INTO nn_runs
            SELECT study, mechanism, t.level, width_bucket(s.population, ARRAY[1, 6]), count(*),
                   sum(t.n - s.population), sum((t.n - s.population)::float8 ^ 2),
                   count(*) FILTER (WHERE t.n = 0), count(*) FILTER (WHERE abs(t.n - s.population) <= 5)
            FROM dp.privatize('SELECT sex, age, count(*) FROM sex_by_age_persons GROUP BY 1, 2', 1.0, mechanism,
                              delta => delta, margins => '{sex}', hierarchy => '{sex,age}', options => '{"level": true}')
                 AS t(sex text, age text, n bigint, level int)
            JOIN nn_truth s ON s.study = 'sex by age' AND s.level = t.level
             AND s.node = CASE t.level WHEN 0 THEN '' WHEN 1 THEN t.sex ELSE t.sex || '/' || t.age END
            GROUP BY 3, 4;
        ELSE
            INSERT INTO nn_runs
            SELECT study, mechanism, t.level, width_bucket(s.population, ARRAY[1, 6]), count(*),
                   sum(t.n - s.population), sum((t.n - s.population)::float8 ^ 2),
                   count(*) FILTER (WHERE t.n = 0), count(*) FILTER (WHERE abs(t.n - s.population) <= 5)
            FROM dp.privatize('SELECT state, county, tract, block_group, block, population FROM slice_blocks', 2.0,
                              mechanism, delta => delta, margins => '{state}',
                              hierarchy => '{state,county,tract,block_group,block}', options => '{"level": true}')
                 AS t(state int, county int, tract int, block_group int, block int, n bigint, level int)
            JOIN nn_truth s ON s.study = 'blocks' AND s.level = t.level
             AND s.node = (CASE t.level WHEN 0 THEN 0 WHEN 1 THEN t.state WHEN 2 THEN t.county WHEN 3 THEN t.tract
                                        WHEN 4 THEN t.block_group ELSE t.block END)::text
            GROUP BY 3, 4;
        END IF;
        COMMIT;
    END LOOP;
    INSERT INTO nn_costs SELECT study, mechanism, releases, round((u.cpu_s - before) / releases, 3), u.peak_rss_mb
    FROM nn_usage() u;
END $$;

\c
LOAD 'invariant_dp';
SET dp.seed = '3700';
CALL nn_study('sex by age', 'nonnegative_cascade', 1000);
\c
LOAD 'invariant_dp';
SET dp.seed = '3701';
CALL nn_study('sex by age', 'integer_cascade', 1000);
\c
LOAD 'invariant_dp';
SET dp.seed = '3702';
CALL nn_study('sex by age', 'project_nn_integer', 1000);
\c
LOAD 'invariant_dp';
SET dp.seed = '3703';
CALL nn_study('blocks', 'nonnegative_cascade', 30);
\c
LOAD 'invariant_dp';
SET dp.seed = '3704';
CALL nn_study('blocks', 'integer_cascade', 30);
\c
LOAD 'invariant_dp';
SET dp.seed = '3705';
CALL nn_study('blocks', 'project_nn_integer', 30);

\echo '#### Per level, every node and release: bias by true size, root mean square error, share released as 0 (true share), share within +-5'
\echo
SELECT r.study, CASE WHEN r.study = 'sex by age' THEN (ARRAY['total', 'sex', 'age'])[r.level + 1]
                     ELSE (ARRAY['total', 'state', 'county', 'tract', 'block group', 'block'])[r.level + 1] END AS level,
       r.mechanism, (sum(r.n) / max(c.releases))::bigint AS nodes,
       round((sum(r.error_sum) FILTER (WHERE r.size_class = 0) / sum(r.n) FILTER (WHERE r.size_class = 0))::numeric, 2)
           AS bias_at_0,
       round((sum(r.error_sum) FILTER (WHERE r.size_class = 1) / sum(r.n) FILTER (WHERE r.size_class = 1))::numeric, 2)
           AS bias_at_1_to_5,
       round((sum(r.error_sum) FILTER (WHERE r.size_class = 2) / sum(r.n) FILTER (WHERE r.size_class = 2))::numeric, 2)
           AS bias_above_5,
       round(sqrt(sum(r.error_squares) / sum(r.n))::numeric, 2) AS rmse,
       round((sum(r.zeros)::float8 / sum(r.n))::numeric, 3) AS share_zero,
       round((sum(r.n) FILTER (WHERE r.size_class = 0)::float8 / sum(r.n))::numeric, 3) AS true_share_zero,
       round((sum(r.within_5)::float8 / sum(r.n))::numeric, 3) AS share_within_5
FROM nn_runs r JOIN nn_costs c USING (study, mechanism)
GROUP BY r.study, r.level, r.mechanism
ORDER BY r.study DESC, r.level, r.mechanism;
\echo '#### Cost: backend CPU seconds per release, peak resident memory of the backend (MB)'
\echo
SELECT study, mechanism, releases, cpu_s AS cpu_s_per_release, peak_rss_mb FROM nn_costs ORDER BY study DESC, mechanism;
DROP PROCEDURE nn_study(text, text, int);
DROP FUNCTION nn_usage();
DROP TABLE nn_truth, nn_runs, nn_costs;
