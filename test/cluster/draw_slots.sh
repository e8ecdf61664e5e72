#!/usr/bin/env bash
# Governed draws cannot take every background-worker slot: at most
# dp.max_draw_workers run at once in the cluster, the others wait for a
# slot, and parallel query keeps its workers meanwhile. With the limit at 1,
# six refreshes are started at once by a refresher; a sampler of
# pg_stat_activity never sees two draw workers, all six complete, and a
# parallel count launched while they queue gets its workers.
set -uo pipefail
source "$(dirname "$0")/common.bash"

db=dp_test_draw_slots
role=dp_test_slots_refresher
work=$(mktemp -d)
on_exit "rm -rf $work"
on_exit "drop_role $role"
on_exit "psql -X -q -d postgres -c 'ALTER SYSTEM RESET dp.max_draw_workers' -c 'SELECT pg_reload_conf()'"
drop_role $role > /dev/null 2>&1
new_db $db || { fail "create database $db"; finish; }

ok "a release whose draw takes a while, and its refresher" quiet q $db "
CREATE ROLE $role LOGIN PASSWORD '$PGPASSWORD';
CREATE TABLE big AS SELECT g % 50 AS k, g FROM generate_series(1, 2000000) g;
REVOKE ALL ON big FROM PUBLIC;
GRANT SELECT ON big TO $role;
SELECT dp.set_budget('dp_test slots', 1000);
SELECT dp.register_release('slow_counts', 'dp_test slots', 'SELECT k, count(*) FROM big GROUP BY 1', 'k int, n bigint',
                           0.1, options => jsonb_build_object('keys', 'public'));
SELECT dp.grant_refresh('slow_counts', '$role');"
# ALTER SYSTEM knows an extension's setting once its library is loaded.
ok "dp.max_draw_workers = 1, cluster-wide" quiet psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "LOAD 'invariant_dp'" \
  -c "ALTER SYSTEM SET dp.max_draw_workers = 1" -c "SELECT pg_reload_conf()"
sleep 0.5

# The sampler: the most draw workers, and callers waiting in
# dp.refresh_release, seen at once, until told to stop.
( max=0 callers=0 helpers=0
  while [ ! -e "$work/stop" ]; do
    seen=$(q $db "SELECT count(*) FILTER (WHERE backend_type = 'invariant_dp draw'),
                         count(*) FILTER (WHERE query LIKE 'SELECT dp.refresh_release%' AND state = 'active'),
                         count(*) FILTER (WHERE backend_type = 'parallel worker' AND leader_pid IN
                             (SELECT pid FROM pg_stat_activity WHERE backend_type = 'invariant_dp draw'))
                  FROM pg_stat_activity" 2>/dev/null || echo '0|0|0')
    IFS='|' read -r draws waiting parallel <<< "$seen"
    [ "$draws" -gt "$max" ] && max=$draws
    [ "$waiting" -gt "$callers" ] && callers=$waiting
    [ "$parallel" -gt "$helpers" ] && helpers=$parallel
    echo "$max $callers $helpers" > "$work/max"
    sleep 0.02
  done ) &
sampler=$!
for i in 1 2 3 4 5 6; do
  PGUSER=$role psql -X -q -A -t -d $db -c "SELECT dp.refresh_release('slow_counts')" > "$work/draw$i" 2>&1 &
done
sleep 0.3
psql -X -q -d $db > "$work/parallel" 2>&1 <<'SQL'
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM big;
SQL
wait $(jobs -p | grep -v "^$sampler$")
touch "$work/stop"
wait $sampler
read -r max callers helpers < "$work/max"
echo "# at most $max draw worker(s) and $callers callers at once"
ok "the draws were asked for at once (several callers waited)" test "$callers" -ge 3
is "never more than one draw worker at once" "$max" 1
is "no draw ran parallel workers of its own" "$helpers" 0
is "all six draws completed" "$(cat "$work"/draw? | grep -cE '^[0-9]+$')" 6
is "the budget paid six draws" "$(q $db "SELECT epsilon_spent FROM dp.budgets WHERE dataset = 'dp_test slots'")" 0.6
ok "a parallel count launched its workers meanwhile" grep -q 'Workers Launched: [12]' "$work/parallel"
grep 'Workers' "$work/parallel" | sed 's/^/# /'
finish
