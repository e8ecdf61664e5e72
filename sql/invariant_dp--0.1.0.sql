-- invariant_dp 0.1.0: differentially private GROUP BY counts with exact margins.
-- Every function states volatility, strictness and parallel safety; anything
-- that draws noise is VOLATILE. See README.md for the privacy semantics.

\echo Use "CREATE EXTENSION invariant_dp" to load this file. \quit

-- Every role may call the release functions: they run with the caller's own
-- privileges (the source query can read only what the caller can read).
GRANT USAGE ON SCHEMA dp TO PUBLIC;

-- dp.privatize ----------------------------------------------------------------

CREATE FUNCTION dp.privatize(
    source    text,
    epsilon   float8,
    mechanism text   DEFAULT 'integer_laplace',
    delta     float8 DEFAULT NULL,
    margins   text[] DEFAULT '{}',
    domain    text   DEFAULT NULL,
    options   jsonb  DEFAULT '{}'
) RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dp_privatize'
-- PARALLEL UNSAFE: it runs the source query through SPI, which must be free
-- to use a parallel plan of its own.
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION dp.privatize(text, float8, text, float8, text[], text, jsonb) IS
'Private release of the counts of a GROUP BY query (last column = count). '
'Mechanisms: integer_laplace (the default), integer_laplace_l2, integer_gaussian (integer, margins exact), '
'discrete_laplace, discrete_gaussian (integer, no invariants), '
'subspace_gaussian, subspace_laplace (real, margins exact). '
'margins: each element lists key columns whose totals stay exact ('''' = grand total). '
'domain: a query listing every cell, zero cells included. '
'options: {"stddev": true} adds a per-cell noise standard deviation column; '
'{"neighbours": "add_remove"} (no margins) protects presence instead of a changed record. '
'Call with a column definition list: AS t(key1 type, ..., n float8).';

CREATE FUNCTION dp.last_release() RETURNS jsonb
AS 'MODULE_PATHNAME', 'dp_last_release'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;

COMMENT ON FUNCTION dp.last_release() IS
'Metadata of this session''s most recent dp.privatize release: mechanism, epsilon, delta, '
'neighbouring relation, noise law and scale, invariants (rank, null dimension), cell count. '
'NULL before the first release.';

-- dp.noisy_count --------------------------------------------------------------

CREATE FUNCTION dp.noisy_count_transition(internal, float8) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_noisy_count_transition'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dp.noisy_count_transition(internal, float8, float8) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_noisy_count_transition'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dp.noisy_count_combine(internal, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_noisy_count_combine'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE FUNCTION dp.noisy_count_serialize(internal) RETURNS bytea
AS 'MODULE_PATHNAME', 'dp_noisy_count_serialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION dp.noisy_count_deserialize(bytea, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_noisy_count_deserialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Draws noise from the backend's random stream: volatile, and run only in
-- the leader (finalization never happens in a parallel worker).
CREATE FUNCTION dp.noisy_count_final(internal) RETURNS bigint
AS 'MODULE_PATHNAME', 'dp_noisy_count_final'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED;

CREATE AGGREGATE dp.noisy_count(epsilon float8) (
    SFUNC = dp.noisy_count_transition,
    STYPE = internal,
    FINALFUNC = dp.noisy_count_final,
    COMBINEFUNC = dp.noisy_count_combine,
    SERIALFUNC = dp.noisy_count_serialize,
    DESERIALFUNC = dp.noisy_count_deserialize,
    PARALLEL = SAFE
);

CREATE AGGREGATE dp.noisy_count(epsilon float8, delta float8) (
    SFUNC = dp.noisy_count_transition,
    STYPE = internal,
    FINALFUNC = dp.noisy_count_final,
    COMBINEFUNC = dp.noisy_count_combine,
    SERIALFUNC = dp.noisy_count_serialize,
    DESERIALFUNC = dp.noisy_count_deserialize,
    PARALLEL = SAFE
);

COMMENT ON AGGREGATE dp.noisy_count(float8) IS
'Row count of each group plus exact discrete Laplace noise of scale 2/epsilon '
'(epsilon-DP under replace-one neighbours). No invariant: use dp.privatize for exact margins.';

COMMENT ON AGGREGATE dp.noisy_count(float8, float8) IS
'Row count of each group plus exact discrete Gaussian noise certifying (epsilon, delta)-DP '
'under replace-one neighbours. No invariant: use dp.privatize for exact margins.';

COMMENT ON FUNCTION dp.noisy_count_transition(internal, float8) IS 'Transition function of dp.noisy_count(float8).';
COMMENT ON FUNCTION dp.noisy_count_transition(internal, float8, float8) IS 'Transition function of dp.noisy_count(float8, float8).';
COMMENT ON FUNCTION dp.noisy_count_combine(internal, internal) IS 'Combine function of dp.noisy_count: adds partial counts.';
COMMENT ON FUNCTION dp.noisy_count_serialize(internal) IS 'Serializes a partial dp.noisy_count state for parallel query.';
COMMENT ON FUNCTION dp.noisy_count_deserialize(bytea, internal) IS 'Deserializes a partial dp.noisy_count state.';
COMMENT ON FUNCTION dp.noisy_count_final(internal) IS 'Final function of dp.noisy_count: adds the noise, once per group.';

-- dp.total_preserving_count ---------------------------------------------------

CREATE FUNCTION dp.total_preserving_count(n bigint, epsilon float8) RETURNS bigint
AS 'MODULE_PATHNAME', 'dp_total_preserving_count'
LANGUAGE C WINDOW VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED;

COMMENT ON FUNCTION dp.total_preserving_count(bigint, float8) IS
'Window function: n plus exact discrete Laplace noise (scale 2/epsilon) conditioned on the window '
'partition''s total, so each partition total is released exactly, counts stay integers and the noise is '
'unbiased (integer_laplace). epsilon-DP for one person''s record moving between rows of a partition. '
'Use: dp.total_preserving_count(n, 0.192) OVER (PARTITION BY state).';

-- dp.diagnose -------------------------------------------------------------------

CREATE FUNCTION dp.diagnose(
    source    text,
    epsilon   float8,
    mechanism text   DEFAULT 'integer_laplace',
    delta     float8 DEFAULT NULL,
    margins   text[] DEFAULT '{}',
    options   jsonb  DEFAULT '{}'
) RETURNS TABLE (metric text, iteration bigint, value float8)
AS 'MODULE_PATHNAME', 'dp_diagnose'
-- PARALLEL UNSAFE: it runs the source query through SPI.
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION dp.diagnose(text, float8, text, float8, text[], jsonb) IS
'MCMC health of the lattice sampler that dp.privatize would use with the same arguments '
'(integer_laplace with crossing margins, integer_laplace_l2, integer_gaussian), as rows: '
'tv_upper_bound per iteration (L-lag coupling), iterations_to_tv_below_0.05, release_iterations, '
'tv_upper_bound_at_release, acceptance_moves, acceptance_basis, rhat_l1, rhat_z1. '
'Reads the source''s keys only, never its counts. Extra options: coupled_pairs (default 100), lag.';
