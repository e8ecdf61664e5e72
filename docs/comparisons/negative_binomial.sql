-- Gong and Meng 2020 (arXiv:2008.10202) section 4.1, the paper's Figure 1: 20 tables of i.i.d.
-- Negative Binomial(100, 0.05) cells, 100 releases of each method per table;
-- per table the mean L1 and L2 distance, then the median [min-max] over the
-- 20 tables, beside an independent reproduction of the paper's design (the paper
-- prints the figure, not its numbers). The
-- congenial releases of the crossing margins are MCMC (the lattice walk,
-- about a second each), so they get 25 releases per table, the others 100.
\pset footer off
LOAD 'invariant_dp';  -- dp.seed is honoured once the library is loaded
SET dp.seed = '41';

CREATE TEMP TABLE nb_distances (method text, ord int, table_id int, run int, l1 float8, l2 float8);
DO $$
DECLARE
    m record;
    t int;
    r int;
BEGIN
    FOR m IN SELECT * FROM (VALUES
        (1, '(a) raw discrete Laplace, b = 1', 'discrete_laplace', 2.0, '{}'::text[], 100),
        (2, '(b) project_nn_l2 of (a)', 'project_nn_l2', 2.0, '{sex,voting}', 100),
        (3, '(c) congenial, base b = 2', 'congenial', 2.0, '{sex,voting}', 25),
        (4, '(d) raw discrete Laplace, b = 2', 'discrete_laplace', 1.0, '{}', 100))
        AS v(ord, label, name, epsilon, margins, releases)
    LOOP
        FOR t IN 1..20 LOOP
            FOR r IN 1..m.releases LOOP
                INSERT INTO nb_distances
                SELECT m.label, m.ord, t, r, sum(abs(x.n - c.n)), sqrt(sum((x.n - c.n) ^ 2))
                FROM dp.privatize(format('SELECT sex, band, voting, count(*) FROM nb_persons WHERE table_id = %s GROUP BY 1, 2, 3', t),
                                  m.epsilon, m.name, margins => m.margins,
                                  domain => 'SELECT sex, band, band >= 5 FROM unnest(ARRAY[''F'', ''M'']) sex, generate_series(1, 23) band')
                     AS x(sex text, band int, voting boolean, n float8)
                JOIN nb_cells c ON c.table_id = t AND c.sex = x.sex AND c.band = x.band;
            END LOOP;
        END LOOP;
    END LOOP;
END $$;

CREATE TEMP TABLE per_table AS
SELECT method, ord, table_id, avg(l1) AS l1, avg(l2) AS l2 FROM nb_distances GROUP BY 1, 2, 3;
\echo '#### Mean distance per table, median [min-max] over the 20 tables'
\echo
SELECT p.method,
       format('%s [%s-%s]', round((percentile_cont(0.5) WITHIN GROUP (ORDER BY p.l1))::numeric, 1),
              round(min(p.l1)::numeric, 1), round(max(p.l1)::numeric, 1)) AS "mean L1 (ours)",
       d.l1 AS "reproduction's L1",
       format('%s [%s-%s]', round((percentile_cont(0.5) WITHIN GROUP (ORDER BY p.l2))::numeric, 2),
              round(min(p.l2)::numeric, 2), round(max(p.l2)::numeric, 2)) AS "mean L2 (ours)",
       d.l2 AS "reproduction's L2"
FROM per_table p
JOIN (VALUES (1, '38.8 [37.7-40.9]', '9.01 [8.72-9.44]'), (2, '40.9 [39.4-43.5]', '8.50 [8.18-8.94]'),
             (3, '72.5 [69.1-76.4]', '14.87 [14.33-15.55]'), (4, '88.1 [85.8-90.1]', '18.71 [18.09-19.13]'))
     AS d(ord, l1, l2) ON d.ord = p.ord
GROUP BY p.method, p.ord, d.l1, d.l2 ORDER BY p.ord;
