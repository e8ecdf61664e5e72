-- dp.privatize: a private release of the counts of one GROUP BY, and what
-- comes with it (the published noise law, the argument check, the MCMC
-- diagnostics). src/pg/privatize.c, check_request.c, last_release.c, diagnose.c.

-- The planner calls a function's support function while it plans a call
-- (before it chooses paths), which loads the library and with it the
-- planner hook that returns dp.privatize in FROM through a custom scan
-- (src/pg/privatize_scan.c): from a session's first query on. It answers
-- no request.
CREATE OR REPLACE FUNCTION dp.privatize_support(internal) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_privatize_support'
LANGUAGE C STRICT;
COMMENT ON FUNCTION dp.privatize_support(internal) IS
'Planner support function of dp.privatize: answers no request; the planner calling it loads the library, '
'and with it the custom scan, from the session''s first query on.';

-- The request's arguments are declared in src/sql/request_arguments.sql,
-- which says how scripts/build-sql writes them out here.
CREATE OR REPLACE FUNCTION dp.privatize(
    @request_arguments(source, epsilon, mechanism, delta, margins, domain, options, hierarchy, privacy_unit, bounds)
) RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dp_privatize'
-- PARALLEL UNSAFE: it runs the source query through SPI, which must be free
-- to use a parallel plan of its own.
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE
SUPPORT dp.privatize_support;

COMMENT ON FUNCTION dp.privatize IS
'Private release of the counts of a GROUP BY query (last column = count), or with privacy_unit of the rows of '
'a query (the unit column and the keys) whose units each contribute at most bounds '
'{"max_groups_per_unit": G, "max_rows_per_group": R}. '
'Mechanisms: integer_laplace (the default), integer_laplace_l2, integer_gaussian (integer, margins exact), '
'discrete_laplace, discrete_gaussian (integer, no invariants), '
'subspace_gaussian, subspace_laplace (real, margins exact), '
'congenial (integer, margins exact, non-negative: conditioning), '
'project_l2, project_nn_l2, project_nn_integer (projection baselines, TopDown-style), '
'cascade (real, Gaussian noise correlated along a hierarchy), '
'integer_cascade (integer at every level of a hierarchy, the same correlation, exact lattice Gaussian). '
'margins: each element lists key columns whose totals stay exact ('''' = grand total). '
'domain: a query listing every cell, zero cells included. '
'options: {"stddev": true} adds a per-cell noise standard deviation column; '
'{"interval": 0.9} adds lower and upper columns (last, of the count''s type) covering each cell''s true count '
'with that probability under the published noise law; '
'{"neighbours": "add_remove"} (no margins) protects presence instead of a changed record; '
'{"partition_selection": "laplace" | "gaussian" | {"method": ..., "budget_share": s}} (no margins, no domain, '
'needs delta) shows only cells whose noisy count of units passes a threshold; {"keys": "public"} states that '
'the source''s cells are public. '
'hierarchy: key columns, coarsest first; the release then has a row for every node (rollups have NULL '
'below their level; {"level": true} adds an integer level column, 0 = grand total); the cascades also take '
'{"rho": r} or per-level targets {"level_variance": [...]}, and {"crossed": [...]} names a second hierarchy. '
'Call with a column definition list: AS t(key1 type, ..., n float8).';

CREATE OR REPLACE FUNCTION dp.last_release() RETURNS jsonb
AS 'MODULE_PATHNAME', 'dp_last_release'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION dp.last_release() IS
'Metadata of this session''s most recent dp.privatize release: mechanism, epsilon, delta, '
'neighbouring relation, noise law and scale, invariants (rank, null dimension), cell count. '
'NULL before the first release.';

CREATE OR REPLACE FUNCTION dp.check_request(
    @request_arguments(mechanism, epsilon, delta, margins, options, hierarchy, privacy_unit, bounds)
) RETURNS void
AS 'MODULE_PATHNAME', 'dp_check_request'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;

COMMENT ON FUNCTION dp.check_request IS
'Raises the error dp.privatize would raise for these arguments before reading its source; returns nothing if they are valid.';

CREATE OR REPLACE FUNCTION dp.diagnose(
    @request_arguments(source, epsilon, mechanism, delta, margins, options)
) RETURNS TABLE (metric text, iteration bigint, value float8)
AS 'MODULE_PATHNAME', 'dp_diagnose'
-- PARALLEL UNSAFE: it runs the source query through SPI, which must be free
-- to use a parallel plan of its own.
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION dp.diagnose IS
'MCMC health of the lattice sampler that dp.privatize would use with the same arguments '
'(integer_laplace with crossing margins, integer_laplace_l2, integer_gaussian), as rows: '
'tv_upper_bound per iteration (L-lag coupling), iterations_to_tv_below_0.05, release_iterations, '
'tv_upper_bound_at_release, acceptance_moves, acceptance_basis, rhat_l1, rhat_z1. '
'Reads the source''s keys only, never its counts. Extra options: coupled_pairs (default 100), lag.';
