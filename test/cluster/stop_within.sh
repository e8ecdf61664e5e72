#!/usr/bin/env bash
# Every request stops within a second of its statement_timeout, whatever its
# parameters (test/cluster/stop_within.py: every mechanism, structure and
# sampler at extreme epsilon, counts and bounds, the other entry points, and
# every error-bar function on forged laws, as an ordinary role), and a
# governed draw stops with its caller: a refresher whose statement_timeout
# ends its wait, or whose backend is terminated, leaves no draw worker
# running a second later, and the release's lock and draw slot are free
# (the next draw of the same release starts at once).
set -uo pipefail
source "$(dirname "$0")/common.bash"

db=dp_test_stop_within
role=dp_test_stop_refresher
on_exit "drop_role $role"
drop_role $role > /dev/null 2>&1
new_db $db || { fail "create database $db"; finish; }
quiet q $db "CREATE ROLE $role LOGIN PASSWORD '$PGPASSWORD'; GRANT CREATE ON SCHEMA public TO $role;"

PGUSER=$role /usr/bin/python3 "$repo/test/cluster/stop_within.py" --dsn "dbname=$db user=$role" --workers 2 ||
  fail "the sweep ran to its end"

# A governed release whose draw runs for seconds: the integer_laplace chain
# on a 1000 x 1000 table.
ok "a release whose draw takes seconds, and its refresher" quiet q $db "
CREATE TABLE wide AS SELECT a, b, 3::bigint AS n FROM generate_series(1, 1000) a, generate_series(1, 1000) b;
REVOKE ALL ON wide FROM PUBLIC;
SELECT dp.set_budget('dp_test stop', 1000);
SELECT dp.register_release('slow_draw', 'dp_test stop', 'SELECT a, b, n FROM wide', 'a int, b int, n bigint', 1.0,
                           margins => '{a,b}', options => '{\"sampler\": \"chain\", \"keys\": \"public\"}');
SELECT dp.grant_refresh('slow_draw', '$role');"

draw_workers() { q $db "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'invariant_dp draw'"; }

# The caller's statement_timeout ends the wait; the worker is gone a second later.
start=$EPOCHREALTIME
state=$(sqlstate_of $db "SET statement_timeout = '1s'; SELECT dp.refresh_release('slow_draw')" $role)
took=$(since "$start")
is "a refresh under statement_timeout = 1s is cancelled (57014)" "$state" 57014
ok "it returned ${took} s after it began (at most 2 s)" awk -v t="$took" 'BEGIN { exit !(t <= 2) }'
sleep 1
is "no draw worker runs a second later" "$(draw_workers)" 0
is "the release table is not locked" "$(q $db "SELECT count(*) FROM pg_locks WHERE relation = 'slow_draw'::regclass")" 0

# pg_terminate_backend of the caller stops its worker too.
PGUSER=$role psql -X -q -d $db -c "SET application_name = 'dp_test_stop'; SELECT dp.refresh_release('slow_draw')" \
  > /dev/null 2>&1 &
client=$!
for i in $(seq 1 50); do
  [ "$(draw_workers)" -ge 1 ] && break
  sleep 0.1
done
is "the refresh started its draw worker" "$(draw_workers)" 1
quiet q $db "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'dp_test_stop'"
wait $client
sleep 1
is "no draw worker runs a second after its caller was terminated" "$(draw_workers)" 0
start=$EPOCHREALTIME
state=$(sqlstate_of $db "SET statement_timeout = '1s'; SELECT dp.refresh_release('slow_draw')" $role)
is "the next draw of the release starts at once (its lock and slot are free) and is cancelled at its timeout" \
  "$state" 57014
finish
