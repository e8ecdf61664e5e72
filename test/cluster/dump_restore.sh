#!/usr/bin/env bash
# The extension's catalog survives pg_dump -Fc / pg_restore into a new
# database (pg_extension_config_dump): budgets with what they have spent,
# registered releases whose regclass resolves to the restored tables, the
# audit log and its sequence, the release tables with their draws and grants.
# A refresh in the restored database is charged on the restored budget.
# A dump of a database still at 0.2.0 (the first version with the catalog)
# restores onto the current default version. Last, a database with a
# populated materialized view over dp.draw(): pg_restore replays its REFRESH,
# which must restore the stored draw, not draw and charge a new one. The
# restore is recognised by the release table's new oid, not by anything a
# session can set.
set -uo pipefail
source "$(dirname "$0")/common.bash"

db=dp_test_dump
restored=dp_test_restored
dump=$(mktemp -d)/dp_test.dump
on_exit "rm -rf $(dirname "$dump")"
on_exit "drop_role dp_test_dump_analyst"
drop_role dp_test_dump_analyst > /dev/null 2>&1
new_db $db || { fail "create database $db"; finish; }
drop_db $restored > /dev/null 2>&1
on_exit "drop_db $restored"
old_db=dp_test_dump_old
old_restored=dp_test_restored_old
drop_db $old_restored > /dev/null 2>&1
on_exit "drop_db $old_restored"
mv_db=dp_test_dump_mv
mv_restored=dp_test_restored_mv
drop_db $mv_restored > /dev/null 2>&1
on_exit "drop_db $mv_restored"

q $db "
CREATE ROLE dp_test_dump_analyst;
CREATE SCHEMA releases;
SELECT dp.set_budget('dp_test survey', 1.0);
SELECT dp.set_budget('dp_test unused', 2.5, 0.001);
SELECT dp.register_release('releases.county_edu', 'dp_test survey',
    source => 'SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2',
    columns => 'county text, edu text, n bigint', epsilon => 0.25, margins => '{county}', options => jsonb_build_object('keys', 'public'));
SELECT dp.register_release('county_gauss', 'dp_test survey',
    source => 'SELECT county, count(*) FROM delinquents GROUP BY 1',
    columns => 'county text, n bigint', epsilon => 0.1, mechanism => 'integer_gaussian', delta => 1e-6, options => jsonb_build_object('keys', 'public'));
SELECT dp.grant_release('releases.county_edu', 'dp_test_dump_analyst');
GRANT USAGE ON SCHEMA releases TO dp_test_dump_analyst;
SELECT dp.register_release('dropped_counts', 'dp_test unused',
    source => 'SELECT county, count(*) FROM delinquents GROUP BY 1', columns => 'county text, n bigint', epsilon => 0.5, options => jsonb_build_object('keys', 'public'));" \
  > /dev/null && q $db "
SELECT dp.refresh_release('releases.county_edu');
SELECT dp.refresh_release('releases.county_edu');
SELECT dp.refresh_release('dropped_counts');
SELECT dp.drop_release('dropped_counts');" > /dev/null || fail "set up budgets, a release with two draws and a dropped one"

# Snapshots of everything that must survive, as text.
catalog() {
  q "$1" "SELECT dataset, epsilon_total, delta_total, epsilon_spent, delta_spent FROM dp.budgets ORDER BY 1"
  q "$1" "SELECT release::text, dataset, owner::text, source, mechanism, epsilon, delta, margins, options
          FROM dp.releases ORDER BY 1"
  q "$1" "SELECT draw_id, release::text, dataset, drawn_by, drawn_at, epsilon, margins, noise_law, cells
          FROM dp.draws ORDER BY 1"
}
content() { q "$1" "SELECT county, edu, n FROM releases.county_edu ORDER BY 1, 2"; }
before_catalog=$(catalog $db)
before_content=$(content $db)
is "before the dump: two draws, 0.50 spent" \
   "$(q $db "SELECT count(*) FROM dp.draws WHERE dataset = 'dp_test survey'")|$(q $db "SELECT epsilon_spent FROM dp.budgets WHERE dataset = 'dp_test survey'")" "2|0.50"

ok "pg_dump -Fc" pg_dump -Fc -f "$dump" $db
ok "createdb and pg_restore into a new database" \
   eval "psql -X -q -d postgres -c 'CREATE DATABASE $restored' && pg_restore --exit-on-error -d $restored '$dump'"

is "the restored extension has the dumped version" \
   "$(q $restored "SELECT extversion FROM pg_extension WHERE extname = 'invariant_dp'")" \
   "$(q $db "SELECT extversion FROM pg_extension WHERE extname = 'invariant_dp'")"
is "dp.budgets rows survive with what they spent" \
   "$(q $restored "SELECT dataset, epsilon_spent, epsilon_total, delta_total FROM dp.budgets ORDER BY 1")" \
   "dp_test survey|0.50|1.0|0
dp_test unused|0.5|2.5|0.001"
is "dp.releases, dp.budgets and dp.draws are identical (as text)" "$(catalog $restored)" "$before_catalog"
is "the audit log still has the two draws, and the draw of the dropped release" \
   "$(q $restored "SELECT dataset, count(*) FROM dp.draws GROUP BY 1 ORDER BY 1")" "dp_test survey|2
dp_test unused|1"
echo "# the dropped release's audit row names it as: $(q $restored "SELECT release FROM dp.draws WHERE dataset = 'dp_test unused'")"
is "each release's regclass resolves to its restored table" \
   "$(q $restored "SELECT string_agg(format('%s=%s', release, release = to_regclass(release::text)
                                             AND release::oid IN (SELECT oid FROM pg_class)), ',' ORDER BY release::text)
                   FROM dp.releases")" \
   "county_gauss=t,releases.county_edu=t"
is "the release table's content is identical" "$(content $restored)" "$before_content"
is "the analyst's grant on the release survives" \
   "$(q $restored "SELECT has_table_privilege('dp_test_dump_analyst', 'releases.county_edu', 'SELECT'),
                          has_table_privilege('dp_test_dump_analyst', 'delinquents', 'SELECT')")" "t|f"
is "release_cost reads the restored budget: 0.50 left, 2 draws" \
   "$(q $restored "SELECT epsilon_remaining, draws_remaining FROM dp.release_cost('releases.county_edu')")" "0.50|2"

draw=$(q $restored "SELECT dp.refresh_release('releases.county_edu')")
ok "a new refresh in the restored database works (draw $draw)" test -n "$draw"
is "its audit id continues the restored sequence" \
   "$(q $restored "SELECT $draw > max(draw_id) FILTER (WHERE draw_id <> $draw) FROM dp.draws")" t
is "and it is charged on the restored budget: 0.75 spent, 3 draws" \
   "$(q $restored "SELECT epsilon_spent FROM dp.budgets WHERE dataset = 'dp_test survey'")|$(q $restored "SELECT count(*) FROM dp.draws WHERE dataset = 'dp_test survey'")" \
   "0.75|3"
is "the new draw keeps the true margins" \
   "$(q $restored "SELECT county, sum(n) FROM releases.county_edu GROUP BY 1 ORDER BY 1")" "$true_margins"
is "the original database is untouched by it (0.50 spent)" \
   "$(q $db "SELECT epsilon_spent FROM dp.budgets WHERE dataset = 'dp_test survey'")" 0.50
q $restored "SELECT dp.refresh_release('releases.county_edu')" > /dev/null
is "the restored budget still stops at its total (53Z01 on the 5th draw)" \
   "$(sqlstate_of $restored "SELECT dp.refresh_release('releases.county_edu')")" 53Z01

# --- a dump of a 0.2.0 database, restored with the default version -----------
drop_db $old_db > /dev/null 2>&1
on_exit "drop_db $old_db"
# (Today's library refuses the draws of SQL older than 0.4.0, so the 0.2.0
# database has a release and a spent budget but draws nothing itself.)
ok "a database at invariant_dp 0.2.0 with a release and 0.25 spent" eval "
  psql -X -q -d postgres -c 'CREATE DATABASE $old_db' &&
  { echo \"CREATE EXTENSION invariant_dp VERSION '0.2.0';\"; cat '$repo/demo/delinquents.sql'; echo \"
    SELECT dp.set_budget('dp_test old', 1.0);
    SELECT dp.register_release('old_counts', 'dp_test old',
        source => 'SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2',
        columns => 'county text, edu text, n bigint', epsilon => 0.25, margins => '{county}', options => jsonb_build_object('keys', 'public'));
    UPDATE dp.budgets SET epsilon_spent = 0.25;\"; } | psql -X -q -v ON_ERROR_STOP=1 -d $old_db > /dev/null"
ok "pg_dump -Fc of it and pg_restore --exit-on-error into a new database" eval "pg_dump -Fc -f '$dump.old' $old_db &&
   psql -X -q -d postgres -c 'CREATE DATABASE $old_restored' && pg_restore --exit-on-error -d $old_restored '$dump.old'"
is "the restored extension has the default version" \
   "$(q $old_restored "SELECT extversion = default_version FROM pg_extension JOIN pg_available_extensions ON name = extname
                       WHERE extname = 'invariant_dp'")" t
is "its catalog rows survive: 0.25 spent, no draw, the release resolves" \
   "$(q $old_restored "SELECT epsilon_spent FROM dp.budgets")|$(q $old_restored "SELECT count(*) FROM dp.draws")|$(q $old_restored "SELECT release = 'old_counts'::regclass FROM dp.releases")" \
   "0.25|0|t"
is "its source, registered before sources were pinned, refuses to draw (55000)" \
   "$(sqlstate_of $old_restored "SELECT dp.refresh_release('old_counts')")" 55000
is "once an administrator pins it, it refreshes, charged on the restored budget" \
   "$(q $old_restored "SELECT dp.pin_registered_source('old_counts') IS NOT NULL";
      q $old_restored "SELECT dp.refresh_release('old_counts') > 0"; q $old_restored "SELECT epsilon_spent FROM dp.budgets")" "t
t
0.50"

# --- a materialized view over the release --------------------------------------
new_db $mv_db || fail "create database $mv_db"
ok "a release with a populated materialized view over dp.draw() (one draw)" quiet q $mv_db "
SELECT dp.set_budget('dp_test mv', 1.0);
SELECT dp.register_release('mv_release', 'dp_test mv',
    source => 'SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2',
    columns => 'county text, edu text, n bigint', epsilon => 0.25, margins => '{county}', options => jsonb_build_object('keys', 'public'));" &&
  q $mv_db "CREATE MATERIALIZED VIEW mv_counts AS SELECT * FROM dp.draw(NULL::mv_release);"
ok "pg_dump -Fc and pg_restore of it" eval "pg_dump -Fc -f '$dump.mv' $mv_db &&
   psql -X -q -d postgres -c 'CREATE DATABASE $mv_restored' && pg_restore -d $mv_restored '$dump.mv'"
mv_state() {
  q "$1" "SELECT epsilon_spent FROM dp.budgets"
  q "$1" "SELECT count(*) FROM dp.draws WHERE epsilon > 0"
  q "$1" "SELECT md5(string_agg(format('%s,%s,%s', county, edu, n), ';' ORDER BY county, edu)) FROM mv_release"
}
is "restoring does not draw again: same budget spent, same draws, same release content" \
   "$(mv_state $mv_restored)" "$(mv_state $mv_db)"
is "the replayed refresh is audited as a restore that charged nothing" \
   "$(q $mv_restored "SELECT count(*), sum(epsilon) FROM dp.draws WHERE note LIKE 'restored:%'")" "1|0"
is "the materialized view holds the restored draw" \
   "$(q $mv_restored "SELECT count(*) FROM (SELECT * FROM mv_counts EXCEPT SELECT * FROM mv_release) d")" 0
is "the next refresh of the view draws and charges again" \
   "$(q $mv_restored "REFRESH MATERIALIZED VIEW mv_counts; SELECT epsilon_spent FROM dp.budgets")" 0.50

finish
