-- Per-group noise inside ordinary queries: an aggregate without invariants
-- (parallel safe: partial states are plain counts, noise is added once in
-- the final function) and a window function that keeps each partition's
-- total exact. src/pg/noisy_count.c, total_preserving.c.

CREATE OR REPLACE FUNCTION dp.noisy_count_transition(internal, float8) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_noisy_count_transition'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dp.noisy_count_transition(internal, float8, float8) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_noisy_count_transition'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dp.noisy_count_combine(internal, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_noisy_count_combine'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dp.noisy_count_serialize(internal) RETURNS bytea
AS 'MODULE_PATHNAME', 'dp_noisy_count_serialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dp.noisy_count_deserialize(bytea, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_noisy_count_deserialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Draws noise from the backend's random stream: volatile, and run only in
-- the leader (finalization never happens in a parallel worker).
CREATE OR REPLACE FUNCTION dp.noisy_count_final(internal) RETURNS bigint
AS 'MODULE_PATHNAME', 'dp_noisy_count_final'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED;

CREATE OR REPLACE AGGREGATE dp.noisy_count(epsilon float8) (
    SFUNC = dp.noisy_count_transition,
    STYPE = internal,
    FINALFUNC = dp.noisy_count_final,
    COMBINEFUNC = dp.noisy_count_combine,
    SERIALFUNC = dp.noisy_count_serialize,
    DESERIALFUNC = dp.noisy_count_deserialize,
    PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE dp.noisy_count(epsilon float8, delta float8) (
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

CREATE OR REPLACE FUNCTION dp.total_preserving_count(n bigint, epsilon float8) RETURNS bigint
AS 'MODULE_PATHNAME', 'dp_total_preserving_count'
LANGUAGE C WINDOW VOLATILE CALLED ON NULL INPUT PARALLEL RESTRICTED;

COMMENT ON FUNCTION dp.total_preserving_count(bigint, float8) IS
'Window function: n plus exact discrete Laplace noise (scale 2/epsilon) conditioned on the window '
'partition''s total, so each partition total is released exactly, counts stay integers and the noise is '
'unbiased (integer_laplace). epsilon-DP for one person''s record moving between rows of a partition. '
'Use: dp.total_preserving_count(n, 0.192) OVER (PARTITION BY state).';
