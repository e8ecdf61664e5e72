-- 0.5.0: the current definitions moved into sql/extension/ (one file per
-- feature). A draw is charged in a transaction of its own before it is made
-- (dp.charge_draw, dp.store_draw), so dp.draw_in_worker goes.
DROP FUNCTION IF EXISTS dp.draw_in_worker(regclass, regrole, regrole, boolean);
