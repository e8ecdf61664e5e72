-- Shared by the SQL benchmarks: pg_temp.time_ms(query) times a query (its
-- rows counted, not shipped); timings collects the runs for
-- timing_report.sql. A plain GROUP BY baseline says HAVING count(*) > 0:
-- under count(*) the planner would otherwise drop the unused count column
-- and never compute the counts, which dp.privatize's source must.
CREATE TEMP TABLE timings (what text, run int, ms float8);
CREATE FUNCTION pg_temp.time_ms(query text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp(); n bigint;
BEGIN
  EXECUTE 'SELECT count(*) FROM (' || query || ') q' INTO n;
  RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END $$;
