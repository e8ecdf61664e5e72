#!/usr/bin/env bash
# A targeted fuzzer of every public dp.* function (test/fuzz/dp_fuzz.py),
# as a role an attacker would hold: a non-superuser who may call them, read
# the fuzzing tables, and refresh governed releases and streams whose
# sources hold counts near 2^63. It sends calls with hostile arguments for
# IDP_DP_FUZZ_SECONDS (default 60, to keep the test command within its
# time; for a release, IDP_DP_FUZZ_SECONDS=3600), from IDP_DP_FUZZ_SEED
# (default 1, printed; another seed explores other calls), each bounded by
# statement_timeout, and fails on a backend crash in the server log
# ("terminated by signal", PANIC), on any internal error (XX000), on a
# statement that ends more than a second after its statement_timeout and on a
# lost connection, printing the statement that did it. Runs inside the
# cluster tests' throwaway cluster (DP_TEST_SERVER_LOG names its log when
# pg_lsclusters does not know it).
set -uo pipefail
source "$(dirname "$0")/../cluster/common.bash"

db=dp_test_dp_fuzz
role=dp_test_dp_fuzzer
seconds=${IDP_DP_FUZZ_SECONDS:-60}
seed=${IDP_DP_FUZZ_SEED:-1}
work=$(mktemp -d)
chmod 755 "$work"
on_exit "rm -rf $work"
on_exit "drop_role $role"
drop_role $role > /dev/null 2>&1
new_db $db || { fail "create database $db"; finish; }
log=$(server_log)

# Governed releases and streams over counts near 2^63, for the role to
# refresh: the draws run as their owner on sources the role cannot read.
ok "a fuzzing role that may call every dp function and refresh releases over huge counts" quiet q $db "
CREATE ROLE $role LOGIN PASSWORD '${PGPASSWORD:-}';
ALTER ROLE $role SET statement_timeout = '2s';
ALTER ROLE $role SET dp.max_cells = 100000;
ALTER ROLE $role SET work_mem = '16MB';
GRANT SELECT ON delinquents TO $role;
CREATE TABLE huge_counts AS
  SELECT a, b, n FROM (VALUES (1, 1, 9223372036854775807), (1, 2, 4611686018427387904), (2, 1, 1), (2, 2, 0))
  v(a, b, n);
CREATE TABLE huge_days AS
  SELECT d::date AS day, (CASE WHEN d = '2026-01-02' THEN 9223372036854775807 ELSE 4611686018427387904 END)::bigint AS n
  FROM generate_series('2026-01-01'::date, '2026-01-04', '1 day') d;
CREATE TABLE unit_days AS SELECT u, ('2026-01-01'::date + u % 3) AS day FROM generate_series(1, 50) u;
REVOKE ALL ON huge_counts, huge_days, unit_days FROM PUBLIC;
SELECT dp.set_budget('fuzz', 1e12);
SELECT dp.register_release('fuzz_huge', 'fuzz', 'SELECT a, b, n FROM huge_counts', 'a int, b int, n bigint', 1.0,
                           'congenial', margins => '{a,b}', options => jsonb_build_object('keys', 'public'));
SELECT dp.register_stream('fuzz_stream', 'fuzz', 'SELECT day, n FROM huge_days', 'day date, n float8',
                          0.5, 1e-6, horizon => 3);
SELECT dp.register_stream('fuzz_unit_stream', 'fuzz', 'SELECT u, day FROM unit_days', 'day date, n float8',
                          0.5, 1e-6, horizon => 62, privacy_unit => 'u',
                          bounds => '{\"max_groups_per_unit\": 1000000, \"max_rows_per_group\": 1000}');
SELECT dp.grant_refresh('fuzz_huge', '$role');
SELECT dp.grant_refresh('fuzz_stream', '$role');
SELECT dp.grant_refresh('fuzz_unit_stream', '$role');
-- It may not stop its own connection or others': a lost connection must mean a crash.
REVOKE EXECUTE ON FUNCTION pg_terminate_backend(int, bigint), pg_cancel_backend(int) FROM PUBLIC;"

ok "the server log is readable ($log)" test -r "$log"
# The detector must see a crash: one backend killed on purpose.
before=$(crash_lines "$log")
ok "the server recovers from the planted crash" plant_crash $db
is "the detector sees the planted crash" "$(( $(crash_lines "$log") - before ))" 1

crashes_before=$(crash_lines "$log")
echo "# dp function fuzzer for $seconds s, seed $seed (IDP_DP_FUZZ_SEED), as $role; server log $log"
dsn="host=$PGHOST port=$PGPORT dbname=$db user=$role"
[ -n "${PGPASSWORD:-}" ] && dsn="$dsn password=$PGPASSWORD"
timeout --kill-after=10 $((${seconds%.*} + 30)) /usr/bin/python3 "$(dirname "$0")/dp_fuzz.py" --dsn "$dsn" \
  --seconds "$seconds" --seed "$seed" --summary "$work/summary" --statements "$work/statements" | tee "$work/out"
status=${PIPESTATUS[0]}
sleep 1
crashes=$(( $(crash_lines "$log") - crashes_before ))
summary() { sed -n "s/^$1=//p" "$work/summary" 2> /dev/null; }
echo "# sent $(summary statements) statements"
ok "the fuzzer ran to its time limit (exit status $status)" test "$status" -eq 0 -a -s "$work/summary"
is "no backend crashed (server log: terminated by signal, PANIC)" "$crashes" 0
is "no statement lost its connection" "$(summary lost)" 0
is "no statement raised an internal error (XX000)" "$(summary internal)" 0
is "no statement ended more than a second after its statement_timeout" "$(summary late)" 0
if [ "$crashes" -ne 0 ] || [ "$(summary lost)" != 0 ]; then
  echo "# the last statements sent before the crash:"
  tail -n 3 "$work/statements" | cut -c 1-2000 | sed 's/^/#   /'
  grep -E 'terminated by signal|PANIC' "$log" | tail -5 | sed 's/^/#   /'
fi
wait_ready
ok "the server still answers" quiet q $db "SELECT 1"
is "no draw of a governed release went uncharged: spent = draws charged" \
   "$(q $db "SELECT round(b.epsilon_spent, 6) = round((SELECT coalesce(sum(epsilon), 0) FROM dp.draws
                                                        WHERE dataset = 'fuzz')::numeric, 6)
             FROM dp.budgets b WHERE dataset = 'fuzz'")" t
finish
