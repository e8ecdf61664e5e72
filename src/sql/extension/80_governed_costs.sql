-- What a governed release costs and what its budget has left, shown only to
-- roles that own, read or refresh it: security-barrier views that PUBLIC
-- may query, read with the view owner's rights.

CREATE OR REPLACE VIEW dp.release_costs WITH (security_barrier) AS
SELECT r.release, r.dataset, c.epsilon, c.delta,
       b.epsilon_total - b.epsilon_spent AS epsilon_remaining,
       b.delta_total - b.delta_spent AS delta_remaining,
       -- A paid stream: its remaining periods, not the budget, bound its appends.
       -- At most the largest bigint: a tiny epsilon must not make the view fail for everyone.
       CASE WHEN c.epsilon = 0 THEN least(2::numeric ^ s.horizon - s.released, 9223372036854775807)::bigint
            ELSE floor(least((b.epsilon_total - b.epsilon_spent) / c.epsilon::numeric,
                             CASE WHEN coalesce(c.delta, 0) > 0
                                  THEN (b.delta_total - b.delta_spent) / c.delta::numeric END,
                             9223372036854775807))::bigint
       END AS draws_remaining,
       -- The draws of this registration (by its identity: a name can be reused).
       (SELECT max(d.drawn_at) FROM dp.draws d WHERE d.release_id = r.release_id) AS last_drawn_at,
       -- Who the epsilon protects: one row (NULL), or every row of one unit within its bounds.
       r.privacy_unit, r.bounds,
       -- Whether the latest completed draw was drawn exactly, so that its
       -- stated guarantee is certified (false: a chain drew it, and its
       -- guarantee is (epsilon, delta + TV) with TV not certified; NULL:
       -- never drawn).
       (SELECT (d.noise_law->>'exact')::boolean FROM dp.draws d
        WHERE d.release_id = r.release_id AND d.noise_law <> '{}'::jsonb
        ORDER BY d.draw_id DESC LIMIT 1) AS last_draw_exact
FROM dp.releases r
     JOIN dp.visible_releases v ON v.release = r.release
     JOIN dp.budgets b ON b.dataset = r.dataset
     LEFT JOIN dp.streams s ON s.release = r.release
     CROSS JOIN LATERAL (SELECT CASE WHEN s.state IS NOT NULL THEN 0 ELSE r.epsilon END AS epsilon,
                                CASE WHEN s.state IS NOT NULL THEN 0 ELSE r.delta END AS delta) c;

COMMENT ON VIEW dp.release_costs IS
'What one draw of each governed release the current role owns, reads or refreshes costs, and what its '
'dataset''s budget has left. A stream whose first draw is paid costs nothing more; draws_remaining is then '
'its periods left. privacy_unit and bounds: the unit the epsilon protects (NULL: one row) and its contribution '
'bounds. last_draw_exact: whether the latest draw was drawn without a Markov chain, its guarantee certified '
'(false: (epsilon, delta + TV), TV not certified; NULL: not drawn yet).';
GRANT SELECT ON dp.release_costs TO PUBLIC;

CREATE OR REPLACE FUNCTION dp.release_cost(release regclass)
RETURNS TABLE (dataset text, epsilon float8, delta float8, epsilon_remaining numeric,
               delta_remaining numeric, draws_remaining bigint, last_drawn_at timestamptz,
               privacy_unit text, bounds jsonb, last_draw_exact boolean)
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY
    SELECT c.dataset, c.epsilon, c.delta, c.epsilon_remaining, c.delta_remaining, c.draws_remaining, c.last_drawn_at,
           c.privacy_unit, c.bounds, c.last_draw_exact
    FROM dp.release_costs c WHERE c.release = release_cost.release;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '42704', MESSAGE = format('%s is not a governed release', release),
            HINT = 'Only releases you own, may read or may refresh are shown.';
    END IF;
END
$$;

COMMENT ON FUNCTION dp.release_cost(regclass) IS
'What one draw of a governed release costs and what its dataset''s budget has left, without drawing '
'(dp.release_costs for one release). A stream whose first draw is paid costs nothing more; draws_remaining is '
'then its periods left. privacy_unit and bounds say whom the epsilon protects; last_draw_exact whether the '
'latest draw''s guarantee is certified (false: a chain drew it).';

