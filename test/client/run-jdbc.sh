#!/usr/bin/env bash
# JDBC client test: as superuser, an analyst role with a password, a budget
# allowing four draws, a governed release over the demo table (one draw), the
# release granted to the analyst with EXECUTE on dp.refresh_release; then
# ReleaseClient.java (compiled against Debian's pgjdbc) connects as the
# analyst over TCP like a BI tool, reads the release with the margins of
# error of its sums, spends the budget, and prints TAP lines. Afterwards the
# superuser checks what the client spent.
set -uo pipefail
source "$(dirname "$0")/../cluster/common.bash"

db=dp_test_jdbc
analyst=dp_test_jdbc_analyst
password="dp_test_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
jar=${DP_TEST_JDBC_JAR:-/usr/share/java/postgresql.jar}
classes=$(mktemp -d)
on_exit "rm -rf $classes"
on_exit "drop_role $analyst"
drop_role $analyst > /dev/null 2>&1
new_db $db || { fail "create database $db"; finish; }

ok "set up the analyst, the budget and the release (one draw)" quiet q $db "
CREATE ROLE $analyst LOGIN PASSWORD '$password';
SELECT dp.set_budget('dp_test jdbc survey', 1.0);
SELECT dp.register_release('county_edu_counts', 'dp_test jdbc survey',
    source => 'SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2',
    columns => 'county text, edu text, n bigint', epsilon => 0.25, margins => '{county}', options => jsonb_build_object('keys', 'public'));
SELECT dp.grant_release('county_edu_counts', '$analyst');
SELECT dp.grant_refresh('county_edu_counts', '$analyst');" &&
  quiet q $db "SELECT dp.refresh_release('county_edu_counts') > 0"
# A fixed seed is a secret: it may not be stored where every role can read it.
# Refused in a session that has loaded invariant_dp (any C function of it does).
store_seed="ALTER ROLE CURRENT_USER IN DATABASE $db SET dp.seed = '20261122'"
is "ALTER ROLE ... SET dp.seed is refused once the library is loaded (22023: pg_db_role_setting is public)" \
   "$(sqlstate_of $db "SELECT dp.check_request('integer_laplace', 1.0); $store_seed")" 22023
margins=$(q $db "SELECT string_agg(county || '=' || n, ',' ORDER BY county)
                 FROM (SELECT county, count(*) AS n FROM delinquents GROUP BY 1) t")

ok "javac ReleaseClient.java against $jar" \
   javac -d "$classes" -cp "$jar" "$(dirname "$0")/ReleaseClient.java"

host=$PGHOST
case $host in /*|'') host=localhost ;; esac   # a socket directory: JDBC needs TCP
url="jdbc:postgresql://$host:${PGPORT:-5432}/$db"
echo "# $url as $analyst"
start=$EPOCHREALTIME
java -cp "$classes:$jar" ReleaseClient "$url" $analyst "$password" county_edu_counts delinquents "$margins" 3
status=$?
echo "# java client ran in $(since $start) s"
ok "the Java client exited with status 0" test $status -eq 0

# In a session that has not loaded the library yet, dp.seed is a placeholder
# PostgreSQL cannot check, so ALTER ROLE stores it; the library then refuses
# to use it: sessions that load it warn and draw from the OS CSPRNG, so the
# stored value seeds nothing (two sessions draw differently).
q $db "$store_seed" > /dev/null 2>&1
draw_twice="SELECT string_agg(n::text, ',' ORDER BY county) FROM dp.privatize(
    'SELECT county, count(*) FROM delinquents GROUP BY 1', 1.0, 'discrete_laplace') AS t(county text, n bigint)"
first=$(q $db "$draw_twice" 2>/dev/null)
second=$(q $db "$draw_twice" 2>/dev/null)
warned=$(psql -X -q -A -t -d $db -c "SELECT dp.check_request('integer_laplace', 1.0)" 2>&1 | grep -c 'invalid value for parameter "dp.seed"')
is "a dp.seed stored before the library loaded is refused when it loads (a warning in each session)" "$warned" 1
isnt "... and seeds nothing: two sessions with it draw differently" "$first" "$second"
q $db "ALTER ROLE CURRENT_USER IN DATABASE $db RESET dp.seed" > /dev/null 2>&1

is "the server saw the client's refreshes: 4 draws audited, drawn by the analyst" \
   "$(q $db "SELECT drawn_by, count(*) FROM dp.draws GROUP BY 1 ORDER BY 1")" "$analyst|3
postgres|1"
is "the budget is spent exactly (1.00 of 1.0)" \
   "$(q $db "SELECT epsilon_spent, epsilon_total FROM dp.budgets")" "1.00|1.0"
finish
