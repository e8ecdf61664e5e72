#!/usr/bin/env bash
# Concurrent refreshes never overspend a budget, not even by one draw, and
# readers always see one complete draw. A budget of 1.0 allows exactly ten
# draws of epsilon 0.1 (numeric: 0.1 ten times is exactly 1.0): one draw by
# hand, then 40 attempts from pgbench (8 clients, 5 transactions each) while an
# analyst re-reads the release in a loop. A second release (epsilon 0.3, budget
# 2.1: exactly seven draws) is refreshed by six parallel psql clients of a
# refresher role, 30 attempts in all; every refused attempt must fail with
# SQLSTATE 53Z01 and nothing else. A third release (epsilon 0.2, budget 1.0:
# five draws) is refreshed by pgbench in REPEATABLE READ transactions, where a
# refresh that waited for the budget row fails with 40001 and pgbench retries it.
set -uo pipefail
source "$(dirname "$0")/common.bash"

db=dp_test_concurrency
work=$(mktemp -d)
on_exit "rm -rf $work"
on_exit "drop_role dp_test_conc_analyst; drop_role dp_test_conc_refresher"
drop_role dp_test_conc_analyst > /dev/null 2>&1; drop_role dp_test_conc_refresher > /dev/null 2>&1
new_db $db || { fail "create database $db"; finish; }

q $db "
CREATE ROLE dp_test_conc_analyst;
CREATE ROLE dp_test_conc_refresher;
SELECT dp.set_budget('dp_test pgbench', 1.0);
SELECT dp.register_release('pgbench_counts', 'dp_test pgbench',
    source => 'SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2',
    columns => 'county text, edu text, n bigint', epsilon => 0.1, margins => '{county}', options => jsonb_build_object('keys', 'public'));
SELECT dp.grant_release('pgbench_counts', 'dp_test_conc_analyst');
SELECT dp.set_budget('dp_test psql', 2.1);
SELECT dp.register_release('psql_counts', 'dp_test psql',
    source => 'SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2',
    columns => 'county text, edu text, n bigint', epsilon => 0.3, margins => '{county}', options => jsonb_build_object('keys', 'public'));
SELECT dp.set_budget('dp_test repeatable read', 1.0);
SELECT dp.register_release('rr_counts', 'dp_test repeatable read',
    source => 'SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2',
    columns => 'county text, edu text, n bigint', epsilon => 0.2, margins => '{county}', options => jsonb_build_object('keys', 'public'));
SELECT dp.grant_refresh('psql_counts', 'dp_test_conc_refresher');" > /dev/null &&
  q $db "SELECT dp.refresh_release('pgbench_counts')" > /dev/null || fail "set up budgets and releases"

is "release_cost says 9 draws are left after the first" \
   "$(q $db "SELECT draws_remaining, epsilon_remaining FROM dp.release_cost('pgbench_counts')")" "9|0.9"

# --- pgbench, with an analyst reading all along --------------------------------
# The reader runs until release_cost (which analysts may call) shows the
# budget spent, 30 s at most: each statement of the DO block takes a fresh
# snapshot, so it sees every committed draw; a torn or empty release would show.
psql -X -q -d $db -v ON_ERROR_STOP=1 > "$work/reader.log" 2>&1 <<'SQL' &
SET ROLE dp_test_conc_analyst;
DO $$
DECLARE reads int := 0; bad int := 0; cells bigint; margins text; version text; versions text[] := '{}';
BEGIN
  WHILE clock_timestamp() < now() + interval '30 s'
        AND (SELECT draws_remaining FROM dp.release_cost('pgbench_counts')) > 0 LOOP
    SELECT sum(c), string_agg(county || '=' || total, ',' ORDER BY county) INTO cells, margins
    FROM (SELECT county, sum(n) AS total, count(*) AS c FROM pgbench_counts GROUP BY county) m;
    IF cells <> 16 OR margins <> 'Alpha=20,Beta=55,Delta=35,Gamma=25' THEN bad := bad + 1; END IF;
    -- Which draw this read saw (two draws of 16 noisy cells coincide with negligible probability).
    SELECT md5(string_agg(format('%s,%s,%s', county, edu, n), ';' ORDER BY county, edu)) INTO version
    FROM pgbench_counts;
    IF version <> ALL (versions) THEN versions := versions || version; END IF;
    reads := reads + 1;
    PERFORM pg_sleep(0.005);
  END LOOP;
  RAISE NOTICE 'reads=% bad=% draws_seen=%', reads, bad, cardinality(versions);
END $$;
SQL
reader=$!
sleep 0.5
echo "SELECT dp.refresh_release('pgbench_counts');" > "$work/refresh.sql"
start=$EPOCHREALTIME
pgbench -n -f "$work/refresh.sql" -c 8 -j 2 -t 5 $db > "$work/pgbench.out" 2> "$work/pgbench.err"
status=$?
echo "# pgbench exit status $status in $(since $start) s (clients abort on their first refused refresh)"
wait $reader
reader_status=$?
processed=$(grep -oE 'number of transactions actually processed: [0-9]+' "$work/pgbench.out" | grep -oE '[0-9]+$')
aborts=$(grep -c 'aborted in command' "$work/pgbench.err")
budget_aborts=$(grep 'aborted in command' "$work/pgbench.err" | grep -c 'privacy budget of dataset "dp_test pgbench" is exhausted')
echo "# pgbench: $processed transactions committed, $aborts clients aborted"
is "pgbench committed exactly the 9 draws the budget had left" "$processed" 9
ok "every aborted pgbench client was refused by the budget ($budget_aborts of $aborts)" \
   test "$aborts" -ge 1 -a "$aborts" -eq "$budget_aborts"
is "the audit log has exactly 10 draws of pgbench_counts" \
   "$(q $db "SELECT count(*) FROM dp.draws WHERE release = 'public.pgbench_counts'")" 10
is "epsilon_spent is exactly 10 * 0.1 = epsilon_total (numeric)" \
   "$(q $db "SELECT epsilon_spent = 10 * 0.1::numeric, epsilon_spent = epsilon_total, epsilon_spent FROM dp.budgets WHERE dataset = 'dp_test pgbench'")" \
   "t|t|1.0"
is "the audited epsilons add up to the spent budget" \
   "$(q $db "SELECT sum(d.epsilon::numeric) = b.epsilon_spent FROM dp.draws d JOIN dp.budgets b USING (dataset) WHERE dataset = 'dp_test pgbench' GROUP BY b.epsilon_spent")" t
is "the release table holds one complete draw: 16 cells" \
   "$(q $db "SELECT count(*), count(DISTINCT (county, edu)) FROM pgbench_counts")" "16|16"
is "its county margins are the true ones" \
   "$(q $db "SELECT county, sum(n) FROM pgbench_counts GROUP BY 1 ORDER BY 1")" "$true_margins"
reads=$(grep -oE 'reads=[0-9]+ bad=[0-9]+ draws_seen=[0-9]+' "$work/reader.log")
echo "# analyst reader during pgbench: $reads"
seen=${reads##*=}
ok "the analyst's reader ran during the refreshes: it saw ${seen:-no} different draws" \
   test "$reader_status" -eq 0 -a "${seen:-0}" -ge 2
bad=${reads#* }
is "no read saw a torn, empty or wrong release" "${bad%% *}" "bad=0"
is "an 11th refresh is refused with 53Z01" "$(sqlstate_of $db "SELECT dp.refresh_release('pgbench_counts')")" 53Z01

# --- parallel psql clients of a refresher role --------------------------------
for c in 1 2 3 4 5 6; do
  { echo 'SET ROLE dp_test_conc_refresher;'; echo '\set VERBOSITY sqlstate';
    for i in 1 2 3 4 5; do echo "SELECT dp.refresh_release('psql_counts');"; done; } |
    psql -X -q -A -t -d $db > "$work/client$c.out" 2> "$work/client$c.err" &
done
wait
succeeded=$(cat "$work"/client*.out | grep -cE '^[0-9]+$')
refused=$(cat "$work"/client*.err | grep -cE '^ERROR: +53Z01')
other=$(cat "$work"/client*.err | grep -vcE '^ERROR: +53Z01')
echo "# parallel psql: $succeeded draws, $refused refused with 53Z01, $other other errors"
is "6 psql clients x 5 refreshes: exactly 7 draws succeeded" "$succeeded" 7
is "the 23 others were refused with 53Z01, no other error" "$refused|$other" "23|0"
is "the audit log has exactly 7 draws of psql_counts" \
   "$(q $db "SELECT count(*), count(DISTINCT draw_id) FROM dp.draws WHERE release = 'public.psql_counts'")" "7|7"
is "epsilon_spent is exactly 7 * 0.3 = 2.1" \
   "$(q $db "SELECT epsilon_spent = 7 * 0.3::numeric, epsilon_spent FROM dp.budgets WHERE dataset = 'dp_test psql'")" "t|2.1"
is "psql_counts holds one complete draw with the true margins" \
   "$(q $db "SELECT count(*) FROM psql_counts"; q $db "SELECT county, sum(n) FROM psql_counts GROUP BY 1 ORDER BY 1")" \
   "16
$true_margins"

# --- pgbench in REPEATABLE READ, retrying serialization failures --------------
printf '%s\n' 'BEGIN ISOLATION LEVEL REPEATABLE READ;' "SELECT dp.refresh_release('rr_counts');" 'END;' > "$work/rr.sql"
pgbench -n -f "$work/rr.sql" -c 8 -j 2 -t 3 --max-tries=100 $db > "$work/rr.out" 2> "$work/rr.err"
processed=$(grep -oE 'number of transactions actually processed: [0-9]+' "$work/rr.out" | grep -oE '[0-9]+$')
retried=$(grep -oE 'total number of retries: [0-9]+' "$work/rr.out" | grep -oE '[0-9]+$')
echo "# pgbench, repeatable read: $processed committed, ${retried:-?} retries after serialization failures"
is "repeatable read: pgbench committed exactly the 5 draws of the budget" "$processed" 5
is "every aborted client was refused by the budget, none by anything else" \
   "$(grep 'aborted in command' "$work/rr.err" | grep -vc 'privacy budget of dataset "dp_test repeatable read" is exhausted')" 0
is "the audit log has exactly 5 draws of rr_counts and epsilon_spent is exactly 1.0" \
   "$(q $db "SELECT count(*) FROM dp.draws WHERE release = 'public.rr_counts'")|$(q $db "SELECT epsilon_spent FROM dp.budgets WHERE dataset = 'dp_test repeatable read'")" \
   "5|1.0"
is "rr_counts holds one complete draw with the true margins" \
   "$(q $db "SELECT count(*) FROM rr_counts"; q $db "SELECT county, sum(n) FROM rr_counts GROUP BY 1 ORDER BY 1")" \
   "16
$true_margins"

is "no draw of one dataset was charged to another" \
   "$(q $db "SELECT dataset, count(*) FROM dp.draws GROUP BY 1 ORDER BY 1")" "dp_test pgbench|10
dp_test psql|7
dp_test repeatable read|5"

finish
