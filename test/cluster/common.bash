# Shared helpers of the cluster and client tests (sourced, not run): TAP
# output, psql wrappers, and the clean-up every script registers.
#
# The scripts run inside an already started throwaway cluster: libpq's
# environment (PGHOST, PGPORT, PGUSER a superuser, PGPASSWORD) points at it and
# DP_TEST_CLUSTER names it for pg_ctlcluster (e.g. 15/regress). Everything a
# script creates is named dp_test_* and dropped by its trap.

export PGDATABASE=${PGDATABASE:-postgres}
export PGHOST=${PGHOST:-localhost}
export PGCONNECT_TIMEOUT=${PGCONNECT_TIMEOUT:-10}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tap_passed=0
tap_failed=0
cleanups=()

# ok DESCRIPTION COMMAND...: one TAP line, ok if the command succeeds.
ok() {
  local what=$1; shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}

# quiet COMMAND...: the command with its standard output discarded.
quiet() { "$@" > /dev/null; }

pass() { echo "ok - $1"; tap_passed=$((tap_passed + 1)); }
fail() { echo "not ok - $1"; tap_failed=$((tap_failed + 1)); }

# is DESCRIPTION GOT EXPECTED: ok if the two strings are equal; shows both otherwise.
is() {
  if [ "$2" == "$3" ]; then
    pass "$1"
  else
    fail "$1"
    printf '#   got:      %s\n#   expected: %s\n' "${2//$'\n'/$'\n#             '}" "${3//$'\n'/$'\n#             '}"
  fi
}

# isnt DESCRIPTION GOT UNEXPECTED: ok if the two strings differ.
isnt() {
  if [ "$2" != "$3" ]; then pass "$1"; else fail "$1"; printf '#   both: %s\n' "$2"; fi
}

# q DB SQL: runs SQL in DB, prints unaligned tuples; errors go to stderr.
q() {
  local db=$1; shift
  psql -X -q -A -t -v ON_ERROR_STOP=1 -d "$db" -c "$@"
}

# sqlstate_of DB SQL [ROLE]: the SQLSTATE SQL fails with ("ok" if it does not fail).
sqlstate_of() {
  local db=$1 sql=$2 role=${3:-} out
  [ -n "$role" ] && sql="SET ROLE $role; $sql"
  out=$(psql -X -q -A -t -v ON_ERROR_STOP=1 -v VERBOSITY=sqlstate -d "$db" -c "$sql" 2>&1 >/dev/null)
  if [ $? -eq 0 ]; then echo ok; else grep -oE 'ERROR: +[0-9A-Z]{5}' <<<"$out" | tail -1 | grep -oE '[0-9A-Z]{5}$'; fi
}

# on_exit COMMAND: run at exit, last registered first.
on_exit() { cleanups=("$1" "${cleanups[@]}"); }
run_cleanups() {
  local c
  for c in "${cleanups[@]}"; do eval "$c" > /dev/null 2>&1 || true; done
}
trap run_cleanups EXIT
trap "exit 143" TERM INT

# drop_db DB / drop_role ROLE: quiet, forced, idempotent.
drop_db() { psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)"; }
drop_role() {
  psql -X -q -d postgres -c "DROP ROLE IF EXISTS $1"
}

# new_db DB: a fresh database with the extension and the demo table
# delinquents (4 counties x 4 education levels, 135 rows), dropped at exit.
new_db() {
  drop_db "$1" > /dev/null 2>&1
  on_exit "drop_db $1"
  psql -X -q -d postgres -c "CREATE DATABASE $1" &&
  { echo 'CREATE EXTENSION invariant_dp;'; cat "$repo/demo/delinquents.sql"; } |
    psql -X -q -v ON_ERROR_STOP=1 -d "$1" > /dev/null
}

# The true county margins of the demo table, "county|total" lines.
true_margins='Alpha|20
Beta|55
Delta|35
Gamma|25'

# since START: seconds elapsed since START (an $EPOCHREALTIME), one decimal.
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

# finish: a summary comment, exit status 1 if any assertion failed.
finish() {
  echo "# $tap_passed passed, $tap_failed failed"
  [ "$tap_failed" -eq 0 ]
  exit
}

# cluster_ctl ACTION [ARGS]: pg_ctlcluster on $DP_TEST_CLUSTER (version/name).
cluster_ctl() {
  local action=$1; shift
  pg_ctlcluster "${DP_TEST_CLUSTER%%/*}" "${DP_TEST_CLUSTER#*/}" "$action" "$@"
}

# wait_ready: until the server accepts connections (30 s at most).
wait_ready() {
  local i
  for i in $(seq 1 60); do
    psql -X -q -A -t -d postgres -c 'SELECT 1' > /dev/null 2>&1 && return 0
    sleep 0.5
  done
  return 1
}

# server_log: the file the server logs to: $DP_TEST_SERVER_LOG, else the one
# pg_lsclusters names for $DP_TEST_CLUSTER.
server_log() {
  if [ -n "${DP_TEST_SERVER_LOG:-}" ]; then
    echo "$DP_TEST_SERVER_LOG"
  else
    pg_lsclusters -h | awk -v c="${DP_TEST_CLUSTER#*/}" '$2 == c { print $7 }'
  fi
}

# crash_lines LOG: the backend crashes LOG records so far (terminated by signal, PANIC).
crash_lines() { grep -cE 'terminated by signal|PANIC' "$1"; }

# plant_crash DB: kills one backend of DB with SIGKILL, which makes the
# postmaster restart every backend as a crash does, and waits for the server
# to answer again; so a fuzzer's crash detector can be shown to see one.
plant_crash() {
  local db=$1 sleeper victim i
  psql -X -q -d "$db" -c "SELECT pg_sleep(60)" > /dev/null 2>&1 &
  sleeper=$!
  for i in $(seq 1 50); do
    victim=$(q "$db" "SELECT pid FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(60)'")
    [ -n "$victim" ] && break
    sleep 0.1
  done
  kill -9 "$victim" 2> /dev/null
  wait $sleeper 2> /dev/null
  wait_ready
}
