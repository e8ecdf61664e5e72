#!/usr/bin/env bash
# Apache Superset client test: an analyst charts governed releases in a real
# BI tool, with their error bars, checked in a real browser
# (docs/superset.md). As superuser: an analyst role with a password, three
# governed releases, each drawn once and granted to her (county x education
# counts with exact county totals; a stream of daily sign-ups; 1500 block
# counts, more than Superset's row limit here), and a role that can read the
# raw table (for what the docs say never to do). Then Superset, installed
# outside the repository by install-superset.sh from requirements.txt,
# starts on 127.0.0.1 with its metadata in a temporary directory
# (superset_config.py, superset_app.py), and drive_superset.py drives it as
# the analyst through its REST API and a headless Chromium (Debian's
# chromium and chromium-driver), printing TAP lines. Everything started is
# stopped at the end.
#
# DP_SUPERSET_PORT (8188) is Superset's port; DP_SUPERSET_VENV where it is
# installed (install-superset.sh); DP_SUPERSET_SCREENSHOT, if set, where the
# dashboard's picture is written (docs/superset-dashboard.png is one).
set -uo pipefail
source "$(dirname "$0")/../../cluster/common.bash"

here=$repo/test/client/superset
# What runs Superset and speaks to it (its install, configuration, app and
# REST client) is a tool the test uses, not a test: scripts/superset.
support=$repo/scripts/superset
db=dp_test_superset
analyst=dp_test_superset_analyst
password="dp_test_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
# A role that can read the raw table, for the one thing the docs say never
# to do (a dataset over dp.privatize), which the test pins down.
raw=dp_test_superset_raw
raw_password="dp_test_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
port=${DP_SUPERSET_PORT:-8188}
url=http://127.0.0.1:$port
row_limit=1000
state=$(mktemp -d)
on_exit "rm -rf $state"
on_exit "drop_role $analyst"
on_exit "drop_role $raw"
drop_role $analyst > /dev/null 2>&1
drop_role $raw > /dev/null 2>&1

host=$PGHOST
case $host in /*|'') host=localhost ;; esac   # a socket directory: Superset connects over TCP

new_db $db || { fail "create database $db"; finish; }
ok "set up the analyst, a role that reads the raw table, and three governed releases of two budgets" quiet q $db "
CREATE ROLE $analyst LOGIN PASSWORD '$password';
CREATE ROLE $raw LOGIN PASSWORD '$raw_password';
GRANT SELECT ON delinquents TO $raw;
SELECT dp.set_budget('dp_test superset survey', 1.0);
SELECT dp.register_release('county_edu_counts', 'dp_test superset survey',
    source => 'SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2',
    columns => 'county text, edu text, n bigint', epsilon => 0.25, margins => '{county}',
    options => '{\"keys\": \"public\"}');
CREATE TABLE blocks AS
    SELECT 'block ' || lpad(b::text, 4, '0') AS block, p AS person
    FROM generate_series(1, 1500) b, generate_series(1, 1 + b % 3) p;
SELECT dp.register_release('block_counts', 'dp_test superset survey',
    source => 'SELECT block, count(*) FROM blocks GROUP BY 1', columns => 'block text, n bigint',
    epsilon => 0.25, mechanism => 'discrete_laplace', options => '{\"keys\": \"public\"}');
CREATE TABLE sign_ups AS
    SELECT date '2026-03-01' + d AS day, u AS user_id
    FROM generate_series(0, 13) d, generate_series(1, 80 + 7 * (d % 7)) u;
SELECT dp.set_budget('dp_test superset sign-ups', epsilon => 1.0, delta => 1e-5);
SELECT dp.register_stream('daily_sign_ups', 'dp_test superset sign-ups',
    source => 'SELECT day, count(*) FROM sign_ups GROUP BY 1', columns => 'day date, n float8',
    epsilon => 0.5, delta => 1e-6, horizon => 5);
SELECT dp.grant_release(r, '$analyst') FROM unnest('{county_edu_counts,block_counts,daily_sign_ups}'::text[]) r;" &&
  ok "draw each release once" quiet q $db "
SELECT dp.refresh_release('county_edu_counts');
SELECT dp.refresh_release('block_counts');
SELECT dp.refresh_release('daily_sign_ups');"
[ "$tap_failed" -eq 0 ] || finish

# Superset, its browser and its port.
start=$EPOCHREALTIME
if ! venv=$("$support/install-superset.sh" 2> "$state/install.log"); then
  fail "install Superset (scripts/superset/install-superset.sh)"
  sed 's/^/#   /' "$state/install.log" | tail -20
  finish
fi
echo "# Superset's virtual environment: $venv (ready in $(since $start) s)"
# Python keeps the bytecode of what it imports under the environment's
# directory, not beside the repository's sources: later runs start faster
# (Superset loads in 7 s of CPU instead of 12).
export PYTHONPYCACHEPREFIX=$venv/pycache
unset PYTHONDONTWRITEBYTECODE
for program in ${DP_CHROMIUM:=/usr/bin/chromium} ${DP_CHROMEDRIVER:=/usr/bin/chromedriver}; do
  [ -x "$program" ] || { fail "$program is installed (scripts/install-deps test)"; finish; }
done
if (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null; then
  fail "port $port on 127.0.0.1 is free for Superset (something else listens there: set DP_SUPERSET_PORT)"
  finish
fi

export SUPERSET_CONFIG_PATH=$support/superset_config.py DP_SUPERSET_STATE=$state \
  DP_SUPERSET_TEMPLATE=$venv/metadata-template.db DP_SUPERSET_ROW_LIMIT=$row_limit \
  DP_SUPERSET_SECRET_KEY="$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')" \
  DP_SUPERSET_USER=analyst DP_SUPERSET_PASSWORD="superset_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" \
  DP_SUPERSET_URL=$url DP_ANALYST_ROLE=$analyst DP_ANALYST_PASSWORD=$password DP_ANALYST_HOST=$host \
  DP_RAW_ROLE=$raw DP_RAW_PASSWORD=$raw_password \
  DP_CHROMIUM DP_CHROMEDRIVER PGDATABASE=$db

# stop_group PID: stops the process group PID leads (SIGINT: gunicorn's quick
# shutdown), killing what is left after 10 s.
stop_group() {
  kill -INT -- "-$1" 2> /dev/null || return 0
  for _ in $(seq 1 40); do kill -0 -- "-$1" 2> /dev/null || break; sleep 0.25; done
  kill -KILL -- "-$1" 2> /dev/null
  wait "$1" 2> /dev/null
  # The group's other processes (gunicorn's worker holds the socket too) are
  # gone only once the kernel has reaped them: wait for that, up to 10 s.
  for _ in $(seq 1 40); do kill -0 -- "-$1" 2> /dev/null || break; sleep 0.25; done
}

# One worker: the metadata is prepared in it before it serves
# (superset_app.py); its first preparation takes about a minute, which the
# timeout allows. Its access log goes to superset.log too: a failure shows
# the requests around the login.
start=$EPOCHREALTIME
setsid "$venv/venv/bin/gunicorn" --access-logfile - --no-control-socket --workers 1 --threads 4 --timeout 300 \
  --bind "127.0.0.1:$port" --pythonpath "$support" 'superset_app:create()' > "$state/superset.log" 2>&1 &
superset=$!
on_exit "stop_group $superset"
health() { "$venv/venv/bin/python" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' "$url/health" 2> /dev/null; }
for _ in $(seq 1 240); do
  health && break
  kill -0 $superset 2> /dev/null || break
  sleep 1
done
if ! health; then
  if kill -0 $superset 2> /dev/null; then
    fail "Superset starts and answers on $url: no answer within 240 s; the end of its log:"
  else
    wait $superset
    fail "Superset starts and answers on $url: it exited with status $?; the end of its log:"
  fi
  grep -vE '^\s*$' "$state/superset.log" | tail -25 | sed 's/^/#   /'
  finish
fi
pass "Superset $("$venv/venv/bin/python" -c 'import importlib.metadata as m; print(m.version("apache-superset"))') starts and answers on $url (in $(since $start) s)"

# In this script's process group, so that a timeout's signal reaches the
# driver, its chromedriver and Chromium too.
start=$EPOCHREALTIME
PYTHONPATH=$support "$venv/venv/bin/python" -u "$here/drive_superset.py" 2>&1 | tee "$state/driver.tap"
status=${PIPESTATUS[0]}
echo "# the analyst's session ran in $(since $start) s"
driver_ok=$(grep -cE '^ok ' "$state/driver.tap")
driver_failed=$(grep -cE '^not ok ' "$state/driver.tap")
tap_passed=$((tap_passed + driver_ok))
tap_failed=$((tap_failed + driver_failed))
if [ $status -ne 0 ] && [ "$driver_failed" -eq 0 ]; then
  fail "drive_superset.py exited with status $status"
fi
if [ "$driver_failed" -gt 0 ]; then
  echo "# Superset's log, last lines:"
  grep -E 'ERROR|Traceback|Error' "$state/superset.log" | tail -15 | sed 's/^/#   /'
  echo "# Superset's requests around the login:"
  grep -E '"(GET|POST) /(login|superset/log|superset/welcome|api/v1/me)' "$state/superset.log" |
    cut -c1-160 | tail -20 | sed 's/^/#   /'
fi

stop_group $superset
ok "Superset is stopped: nothing listens on 127.0.0.1:$port" \
   bash -c "! (exec 3<> /dev/tcp/127.0.0.1/$port) 2> /dev/null"
finish
