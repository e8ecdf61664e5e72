-- dp.check_request(mechanism, epsilon, delta, margins, options, hierarchy,
-- privacy_unit, bounds): what dp.privatize would refuse, refused before any
-- source runs (dp.register_release calls it too). A valid request returns
-- nothing.
\set VERBOSITY terse
SELECT * FROM dp.check_request('integer_laplace', 1.0, NULL, '{county}', '{}', NULL, NULL, NULL);
SELECT * FROM dp.check_request('subspace_gaussian', 1.0, 1e-6, '{county,edu}', '{"stddev": true}', NULL, NULL, NULL);
SELECT * FROM dp.check_request('cascade', 1.0, 1e-9, '{}', '{"level": true}', '{state,county}', NULL, NULL);
SELECT * FROM dp.check_request('discrete_laplace', 1.0, NULL, '{}', '{}', NULL, 'patient',
                               '{"max_groups_per_unit": 2, "max_rows_per_group": 1}');
-- Refused: each with its SQLSTATE and message.
SELECT request, sqlstate_of(format('SELECT dp.check_request(%s)', request))
FROM (VALUES ($$'no_such_mechanism', 1.0, NULL$$),
             ($$'integer_laplace', 0, NULL$$),
             ($$'integer_laplace', 'Infinity', NULL$$),
             ($$'integer_laplace', 1.0, 1e-6$$),
             ($$'integer_gaussian', 1.0, NULL$$),
             ($$'integer_gaussian', 1.0, 1.5$$),
             ($$'discrete_laplace', 1.0, NULL, '{county}'$$),
             ($$'integer_laplace', 1.0, NULL, options => '{"no_such_option": 1}'$$),
             ($$'integer_laplace', 1.0, NULL, options => '{"rows_outside_domain": "sometimes"}'$$),
             ($$'cascade', 1.0, 1e-9$$),
             ($$'integer_laplace', 1.0, NULL, privacy_unit => 'patient'$$),
             ($$'integer_laplace', 1.0, NULL, bounds => '{"max_groups_per_unit": 1, "max_rows_per_group": 1}'$$),
             ($$'integer_laplace', 1.0, NULL, '{county}', '{"partition_selection": "laplace"}'$$)) AS r(request);
