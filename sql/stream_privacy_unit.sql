-- A governed stream whose privacy unit is not one row: a patient's visits
-- over many days. Each patient counts in its first max_groups_per_unit
-- days, with at most max_rows_per_group visits on each, over the stream's
-- whole life; the released days must keep counting the same patients.
-- epsilon is huge so that the noise (node sd about 0.01) rounds away and the
-- bounded counts can be compared with an oracle written in SQL.
\set VERBOSITY terse
CREATE TABLE visit_log (day date NOT NULL, patient_id int);
REVOKE ALL ON visit_log FROM PUBLIC;
SELECT setseed(0.25);
-- 300 patients over 40 days, 0 to 5 visits a day; patient 1 has 1,000
-- visits over 50 days (20 a day).
INSERT INTO visit_log
SELECT date '2026-03-01' + d, p
FROM generate_series(2, 300) p, generate_series(0, 39) d, generate_series(1, 5) k
WHERE random() + 0 * (d + k) < 0.04 * (1 + p % 3);  -- one draw per (patient, day, visit)
INSERT INTO visit_log SELECT date '2026-03-01' + d, 1 FROM generate_series(0, 49) d, generate_series(1, 20) k;

-- The oracle: a patient's visits kept are its first 3 days' first 2 visits each.
CREATE FUNCTION bounded_days(groups int, per_day int) RETURNS TABLE (day date, n bigint) LANGUAGE sql AS $$
    SELECT day, count(*) FILTER (WHERE nth_day <= groups AND nth_visit <= per_day)
    FROM (SELECT day, dense_rank() OVER (PARTITION BY patient_id ORDER BY day) AS nth_day,
                 row_number() OVER (PARTITION BY patient_id, day) AS nth_visit
          FROM visit_log) v
    GROUP BY day
$$;

SELECT dp.set_budget('clinic log', 1e9, 0.5);
SELECT dp.register_stream('daily_patients', 'clinic log',
    source       => 'SELECT day, patient_id FROM visit_log',
    columns      => 'day date, n float8',
    epsilon      => 1e6, delta => 1e-6, horizon => 7,
    privacy_unit => 'patient_id',
    bounds       => '{"max_groups_per_unit": 3, "max_rows_per_group": 2}');
-- Calibrated on one patient's move: (G R)^2 = 36 times one visit's.
SELECT round((variance / dp.cascade_stream_variance(1e6, 1e-6, 7, 'replace_one'))::numeric, 9) AS over_one_row,
       variance = dp.cascade_stream_variance(1e6, 1e-6, 7, 'replace_one',
                                             '{"max_groups_per_unit": 3, "max_rows_per_group": 2}') AS calibrated
FROM dp.streams;
SELECT epsilon, draws_remaining, privacy_unit, bounds FROM dp.release_cost('daily_patients');

-- The first draw: 50 days, each the bounded count; patient 1 counts 2 visits
-- on each of its first 3 days and nothing after.
SELECT dp.refresh_release('daily_patients') IS NOT NULL AS drawn;
SELECT count(*) AS days, count(*) FILTER (WHERE round(d.n) = o.n) AS bounded_as_the_oracle,
       max(abs(d.n - o.n)) < 0.1 AS noise_negligible
FROM daily_patients d JOIN bounded_days(3, 2) o USING (day);
-- Patient 1 alone (1,000 visits over 50 days): 2 visits on each of 3 days.
SELECT dp.register_stream('patient_one', 'clinic log',
    'SELECT day, patient_id FROM visit_log WHERE patient_id = 1', 'day date, n float8', 1e6, 1e-6, 7,
    privacy_unit => 'patient_id', bounds => '{"max_groups_per_unit": 3, "max_rows_per_group": 2}');
SELECT dp.refresh_release('patient_one') IS NOT NULL AS drawn;
SELECT count(*) AS days, sum(round(n)) AS counted, string_agg(round(n)::text, ',' ORDER BY day) FILTER (WHERE round(n) <> 0) AS kept
FROM patient_one;
SELECT noise_law->'privacy_unit' AS unit, noise_law->'bounds' AS bounds, cells FROM dp.draws
WHERE release = 'public.daily_patients';

-- Five new days: patients who used their 3 days count nothing more, new
-- ones count; the released days are unchanged.
CREATE TEMP TABLE first_draw AS SELECT day, float8send(n) AS bits FROM daily_patients;
INSERT INTO visit_log SELECT date '2026-04-20' + d, p FROM generate_series(1, 400, 3) p, generate_series(0, 4) d;
SELECT dp.refresh_release('daily_patients') IS NOT NULL AS drawn;
SELECT count(*) AS days, count(*) FILTER (WHERE round(d.n) = o.n) AS bounded_as_the_oracle
FROM daily_patients d JOIN bounded_days(3, 2) o USING (day);
SELECT count(*) AS unchanged FROM first_draw f JOIN daily_patients d USING (day) WHERE float8send(d.n) = f.bits;

-- The past: patient 2's visits of its first day removed from a released day
-- would let it count on a later day; refused, nothing drawn, charged or
-- changed (the message does not say whose visits).
CREATE TEMP TABLE before_refusal AS
SELECT (SELECT md5(state) FROM dp.streams WHERE release = 'daily_patients'::regclass) AS state,
       (SELECT count(*) FROM daily_patients) AS days;
CREATE TEMP TABLE removed (LIKE visit_log);
WITH gone AS (DELETE FROM visit_log WHERE patient_id = 2 AND day = (SELECT min(day) FROM visit_log WHERE patient_id = 2)
              RETURNING *)
INSERT INTO removed SELECT * FROM gone;
INSERT INTO visit_log VALUES (date '2026-04-25', 2);
\set VERBOSITY default
SELECT dp.refresh_release('daily_patients');
\set VERBOSITY terse
SELECT (SELECT md5(state) FROM dp.streams WHERE release = 'daily_patients'::regclass) = b.state AS same_state,
       (SELECT count(*) FROM daily_patients) = b.days AS same_days
FROM before_refusal b;
-- Put back, the past counts the same patients again and the new day is appended.
INSERT INTO visit_log SELECT * FROM removed;
SELECT dp.refresh_release('daily_patients') IS NOT NULL AS drawn;
SELECT count(*) AS days, count(*) FILTER (WHERE round(d.n) = o.n) AS bounded_as_the_oracle
FROM daily_patients d JOIN bounded_days(3, 2) o USING (day);
-- A visit that never counted (patient 1's 10th day, past its first 3) may go.
DELETE FROM visit_log WHERE patient_id = 1 AND day = date '2026-03-10';
SELECT dp.refresh_release('daily_patients') IS NOT NULL AS drawn;
-- So may a third visit of a counted day (beyond max_rows_per_group = 2).
DELETE FROM visit_log WHERE ctid = (SELECT min(ctid) FROM visit_log WHERE patient_id = 1 AND day = date '2026-03-01');
SELECT dp.refresh_release('daily_patients') IS NOT NULL AS drawn;
SELECT released FROM dp.streams WHERE release = 'daily_patients'::regclass;

-- Bad input: at registration, before anything is created ...
SELECT sqlstate_of($$SELECT dp.register_stream('bad_patients', 'clinic log', 'SELECT day, patient_id FROM visit_log',
                     'day date, n float8', 1.0, 1e-6, privacy_unit => 'patient_id')$$);
SELECT sqlstate_of($$SELECT dp.register_stream('bad_patients', 'clinic log', 'SELECT day, count(*) FROM visit_log GROUP BY 1',
                     'day date, n float8', 1.0, 1e-6, bounds => '{"max_groups_per_unit": 3, "max_rows_per_group": 1}')$$);
SELECT b, sqlstate_of(format($f$SELECT dp.register_stream('bad_patients', 'clinic log',
                     'SELECT day, patient_id FROM visit_log', 'day date, n float8', 1.0, 1e-6,
                     privacy_unit => 'patient_id', bounds => %L)$f$, b))
FROM unnest(ARRAY['{}', '{"max_groups_per_unit": 0, "max_rows_per_group": 1}',
                  '{"max_groups_per_unit": -2, "max_rows_per_group": 1}',
                  '{"max_groups_per_unit": 1.5, "max_rows_per_group": 1}',
                  '{"max_groups_per_unit": 3, "max_rows_per_group": 1e12}',
                  '{"max_groups_per_unit": 3, "max_periods": 1}', '[3, 1]',
                  '{"max_groups_per_unit": 1e300, "max_rows_per_group": 1}',
                  '{"max_groups_per_unit": [3], "max_rows_per_group": 1}',
                  '{"max_groups_per_unit": "3", "max_rows_per_group": {"a": 1}}']) AS b;
SELECT to_regclass('bad_patients') IS NULL AS nothing_half_created;
-- ... and at the first draw: an unknown unit column, the unit before the
-- period; rows with a NULL unit are left out (a refusal once the draw is
-- charged would tell the refresher that one exists).
SELECT dp.register_stream(r, 'clinic log', q, 'day date, n float8', 1.0, 1e-6, privacy_unit => 'patient_id',
                          bounds => '{"max_groups_per_unit": 3, "max_rows_per_group": 1}')
FROM (VALUES ('bad_unit_1', 'SELECT day, patient_id AS patient FROM visit_log'),
             ('bad_unit_2', 'SELECT patient_id, day FROM visit_log'),
             ('bad_unit_3', 'SELECT day, NULLIF(patient_id, 7) AS patient_id FROM visit_log')) AS t(r, q);
SELECT r, sqlstate_of(format('SELECT dp.refresh_release(%L)', r))
FROM unnest(ARRAY['bad_unit_1', 'bad_unit_2', 'bad_unit_3']) AS r;
-- Without a unit the source must return each period once (its count).
SELECT dp.register_stream('ungrouped', 'clinic log', 'SELECT day, 1 AS n FROM visit_log', 'day date, n float8', 1.0, 1e-6);
SELECT regexp_replace(sqlstate_of($$SELECT dp.refresh_release('ungrouped')$$), '\d{4}-\d\d-\d\d', 'D') AS refused;

-- Clean up.
SELECT dp.drop_release(release) FROM dp.releases ORDER BY release::text;
DELETE FROM dp.draws;
DELETE FROM dp.budgets;
DROP FUNCTION bounded_days(int, int);
DROP TABLE visit_log;
