-- 0.5.0: the current definitions moved into sql/extension/ (one file per
-- feature). A draw is charged in a transaction of its own before it is made
-- (dp.charge_draw, dp.store_draw), so dp.draw_in_worker goes.
DROP FUNCTION IF EXISTS dp.draw_in_worker(regclass, regrole, regrole, boolean);
-- dp.cascade_range_variance (since 0.3.0) takes the integer cascade's
-- variance deficit bound and returns both ends (lower, upper): a new
-- signature, so the old function goes.
DROP FUNCTION IF EXISTS dp.cascade_range_variance(text, integer[], float8[], integer[], bigint, bigint);
