-- Hierarchies: the variance of any range of released leaves, from a
-- cascade or integer cascade release's published noise law.
-- src/pg/range_variance.c.

CREATE OR REPLACE FUNCTION dp.cascade_range_variance(
    error_law              text,
    children               integer[],
    level_variance         float8[],
    fixed_nodes            integer[],
    variance_deficit_bound float8,
    first_leaf             bigint,
    last_leaf              bigint,
    OUT lower              float8,
    OUT upper              float8
)
AS 'MODULE_PATHNAME', 'dp_cascade_range_variance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dp.cascade_range_variance(text, integer[], float8[], integer[], float8, bigint, bigint) IS
'Internal: dp.range_variance and dp.range_variance_bounds on the pieces of a published cascade noise law.';

-- The pieces of a published law, for dp.cascade_range_variance. A law
-- without variance_deficit_bound passes NaN, which a lattice Gaussian
-- cascade's refuses (a Gaussian cascade's is not used).
CREATE OR REPLACE FUNCTION dp.range_variance_bounds(noise_law jsonb, first_leaf bigint, last_leaf bigint,
                                                    OUT lower float8, OUT upper float8)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$
    SELECT v.lower, v.upper FROM dp.cascade_range_variance(
        coalesce(noise_law->>'error_law', ''),
        ARRAY(SELECT e::int FROM jsonb_array_elements_text(coalesce(noise_law->'hierarchy'->'children', '[]'))
                                 WITH ORDINALITY AS a(e, i) ORDER BY i),
        ARRAY(SELECT e::float8 FROM jsonb_array_elements_text(coalesce(noise_law->'noise'->'level_variance', '[]'))
                                    WITH ORDINALITY AS a(e, i) ORDER BY i),
        ARRAY(SELECT e::int FROM jsonb_array_elements_text(coalesce(noise_law->'invariants'->'fixed_nodes', '[]'))
                                 WITH ORDINALITY AS a(e, i) ORDER BY i),
        coalesce((noise_law->'noise'->>'variance_deficit_bound')::float8, 'NaN'),
        first_leaf, last_leaf) v
$$;

COMMENT ON FUNCTION dp.range_variance_bounds(jsonb, bigint, bigint) IS
'Certified bounds (lower, upper) of the noise variance of the sum of the released leaves first_leaf..last_leaf '
'(0-based, in the release''s leaf order) of a cascade or integer_cascade release, from its published noise law '
'(dp.last_release() or dp.draws.noise_law): upper is the closed form; lower equals it for cascade and is '
'(1 - variance_deficit_bound) times it, rounded down, for integer_cascade.';

CREATE OR REPLACE FUNCTION dp.range_variance(noise_law jsonb, first_leaf bigint, last_leaf bigint) RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path = pg_catalog, pg_temp
AS $$
    SELECT b.upper FROM dp.range_variance_bounds(noise_law, first_leaf, last_leaf) b
$$;

COMMENT ON FUNCTION dp.range_variance(jsonb, bigint, bigint) IS
'Noise variance of the sum of the released leaves first_leaf..last_leaf (0-based, in the release''s leaf order) '
'of a cascade or integer_cascade release, from its published noise law (dp.last_release() or '
'dp.draws.noise_law): exact for cascade; for integer_cascade the closed form, an upper bound within the factor '
'(1 - variance_deficit_bound) of the exact variance (dp.range_variance_bounds gives both ends).';
