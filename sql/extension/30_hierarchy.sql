-- Hierarchies: the variance of any range of released leaves, from a
-- cascade release's published noise law. src/pg/range_variance.c.

CREATE OR REPLACE FUNCTION dp.cascade_range_variance(
    mechanism      text,
    children       integer[],
    level_variance float8[],
    fixed_nodes    integer[],
    first_leaf     bigint,
    last_leaf      bigint
) RETURNS float8
AS 'MODULE_PATHNAME', 'dp_cascade_range_variance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dp.cascade_range_variance(text, integer[], float8[], integer[], bigint, bigint) IS
'Internal: dp.range_variance on the pieces of a published cascade noise law.';

CREATE OR REPLACE FUNCTION dp.range_variance(noise_law jsonb, first_leaf bigint, last_leaf bigint) RETURNS float8
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
    SELECT dp.cascade_range_variance(
        coalesce(noise_law->>'mechanism', ''),
        ARRAY(SELECT e::int FROM jsonb_array_elements_text(coalesce(noise_law->'hierarchy'->'children', '[]'))
                                 WITH ORDINALITY AS a(e, i) ORDER BY i),
        ARRAY(SELECT e::float8 FROM jsonb_array_elements_text(coalesce(noise_law->'noise'->'level_variance', '[]'))
                                    WITH ORDINALITY AS a(e, i) ORDER BY i),
        ARRAY(SELECT e::int FROM jsonb_array_elements_text(coalesce(noise_law->'invariants'->'fixed_nodes', '[]'))
                                 WITH ORDINALITY AS a(e, i) ORDER BY i),
        first_leaf, last_leaf)
$$;

COMMENT ON FUNCTION dp.range_variance(jsonb, bigint, bigint) IS
'Exact noise variance of the sum of the released leaves first_leaf..last_leaf (0-based, in the release''s '
'leaf order) of a cascade release, from its published noise law (dp.last_release() or dp.draws.noise_law).';
