-- A privacy unit with contribution bounds, and partition selection, as an
-- analyst and an administrator use them. Deterministic output only: exact
-- totals, cell counts, metadata fields, SQLSTATEs.
\set VERBOSITY terse
-- One row per visit: patient p (400 of them) visits clinics and months; a
-- patient has from 1 to 24 visits over up to 6 clinics.
CREATE TABLE visits AS
SELECT p AS patient_id, 'clinic ' || ((p * 7 + v) % 6) AS clinic, 1 + (p + v * 5) % 12 AS month
FROM generate_series(1, 400) p, generate_series(1, 1 + p % 24) v;
REVOKE ALL ON visits FROM PUBLIC;
SELECT count(*) AS visits, count(DISTINCT patient_id) AS patients FROM visits;

-- With the grand total exact, the released total is the bounded table's:
-- each patient counts at most 3 clinics, once each.
SELECT sum(n) = (SELECT sum(least(clinics, 3))
                 FROM (SELECT count(DISTINCT clinic) AS clinics FROM visits GROUP BY patient_id) u) AS bounded_total,
       count(*) AS cells
FROM dp.privatize(
    source       => $$SELECT patient_id, clinic FROM visits$$,
    privacy_unit => 'patient_id',
    bounds       => '{"max_groups_per_unit": 3, "max_rows_per_group": 1}',
    epsilon      => 1.0, mechanism => 'integer_laplace', margins => '{""}')
AS t(clinic text, n bigint);
-- Up to 2 rows per clinic: the total is sum over patients of min(rows, 2)
-- in each of the clinics kept (all of them: at most 6 <= 6).
SELECT sum(n) = (SELECT sum(least(rows, 2)) FROM (SELECT count(*) AS rows FROM visits GROUP BY patient_id, clinic) c)
       AS bounded_total
FROM dp.privatize($$SELECT patient_id, clinic FROM visits$$, 1.0, margins => '{""}', privacy_unit => 'patient_id',
                  bounds => '{"max_groups_per_unit": 6, "max_rows_per_group": 2}')
AS t(clinic text, n bigint);
-- What the release states: the unit, its bounds, the sensitivities they
-- give (replace_one: l1 = 2 G R, l2 = sqrt(2 G) R), which keys were shown.
SELECT r->'privacy_unit'->>'column' AS unit, r->'privacy_unit'->>'max_groups_per_unit' AS groups,
       r->'privacy_unit'->>'max_rows_per_group' AS rows_per_group, r->>'neighbours' AS neighbours,
       r->>'l1_sensitivity' AS l1, round((r->>'l2_sensitivity')::numeric, 6) AS l2,
       r->'noise'->>'scale' AS laplace_scale, r->>'keys' AS keys
FROM (SELECT dp.last_release() AS r
      FROM (SELECT count(*) FROM dp.privatize($$SELECT patient_id, clinic, month FROM visits$$, 0.5,
                                               'discrete_laplace', privacy_unit => 'patient_id',
                                               bounds => '{"max_groups_per_unit": 4, "max_rows_per_group": 2}')
                                   AS t(clinic text, month int, n bigint)) c) l;
SELECT r->>'privacy' AS statement
FROM (SELECT dp.last_release() AS r
      FROM (SELECT count(*) FROM dp.privatize($$SELECT patient_id, clinic, month FROM visits$$, 1.0,
                                               margins => '{clinic}', privacy_unit => 'patient_id',
                                               bounds => '{"max_groups_per_unit": 2, "max_rows_per_group": 1}')
                                   AS t(clinic text, month int, n bigint)) c) l;
-- A domain lists the public cells: every one is released, empty ones too.
SELECT count(*) AS cells, sum(n) FILTER (WHERE clinic = 'clinic 9') IS NOT NULL AS empty_cell_released
FROM dp.privatize($$SELECT patient_id, clinic FROM visits$$, 1.0, 'discrete_laplace',
                  domain => $$SELECT 'clinic ' || c FROM generate_series(0, 9) c$$,
                  privacy_unit => 'patient_id', bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}')
AS t(clinic text, n bigint);
SELECT dp.last_release()->>'keys' AS keys;

-- Partition selection: each patient counts in one clinic (G = 1), so a
-- clinic keeps 60 to 76 patients on average, above the threshold
-- (add_remove neighbours: 42 at epsilon 0.5, delta 1e-9). Above it, but
-- not far: the selection's noise has scale 2, and a clinic that kept 50
-- patients is hidden with probability 0.5 exp(-4) = 0.009, so unseeded
-- this statement would show 5 clinics in about one run in 70. Seeded, its
-- draw is fixed. A key only one patient has (the patient's own id) is shown
-- with probability at most delta = 1e-9 each, so none of 400 is.
SET dp.seed = '20261130';
SELECT count(*) AS clinics_shown,
       dp.last_release()->'partition_selection'->>'threshold' AS threshold,
       dp.last_release()->'partition_selection'->>'method' AS method,
       dp.last_release()->>'epsilon' AS epsilon,
       dp.last_release()->'partition_selection'->>'epsilon' AS selection_epsilon,
       dp.last_release()->'partition_selection'->>'counts_epsilon' AS counts_epsilon
FROM dp.privatize($$SELECT patient_id, clinic FROM visits$$,
                  1.0, 'discrete_laplace', delta => 1e-9,
                  options => '{"partition_selection": "laplace", "neighbours": "add_remove"}',
                  privacy_unit => 'patient_id', bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}')
AS t(clinic text, n bigint);
RESET dp.seed;
SELECT count(*) AS single_patient_keys_shown
FROM dp.privatize($$SELECT patient_id, 'patient ' || patient_id FROM visits$$, 1.0, 'discrete_gaussian', delta => 1e-9,
                  options => '{"partition_selection": {"method": "gaussian", "budget_share": 0.3}}',
                  privacy_unit => 'patient_id', bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}')
AS t(k text, n bigint);
SELECT dp.last_release()->'partition_selection'->>'epsilon' AS selection_epsilon,
       dp.last_release()->'partition_selection'->>'delta' AS selection_delta,
       dp.last_release()->>'keys' AS keys;
-- Without a unit, each row of a count source is one person's.
SELECT count(*) AS cells
FROM dp.privatize($$SELECT clinic, count(*) FROM visits GROUP BY 1$$, 1.0, 'discrete_laplace', delta => 1e-9,
                  options => '{"partition_selection": "laplace"}') AS t(clinic text, n bigint);
SELECT count(*) AS cells, dp.last_release()->>'keys' AS keys
FROM dp.privatize($$SELECT clinic, count(*) FROM visits GROUP BY 1$$, 1.0, 'discrete_laplace',
                  options => '{"keys": "public"}') AS t(clinic text, n bigint);

-- Selection on the counts themselves (noisy_count): all of epsilon on the
-- counts, a cell shown iff its released count reaches the threshold. With
-- G = R = 1 and add_remove, b = 1 / epsilon = 1 and tau = 1 + ceil(ln(1 /
-- (1e-9 (1 + e^-1)))) = 22: every clinic (about 67 patients) is shown, no
-- single-patient key is. The metadata counts the shown cells only.
SET dp.seed = '20260715';
CREATE TEMP TABLE noisy_count_clinics AS
SELECT * FROM dp.privatize($$SELECT patient_id, clinic FROM visits$$, 1.0, 'discrete_laplace', delta => 1e-9,
                           options => '{"partition_selection": "noisy_count", "neighbours": "add_remove"}',
                           privacy_unit => 'patient_id', bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}')
AS t(clinic text, n bigint);
CREATE TEMP TABLE noisy_count_law AS SELECT dp.last_release() AS law;
SELECT count(*) AS clinics_shown,
       bool_and(n >= (l.law->'partition_selection'->>'threshold')::bigint) AS all_reach_threshold,
       (l.law->>'cells')::int = count(*) AS cells_are_the_shown
FROM noisy_count_clinics, noisy_count_law l GROUP BY l.law;
SELECT j->'partition_selection'->>'method' AS method, j->'partition_selection'->>'threshold' AS threshold,
       j->'partition_selection'->>'noise' AS noise, j->'partition_selection'->>'scale' AS scale,
       j->>'epsilon' AS epsilon, j->>'delta' AS delta, j->'partition_selection'->>'counts_delta' AS counts_delta,
       j->'noise'->>'scale' AS counts_scale
FROM (SELECT law AS j FROM noisy_count_law) l;
SELECT law->>'keys' AS keys FROM noisy_count_law;
SELECT law->'partition_selection'->>'rule' AS rule FROM noisy_count_law;
SELECT count(*) AS single_patient_keys_shown, dp.last_release()->>'cells' AS cells,
       dp.last_release()->'partition_selection'->>'threshold' AS threshold
FROM dp.privatize($$SELECT patient_id, 'patient ' || patient_id FROM visits$$, 1.0, 'discrete_gaussian', delta => 1e-9,
                  options => '{"partition_selection": {"method": "noisy_count"}}',
                  privacy_unit => 'patient_id', bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}')
AS t(k text, n bigint);
SELECT dp.last_release()->>'delta' AS delta, dp.last_release()->'partition_selection'->>'delta' AS selection_delta,
       dp.last_release()->'partition_selection'->>'counts_delta' AS counts_delta;
-- Without a unit (each row of a count source one person's).
SELECT count(*) AS cells, dp.last_release()->'partition_selection'->>'threshold' AS threshold
FROM dp.privatize($$SELECT clinic, count(*) FROM visits GROUP BY 1$$, 1.0, 'discrete_laplace', delta => 1e-9,
                  options => '{"partition_selection": "noisy_count"}') AS t(clinic text, n bigint);
RESET dp.seed;
-- Shown counts were selected on their own noise: no error bar for them.
SELECT sqlstate_of($$SELECT dp.margin_of_error(r, 0.95, l.law) FROM noisy_count_clinics r, noisy_count_law l$$)
    AS noisy_count_margin_of_error;
-- Refused: other mechanisms, per-cell error bars, a budget share.
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT clinic, count(*) FROM visits GROUP BY 1', 1.0, 'integer_laplace',
    delta => 1e-6, options => '{"partition_selection": "noisy_count"}') AS t(clinic text, n bigint)$$)
    AS noisy_count_integer_laplace,
       sqlstate_of($$SELECT * FROM dp.privatize('SELECT clinic, count(*) FROM visits GROUP BY 1', 1.0, 'discrete_laplace',
    delta => 1e-6, options => '{"partition_selection": "noisy_count", "stddev": true}') AS t(clinic text, n bigint, sd float8)$$)
    AS noisy_count_stddev,
       sqlstate_of($$SELECT * FROM dp.privatize('SELECT clinic, count(*) FROM visits GROUP BY 1', 1.0, 'discrete_gaussian',
    delta => 1e-6, options => '{"partition_selection": "noisy_count", "interval": 0.9}')
    AS t(clinic text, n bigint, lower bigint, upper bigint)$$) AS noisy_count_interval,
       sqlstate_of($$SELECT * FROM dp.privatize('SELECT clinic, count(*) FROM visits GROUP BY 1', 1.0, 'discrete_laplace',
    delta => 1e-6, options => '{"partition_selection": {"method": "noisy_count", "budget_share": 0.5}}')
    AS t(clinic text, n bigint)$$) AS noisy_count_budget_share;
\set VERBOSITY default
SELECT * FROM dp.privatize('SELECT clinic, count(*) FROM visits GROUP BY 1', 1.0, 'subspace_gaussian',
    delta => 1e-6, options => '{"partition_selection": "noisy_count"}') AS t(clinic text, n float8);
SELECT * FROM dp.privatize('SELECT clinic, count(*) FROM visits GROUP BY 1', 1.0, 'discrete_laplace',
    delta => 1e-6, options => '{"partition_selection": "noisy_count", "stddev": true}') AS t(clinic text, n bigint, sd float8);
\set VERBOSITY terse

-- With a hierarchy the bounded leaves are released and summed: one row for
-- the total, one per clinic, one per clinic and month visited.
SELECT count(*) = 1 + 6 + (SELECT count(*) FROM (SELECT DISTINCT clinic, month FROM visits) c) AS every_node,
       sum(n) FILTER (WHERE level = 0) = sum(n) FILTER (WHERE level = 2) AS total_is_sum_of_leaves
FROM dp.privatize($$SELECT patient_id, clinic, month FROM visits$$, 1.0, hierarchy => '{clinic,month}',
                  options => '{"level": true}', privacy_unit => 'patient_id',
                  bounds => '{"max_groups_per_unit": 3, "max_rows_per_group": 1}')
AS t(clinic text, month int, n bigint, level int);

-- The cascades calibrate a unit on (G R)^2 times one record's largest
-- dx^T Sigma^+ dx (under replace_one without exact totals, the larger of
-- the replace_one and add_remove maxima): with G = 2 the variances are at
-- least four times those of G = 1.
SELECT round(((SELECT dp.last_release() FROM (SELECT count(*) FROM dp.privatize($$SELECT patient_id, clinic, month FROM visits$$,
            1.0, 'integer_cascade', delta => 1e-6, hierarchy => '{clinic,month}', privacy_unit => 'patient_id',
            bounds => '{"max_groups_per_unit": 2, "max_rows_per_group": 1}') AS t(clinic text, month int, n bigint)) c)
         ->'noise'->'level_variance'->>0)::numeric
       / ((SELECT dp.last_release() FROM (SELECT count(*) FROM dp.privatize($$SELECT patient_id, clinic, month FROM visits$$,
            1.0, 'integer_cascade', delta => 1e-6, hierarchy => '{clinic,month}', privacy_unit => 'patient_id',
            bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}') AS t(clinic text, month int, n bigint)) c)
         ->'noise'->'level_variance'->>0)::numeric, 3) AS variance_ratio_g2_to_g1;
SELECT dp.last_release()->'privacy_unit'->>'column' AS cascade_unit;
-- Crossed cascades too: clinic x month over the full grid (the domain),
-- one row per pair of nodes, (1 + 6) x (1 + 12).
SELECT count(*) AS crossed_rows, sum(n) FILTER (WHERE clinic IS NULL AND month IS NULL) IS NOT NULL AS has_total
FROM dp.privatize($$SELECT patient_id, clinic, month FROM visits$$, 1.0, 'integer_cascade', delta => 1e-6,
                  domain => $$SELECT 'clinic ' || c, m FROM generate_series(0, 5) c, generate_series(1, 12) m$$,
                  hierarchy => '{clinic}', options => '{"crossed": ["month"]}', privacy_unit => 'patient_id',
                  bounds => '{"max_groups_per_unit": 2, "max_rows_per_group": 1}')
AS t(clinic text, month int, n bigint);
SELECT dp.last_release()->'privacy_unit'->>'max_groups_per_unit' AS crossed_unit_groups;

-- Bad inputs, each with its SQLSTATE and nothing released.
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT patient_id, clinic FROM visits', 1.0, privacy_unit => 'patient',
    bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}') AS t(clinic text, n bigint)$$) AS unknown_unit;
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT patient_id, clinic FROM visits', 1.0,
    privacy_unit => 'patient_id') AS t(clinic text, n bigint)$$) AS no_bounds;
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT clinic, count(*) FROM visits GROUP BY 1', 1.0,
    bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}') AS t(clinic text, n bigint)$$) AS no_unit;
SELECT b AS bounds, sqlstate_of(format($$SELECT * FROM dp.privatize('SELECT patient_id, clinic FROM visits', 1.0,
    privacy_unit => 'patient_id', bounds => %L) AS t(clinic text, n bigint)$$, b)) AS error
FROM unnest(ARRAY['{"max_groups_per_unit": 0, "max_rows_per_group": 1}',
                  '{"max_groups_per_unit": -2, "max_rows_per_group": 1}',
                  '{"max_groups_per_unit": 1.5, "max_rows_per_group": 1}',
                  '{"max_groups_per_unit": 1, "max_rows_per_group": 1e12}',
                  '{"max_groups_per_unit": 1000000, "max_rows_per_group": 1000000}',
                  '{"max_groups_per_unit": 1}',
                  '{"max_groups_per_unit": 1, "max_rows_per_group": 1, "max_units": 2}',
                  '[1, 1]']) b;
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT NULLIF(patient_id, 7) AS p, clinic FROM visits', 1.0,
    privacy_unit => 'p', bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}') AS t(clinic text, n bigint)$$)
    AS null_unit;
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT patient_id, clinic FROM visits', 1.0, margins => '{clinic}',
    delta => 1e-6, options => '{"partition_selection": "laplace"}', privacy_unit => 'patient_id',
    bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}') AS t(clinic text, n bigint)$$) AS selection_with_margins;
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT patient_id, clinic FROM visits', 1.0, 'discrete_laplace',
    delta => 1e-6, domain => 'SELECT DISTINCT clinic FROM visits', options => '{"partition_selection": "laplace"}',
    privacy_unit => 'patient_id', bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}')
    AS t(clinic text, n bigint)$$) AS selection_with_domain;
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT clinic, month, count(*) FROM visits GROUP BY 1, 2', 1.0,
    'integer_cascade', delta => 1e-6, hierarchy => '{clinic,month}', options => '{"partition_selection": "laplace"}')
    AS t(clinic text, month int, n bigint)$$) AS selection_with_hierarchy;

SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT patient_id, clinic FROM visits', 1.0, 'discrete_laplace',
    options => '{"partition_selection": "laplace"}', privacy_unit => 'patient_id',
    bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}') AS t(clinic text, n bigint)$$) AS selection_without_delta;
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT patient_id, clinic FROM visits', 1.0, 'discrete_laplace',
    delta => 1e-6, options => '{"partition_selection": "geometric"}', privacy_unit => 'patient_id',
    bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}') AS t(clinic text, n bigint)$$) AS unknown_selection;
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT patient_id, clinic FROM visits', 1.0, 'discrete_laplace',
    options => '{"keys": "private"}') AS t(clinic text, n bigint)$$) AS bad_keys;
-- The column definition list has the keys and the count, not the unit.
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT patient_id, clinic FROM visits', 1.0, privacy_unit => 'patient_id',
    bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}') AS t(patient_id int, clinic text, n bigint)$$)
    AS unit_in_column_list;

-- Governed: a release registered with a unit stores it, states it in its
-- cost, and bounds every draw.
SELECT dp.set_budget('visits', 10, 1e-6);
SELECT dp.register_release('clinic_visits', 'visits',
    source       => 'SELECT patient_id, clinic FROM visits',
    columns      => 'clinic text, n bigint',
    epsilon      => 0.5, margins => '{""}',
    privacy_unit => 'patient_id',
    bounds       => '{"max_groups_per_unit": 2, "max_rows_per_group": 1}', options => jsonb_build_object('keys', 'public')) IS NOT NULL AS registered;
SELECT dp.refresh_release('clinic_visits') > 0 AS drawn;
SELECT sum(n) = (SELECT sum(least(clinics, 2))
                 FROM (SELECT count(DISTINCT clinic) AS clinics FROM visits GROUP BY patient_id) u) AS bounded_total
FROM clinic_visits;
SELECT epsilon, privacy_unit, bounds FROM dp.release_cost('clinic_visits');
SELECT cells, noise_law->'privacy_unit'->>'column' AS audited_unit FROM dp.draws WHERE release = 'public.clinic_visits';
SELECT sqlstate_of($$SELECT dp.register_release('unbounded_visits', 'visits', 'SELECT patient_id, clinic FROM visits',
    'clinic text, n bigint', 0.5, privacy_unit => 'patient_id', options => jsonb_build_object('keys', 'public'))$$) AS unit_without_bounds,
       to_regclass('unbounded_visits') IS NULL AS nothing_created;
-- Which cells a draw shows must be stated: a domain, partition selection,
-- or {"keys": "public"}; otherwise nothing is registered.
SELECT sqlstate_of($$SELECT dp.register_release('unstated_visits', 'visits', 'SELECT clinic, count(*) FROM visits GROUP BY 1',
    'clinic text, n bigint', 0.5)$$) AS keys_unstated,
       to_regclass('unstated_visits') IS NULL AS nothing_created;
-- Partition selection in a governed release, whose draws take no seed:
-- which cells show is random. At epsilon 4 (the selection's half: scale
-- 1/2, threshold about a dozen) each clinic, some 60 bounded patients with
-- a spread of about 7, is hidden with probability below 1e-9, so the count
-- shown is fixed; at epsilon 1 (threshold 42, above) about one run in 70
-- would hide one.
SELECT dp.register_release('selected_visits', 'visits', 'SELECT patient_id, clinic FROM visits', 'clinic text, n bigint',
    4.0, 'discrete_laplace', delta => 1e-9,
    options => '{"partition_selection": "laplace", "neighbours": "add_remove"}', privacy_unit => 'patient_id',
    bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}') IS NOT NULL AS registered_with_selection;
SELECT dp.refresh_release('selected_visits') > 0 AS drawn;
SELECT count(*) AS clinics_shown FROM selected_visits;
SELECT epsilon, delta, delta_remaining FROM dp.release_cost('selected_visits');
SELECT dp.drop_release('selected_visits');
-- Governed with noisy_count: a draw costs epsilon and delta, nothing split.
SELECT dp.register_release('count_selected_visits', 'visits', 'SELECT patient_id, clinic FROM visits',
    'clinic text, n bigint', 4.0, 'discrete_laplace', delta => 1e-9,
    options => '{"partition_selection": "noisy_count", "neighbours": "add_remove"}', privacy_unit => 'patient_id',
    bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}') IS NOT NULL AS registered_with_noisy_count;
SELECT delta_remaining AS delta_remaining_before FROM dp.release_cost('count_selected_visits');
SELECT dp.refresh_release('count_selected_visits') > 0 AS drawn;
SELECT count(*) AS clinics_shown FROM count_selected_visits;
SELECT epsilon, delta, delta_remaining FROM dp.release_cost('count_selected_visits');
SELECT d.epsilon, d.delta, d.cells, d.noise_law->'partition_selection'->>'method' AS method
FROM dp.draws d WHERE d.release = 'public.count_selected_visits';
SELECT dp.drop_release('count_selected_visits');
SELECT dp.drop_release('clinic_visits');
