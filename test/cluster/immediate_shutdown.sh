#!/usr/bin/env bash
# Nothing is lost, and nothing drawn goes unpaid, when a refresh is cancelled
# or the server stops mid-refresh. A release whose source sleeps (a delay the
# administrator sets in a protected table, read by a STABLE function of
# theirs, so the first draw is quick) is drawn once. A refresh started in the
# background is cancelled while its draw worker runs the source (the caller is
# cancelled; it stops its worker); another one's caller is terminated; a third
# is inside its source (the release table's old rows already deleted, the
# release locked against other draws) when the cluster is stopped with
# `pg_ctlcluster ... stop -m immediate` and started again. Each draw was
# charged before its source ran: each time the charge stays (audited as not
# completed), the first draw stays in the release table exactly as it was,
# and after recovery the release still refreshes.
set -uo pipefail
source "$(dirname "$0")/common.bash"

db=dp_test_shutdown
[ -n "${DP_TEST_CLUSTER:-}" ] || { fail "DP_TEST_CLUSTER names the cluster to stop"; finish; }
new_db $db || { fail "create database $db"; finish; }
on_exit "cluster_ctl status || cluster_ctl start"   # whatever happened, leave the cluster running

q $db "
CREATE TABLE source_delay (seconds float8 NOT NULL);
INSERT INTO source_delay VALUES (0);
CREATE FUNCTION source_pause() RETURNS int LANGUAGE plpgsql STABLE
    AS \$\$BEGIN PERFORM pg_sleep((SELECT seconds FROM source_delay)); RETURN 1; END\$\$;
SELECT dp.set_budget('dp_test shutdown', 2.0);
SELECT dp.register_release('slow_counts', 'dp_test shutdown',
    source => 'SELECT county, edu, count(*) FROM delinquents WHERE (SELECT source_pause()) = 1 GROUP BY 1, 2',
    columns => 'county text, edu text, n bigint', epsilon => 0.25, margins => '{county}', options => jsonb_build_object('keys', 'public'));" > /dev/null &&
q $db "
SELECT dp.refresh_release('slow_counts');
CREATE TABLE first_draw AS SELECT * FROM slow_counts;
UPDATE source_delay SET seconds = 30;" > /dev/null || fail "set up the slow release and draw it once"

is "the first draw is stored: 16 cells" "$(q $db "SELECT count(*) FROM slow_counts")" 16

err=${TMPDIR:-/tmp}/dp_test_shutdown.$$.err
on_exit "rm -f $err"
# start_refresh: a refresh in the background ($refresh its psql), returns
# once its draw worker sleeps inside the source; sets $refresh_pid to the
# caller's backend and $draw_pid to its worker.
start_refresh() {
  psql -X -q -A -t -v VERBOSITY=sqlstate -d $db -c "SELECT dp.refresh_release('slow_counts')" > /dev/null 2> "$err" &
  refresh=$!
  refresh_pid= draw_pid=
  for i in $(seq 1 100); do
    draw_pid=$(q $db "SELECT pid FROM pg_stat_activity
                      WHERE backend_type = 'invariant_dp draw' AND wait_event = 'PgSleep'")
    [ -n "$draw_pid" ] && break
    sleep 0.1
  done
  refresh_pid=$(q $db "SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT dp.refresh_release%'")
  ok "a refresh is running its source (caller ${refresh_pid:-none}, its draw worker ${draw_pid:-none} in pg_sleep)" \
     test -n "$draw_pid" -a -n "$refresh_pid"
}
# first_draw_intact WHEN DRAWS: the release table shows only the first draw;
# the budget and the audit log show DRAWS charged draws.
first_draw_intact() {
  is "$1: the budget shows $2 draws charged" \
     "$(q $db "SELECT epsilon_spent, epsilon_total FROM dp.budgets WHERE dataset = 'dp_test shutdown'")" \
     "$(awk "BEGIN { printf \"%.2f\", 0.25 * $2 }")|2.0"
  is "$1: the audit log has $2 draws, all but the first not completed" \
     "$(q $db "SELECT count(*), count(*) FILTER (WHERE note = 'charged; the draw has not completed') FROM dp.draws")" \
     "$2|$(($2 - 1))"
  is "$1: the release table holds the first draw intact (16 cells, none changed)" \
     "$(q $db "SELECT count(*) FROM slow_counts")|$(q $db "SELECT count(*) FROM (
          (SELECT * FROM slow_counts EXCEPT ALL SELECT * FROM first_draw)
          UNION ALL (SELECT * FROM first_draw EXCEPT ALL SELECT * FROM slow_counts)) d")" "16|0"
}

# A cancelled refresh first (pg_cancel_backend: what statement_timeout does).
start_refresh
ok "cancel it" quiet q $db "SELECT pg_cancel_backend($refresh_pid)"
wait $refresh
is "the cancelled refresh failed with 57014" "$(grep -oE 'ERROR: +[0-9A-Z]{5}' "$err" | grep -oE '[0-9A-Z]{5}$')" 57014
for i in $(seq 1 50); do
  [ "$(q $db "SELECT count(*) FROM pg_stat_activity WHERE pid = $draw_pid")" = 0 ] && break
  sleep 0.1
done
is "its draw worker was stopped too" "$(q $db "SELECT count(*) FROM pg_stat_activity WHERE pid = $draw_pid")" 0
first_draw_intact "after the cancel" 2

# The caller's backend terminated (pg_terminate_backend): its worker stops too.
start_refresh
ok "terminate the caller" quiet q $db "SELECT pg_terminate_backend($refresh_pid)"
wait $refresh
for i in $(seq 1 50); do
  [ "$(q $db "SELECT count(*) FROM pg_stat_activity WHERE pid = $draw_pid")" = 0 ] && break
  sleep 0.1
done
is "its draw worker was stopped when the caller's backend exited" \
   "$(q $db "SELECT count(*) FROM pg_stat_activity WHERE pid = $draw_pid")" 0
first_draw_intact "after the caller was terminated" 3

# Then the immediate shutdown.
start_refresh
is "it has deleted the old rows already (holds RowExclusiveLock on the release table)" \
   "$(q $db "SELECT count(*) FROM pg_locks WHERE pid = ${draw_pid:-0} AND granted
             AND relation = 'slow_counts'::regclass AND mode = 'RowExclusiveLock'")" 1
is "it holds the release against other draws (ExclusiveLock), not the budget row (its charge committed)" \
   "$(q $db "SELECT count(*) FROM pg_locks WHERE pid = ${draw_pid:-0} AND granted
             AND relation = 'slow_counts'::regclass AND mode = 'ExclusiveLock'")|$(sqlstate_of $db "SET lock_timeout = '100ms'; SELECT FROM dp.budgets WHERE dataset = 'dp_test shutdown' FOR UPDATE")" \
   "1|ok"

start=$EPOCHREALTIME
ok "pg_ctlcluster $DP_TEST_CLUSTER stop -m immediate" cluster_ctl stop -m immediate
wait $refresh
refresh_status=$?
ok "the interrupted refresh did not succeed (psql exit status $refresh_status)" test $refresh_status -ne 0
ok "pg_ctlcluster $DP_TEST_CLUSTER start" cluster_ctl start
ok "the server accepts connections again" wait_ready
echo "# stopped and recovered in $(since $start) s"

first_draw_intact "after the immediate shutdown" 4
is "release_cost allows the 4 draws left" "$(q $db "SELECT draws_remaining FROM dp.release_cost('slow_counts')")" 4

q $db "UPDATE source_delay SET seconds = 0" > /dev/null
ok "a refresh after recovery works (no lock or half-written state left)" \
   quiet q $db "SELECT dp.refresh_release('slow_counts') > 0"
is "and is charged once: spent 1.25, five draws audited" \
   "$(q $db "SELECT epsilon_spent FROM dp.budgets WHERE dataset = 'dp_test shutdown'")|$(q $db "SELECT count(*) FROM dp.draws")" \
   "1.25|5"
is "the new draw keeps the true margins" "$(q $db "SELECT county, sum(n) FROM slow_counts GROUP BY 1 ORDER BY 1")" "$true_margins"

finish
