-- invariant_dp 0.2.0 -> 0.3.0: hierarchies, and conditioning versus projection.
--
-- dp.privatize gains a `hierarchy` argument (every level of a geography,
-- each node exactly the sum of its children) and the mechanisms cascade,
-- congenial, project_l2, project_nn_l2 and project_nn_integer; governed
-- releases can be hierarchies too. PostgreSQL cannot add an argument to an
-- existing function, so the functions that gain one are dropped and created
-- again (a view over dp.privatize must be dropped before this update).
-- Governed releases also get per-release refreshers, audit rows that keep the
-- release's name, a protection check that refuses sources reading through
-- opaque functions, and restores that do not draw.

\echo Use "ALTER EXTENSION invariant_dp UPDATE TO '0.3.0'" to load this file. \quit

-- dp.privatize ----------------------------------------------------------------

DROP FUNCTION dp.privatize(text, float8, text, float8, text[], text, jsonb);

CREATE FUNCTION dp.privatize(
    source    text,
    epsilon   float8,
    mechanism text   DEFAULT 'integer_laplace',
    delta     float8 DEFAULT NULL,
    margins   text[] DEFAULT '{}',
    domain    text   DEFAULT NULL,
    options   jsonb  DEFAULT '{}',
    hierarchy text[] DEFAULT NULL
) RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dp_privatize'
-- PARALLEL UNSAFE: it runs the source query through SPI, which must be free
-- to use a parallel plan of its own.
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION dp.privatize(text, float8, text, float8, text[], text, jsonb, text[]) IS
'Private release of the counts of a GROUP BY query (last column = count). '
'Mechanisms: integer_laplace (the default), integer_laplace_l2, integer_gaussian (integer, margins exact), '
'discrete_laplace, discrete_gaussian (integer, no invariants), '
'subspace_gaussian, subspace_laplace (real, margins exact), '
'congenial (integer, margins exact, non-negative: conditioning), '
'project_l2, project_nn_l2, project_nn_integer (projection baselines, TopDown-style), '
'cascade (real, Gaussian noise correlated along a hierarchy). '
'margins: each element lists key columns whose totals stay exact ('''' = grand total). '
'domain: a query listing every cell, zero cells included. '
'options: {"stddev": true} adds a per-cell noise standard deviation column; '
'{"neighbours": "add_remove"} (no margins) protects presence instead of a changed record. '
'hierarchy: key columns, coarsest first; the release then has a row for every node (rollups have NULL '
'below their level; {"level": true} adds an integer level column, 0 = grand total). '
'Call with a column definition list: AS t(key1 type, ..., n float8).';

CREATE FUNCTION dp.cascade_range_variance(
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

CREATE FUNCTION dp.range_variance(noise_law jsonb, first_leaf bigint, last_leaf bigint) RETURNS float8
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

-- Governed releases can be hierarchies --------------------------------------------

ALTER TABLE dp.releases ADD COLUMN hierarchy text[];

DROP FUNCTION dp.check_request(text, float8, float8, text[], jsonb);

CREATE FUNCTION dp.check_request(
    mechanism text,
    epsilon   float8,
    delta     float8 DEFAULT NULL,
    margins   text[] DEFAULT '{}',
    options   jsonb  DEFAULT '{}',
    hierarchy text[] DEFAULT NULL
) RETURNS void
AS 'MODULE_PATHNAME', 'dp_check_request'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE;

COMMENT ON FUNCTION dp.check_request(text, float8, float8, text[], jsonb, text[]) IS
'Raises the error dp.privatize would raise for these arguments before reading its source; returns nothing if they are valid.';

DROP FUNCTION dp.privatize_as_owner(regrole, text, text, float8, text, float8, text[], text, jsonb);

CREATE FUNCTION dp.privatize_as_owner(
    owner       regrole,
    search_path text,
    source      text,
    epsilon     float8,
    mechanism   text,
    delta       float8,
    margins     text[],
    domain      text,
    options     jsonb,
    hierarchy   text[]
) RETURNS SETOF record
AS 'MODULE_PATHNAME', 'dp_privatize_as_owner'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION dp.privatize_as_owner(regrole, text, text, float8, text, float8, text[], text, jsonb, text[]) IS
'Internal: dp.privatize with the source run as owner under search_path. Called only by dp.refresh_release.';

REVOKE EXECUTE ON FUNCTION dp.privatize_as_owner(regrole, text, text, float8, text, float8, text[], text, jsonb, text[])
    FROM PUBLIC;

-- The table a governed release is stored in, named table or schema.table,
-- created with the caller's rights and schema resolution (SECURITY INVOKER).
CREATE FUNCTION dp.create_release_table(release text, columns text) RETURNS regclass
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    name text[] := parse_ident(release);
    target text;
BEGIN
    IF array_length(name, 1) NOT IN (1, 2) THEN
        RAISE EXCEPTION USING ERRCODE = '42602', MESSAGE = format('invalid release name "%s"', release),
            HINT = 'Use table or schema.table.';
    END IF;
    target := CASE array_length(name, 1) WHEN 1 THEN format('%I', name[1])
                                         ELSE format('%I.%I', name[1], name[2]) END;
    EXECUTE format('CREATE TABLE %s (%s)', target, columns);
    RETURN target::regclass;
END
$$;

COMMENT ON FUNCTION dp.create_release_table(text, text) IS
'Internal: creates a governed release''s table (table or schema.table) from a column definition list.';

REVOKE EXECUTE ON FUNCTION dp.create_release_table(text, text) FROM PUBLIC;

DROP FUNCTION dp.register_release(text, text, text, text, float8, text, float8, text[], text, jsonb);

CREATE FUNCTION dp.register_release(
    release   text,
    dataset   text,
    source    text,
    columns   text,
    epsilon   float8,
    mechanism text   DEFAULT 'integer_laplace',
    delta     float8 DEFAULT NULL,
    margins   text[] DEFAULT '{}',
    domain    text   DEFAULT NULL,
    options   jsonb  DEFAULT '{}',
    hierarchy text[] DEFAULT NULL
) RETURNS regclass
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    created regclass;
BEGIN
    IF NOT EXISTS (SELECT FROM dp.budgets b WHERE b.dataset = register_release.dataset) THEN
        RAISE EXCEPTION USING ERRCODE = '42704',
            MESSAGE = format('dataset "%s" has no budget', dataset),
            HINT = 'Create it first: SELECT dp.set_budget(dataset, epsilon, delta).';
    END IF;
    IF epsilon IS NULL THEN
        -- The budget is charged in epsilon: a governed draw states it.
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'epsilon must not be NULL',
            DETAIL = 'A governed release charges its dataset''s budget epsilon per draw.';
    END IF;
    -- Refuse a bad mechanism, epsilon, delta or option now, not at the first draw.
    PERFORM dp.check_request(mechanism, epsilon, delta, margins, options, hierarchy);
    PERFORM dp.check_source_protected(source);
    IF domain IS NOT NULL THEN
        PERFORM dp.check_source_protected(domain);
    END IF;
    created := dp.create_release_table(release, columns);
    INSERT INTO dp.releases (release, dataset, owner, search_path, source, mechanism, epsilon, delta, margins,
                             domain, options, hierarchy)
    VALUES (created, dataset, current_user::regrole, current_setting('search_path'), source, mechanism, epsilon, delta,
            coalesce(margins, '{}'), domain, coalesce(options, '{}'), hierarchy);
    RETURN created;
END
$$;

COMMENT ON FUNCTION dp.register_release(text, text, text, text, float8, text, float8, text[], text, jsonb, text[]) IS
'Registers a governed release: creates table release(columns) to hold its current draw (empty until the '
'first dp.refresh_release) and records the source, which later runs with the registering role''s '
'privileges. columns is dp.privatize''s column definition list, e.g. ''state text, n bigint''. '
'The source''s relations must not be readable by PUBLIC.';

REVOKE EXECUTE ON FUNCTION dp.register_release(text, text, text, text, float8, text, float8, text[], text, jsonb, text[])
    FROM PUBLIC;

-- Audit rows keep the release's name after it is dropped or restored
-- elsewhere (a regclass would print a bare oid), and the role in effect.
ALTER TABLE dp.draws ALTER COLUMN release TYPE text USING release::text;
ALTER TABLE dp.draws ADD COLUMN drawn_as name;
COMMENT ON COLUMN dp.draws.drawn_by IS 'The session user.';
COMMENT ON COLUMN dp.draws.drawn_as IS 'The role in effect (SET ROLE), or the session user.';

-- Who may spend a release's budget: its owner, superusers, and the roles an
-- administrator names per release (EXECUTE on the functions alone is not enough).
CREATE TABLE dp.refreshers (
    release   regclass NOT NULL REFERENCES dp.releases ON DELETE CASCADE,
    refresher regrole NOT NULL,
    PRIMARY KEY (release, refresher)
);
COMMENT ON TABLE dp.refreshers IS 'Roles allowed to draw (and so spend the budget of) each governed release.';
SELECT pg_catalog.pg_extension_config_dump('dp.refreshers', '');
REVOKE ALL ON dp.refreshers FROM PUBLIC;

CREATE FUNCTION dp.source_functions(source text) RETURNS regprocedure[]
AS 'MODULE_PATHNAME', 'dp_source_functions'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dp.source_functions(text) IS
'The functions a query reads rows from (in FROM) that are not PostgreSQL''s own. The query is analysed, never run.';

-- Functions are opaque to the relation check: a source reading rows through
-- one could read a table PUBLIC can see. Views are expanded and checked.
CREATE OR REPLACE FUNCTION dp.check_source_protected(source text) RETURNS void
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    relation regclass;
    fn regprocedure;
BEGIN
    FOREACH fn IN ARRAY dp.source_functions(source) LOOP
        RAISE EXCEPTION USING ERRCODE = '42501',
            MESSAGE = format('source reads rows through function %s, which the protection check cannot see into', fn),
            DETAIL = 'A governed source must name the relations it reads, so that none of them is readable by PUBLIC.',
            HINT = 'Read the tables directly, or through a view.';
    END LOOP;
    FOREACH relation IN ARRAY dp.source_relations(source) LOOP
        IF has_any_column_privilege('public', relation, 'SELECT') THEN
            RAISE EXCEPTION USING ERRCODE = '42501',
                MESSAGE = format('source reads %s, which PUBLIC can read', relation),
                DETAIL = 'A governed release is private only if its raw rows cannot be read around it.',
                HINT = format('REVOKE SELECT ON %s FROM PUBLIC, then register again.', relation);
        END IF;
    END LOOP;
END
$$;

COMMENT ON FUNCTION dp.check_source_protected(text) IS
'Raises 42501 if PUBLIC can read any relation the query reads, or if it reads rows through a function.';

CREATE FUNCTION dp.grant_refresh(release regclass, refresher regrole) RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
    IF NOT EXISTS (SELECT FROM dp.releases r WHERE r.release = grant_refresh.release) THEN
        RAISE EXCEPTION USING ERRCODE = '42704', MESSAGE = format('%s is not a governed release', release);
    END IF;
    INSERT INTO dp.refreshers VALUES (release, refresher) ON CONFLICT DO NOTHING;
    EXECUTE format('GRANT EXECUTE ON FUNCTION dp.refresh_release(regclass), dp.draw(anyelement) TO %I',
                   refresher::text);
END
$$;

COMMENT ON FUNCTION dp.grant_refresh(regclass, regrole) IS
'Lets a role draw a governed release, spending its dataset''s budget (by hand, through a materialized view, '
'or on a schedule).';

CREATE FUNCTION dp.revoke_refresh(release regclass, refresher regrole) RETURNS void
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
    DELETE FROM dp.refreshers r WHERE r.release = revoke_refresh.release AND r.refresher = revoke_refresh.refresher;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704',
            MESSAGE = format('role %s may not refresh %s anyway', refresher, release);
    END IF;
END
$$;

COMMENT ON FUNCTION dp.revoke_refresh(regclass, regrole) IS 'Withdraws dp.grant_refresh.';

REVOKE EXECUTE ON FUNCTION dp.grant_refresh(regclass, regrole), dp.revoke_refresh(regclass, regrole) FROM PUBLIC;

-- dp.refresh_release gains the refresher check, the role in effect and
-- streams: defined once, after the streams' catalog, below.

-- pg_restore replays REFRESH MATERIALIZED VIEW: that must restore the
-- published draw, not draw (and charge) a new one.
CREATE OR REPLACE FUNCTION dp.draw(release anyelement) RETURNS SETOF anyelement
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    target regclass;
BEGIN
    SELECT c.oid INTO target FROM pg_class c WHERE c.reltype = pg_typeof(release)::oid;
    IF target IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '42704',
            MESSAGE = format('type %s is not the row type of a governed release', pg_typeof(release)),
            HINT = 'Pass NULL cast to the release table''s type: dp.draw(NULL::state_counts).';
    END IF;
    IF current_setting('application_name') = 'pg_restore' THEN
        RAISE NOTICE 'pg_restore: % returns its stored draw; nothing is drawn or charged', target;
    ELSE
        PERFORM dp.refresh_release(target);
    END IF;
    RETURN QUERY EXECUTE format('SELECT * FROM %s', target);
END
$$;

COMMENT ON FUNCTION dp.draw(anyelement) IS
'Draws a new release (charging the budget, like dp.refresh_release) and returns its rows. '
'For materialized views: CREATE MATERIALIZED VIEW v AS SELECT * FROM dp.draw(NULL::release_table). '
'Under pg_restore (application_name pg_restore) it returns the stored draw without drawing.';

-- Streams: a growing time series appended without redrawing --------------------
--
-- A stream is a governed release whose rows are periods (days, weeks) of a
-- time series. Each refresh appends the periods that are new since the last
-- one; released periods are never redrawn (hierarchy/streaming_cascade.hpp:
-- the leaves of a binary cascade grown to the right). The first draw charges
-- the stream's (epsilon, delta) once for its whole horizon of 2^horizon
-- periods; later appends charge nothing, and appends past the horizon are
-- refused. README "Growing time series: appending without redrawing".

CREATE TABLE dp.streams (
    release    regclass PRIMARY KEY REFERENCES dp.releases ON DELETE CASCADE,
    horizon    integer NOT NULL CHECK (horizon BETWEEN 0 AND 62),
    neighbours text NOT NULL CHECK (neighbours IN ('replace_one', 'add_remove')),
    variance   float8 NOT NULL CHECK (variance > 0),
    released   bigint NOT NULL DEFAULT 0 CHECK (released >= 0),
    last_key   text,
    state      text
);

COMMENT ON TABLE dp.streams IS
'Governed streams: releases appended period by period. horizon: at most 2^horizon periods; variance: the '
'noise variance of every node of the cascade (public); released and last_key: the periods released so far. '
'state is SECRET.';
COMMENT ON COLUMN dp.streams.state IS
'SECRET: the noise of the released and pending cascade nodes. Whoever reads it can subtract the noise from '
'the release. NULL until the first draw; pg_dump copies it (protect dumps like the raw data).';

-- The state must survive a dump and restore, or the stream cannot grow again.
SELECT pg_catalog.pg_extension_config_dump('dp.streams', '');
REVOKE ALL ON dp.streams FROM PUBLIC;

-- Audit rows of appends say why they charge nothing.
ALTER TABLE dp.draws ADD COLUMN note text;
COMMENT ON COLUMN dp.draws.note IS 'Why a draw costs what it costs, when that is not its release''s epsilon and delta.';

CREATE FUNCTION dp.cascade_stream_variance(epsilon float8, delta float8, horizon integer, neighbours text)
RETURNS float8
AS 'MODULE_PATHNAME', 'dp_cascade_stream_variance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dp.cascade_stream_variance(float8, float8, integer, text) IS
'The node noise variance that makes a stream of up to 2^horizon periods (epsilon, delta)-DP in total '
'(analytic Gaussian on the depth-horizon cascade; neighbours replace_one or add_remove).';

CREATE FUNCTION dp.cascade_stream_range_variance(variance float8, first_period bigint, last_period bigint)
RETURNS float8
AS 'MODULE_PATHNAME', 'dp_cascade_stream_range_variance'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION dp.cascade_stream_range_variance(float8, bigint, bigint) IS
'Noise variance of the sum of periods first_period..last_period (0-based) of a stream of node variance variance.';

CREATE FUNCTION dp.stream_append_as_owner(
    release     regclass,
    owner       regrole,
    search_path text,
    source      text,
    past_keys   text[],
    state       text,
    variance    float8,
    horizon     integer,
    OUT appended bigint,
    OUT last_key text,
    OUT new_state text
)
AS 'MODULE_PATHNAME', 'dp_stream_append_as_owner'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE;

COMMENT ON FUNCTION dp.stream_append_as_owner(regclass, regrole, text, text, text[], text, float8, integer) IS
'Internal: runs a stream''s source as owner under search_path, checks its released periods are unchanged, '
'appends the new periods to the release table and returns the new secret state. Called only by '
'dp.refresh_release.';

REVOKE EXECUTE ON FUNCTION dp.stream_append_as_owner(regclass, regrole, text, text, text[], text, float8, integer)
    FROM PUBLIC;

CREATE FUNCTION dp.register_stream(
    release  text,
    dataset  text,
    source   text,
    columns  text,
    epsilon  float8,
    delta    float8,
    horizon  integer DEFAULT 20,
    options  jsonb   DEFAULT '{}'
) RETURNS regclass
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    created regclass;
    neighbours text := coalesce(options->>'neighbours', 'replace_one');
    variance float8;
    unknown text;
BEGIN
    IF NOT EXISTS (SELECT FROM dp.budgets b WHERE b.dataset = register_stream.dataset) THEN
        RAISE EXCEPTION USING ERRCODE = '42704',
            MESSAGE = format('dataset "%s" has no budget', dataset),
            HINT = 'Create it first: SELECT dp.set_budget(dataset, epsilon, delta).';
    END IF;
    IF release IS NULL OR source IS NULL OR columns IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'release, source and columns must not be NULL';
    END IF;
    IF epsilon IS NULL OR delta IS NULL OR horizon IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22004', MESSAGE = 'epsilon, delta and horizon must not be NULL',
            DETAIL = 'A stream charges its dataset''s budget epsilon and delta once, for 2^horizon periods.';
    END IF;
    SELECT k INTO unknown FROM jsonb_object_keys(coalesce(options, '{}')) AS k WHERE k <> 'neighbours' LIMIT 1;
    IF unknown IS NOT NULL THEN
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = format('unknown stream option "%s"', unknown),
            HINT = 'A stream takes only {"neighbours": "replace_one" | "add_remove"}.';
    END IF;
    -- Validates epsilon, delta, horizon and neighbours before anything is created.
    variance := dp.cascade_stream_variance(epsilon, delta, horizon, neighbours);
    PERFORM dp.check_source_protected(source);
    created := dp.create_release_table(release, columns);
    IF (SELECT array_agg(atttypid ORDER BY attnum) FROM pg_attribute
        WHERE attrelid = created AND attnum > 0 AND NOT attisdropped) IS DISTINCT FROM
       ARRAY[(SELECT atttypid FROM pg_attribute WHERE attrelid = created AND attnum = 1), 'float8'::regtype::oid] THEN
        RAISE EXCEPTION USING ERRCODE = '42804', MESSAGE = 'a stream has two columns: the period, then a float8 count',
            HINT = 'E.g. columns => ''day date, n float8''.';
    END IF;
    INSERT INTO dp.releases (release, dataset, owner, search_path, source, mechanism, epsilon, delta, options)
    VALUES (created, dataset, current_user::regrole, current_setting('search_path'), source, 'cascade_stream',
            epsilon, delta, jsonb_build_object('neighbours', neighbours, 'horizon', horizon));
    INSERT INTO dp.streams (release, horizon, neighbours, variance) VALUES (created, horizon, neighbours, variance);
    RETURN created;
END
$$;

COMMENT ON FUNCTION dp.register_stream(text, text, text, text, float8, float8, integer, jsonb) IS
'Registers a governed stream: a release of a growing time series. source returns one period column, then '
'the count (e.g. SELECT day, count(*) FROM events GROUP BY 1); columns like ''day date, n float8''. Each '
'dp.refresh_release appends the new periods without redrawing the released ones. The first draw charges '
'(epsilon, delta) once for at most 2^horizon periods; later appends charge nothing.';

REVOKE EXECUTE ON FUNCTION dp.register_stream(text, text, text, text, float8, float8, integer, jsonb) FROM PUBLIC;

CREATE FUNCTION dp.stream_range_variance(release regclass, first_period bigint, last_period bigint)
RETURNS float8
LANGUAGE plpgsql STABLE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    s dp.streams;
BEGIN
    -- Public parameters only (variance, released): never the secret state.
    SELECT * INTO s FROM dp.streams WHERE dp.streams.release = stream_range_variance.release;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704', MESSAGE = format('%s is not a governed stream', release);
    END IF;
    IF last_period >= s.released THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = format('period %s of %s is not released', last_period, release),
            DETAIL = format('%s periods are released, numbered from 0 in period order.', s.released);
    END IF;
    RETURN dp.cascade_stream_range_variance(s.variance, first_period, last_period);
END
$$;

COMMENT ON FUNCTION dp.stream_range_variance(regclass, bigint, bigint) IS
'Exact noise variance of the sum of a stream''s released periods first_period..last_period (0-based, in '
'period order), from its public noise parameters.';

CREATE OR REPLACE FUNCTION dp.refresh_release(release regclass) RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    r dp.releases;
    b dp.budgets;
    s dp.streams;
    is_stream boolean;
    cost_epsilon numeric;
    cost_delta numeric;
    cells bigint;
    draw bigint;
    past text[];
    added record;
    -- Inside a SECURITY DEFINER function current_user is the definer: the
    -- caller is the role set with SET ROLE, else the session user.
    caller name := CASE current_setting('role') WHEN 'none' THEN session_user ELSE current_setting('role') END;
BEGIN
    SELECT * INTO r FROM dp.releases WHERE dp.releases.release = refresh_release.release;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704', MESSAGE = format('%s is not a governed release', release);
    END IF;
    IF NOT pg_has_role(caller, r.owner, 'MEMBER')
       AND NOT EXISTS (SELECT FROM dp.refreshers f
                       WHERE f.release = r.release AND pg_has_role(caller, f.refresher, 'MEMBER')) THEN
        RAISE EXCEPTION USING ERRCODE = '42501',
            MESSAGE = format('role %s may not refresh %s', caller, release),
            HINT = format('An administrator can allow it: SELECT dp.grant_refresh(%L, %L).', release::text, caller);
    END IF;
    -- The row lock serializes every draw against this dataset's budget.
    SELECT * INTO b FROM dp.budgets WHERE dp.budgets.dataset = r.dataset FOR UPDATE;
    -- A stream's row lock serializes its appends: two concurrent refreshes
    -- must not both draw the same new periods from the same state.
    SELECT * INTO s FROM dp.streams WHERE dp.streams.release = r.release FOR UPDATE;
    is_stream := FOUND;
    -- A stream pays once, at its first draw, for its whole horizon.
    cost_epsilon := CASE WHEN is_stream AND s.state IS NOT NULL THEN 0 ELSE r.epsilon::numeric END;
    cost_delta := CASE WHEN is_stream AND s.state IS NOT NULL THEN 0 ELSE coalesce(r.delta, 0)::numeric END;
    IF b.epsilon_spent + cost_epsilon > b.epsilon_total OR b.delta_spent + cost_delta > b.delta_total THEN
        RAISE EXCEPTION USING ERRCODE = '53Z01',
            MESSAGE = format('privacy budget of dataset "%s" is exhausted', r.dataset),
            DETAIL = format('A draw of %s costs epsilon %s, delta %s; the budget has epsilon %s, delta %s left.',
                            release, cost_epsilon, cost_delta, b.epsilon_total - b.epsilon_spent,
                            b.delta_total - b.delta_spent),
            HINT = 'The previous draw stays readable. An administrator can raise the budget with dp.set_budget.';
    END IF;
    IF is_stream THEN
        -- The released periods, in period order, for the source's past to be checked against.
        EXECUTE format('SELECT coalesce(array_agg(%1$I::text ORDER BY %1$I), ''{}'') FROM %2$s',
                       (SELECT attname FROM pg_attribute WHERE attrelid = release AND attnum = 1), release)
            INTO past;
        SELECT * INTO added
        FROM dp.stream_append_as_owner(release, r.owner, r.search_path, r.source, past, s.state, s.variance, s.horizon);
        UPDATE dp.streams SET released = released + added.appended,
                              last_key = coalesce(added.last_key, dp.streams.last_key), state = added.new_state
        WHERE dp.streams.release = r.release;
        cells := added.appended;
    ELSE
        EXECUTE format('DELETE FROM %s', release);
        EXECUTE format('INSERT INTO %s SELECT * FROM dp.privatize_as_owner($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) AS t(%s)',
                       release, dp.release_columns(release))
            USING r.owner, r.search_path, r.source, r.epsilon, r.mechanism, r.delta, r.margins, r.domain, r.options,
                  r.hierarchy;
        GET DIAGNOSTICS cells = ROW_COUNT;
    END IF;
    UPDATE dp.budgets SET epsilon_spent = epsilon_spent + cost_epsilon, delta_spent = delta_spent + cost_delta
    WHERE dp.budgets.dataset = r.dataset;
    INSERT INTO dp.draws (release, dataset, drawn_by, drawn_as, mechanism, epsilon, delta, margins, options,
                          noise_law, cells, note)
    VALUES (release::text, r.dataset, session_user, caller, r.mechanism,
            CASE WHEN is_stream THEN cost_epsilon::float8 ELSE r.epsilon END,
            CASE WHEN is_stream THEN cost_delta::float8 ELSE r.delta END,
            r.margins, r.options,
            CASE WHEN is_stream
                 THEN jsonb_build_object('mechanism', 'cascade_stream', 'variance', s.variance,
                                         'horizon', s.horizon, 'neighbours', s.neighbours,
                                         'first_period', s.released, 'periods', cells)
                 ELSE dp.last_release() END,
            cells,
            CASE WHEN NOT is_stream THEN NULL
                 WHEN s.state IS NULL
                 THEN format('first draw of the stream: charges its epsilon and delta once for up to 2^%s periods',
                             s.horizon)
                 ELSE format('append: covered by the first draw''s charge (%s periods released of at most 2^%s)',
                             s.released + cells, s.horizon) END)
    RETURNING draw_id INTO draw;
    RETURN draw;
END
$$;

-- A stream's next draw costs nothing once its first draw was charged.
CREATE OR REPLACE FUNCTION dp.release_cost(release regclass)
RETURNS TABLE (dataset text, epsilon float8, delta float8, epsilon_remaining numeric,
               delta_remaining numeric, draws_remaining bigint, last_drawn_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY
    SELECT r.dataset, c.epsilon, c.delta,
           b.epsilon_total - b.epsilon_spent,
           b.delta_total - b.delta_spent,
           -- A paid stream: its remaining periods, not the budget, bound its appends.
           CASE WHEN c.epsilon = 0 THEN (2::numeric ^ s.horizon - s.released)::bigint
                ELSE floor(least((b.epsilon_total - b.epsilon_spent) / c.epsilon::numeric,
                                 CASE WHEN coalesce(c.delta, 0) > 0
                                      THEN (b.delta_total - b.delta_spent) / c.delta::numeric END))::bigint END,
           (SELECT max(d.drawn_at) FROM dp.draws d WHERE d.release = r.release::text)
    FROM dp.releases r JOIN dp.budgets b ON b.dataset = r.dataset
         LEFT JOIN dp.streams s ON s.release = r.release
         CROSS JOIN LATERAL (SELECT CASE WHEN s.state IS NOT NULL THEN 0 ELSE r.epsilon END AS epsilon,
                                    CASE WHEN s.state IS NOT NULL THEN 0 ELSE r.delta END AS delta) c
    WHERE r.release = release_cost.release;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704', MESSAGE = format('%s is not a governed release', release);
    END IF;
END
$$;

COMMENT ON FUNCTION dp.refresh_release(regclass) IS
'Draws a new release into the release''s table and charges its dataset''s budget, atomically. '
'A stream instead appends its new periods (the released ones are never redrawn); only its first draw charges. '
'SQLSTATE 53Z01 when the budget would be exceeded (the previous draw stays). Returns the draw''s audit id.';

COMMENT ON FUNCTION dp.release_cost(regclass) IS
'What one draw of a governed release costs and what its dataset''s budget has left, without drawing. '
'A stream whose first draw is paid costs nothing more; draws_remaining is then its periods left.';
