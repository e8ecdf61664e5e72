#!/usr/bin/env bash
# A scheduled refresh with pg_cron: a job refreshes a materialized view over
# dp.draw() every minute; the draw is charged and audited like any other,
# and the view holds a complete release. Needs the cluster started with
# shared_preload_libraries = 'pg_cron' (scripts/test does it); pg_cron runs
# jobs at minute boundaries, so this waits up to 90 s for the first run.
set -uo pipefail
source "$(dirname "$0")/common.bash"

db=dp_test_cron
if [ "$(q postgres "SHOW shared_preload_libraries")" != pg_cron ]; then
  fail "the cluster preloads pg_cron (shared_preload_libraries = '$(q postgres "SHOW shared_preload_libraries")')"
  finish
fi
new_db $db || { fail "create database $db"; finish; }
ok "pg_cron is installed in the scheduler's database" quiet q postgres "CREATE EXTENSION IF NOT EXISTS pg_cron"
on_exit "q postgres \"SELECT cron.unschedule('dp_test_refresh')\""

ok "a governed release and a materialized view over dp.draw()" quiet q $db "
SELECT dp.set_budget('dp_test cron', 1.0);
SELECT dp.register_release('county_edu', 'dp_test cron',
    source => 'SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2',
    columns => 'county text, edu text, n bigint', epsilon => 0.25, margins => '{county}', options => jsonb_build_object('keys', 'public'));
CREATE MATERIALIZED VIEW county_edu_nightly AS SELECT * FROM dp.draw(NULL::county_edu) WITH NO DATA;"
ok "the job is scheduled every minute in $db" quiet q postgres \
   "SELECT cron.schedule_in_database('dp_test_refresh', '* * * * *', 'REFRESH MATERIALIZED VIEW county_edu_nightly', '$db')"

start=$EPOCHREALTIME
draws=0
for _ in $(seq 1 90); do
  draws=$(q $db "SELECT count(*) FROM dp.draws")
  [ "$draws" -ge 1 ] && break
  sleep 1
done
echo "# first scheduled draw after $(since $start) s"
q postgres "SELECT cron.unschedule('dp_test_refresh')" > /dev/null
sleep 1   # a run that started meanwhile commits or fails before the checks
draws=$(q $db "SELECT count(*) FROM dp.draws")
ok "pg_cron drew the release" test "$draws" -ge 1
is "each scheduled draw is charged: epsilon_spent = 0.25 x draws" \
   "$(q $db "SELECT epsilon_spent = 0.25 * $draws FROM dp.budgets")" t
is "the view holds a complete release with the true county totals" \
   "$(q $db "SELECT string_agg(county || '=' || total, ',' ORDER BY county)
             FROM (SELECT county, sum(n) AS total FROM county_edu_nightly GROUP BY 1) t")" \
   "Alpha=20,Beta=55,Delta=35,Gamma=25"
is "pg_cron recorded the run as succeeded" \
   "$(q postgres "SELECT status FROM cron.job_run_details
                  WHERE database = '$db' AND command = 'REFRESH MATERIALIZED VIEW county_edu_nightly'
                  ORDER BY runid LIMIT 1")" succeeded
finish
