#!/usr/bin/env bash
# No name an attacker can shadow runs as another role. From the extension's
# own SQL (the install script, as scripts/build-sql writes it from src/sql/)
# and the SQL strings of its C shim (src/pg/*.c), this lists every function,
# aggregate, operator and type name they use; test/cluster/shadows.sql
# creates a look-alike of each in a schema an attacker owns, which notes
# every call made by a role other than the attackers. Then every dp.*
# function is called by each role the README gives an attacker (refresher,
# revoked refresher, analyst, role with CREATE on the database and public,
# non-superuser database owner) with that schema first in search_path, set
# for the session, by ALTER ROLE ... SET (a pg_cron job's role), by a
# function's SET clause, and by the database's owner with ALTER DATABASE ...
# SET, which also reaches the administrator's sessions and the draw workers:
# the administrator's own calls of every dp.* function follow. Not one
# look-alike may run as another role: the count (a sequence, which no
# rollback undoes) and the server log must show none. A check of the catalog
# backs it: every SQL or PL/pgSQL function of the extension either pins
# search_path or names each function and type it calls with its schema.
set -uo pipefail
source "$(dirname "$0")/common.bash"

db=dp_test_shadowing
attackers="dp_test_sh_refresher dp_test_sh_revoked dp_test_sh_analyst dp_test_sh_creator dp_test_sh_dbowner"
hostile='dp_test_shadow, pg_catalog, public'
work=$(mktemp -d)
on_exit "rm -rf $work"
for role in $attackers; do
  on_exit "drop_role $role"
  drop_role $role > /dev/null 2>&1
done
new_db $db || { fail "create database $db"; finish; }
# The test's own queries, immune to the search_path the database's owner sets below.
qh() { PGOPTIONS="-c search_path=pg_catalog,public" q "$@"; }
log=${DP_TEST_SERVER_LOG:-}; [ -n "$log" ] || log=$(pg_lsclusters -h | awk -v c="${DP_TEST_CLUSTER#*/}" '$2 == c { print $7 }')

setup="REVOKE ALL ON delinquents FROM PUBLIC;"
for role in $attackers; do
  setup+="CREATE ROLE $role LOGIN PASSWORD '$PGPASSWORD';"
done
ok "roles, releases, a stream and the grants of each attacker" quiet q $db "$setup
ALTER DATABASE $db OWNER TO dp_test_sh_dbowner;
GRANT CREATE ON DATABASE $db TO dp_test_sh_creator;
GRANT CREATE ON SCHEMA public TO dp_test_sh_creator, dp_test_sh_refresher;
CREATE TABLE open_counts AS SELECT county, edu, count(*)::bigint AS n FROM delinquents GROUP BY 1, 2;
CREATE TABLE open_visits AS SELECT (row_number() OVER ()) % 40 AS patient, county, edu FROM delinquents;
CREATE TABLE private_counts AS TABLE open_counts;
CREATE TABLE views (day date, visitor int);
INSERT INTO views SELECT DATE '2026-01-01' + i % 5, i % 30 FROM generate_series(1, 200) i;
GRANT SELECT ON open_counts, open_visits TO PUBLIC;
SELECT dp.set_budget('shadow', 1000000, 0.5);
SELECT dp.register_release('sh_counts', 'shadow', 'SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2',
    'county text, edu text, n bigint', 0.5, margins => '{county}', options => '{\"keys\": \"public\"}');
SELECT dp.register_release('sh_units', 'shadow', 'SELECT patient, county FROM (SELECT row_number() OVER () % 40 AS patient, county FROM delinquents) v',
    'county text, n bigint', 0.5, delta => 1e-6, privacy_unit => 'patient',
    bounds => '{\"max_groups_per_unit\": 2, \"max_rows_per_group\": 1}', options => '{\"partition_selection\": \"laplace\"}');
SELECT dp.register_release('sh_cascade', 'shadow', 'SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2',
    'county text, edu text, n float8', 0.5, 'cascade', delta => 1e-6, hierarchy => '{county,edu}',
    options => '{\"keys\": \"public\"}');
SELECT dp.register_stream('sh_stream', 'shadow', 'SELECT day, count(*) FROM views GROUP BY 1', 'day date, n float8', 0.5, 1e-6, 4);
SELECT dp.grant_release('sh_counts', 'dp_test_sh_analyst');
SELECT dp.grant_refresh(r, 'dp_test_sh_refresher') FROM unnest('{sh_counts,sh_units,sh_cascade,sh_stream}'::regclass[]) r;
SELECT dp.grant_refresh('sh_counts', 'dp_test_sh_revoked');
SELECT dp.revoke_refresh('sh_counts', 'dp_test_sh_revoked');" &&
  quiet q $db "SELECT dp.refresh_release('sh_stream')"

# --- every name the extension's SQL uses ---------------------------------------
# Identifiers before "(", operators and the names after "::" in the install
# script (comments dropped) and in the C shim's SQL strings; shadows.sql
# keeps those that name something of pg_catalog.
{ "$repo"/scripts/build-sql install | sed 's/--.*$//'
  grep -ohE '"(SELECT|INSERT|UPDATE|DELETE|WITH) [^"]*"' "$repo"/src/pg/*.c; } > "$work/code"
grep -oE '\b[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(' "$work/code" | sed -E 's/[[:space:]]*\($//' | tr A-Z a-z |
  sort -u | sed 's/.*/function\t&/' > "$work/names"
{ grep -oE "[-+*/<>=~!@#%^&|?]+" "$work/code"; printf '%s\n' '=' '<>' '<' '>' '<=' '>=' '~~' '!~~'; } |
  sort -u | sed 's/.*/operator\t&/' >> "$work/names"
{ grep -oE '::[[:space:]]*[A-Za-z_][A-Za-z0-9_]*' "$work/code" | sed -E 's/::[[:space:]]*//';
  grep -oE '^[[:space:]]+[a-z_]+ (text|regclass|regrole|float8|oid|name|jsonb|int8|int4|bool|regprocedure|regtype)\b' \
    "$work/code" | awk '{ print $2 }'; } | tr A-Z a-z | sort -u | sed 's/.*/type\t&/' >> "$work/names"
echo "# $(grep -c '^function' "$work/names") function names, $(grep -c '^operator' "$work/names") operators, $(grep -c '^type' "$work/names") type names in the extension's SQL"

shadows=$({ echo "\\set ON_ERROR_STOP on
SET ROLE dp_test_sh_creator; SET search_path = pg_catalog;
CREATE TEMP TABLE shadow_names(kind text, name text);
COPY shadow_names FROM STDIN;"
  cat "$work/names"; echo '\.'
  cat "$repo/test/cluster/shadows.sql"; } | psql -X -q -d $db 2>&1)
status=$?
echo "$shadows" | grep -E 'NOTICE|ERROR' | sed 's/^/# /'
ok "the attacker creates the look-alikes" test $status -eq 0
is "the look-alikes include format, count, = and regclass" \
   "$(q $db "SELECT count(DISTINCT proname) FROM pg_proc WHERE pronamespace = 'dp_test_shadow'::regnamespace
                    AND proname IN ('format', 'count')")$(
      q $db "SELECT count(*) > 10 FROM pg_operator WHERE oprnamespace = 'dp_test_shadow'::regnamespace AND oprname = '='")$(
      q $db "SELECT count(*) FROM pg_type WHERE typnamespace = 'dp_test_shadow'::regnamespace AND typname = 'regclass'")" \
   2t1
ok "the detector notes a look-alike run by another role" quiet q $db "
SET search_path = $hostile; SELECT format('%s', 'x'::pg_catalog.text);"
is "... and counts it" "$(q $db "SELECT last_value FROM dp_test_shadow.breaches")" 1
q $db "ALTER SEQUENCE dp_test_shadow.breaches RESTART" > /dev/null
log_start=$(wc -l < "$log")

# --- every dp.* function, called by each attacker ------------------------------
# One statement a line; most are refused (that is the point), none may run a
# look-alike as another role on the way.
cat > "$work/calls.sql" <<'SQL'
SELECT count(*) FROM dp.privatize('SELECT county, edu, n FROM open_counts', 1.0, margins => '{county,edu}', options => '{"sampler": "chain"}') AS t(county text, edu text, n bigint);
SELECT count(*) FROM dp.privatize('SELECT county, edu, n FROM open_counts', 1.0, 'cascade', 1e-6, hierarchy => '{county,edu}') AS t(county text, edu text, n float8);
SELECT count(*) FROM dp.privatize('SELECT patient, county FROM open_visits', 1.0, delta => 1e-6, privacy_unit => 'patient', bounds => '{"max_groups_per_unit": 2, "max_rows_per_group": 1}', options => '{"partition_selection": "laplace"}') AS t(county text, n bigint);
SELECT count(*) FROM dp.privatize('SELECT county, edu, n FROM open_counts', 1.0, domain => 'SELECT county, edu FROM open_counts') AS t(county text, edu text, n bigint);
SELECT dp.last_release() IS NOT NULL;
SELECT dp.check_request('integer_laplace', 1.0, NULL, '{county}', '{}', NULL, NULL, NULL);
SELECT count(*) FROM dp.diagnose('SELECT county, edu, n FROM open_counts', 1.0, 'integer_laplace', NULL, '{county,edu}', '{"iterations": 50}');
SELECT county, dp.noisy_count(1.0), dp.noisy_count(1.0, 1e-6) FROM open_visits GROUP BY county;
SELECT dp.total_preserving_count(n, 0.5) OVER (PARTITION BY county) FROM open_counts;
SELECT * FROM dp.cascade_range_variance('gaussian_cascade', '{4,4}', '{1,1,1}', '{}', 'NaN', 0, 3);
SELECT * FROM dp.range_variance_bounds(dp.last_release(), 0, 1);
SELECT dp.range_variance(dp.last_release(), 0, 1);
SELECT dp.source_relations('SELECT * FROM open_counts');
SELECT dp.source_functions('SELECT * FROM open_counts');
SELECT dp.check_source_objects('SELECT * FROM open_counts');
SELECT dp.check_source_protected('SELECT * FROM open_counts');
SELECT dp.column_list('county text, n bigint');
SELECT dp.trusted_search_path('public, dp_test_shadow');
SELECT dp.pinned_search_path();
SELECT dp.revoke_from_all_but_owner('sh_counts');
SELECT dp.pin_query('sh_counts', 'source', 'SELECT 1');
SELECT dp.pin_registered_source('sh_counts');
SELECT dp.set_budget('shadow', 2000000);
SELECT dp.release_table_name('{a,b}');
SELECT dp.create_release_table('sh_new', 'a text');
SELECT dp.check_release_registration('shadow', 'SELECT 1', 'a text', 1.0, 'integer_laplace', NULL, '{}', NULL, '{}', NULL, NULL, NULL);
SELECT dp.register_release('sh_new', 'shadow', 'SELECT county, n FROM private_counts', 'county text, n bigint', 1.0, options => '{"keys": "public"}');
SELECT dp.check_stream_registration('shadow', 'x', 'SELECT 1', 'a text', 1.0, 1e-6, 4, '{}', NULL, NULL);
SELECT dp.check_privacy_unit('patient', NULL);
SELECT dp.check_stream_table('sh_stream');
SELECT dp.register_stream('sh_new_stream', 'shadow', 'SELECT day, count(*) FROM views GROUP BY 1', 'day date, n float8', 0.5, 1e-6, 4);
SELECT dp.grant_release('sh_counts', current_user::regrole);
SELECT dp.grant_refresh('sh_counts', current_user::regrole);
SELECT dp.revoke_unused_draw_rights(current_user::regrole);
SELECT dp.revoke_refresh('sh_counts', 'dp_test_sh_refresher');
SELECT dp.drop_release('sh_cascade');
SELECT dp.release_columns('sh_counts');
SELECT count(*) FROM dp.privatize_as_owner('postgres', 'public', 'SELECT county, edu, n FROM private_counts', 1.0, 'integer_laplace', NULL, '{}', NULL, '{}', NULL, NULL, NULL) AS t(county text, edu text, n bigint);
SELECT dp.cascade_stream_variance(1.0, 1e-6, 4, 'replace_one');
SELECT dp.cascade_stream_range_variance(1.0, 0, 3);
SELECT * FROM dp.stream_append_as_owner('sh_stream', 'postgres', 'public', 'SELECT day, count(*) FROM views GROUP BY 1', '{}', NULL, 1.0, 4, NULL, NULL);
SELECT * FROM dp.check_draw('sh_counts', current_user::regrole, false);
SELECT * FROM dp.charge_draw('sh_counts', current_user::regrole, current_user::regrole, false);
SELECT dp.store_draw('sh_counts', 1);
SELECT * FROM dp.stream_draw_cost('sh_stream');
SELECT dp.store_stream_draw('sh_stream', 1, 'SELECT 1');
SELECT dp.note_failed_draw(1, '22003');
SELECT dp.check_release_objects('sh_counts', 'postgres', 'public', 'sh_counts', NULL);
SELECT dp.refresh_release('sh_counts');
SELECT dp.refresh_release('public.sh_units');
SELECT dp.refresh_release('sh_cascade');
SELECT dp.refresh_release('sh_stream');
SELECT dp.refresh_release('open_counts');
SELECT count(*) FROM dp.draw(NULL::sh_counts);
SELECT count(*) FROM dp.draw(NULL::sh_units);
CREATE MATERIALIZED VIEW sh_view AS SELECT * FROM dp.draw(NULL::sh_counts);
REFRESH MATERIALIZED VIEW sh_view;
DROP MATERIALIZED VIEW sh_view;
SELECT * FROM dp.release_cost('sh_counts');
SELECT * FROM dp.release_costs;
SELECT * FROM dp.stream_parameters;
SELECT dp.stream_range_variance('sh_stream', 0, 0);
SELECT count(*) FROM sh_counts;
SELECT * FROM dp.release_laws;
SELECT county, dp.margin_of_error(r, 0.9), dp.sum_variance(r), (dp.error_bar(r, 0.9)).variance_kind FROM sh_counts r GROUP BY county;
SELECT dp.margin_of_error(r, 0.9, l.noise_law), dp.sum_variance(r, l.noise_law), dp.error_bar(r, 0.9, l.noise_law) FROM sh_counts r, dp.release_laws l WHERE l.release = 'sh_counts'::regclass;
SELECT dp.sum_variance(r) FROM sh_stream r;
SQL
# The aggregates' support functions take internal arguments: SQL calls them
# only through dp.noisy_count and the error-bar aggregates.
missing=$(q $db "SELECT string_agg(DISTINCT proname, ' ') FROM pg_proc
                 WHERE pronamespace = 'dp'::regnamespace AND proname NOT LIKE 'noisy\_count\_%' AND proname <> 'privatize_support'
                   AND proname NOT LIKE 'error\_bar\_%' AND proname NOT IN ('margin_of_error_final', 'sum_variance_final')
                   AND strpos(\$calls\$$(cat "$work/calls.sql")\$calls\$, 'dp.' || proname || '(') = 0")
is "the calls cover every dp.* function" "$missing" ""

# run_as ROLE METHOD: the calls as ROLE, the look-alikes first in search_path by METHOD.
run_as() {
  local role=$1 method=$2
  case $method in
    session) { echo "SET search_path = $hostile;"; cat "$work/calls.sql"; } ;;
    role) cat "$work/calls.sql" ;;
    function) sed -E 's/^(.*);$/SELECT dp_test_shadow.run($call$\1$call$);/' "$work/calls.sql" ;;
  esac | PGUSER=$role psql -X -q -d $db > "$work/$role-$method.log" 2>&1
}
ok "a function whose SET clause puts the look-alikes first" quiet q $db "
SET ROLE dp_test_sh_creator;
CREATE FUNCTION dp_test_shadow.run(statement pg_catalog.text) RETURNS pg_catalog.void LANGUAGE plpgsql
SET search_path = $hostile AS \$\$
BEGIN
    EXECUTE statement;
EXCEPTION WHEN OTHERS THEN
    NULL;
END
\$\$;"

breaches() { qh $db "SELECT last_value - 1 + is_called::int FROM dp_test_shadow.breaches"; }
for role in $attackers; do
  for method in session role function; do
    [ $method = role ] && qh $db "ALTER ROLE $role SET search_path = $hostile" > /dev/null
    before=$(breaches)
    run_as $role $method
    [ $method = role ] && qh $db "ALTER ROLE $role RESET search_path" > /dev/null
    is "$role, search_path set by $method: no look-alike ran as another role" "$(( $(breaches) - before ))" 0
  done
done
is "the refresher drew its releases (the draws went all the way)" \
   "$(q $db "SELECT count(*) >= 9 FROM dp.draws WHERE drawn_by = 'dp_test_sh_refresher'")" t

# The database's owner puts the look-alikes first for every session of the
# database: the attackers', the draw workers' and the administrator's.
ok "the database's owner sets the database's search_path" quiet q $db "
SET ROLE dp_test_sh_dbowner; ALTER DATABASE $db SET search_path = $hostile;"
before=$(breaches)
for role in $attackers; do
  run_as $role role
done
is "database default: no look-alike ran as another role in the attackers' calls or their draws" "$(( $(breaches) - before ))" 0
is "draws under the database's search_path completed" \
   "$(qh $db "SELECT count(*) >= 12 FROM dp.draws WHERE drawn_by = 'dp_test_sh_refresher' AND note IS NULL")" t
# The administrator's calls name nothing a look-alike could take: what runs
# is the extension's own code.
before=$(breaches)
PGUSER=$PGUSER psql -X -q -d $db > "$work/admin.log" 2>&1 <<'SQL'
SELECT dp.set_budget('shadow admin', 100, 0.5);
SELECT dp.register_release('public.sh_admin', 'shadow admin', 'SELECT county, edu, n FROM public.private_counts', 'county pg_catalog.text, edu pg_catalog.text, n pg_catalog.int8', 1.0, margins => '{county}', domain => 'SELECT county, edu FROM public.private_counts', options => '{"keys": "public"}');
SELECT dp.register_stream('public.sh_admin_stream', 'shadow admin', 'SELECT day, visitor FROM public.views', 'day pg_catalog.date, n pg_catalog.float8', 0.5, 1e-6, 4, privacy_unit => 'visitor', bounds => '{"max_groups_per_unit": 2, "max_rows_per_group": 1}');
SELECT dp.grant_release('public.sh_admin', 'dp_test_sh_analyst');
SELECT dp.grant_refresh('public.sh_admin', 'dp_test_sh_revoked');
SELECT dp.refresh_release('public.sh_admin');
SELECT dp.refresh_release('public.sh_admin_stream');
SELECT * FROM dp.draw(NULL::public.sh_admin);
SELECT * FROM dp.release_cost('public.sh_admin');
SELECT dp.revoke_refresh('public.sh_admin', 'dp_test_sh_revoked');
SELECT dp.pin_registered_source('public.sh_admin');
SELECT dp.drop_release('public.sh_admin');
SELECT dp.drop_release('public.sh_admin_stream');
SQL
is "database default: no look-alike ran in the administrator's calls of the extension" "$(( $(breaches) - before ))" 0
grep -E 'ERROR' "$work/admin.log" | sed 's/^/# administrator: /'
ok "the administrator's calls succeeded" test "$(grep -c ERROR "$work/admin.log")" -eq 0
qh $db "SET ROLE dp_test_sh_dbowner; ALTER DATABASE $db RESET search_path" > /dev/null

# Look-alikes that run no code of the attacker's: an operator "=" on text
# bound to PostgreSQL's own textne, a collation "C" and a type "text" (a
# domain) in a schema of the database's owner, put first by the database's
# default search_path. The administrator's source names "=", "C" and
# "::text"; each resolves to the look-alike, and the registration is
# refused naming it, instead of pinning a source whose every draw counts
# the rows where edu <> 'Low'.
ok "the database's owner plants an operator, a collation and a type bound to PostgreSQL's own code" quiet qh $db "
SET ROLE dp_test_sh_dbowner;
CREATE SCHEMA dp_test_lookalike;
CREATE OPERATOR dp_test_lookalike.= (LEFTARG = pg_catalog.text, RIGHTARG = pg_catalog.text, FUNCTION = pg_catalog.textne);
CREATE COLLATION dp_test_lookalike.\"C\" FROM pg_catalog.\"POSIX\";
CREATE DOMAIN dp_test_lookalike.text AS pg_catalog.text;
ALTER DATABASE $db SET search_path = dp_test_lookalike, pg_catalog, public;"
register() {  # NAME WHERE: the administrator's registration of a release counting delinquents WHERE ...
  sqlstate_of $db "SELECT dp.register_release('public.$1', 'shadow admin',
      'SELECT county, count(*) FROM public.delinquents WHERE $2 GROUP BY 1',
      'county pg_catalog.text, n pg_catalog.int8', 1.0, options => '{\"keys\": \"public\"}')"
}
is "a source whose '=' is the look-alike operator is refused (42501)" "$(register sh_where_eq "edu = ''Low''")" 42501
is "a source whose collation \"C\" is the look-alike is refused (42501)" \
   "$(register sh_where_collate "edu COLLATE \"C\" >= ''Low''")" 42501
is "a source whose ::text is the look-alike domain is refused (42501)" \
   "$(register sh_where_cast "edu::text >= ''Low''")" 42501
is "nothing of the three was registered" \
   "$(qh $db "SELECT count(*) FROM dp.releases WHERE release::text LIKE '%sh_where%'")" 0
qh $db "SET ROLE dp_test_sh_dbowner; ALTER DATABASE $db RESET search_path" > /dev/null
is "with the database's search_path reset, the same source registers and binds PostgreSQL's =" \
   "$(register sh_where_eq "edu OPERATOR(pg_catalog.=) ''Low''")" ok

tail -n +$((log_start + 1)) "$log" | grep 'invariant_dp shadow .* ran as' > "$work/shadow-runs"
is "the server log shows no look-alike run by another role" "$(wc -l < "$work/shadow-runs")" 0
sed -E 's/^.*WARNING: +//' "$work/shadow-runs" | sort | uniq -c | head -20 | sed 's/^/# /'

# Every SQL or PL/pgSQL function of the extension pins search_path, or
# names what it calls with its schema: no function of pg_catalog called,
# no type cast to, without "pg_catalog." before it.
unqualified=$(qh $db "
SELECT string_agg(DISTINCT p.proname || ': ' || m[1], ', ')
FROM pg_proc p, regexp_matches(p.prosrc, '(?:^|[^.A-Za-z0-9_\"])([a-z_][a-z0-9_]*)\s*\(', 'g') m
WHERE p.pronamespace = 'dp'::regnamespace AND p.prolang IN (SELECT oid FROM pg_language WHERE lanname IN ('sql', 'plpgsql'))
  AND NOT coalesce(array_to_string(p.proconfig, ',') LIKE '%search_path=pg_catalog, pg_temp%', false)
  AND m[1] IN (SELECT proname FROM pg_proc WHERE pronamespace = 'pg_catalog'::regnamespace)
  AND m[1] NOT IN ('coalesce', 'exists', 'array', 'row', 'values', 'any', 'all', 'nullif', 'greatest', 'least')")
is "unpinned functions call nothing of pg_catalog unqualified" "$unqualified" ""
casts=$(qh $db "
SELECT string_agg(DISTINCT p.proname || ': ' || m[1], ', ')
FROM pg_proc p, regexp_matches(p.prosrc, '::\s*([a-z_][a-z0-9_]*)', 'g') m
WHERE p.pronamespace = 'dp'::regnamespace AND p.prolang IN (SELECT oid FROM pg_language WHERE lanname IN ('sql', 'plpgsql'))
  AND NOT coalesce(array_to_string(p.proconfig, ',') LIKE '%search_path=pg_catalog, pg_temp%', false)
  AND m[1] <> 'pg_catalog'")
is "unpinned functions cast to no unqualified type" "$casts" ""
finish
