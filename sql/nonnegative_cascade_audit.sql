-- A black-box privacy audit of the non-negative cascade through SQL: a
-- leaf whose true count is 0 on one side of a neighbouring pair, where the
-- conditioning on non-negative leaves binds. Tree: the grand total over
-- two leaves A and B, nothing exact, epsilon 1, replace_one neighbours:
--   d0: A = 0, B = 2    d1: A = 1, B = 1   (one record moved from A to B).
-- 5,000 seeded releases of each; for every event {released A = t},
-- t = 0..11, and both directions, a lower confidence bound of the privacy
-- loss log(P(event | one) / P(event | other)): Wilson's lower bound of the
-- one frequency over Wilson's upper bound of the other, z = 5.3 (each bound
-- one-sided 5.8e-8; 48 bounds, so the audit exceeds a true loss with
-- probability below 3e-6). The largest must stay within the printed
-- epsilon. The calibration gives every level epsilon 1/4 (a move costs two
-- leaves' 1/4 = the base law's 1/2), and the law, summed exactly over
-- r_A, r_B >= 0, has its largest loss 0.41 at A = 0; the audit's lower bound
-- there is expected at 0.17, above 0 by 5 standard deviations (checked:
-- the audit sees the loss). Power: the same audit of a pair 5 moves apart
-- (A = 0, B = 6 against A = 5, B = 1), whose exact loss at A = 0 is 1.97
-- (group privacy allows 5 epsilon), must find a lower bound above epsilon:
-- expected 1.49, 7 standard deviations above it. Each release through SQL
-- costs some milliseconds: 20,000 in all.
\set VERBOSITY terse
LOAD 'invariant_dp';
SET dp.seed = '41';
CREATE TABLE audit_pairs (side text, leaf text, n bigint);
INSERT INTO audit_pairs VALUES ('d0', 'A', 0), ('d0', 'B', 2), ('d1', 'A', 1), ('d1', 'B', 1),
                               ('far0', 'A', 0), ('far0', 'B', 6), ('far5', 'A', 5), ('far5', 'B', 1);
REVOKE ALL ON audit_pairs FROM PUBLIC;

-- Each release's A; its source names the draw, so each is run anew.
CREATE TABLE audit_draws AS
SELECT s.side, i, r.n AS a, total.n AS total, (SELECT dp.last_release()->>'epsilon')::float8 AS epsilon
FROM (VALUES ('d0'), ('d1'), ('far0'), ('far5')) s(side), generate_series(1, 5000) i,
     LATERAL (SELECT array_agg(t.n ORDER BY t.leaf NULLS FIRST) AS v
              FROM dp.privatize(format('SELECT leaf, n FROM audit_pairs WHERE side = %L AND %s > 0', s.side, i),
                                1.0, 'nonnegative_cascade', hierarchy => '{leaf}') AS t(leaf text, n bigint)) rel,
     LATERAL (SELECT rel.v[2] AS n) r, LATERAL (SELECT rel.v[1] AS n) total;
SELECT side, count(*) AS releases, bool_and(a >= 0 AND a <= total) AS a_within_the_total,
       min(epsilon) = 1 AND max(epsilon) = 1 AS printed_epsilon_1
FROM audit_draws GROUP BY side ORDER BY side;
SELECT array_agg(round(e::numeric, 9)) AS level_epsilon
FROM jsonb_array_elements_text(dp.last_release()->'noise'->'level_epsilon') e;

CREATE FUNCTION audit_loss_lower_bound(one text, other text) RETURNS float8 LANGUAGE sql AS $$
  WITH freq AS (
    SELECT t, count(*) FILTER (WHERE side = one AND a = t)::float8 / 5000 AS p,
              count(*) FILTER (WHERE side = other AND a = t)::float8 / 5000 AS q
    FROM audit_draws, generate_series(0, 11) t WHERE side IN (one, other) GROUP BY t),
  wilson AS (
    SELECT t, x, (x + 5.3 ^ 2 / 10000 + s * 5.3 * sqrt(x * (1 - x) / 5000 + 5.3 ^ 2 / (4 * 5000.0 ^ 2)))
              / (1 + 5.3 ^ 2 / 5000) AS bound, s, which
    FROM freq, LATERAL (VALUES (p, -1, 'p_low'), (p, 1, 'p_high'), (q, -1, 'q_low'), (q, 1, 'q_high')) v(x, s, which))
  SELECT max(greatest(ln(pl.bound / qh.bound), ln(ql.bound / ph.bound)))
  FROM wilson pl JOIN wilson qh USING (t) JOIN wilson ql USING (t) JOIN wilson ph USING (t)
  WHERE pl.which = 'p_low' AND qh.which = 'q_high' AND ql.which = 'q_low' AND ph.which = 'p_high'
    AND pl.bound > 0 AND ql.bound > 0
$$;
SELECT audit_loss_lower_bound('d0', 'd1') <= 1 AS neighbours_within_epsilon,
       audit_loss_lower_bound('d0', 'd1') > 0 AS some_loss_seen;
SELECT audit_loss_lower_bound('far0', 'far5') > 1 AS five_moves_seen_above_epsilon;
DROP FUNCTION audit_loss_lower_bound(text, text);
DROP TABLE audit_pairs, audit_draws;
