-- Error bars of sums of released cells (docs/reference.md, "Error bars";
-- src/pg/margin_of_error.c, src/core/accuracy/published_release.hpp):
-- aggregates used beside sum(n) over a release table, whose argument is the
-- table's whole row. The error bars follow from the published noise law and
-- the table's keys: post-processing of the release, no budget, no source.
-- They run as the caller, who must be able to read the table; a governed
-- release's law comes from dp.release_laws, which PUBLIC may read.

-- The noise law of each governed release's latest completed draw, shown to
-- the roles that own, read or refresh it (as dp.release_costs): the law is
-- published with the numbers. key_columns: the release's key columns, as its
-- pinned source names them (the release table's first columns).
CREATE OR REPLACE VIEW dp.release_laws WITH (security_barrier) AS
SELECT r.release, d.draw_id, d.drawn_at, d.noise_law, k.key_columns
FROM dp.releases r
     JOIN dp.visible_releases v ON v.release = r.release
     -- The draws of this registration, by its identity (a dropped release's
     -- name can be registered again; a release table can be renamed).
     LEFT JOIN LATERAL (
         SELECT dd.draw_id, dd.drawn_at, dd.noise_law
         FROM dp.draws dd
         WHERE dd.release_id = r.release_id
           AND dd.noise_law <> '{}'::jsonb
         ORDER BY dd.draw_id DESC
         LIMIT 1) d ON true
     LEFT JOIN LATERAL (
         SELECT pg_catalog.array_agg(a.attname::text ORDER BY a.attnum) AS key_columns
         FROM pg_catalog.pg_attribute a
         WHERE a.attrelid = r.source_view AND a.attnum > 0 AND NOT a.attisdropped
           -- The source's columns but the count (the last one); with a
           -- privacy unit (rows, no count) but the unit's; with
           -- {"source": "rows"} (rows, no count) all of them.
           AND CASE WHEN r.privacy_unit IS NOT NULL THEN a.attname <> r.privacy_unit
                    WHEN r.options->>'source' = 'rows' THEN true
                    ELSE a.attnum < (SELECT pg_catalog.max(b.attnum) FROM pg_catalog.pg_attribute b
                                     WHERE b.attrelid = r.source_view AND NOT b.attisdropped) END) k ON true;

COMMENT ON VIEW dp.release_laws IS
'The published noise law of the latest completed draw of each governed release the current role owns, reads or '
'refreshes (NULL before its first draw), and the release''s key columns as its source names them: what the error '
'bars of its sums (dp.margin_of_error, dp.sum_variance, dp.error_bar) are computed from.';
GRANT SELECT ON dp.release_laws TO PUBLIC;

-- The composite an error bar is returned as.
DO $$
BEGIN
    IF pg_catalog.to_regtype('dp.error_bar') IS NULL THEN
        CREATE TYPE dp.error_bar AS (
            cells           bigint,
            variance        float8,
            variance_lower  float8,
            variance_kind   text,
            confidence      float8,
            margin_of_error float8,
            margin_kind     text,
            method          text,
            caveat          text
        );
    END IF;
END
$$;

COMMENT ON TYPE dp.error_bar IS
'The error bar of a sum of released cells: cells, the released rows in the sum; variance, its noise variance (the '
'upper end when certified) and variance_lower; variance_kind: exact, certified (within [variance_lower, variance]) '
'or estimate; margin_of_error, the half-width at confidence, and margin_kind, how it holds; method: the tail used; '
'caveat: why the figure is the law''s only (a release drawn by a Markov chain), else NULL.';

-- Transitions: (r), (r, law), (r, confidence), (r, confidence, law). Each
-- row's identity goes into the state; nothing is read or computed until the
-- final function. NULL rows (and NULL confidence or law) are skipped.
CREATE OR REPLACE FUNCTION dp.error_bar_rows(internal, record) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_error_bar_rows'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dp.error_bar_rows(internal, record, jsonb) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_error_bar_rows_law'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dp.error_bar_rows(internal, record, float8) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_error_bar_rows_level'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dp.error_bar_rows(internal, record, float8, jsonb) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_error_bar_rows_level_law'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dp.error_bar_combine(internal, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_error_bar_combine'
LANGUAGE C IMMUTABLE CALLED ON NULL INPUT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dp.error_bar_serialize(internal) RETURNS bytea
AS 'MODULE_PATHNAME', 'dp_error_bar_serialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION dp.error_bar_deserialize(bytea, internal) RETURNS internal
AS 'MODULE_PATHNAME', 'dp_error_bar_deserialize'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The finals read the release table and dp.release_laws under the query's
-- snapshot (STABLE), in the leader only (PARALLEL RESTRICTED).
CREATE OR REPLACE FUNCTION dp.margin_of_error_final(internal) RETURNS float8
AS 'MODULE_PATHNAME', 'dp_margin_of_error_final'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL RESTRICTED;

CREATE OR REPLACE FUNCTION dp.sum_variance_final(internal) RETURNS float8
AS 'MODULE_PATHNAME', 'dp_sum_variance_final'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL RESTRICTED;

CREATE OR REPLACE FUNCTION dp.error_bar_final(internal) RETURNS dp.error_bar
AS 'MODULE_PATHNAME', 'dp_error_bar_final'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL RESTRICTED;

CREATE OR REPLACE AGGREGATE dp.margin_of_error(release_row record, confidence float8) (
    SFUNC = dp.error_bar_rows, STYPE = internal, FINALFUNC = dp.margin_of_error_final,
    COMBINEFUNC = dp.error_bar_combine, SERIALFUNC = dp.error_bar_serialize,
    DESERIALFUNC = dp.error_bar_deserialize, PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE dp.margin_of_error(release_row record, confidence float8, noise_law jsonb) (
    SFUNC = dp.error_bar_rows, STYPE = internal, FINALFUNC = dp.margin_of_error_final,
    COMBINEFUNC = dp.error_bar_combine, SERIALFUNC = dp.error_bar_serialize,
    DESERIALFUNC = dp.error_bar_deserialize, PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE dp.sum_variance(release_row record) (
    SFUNC = dp.error_bar_rows, STYPE = internal, FINALFUNC = dp.sum_variance_final,
    COMBINEFUNC = dp.error_bar_combine, SERIALFUNC = dp.error_bar_serialize,
    DESERIALFUNC = dp.error_bar_deserialize, PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE dp.sum_variance(release_row record, noise_law jsonb) (
    SFUNC = dp.error_bar_rows, STYPE = internal, FINALFUNC = dp.sum_variance_final,
    COMBINEFUNC = dp.error_bar_combine, SERIALFUNC = dp.error_bar_serialize,
    DESERIALFUNC = dp.error_bar_deserialize, PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE dp.error_bar(release_row record, confidence float8) (
    SFUNC = dp.error_bar_rows, STYPE = internal, FINALFUNC = dp.error_bar_final,
    COMBINEFUNC = dp.error_bar_combine, SERIALFUNC = dp.error_bar_serialize,
    DESERIALFUNC = dp.error_bar_deserialize, PARALLEL = SAFE
);

CREATE OR REPLACE AGGREGATE dp.error_bar(release_row record, confidence float8, noise_law jsonb) (
    SFUNC = dp.error_bar_rows, STYPE = internal, FINALFUNC = dp.error_bar_final,
    COMBINEFUNC = dp.error_bar_combine, SERIALFUNC = dp.error_bar_serialize,
    DESERIALFUNC = dp.error_bar_deserialize, PARALLEL = SAFE
);

COMMENT ON AGGREGATE dp.margin_of_error(record, float8) IS
'The margin of error, at confidence (e.g. 0.95), of the sum of the aggregated rows of a governed release table '
'(release_row: the table''s whole row, FROM release r ... dp.margin_of_error(r, 0.95)); a row counted twice counts '
'twice, as in sum(n). From the latest draw''s published noise law (dp.release_laws). NULL without rows.';
COMMENT ON AGGREGATE dp.margin_of_error(record, float8, jsonb) IS
'The margin of error, at confidence, of the sum of the aggregated rows of a table holding a release (a stored '
'dp.privatize result), from the noise law it published (e.g. dp.last_release() right after it). NULL without rows.';
COMMENT ON AGGREGATE dp.sum_variance(record) IS
'The noise variance of the sum of the aggregated rows of a governed release table (the upper end when only bounds '
'are known: dp.error_bar says which). NULL without rows.';
COMMENT ON AGGREGATE dp.sum_variance(record, jsonb) IS
'The noise variance of the sum of the aggregated rows of a table holding a release, from its published noise law '
'(the upper end when only bounds are known). NULL without rows.';
COMMENT ON AGGREGATE dp.error_bar(record, float8) IS
'The whole error bar (dp.error_bar: variance and its bounds, how it is known, margin of error at confidence, '
'method, caveat) of the sum of the aggregated rows of a governed release table. NULL without rows.';
COMMENT ON AGGREGATE dp.error_bar(record, float8, jsonb) IS
'The whole error bar (dp.error_bar) of the sum of the aggregated rows of a table holding a release, from its '
'published noise law. NULL without rows.';

COMMENT ON FUNCTION dp.error_bar_rows(internal, record) IS 'Transition function of dp.sum_variance(record).';
COMMENT ON FUNCTION dp.error_bar_rows(internal, record, jsonb) IS 'Transition function of dp.sum_variance(record, jsonb).';
COMMENT ON FUNCTION dp.error_bar_rows(internal, record, float8) IS
'Transition function of dp.margin_of_error(record, float8) and dp.error_bar(record, float8).';
COMMENT ON FUNCTION dp.error_bar_rows(internal, record, float8, jsonb) IS
'Transition function of dp.margin_of_error(record, float8, jsonb) and dp.error_bar(record, float8, jsonb).';
COMMENT ON FUNCTION dp.error_bar_combine(internal, internal) IS
'Combine function of the error-bar aggregates: merges the rows of partial states.';
COMMENT ON FUNCTION dp.error_bar_serialize(internal) IS 'Serializes a partial error-bar state for parallel query.';
COMMENT ON FUNCTION dp.error_bar_deserialize(bytea, internal) IS 'Deserializes a partial error-bar state.';
COMMENT ON FUNCTION dp.margin_of_error_final(internal) IS 'Final function of dp.margin_of_error: the half-width.';
COMMENT ON FUNCTION dp.sum_variance_final(internal) IS 'Final function of dp.sum_variance: the variance.';
COMMENT ON FUNCTION dp.error_bar_final(internal) IS 'Final function of dp.error_bar: the whole error bar.';
