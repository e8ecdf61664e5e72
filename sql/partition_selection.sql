-- Partition selection by truncated geometric thresholding, DP-SIPS and "auto", as
-- an analyst and an administrator use them: the metadata that states the
-- law, the refusals every selector shares, error bars on shown counts, and a
-- governed release charged what its metadata states. Deterministic output
-- only: cells that are certainly shown or hidden, metadata, SQLSTATEs.
\set VERBOSITY terse
-- One clinic per patient: 12 clinics of 400 patients, above every
-- units_always_shown below (a clinic is then shown with probability 1);
-- and each patient's own key, held by one patient only (shown with
-- probability delta / k each, so none of 4,800 is).
CREATE TABLE one_clinic AS
SELECT p AS patient_id, 'clinic ' || (p % 12) AS clinic, 'patient ' || p AS own_key
FROM generate_series(1, 12 * 400) p;
REVOKE ALL ON one_clinic FROM PUBLIC;
SELECT count(*) AS clinics, min(c) AS smallest_clinic, max(c) AS largest_clinic
FROM (SELECT count(*) AS c FROM one_clinic GROUP BY clinic) s;

-- truncated_geometric with discrete_laplace counts (add_remove, G = R = 1,
-- epsilon 1, delta 1e-9, budget_share 0.8): calibrated jointly with the
-- counts (scale 1 / 0.2 = 5); a clinic of 50 patients is above
-- units_always_shown, so all 12 are shown, and no key of one patient is
-- (each with probability delta).
SELECT count(*) AS clinics_shown FROM dp.privatize($$SELECT patient_id, clinic FROM one_clinic$$, 1.0,
    'discrete_laplace', delta => 1e-9, privacy_unit => 'patient_id',
    bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}',
    options => '{"partition_selection": {"method": "truncated_geometric", "budget_share": 0.8}, "neighbours": "add_remove"}')
AS t(clinic text, n bigint);
SELECT s->>'method' AS method, s->>'calibration' AS calibration, s->>'budget_share' AS budget_share,
       s->>'epsilon' AS selection_epsilon, s->>'delta' AS selection_delta, s->>'epsilon_per_cell' AS epsilon_per_cell,
       s->>'delta_per_cell' AS delta_per_cell, s->>'counts_scale' AS counts_scale,
       s->>'units_at_half' AS units_at_half, s->>'units_always_shown' AS units_always_shown,
       s->>'counts_epsilon' AS counts_epsilon, s->>'counts_delta' AS counts_delta
FROM (SELECT dp.last_release()->'partition_selection' AS s) l;
SELECT r->>'epsilon' AS epsilon, r->>'delta' AS delta, r->>'keys' AS keys, r->'noise'->>'scale' AS counts_scale
FROM (SELECT dp.last_release() AS r) l;
SELECT dp.last_release()->'partition_selection'->>'rule' AS rule;
SELECT count(*) AS single_patient_keys_shown FROM dp.privatize($$SELECT patient_id, own_key FROM one_clinic$$, 1.0,
    'discrete_laplace', delta => 1e-9, privacy_unit => 'patient_id',
    bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}',
    options => '{"partition_selection": "truncated_geometric"}')
AS t(k text, n bigint);
-- With discrete_gaussian counts the budget is split: (0.5, 5e-10) each.
SELECT count(*) AS clinics_shown FROM dp.privatize($$SELECT clinic, count(*) FROM one_clinic GROUP BY 1$$, 1.0,
    'discrete_gaussian', delta => 1e-9, options => '{"partition_selection": "truncated_geometric"}')
AS t(clinic text, n bigint);
SELECT s->>'calibration' AS calibration, s->>'epsilon' AS selection_epsilon, s->>'delta' AS selection_delta,
       s->>'moved_cells' AS moved_cells, s->>'counts_epsilon' AS counts_epsilon, s->>'counts_delta' AS counts_delta,
       s->>'units_always_shown' AS units_always_shown
FROM (SELECT dp.last_release()->'partition_selection' AS s) l;

-- dp_sips (G = 2: each patient holds one clinic, so gives it the whole
-- weight 4096; a clinic of 400 weighs far above every threshold, a key of
-- one patient far below): the metadata states the rounds' noise and
-- thresholds in weight units.
SELECT count(*) AS clinics_shown FROM dp.privatize($$SELECT patient_id, clinic FROM one_clinic$$, 1.0,
    'discrete_laplace', delta => 1e-9, privacy_unit => 'patient_id',
    bounds => '{"max_groups_per_unit": 2, "max_rows_per_group": 1}',
    options => '{"partition_selection": "dp_sips", "neighbours": "add_remove"}')
AS t(clinic text, n bigint);
SELECT s->>'method' AS method, s->>'rounds' AS rounds, s->>'epsilon' AS selection_epsilon,
       s->>'delta' AS selection_delta, s->>'weight_scale' AS weight_scale, s->>'squared_shift' AS squared_shift,
       s->'sigma2' AS sigma2, s->'threshold' AS threshold, s->>'units_at_half' AS units_at_half,
       s->>'counts_epsilon' AS counts_epsilon
FROM (SELECT dp.last_release()->'partition_selection' AS s) l;
SELECT dp.last_release()->>'keys' AS keys;
SELECT count(*) AS single_patient_keys_shown FROM dp.privatize($$SELECT patient_id, own_key FROM one_clinic$$, 1.0,
    'discrete_laplace', delta => 1e-9, privacy_unit => 'patient_id',
    bounds => '{"max_groups_per_unit": 2, "max_rows_per_group": 1}',
    options => '{"partition_selection": {"method": "dp_sips", "rounds": 3}}')
AS t(k text, n bigint);
SELECT s->>'rounds' AS rounds, jsonb_array_length(s->'sigma2') AS variances, s->'threshold' AS thresholds,
       s->>'squared_shift' AS squared_shift_replace_one
FROM (SELECT dp.last_release()->'partition_selection' AS s) l;

-- auto (also an object without a method): truncated_geometric with one
-- cell per unit, dp_sips with 200; the metadata says it was chosen.
SELECT count(*) AS clinics_shown FROM dp.privatize($$SELECT patient_id, clinic FROM one_clinic$$, 1.0,
    'discrete_laplace', delta => 1e-9, privacy_unit => 'patient_id',
    bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}', options => '{"partition_selection": "auto"}')
AS t(clinic text, n bigint);
SELECT dp.last_release()->'partition_selection'->>'method' AS method,
       dp.last_release()->'partition_selection'->>'chosen_by' AS chosen_by,
       dp.last_release()->'partition_selection'->>'units_always_shown' AS units_always_shown;
SELECT count(*) >= 0 AS released FROM dp.privatize($$SELECT patient_id, clinic FROM one_clinic$$, 1.0,
    'discrete_laplace', delta => 1e-9, privacy_unit => 'patient_id',
    bounds => '{"max_groups_per_unit": 200, "max_rows_per_group": 1}',
    options => '{"partition_selection": {"budget_share": 0.7}}')
AS t(clinic text, n bigint);
SELECT dp.last_release()->'partition_selection'->>'method' AS method,
       dp.last_release()->'partition_selection'->>'chosen_by' AS chosen_by,
       dp.last_release()->'partition_selection'->>'budget_share' AS budget_share;

-- Shown counts are drawn apart from the selection: per-cell error bars hold.
SELECT count(*) AS clinics, bool_and(sd > 0) AS sd_given, bool_and(lo < n AND n < hi) AS interval_given
FROM dp.privatize($$SELECT patient_id, clinic FROM one_clinic$$, 1.0, 'discrete_laplace', delta => 1e-9,
    privacy_unit => 'patient_id', bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}',
    options => '{"partition_selection": "truncated_geometric", "stddev": true, "interval": 0.9}')
AS t(clinic text, n bigint, sd float8, lo bigint, hi bigint);

-- Refused as for every selector: margins, a domain, a hierarchy, no delta,
-- a bad share, an unknown method.
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT patient_id, clinic FROM one_clinic', 1.0, margins => '{""}',
    delta => 1e-6, options => '{"partition_selection": "truncated_geometric"}', privacy_unit => 'patient_id',
    bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}') AS t(clinic text, n bigint)$$) AS with_margins,
       sqlstate_of($$SELECT * FROM dp.privatize('SELECT patient_id, clinic FROM one_clinic', 1.0, 'discrete_laplace',
    delta => 1e-6, domain => 'SELECT DISTINCT clinic FROM one_clinic', options => '{"partition_selection": "auto"}',
    privacy_unit => 'patient_id', bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}')
    AS t(clinic text, n bigint)$$) AS with_domain,
       sqlstate_of($$SELECT * FROM dp.privatize('SELECT clinic, own_key, count(*) FROM one_clinic GROUP BY 1, 2', 1.0,
    'integer_cascade', delta => 1e-6, hierarchy => '{clinic,own_key}',
    options => '{"partition_selection": "truncated_geometric"}') AS t(clinic text, own_key text, n bigint)$$)
    AS with_hierarchy,
       sqlstate_of($$SELECT * FROM dp.privatize('SELECT patient_id, clinic FROM one_clinic', 1.0, 'discrete_laplace',
    options => '{"partition_selection": "truncated_geometric"}', privacy_unit => 'patient_id',
    bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}') AS t(clinic text, n bigint)$$) AS without_delta,
       sqlstate_of($$SELECT * FROM dp.privatize('SELECT clinic, count(*) FROM one_clinic GROUP BY 1', 1.0,
    'discrete_laplace', delta => 1e-6, options => '{"partition_selection": {"method": "auto", "budget_share": 1}}')
    AS t(clinic text, n bigint)$$) AS share_of_one,
       sqlstate_of($$SELECT * FROM dp.privatize('SELECT clinic, count(*) FROM one_clinic GROUP BY 1', 1.0,
    'discrete_laplace', delta => 1e-6, options => '{"partition_selection": "truncated"}')
    AS t(clinic text, n bigint)$$) AS unknown_method,
       sqlstate_of($$SELECT * FROM dp.privatize('SELECT clinic, count(*) FROM one_clinic GROUP BY 1', 1.0,
    'discrete_laplace', delta => 1e-6, options => '{"partition_selection": "truncated_geometric", "keys": "public"}')
    AS t(clinic text, n bigint)$$) AS with_public_keys;
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT clinic, count(*) FROM one_clinic GROUP BY 1', 1e-300,
    'discrete_laplace', delta => 1e-300, options => '{"partition_selection": "truncated_geometric"}')
    AS t(clinic text, n bigint)$$) AS budget_too_small;
-- The same refusals for dp_sips, and its "rounds": with another method, or
-- not a whole number from 1 to 8.
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT patient_id, clinic FROM one_clinic', 1.0, margins => '{""}',
    delta => 1e-6, options => '{"partition_selection": "dp_sips"}', privacy_unit => 'patient_id',
    bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}') AS t(clinic text, n bigint)$$) AS with_margins,
       sqlstate_of($$SELECT * FROM dp.privatize('SELECT patient_id, clinic FROM one_clinic', 1.0, 'discrete_laplace',
    delta => 1e-6, domain => 'SELECT DISTINCT clinic FROM one_clinic', options => '{"partition_selection": "dp_sips"}',
    privacy_unit => 'patient_id', bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}')
    AS t(clinic text, n bigint)$$) AS with_domain,
       sqlstate_of($$SELECT * FROM dp.privatize('SELECT clinic, own_key, count(*) FROM one_clinic GROUP BY 1, 2', 1.0,
    'integer_cascade', delta => 1e-6, hierarchy => '{clinic,own_key}',
    options => '{"partition_selection": "dp_sips"}') AS t(clinic text, own_key text, n bigint)$$) AS with_hierarchy,
       sqlstate_of($$SELECT * FROM dp.privatize('SELECT patient_id, clinic FROM one_clinic', 1.0, 'discrete_laplace',
    options => '{"partition_selection": "dp_sips"}', privacy_unit => 'patient_id',
    bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}') AS t(clinic text, n bigint)$$) AS without_delta,
       sqlstate_of($$SELECT * FROM dp.privatize('SELECT clinic, count(*) FROM one_clinic GROUP BY 1', 1.0,
    'discrete_laplace', delta => 1e-6, options => '{"partition_selection": {"method": "dp_sips", "budget_share": 1}}')
    AS t(clinic text, n bigint)$$) AS share_of_one,
       sqlstate_of($$SELECT * FROM dp.privatize('SELECT clinic, count(*) FROM one_clinic GROUP BY 1', 1.0,
    'discrete_laplace', delta => 1e-6, options => '{"partition_selection": "dp_sips", "keys": "public"}')
    AS t(clinic text, n bigint)$$) AS with_public_keys,
       sqlstate_of($$SELECT * FROM dp.privatize('SELECT clinic, count(*) FROM one_clinic GROUP BY 1', 1e-300,
    'discrete_laplace', delta => 1e-300, options => '{"partition_selection": "dp_sips"}')
    AS t(clinic text, n bigint)$$) AS budget_too_small;
SELECT sqlstate_of($$SELECT * FROM dp.privatize('SELECT clinic, count(*) FROM one_clinic GROUP BY 1', 1.0,
    'discrete_laplace', delta => 1e-6, options => '{"partition_selection": {"method": "gaussian", "rounds": 2}}')
    AS t(clinic text, n bigint)$$) AS rounds_without_dp_sips,
       sqlstate_of($$SELECT * FROM dp.privatize('SELECT clinic, count(*) FROM one_clinic GROUP BY 1', 1.0,
    'discrete_laplace', delta => 1e-6, options => '{"partition_selection": {"method": "dp_sips", "rounds": 9}}')
    AS t(clinic text, n bigint)$$) AS nine_rounds,
       sqlstate_of($$SELECT * FROM dp.privatize('SELECT clinic, count(*) FROM one_clinic GROUP BY 1', 1.0,
    'discrete_laplace', delta => 1e-6, options => '{"partition_selection": {"method": "dp_sips", "rounds": "2"}}')
    AS t(clinic text, n bigint)$$) AS rounds_as_text;

-- Governed: a draw is charged the epsilon and delta its metadata states.
SELECT dp.set_budget('one_clinic', 10, 1e-6);
SELECT dp.register_release('clinics_selected', 'one_clinic', 'SELECT patient_id, clinic FROM one_clinic',
    'clinic text, n bigint', 1.0, 'discrete_laplace', delta => 1e-9,
    options => '{"partition_selection": {"method": "truncated_geometric", "budget_share": 0.8}, "neighbours": "add_remove"}',
    privacy_unit => 'patient_id', bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}') IS NOT NULL
    AS registered;
SELECT epsilon_remaining AS epsilon_before, delta_remaining AS delta_before FROM dp.release_cost('clinics_selected');
SELECT dp.refresh_release('clinics_selected') > 0 AS drawn;
SELECT count(*) AS clinics_shown FROM clinics_selected;
SELECT d.epsilon = (d.noise_law->>'epsilon')::float8 AS charged_the_stated_epsilon,
       d.delta = (d.noise_law->>'delta')::float8 AS charged_the_stated_delta,
       d.epsilon, d.delta, d.noise_law->'partition_selection'->>'method' AS method
FROM dp.draws d WHERE d.release = 'public.clinics_selected';
SELECT epsilon_remaining AS epsilon_after, delta_remaining AS delta_after FROM dp.release_cost('clinics_selected');
SELECT dp.drop_release('clinics_selected');
-- The same for dp_sips (two rounds, budget_share 0.6).
SELECT dp.register_release('clinics_sips', 'one_clinic', 'SELECT patient_id, clinic FROM one_clinic',
    'clinic text, n bigint', 1.0, 'discrete_laplace', delta => 1e-9,
    options => '{"partition_selection": {"method": "dp_sips", "rounds": 2, "budget_share": 0.6}, "neighbours": "add_remove"}',
    privacy_unit => 'patient_id', bounds => '{"max_groups_per_unit": 3, "max_rows_per_group": 1}') IS NOT NULL
    AS registered;
SELECT epsilon_remaining AS epsilon_before, delta_remaining AS delta_before FROM dp.release_cost('clinics_sips');
SELECT dp.refresh_release('clinics_sips') > 0 AS drawn;
SELECT count(*) AS clinics_shown FROM clinics_sips;
SELECT d.epsilon = (d.noise_law->>'epsilon')::float8 AS charged_the_stated_epsilon,
       d.delta = (d.noise_law->>'delta')::float8 AS charged_the_stated_delta,
       d.epsilon, d.delta, d.noise_law->'partition_selection'->>'method' AS method,
       (d.noise_law->'partition_selection'->>'epsilon')::float8
           + (d.noise_law->'partition_selection'->>'counts_epsilon')::float8 AS selection_plus_counts
FROM dp.draws d WHERE d.release = 'public.clinics_sips';
SELECT epsilon_remaining AS epsilon_after, delta_remaining AS delta_after FROM dp.release_cost('clinics_sips');
SELECT dp.drop_release('clinics_sips');
DROP TABLE one_clinic;
