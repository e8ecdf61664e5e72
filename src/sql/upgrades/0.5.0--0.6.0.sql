-- 0.6.0: no table changes. The functions are redefined (every SQL and
-- PL/pgSQL body pins search_path or names what it calls with its schema),
-- new internal helpers join them, and the library refuses governed draws
-- until the SQL objects are of its own version. dp.release_cost returns one
-- more column (last_draw_exact), so its old definition (if any) goes first;
-- dp.release_costs gains it last, which CREATE OR REPLACE VIEW allows.
DROP FUNCTION IF EXISTS dp.release_cost(regclass);
