#!/usr/bin/env bash
# sqlsmith against the extension, as the roles an attacker would hold: a
# non-superuser who may read demo tables, call every public dp.* function,
# read a governed release and refresh another. It generates random queries
# (random dp.* calls with random arguments among them) for IDP_FUZZ_SECONDS
# (default 30, to keep the test command within its time: the dp functions'
# own fuzzer, test/fuzz/dp_functions.sh, calls them with hostile arguments
# for 60 s; a longer run for a release: IDP_FUZZ_SECONDS=3600), each
# bounded by statement_timeout, and fails on any backend crash seen in the
# server log ("terminated by signal", PANIC), printing the last queries
# sqlsmith sent. Runs inside the cluster tests' throwaway cluster.
set -uo pipefail
source "$(dirname "$0")/../cluster/common.bash"

db=dp_test_fuzz
role=dp_test_fuzzer
seconds=${IDP_FUZZ_SECONDS:-30}
seed=${IDP_FUZZ_SEED:-$RANDOM}
work=$(mktemp -d)
on_exit "rm -rf $work"
on_exit "drop_role $role"
drop_role $role > /dev/null 2>&1
new_db $db || { fail "create database $db"; finish; }
log=$(server_log)

ok "a fuzzing role that reads demo tables, one governed release, and refreshes another" quiet q $db "
CREATE ROLE $role LOGIN PASSWORD '$PGPASSWORD';
ALTER ROLE $role SET statement_timeout = '2s';
ALTER ROLE $role SET dp.max_cells = 100000;
ALTER ROLE $role SET work_mem = '16MB';
GRANT SELECT ON delinquents TO $role;
CREATE TABLE protected AS SELECT * FROM delinquents;
REVOKE ALL ON protected FROM PUBLIC;
CREATE TABLE counts AS SELECT county, edu, count(*)::bigint AS n FROM delinquents GROUP BY 1, 2;
GRANT SELECT ON counts TO $role;
SELECT dp.set_budget('fuzz', 1000000);
SELECT dp.register_release('read_release', 'fuzz', 'SELECT county, edu, count(*) FROM protected GROUP BY 1, 2',
                           'county text, edu text, n bigint', 0.5, margins => '{county}', options => jsonb_build_object('keys', 'public'));
SELECT dp.register_release('drawn_release', 'fuzz', 'SELECT county, count(*) FROM protected GROUP BY 1',
                           'county text, n bigint', 0.5, 'integer_gaussian', delta => 1e-6, options => jsonb_build_object('keys', 'public'));
SELECT dp.grant_release('read_release', '$role');
SELECT dp.grant_refresh('drawn_release', '$role');
-- It may not stop its own connection or others': sqlsmith would lose the session.
REVOKE EXECUTE ON FUNCTION pg_terminate_backend(int, bigint), pg_cancel_backend(int) FROM PUBLIC;" &&
   quiet q $db "SELECT dp.refresh_release('read_release')"

ok "the server log is readable ($log)" test -r "$log"
# The detector must see a crash: one backend killed on purpose.
before=$(crash_lines "$log")
ok "the server recovers from the planted crash" plant_crash $db
is "the detector sees the planted crash" "$(( $(crash_lines "$log") - before ))" 1
crashes_before=$(crash_lines "$log")
statements_before=$(q $db "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = '$db'")
echo "# sqlsmith for $seconds s, seed $seed, as $role; server log $log"
timeout --kill-after=10 "$seconds" sqlsmith --target="host=$PGHOST port=$PGPORT dbname=$db user=$role password=$PGPASSWORD" \
  --seed="$seed" --exclude-catalog --dump-all-queries 2> "$work/errors" | tail -n 2000 > "$work/queries"
status=${PIPESTATUS[0]}
sleep 1
statements=$(( $(q $db "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = '$db'") - statements_before ))
crashes=$(( $(crash_lines "$log") - crashes_before ))
echo "# sqlsmith sent about $statements statements (exit status $status; 124 = stopped by the time limit)"
grep -oE '^[a-zA-Z ]+: [0-9]+' "$work/errors" | tail -3 | sed 's/^/# /'
ok "sqlsmith ran until its time limit (it stops early only if the server went away)" test "$status" -eq 124
is "no backend crashed (server log: terminated by signal, PANIC)" "$crashes" 0
if [ "$crashes" -ne 0 ]; then
  echo "# the last queries sqlsmith sent before the crash:"
  tail -n 60 "$work/queries" | sed 's/^/#   /'
  grep -E 'terminated by signal|PANIC' "$log" | tail -5 | sed 's/^/#   /'
fi
ok "the server still answers" quiet q $db "SELECT 1"
is "the governed release was never drawn without charge: spent = draws x 0.5" \
   "$(q $db "SELECT b.epsilon_spent = 0.5 * (SELECT count(*) FROM dp.draws WHERE epsilon > 0) FROM dp.budgets b WHERE dataset = 'fuzz'")" t
finish
