#!/usr/bin/env bash
# Sources beyond one table. Two more local clusters act as shards (created
# here, dropped at exit: dp_test_shard1_PORT, dp_test_shard2_PORT), each holding
# two counties of a person-level table (the demo rows); on the main cluster a
# partitioned table whose partitions are postgres_fdw foreign tables on them.
# With enable_partitionwise_aggregate the source's GROUP BY runs on the shards
# (EXPLAIN VERBOSE, and auto_explain of the query dp.privatize itself runs,
# show "Remote SQL" with GROUP BY for both); the release, ad hoc and governed,
# has every cell and the true margins as counted on the shards. Last,
# dp.noisy_count gets a parallel plan (Gather, Partial Aggregate) on a local
# table with forced parallel settings, and its counts combine correctly.
set -uo pipefail
source "$(dirname "$0")/common.bash"

db=dp_test_shards
version=${DP_TEST_CLUSTER:-}; version=${version%%/*}
[ -n "$version" ] || version=$(psql -X -A -t -d postgres -c 'SHOW server_version_num' | cut -c1-2)
shard_password="dp_test_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
# Named after the main cluster's port, so runs against two clusters at once do not clash.
shards=(dp_test_shard1_${PGPORT:-5432} dp_test_shard2_${PGPORT:-5432})
shard_counties=("'Alpha', 'Beta'" "'Gamma', 'Delta'")

# free_port FIRST: sets $port to a port from FIRST on that no cluster is
# configured for and nothing listens on (nor was handed out before).
used_ports=" $(pg_lsclusters -h | awk '{print $3}' | tr '\n' ' ') "
free_port() {
  port=$1
  while [[ $used_ports == *" $port "* ]] || (exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null; do
    port=$((port + 1))
  done
  used_ports+="$port "
}

# shard_sql I SQL: runs SQL on shard I as its superuser (peer authentication over its socket).
shard_sql() {
  local as=()
  [ "$(id -u)" = 0 ] && as=(runuser -u postgres --)
  "${as[@]}" psql -X -q -A -t -v ON_ERROR_STOP=1 -h /var/run/postgresql -p "${ports[$1]}" -d postgres -c "$2"
}

# --- the shards ---------------------------------------------------------------
ports=()
for i in 0 1; do
  pg_dropcluster --stop "$version" "${shards[$i]}" > /dev/null 2>&1   # left over by an interrupted run
  on_exit "pg_dropcluster --stop $version ${shards[$i]}"
  free_port "${DP_TEST_SHARD_PORT:-5489}"
  ports[$i]=$port
done
start=$EPOCHREALTIME
for i in 0 1; do
  pg_createcluster --quiet "$version" "${shards[$i]}" -p "${ports[$i]}" --start \
    --pgoption fsync=off -- --no-sync > /dev/null 2>&1 &
done
wait
for i in 0 1; do
  # Its data directory names it (cluster_name is not set in every
  # configuration: pg_virtualenv -t creates clusters without it).
  is "shard ${shards[$i]} runs on port ${ports[$i]}" \
    "$(shard_sql $i "SELECT regexp_replace(current_setting('data_directory'), '^.*/', '')")" "${shards[$i]}"
  ok "shard ${shards[$i]} holds the rows of counties ${shard_counties[$i]}" quiet shard_sql $i "
    CREATE ROLE dp_test_shard LOGIN PASSWORD '$shard_password';
    $(cat "$repo/demo/delinquents.sql")
    CREATE TABLE person AS SELECT * FROM delinquents WHERE county IN (${shard_counties[$i]});
    DROP TABLE delinquents;
    GRANT SELECT ON person TO dp_test_shard;
    ANALYZE person;"
done
echo "# two shard clusters created and loaded in $(since $start) s"
true_totals=$( { shard_sql 0 "SELECT county, count(*) FROM person GROUP BY 1"
                 shard_sql 1 "SELECT county, count(*) FROM person GROUP BY 1"; } | sort)
is "the shards together hold the demo table's county totals" "$true_totals" "$true_margins"

# --- the main cluster: a partitioned table of foreign partitions --------------
on_exit "drop_role dp_test_shards_analyst"   # after the database (it holds the role's grant)
drop_role dp_test_shards_analyst > /dev/null 2>&1
new_db $db || { fail "create database $db"; finish; }
ok "postgres_fdw servers, user mappings (password over localhost) and foreign partitions" quiet q $db "
CREATE EXTENSION postgres_fdw;
CREATE SERVER shard1 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host 'localhost', port '${ports[0]}', dbname 'postgres');
CREATE SERVER shard2 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host 'localhost', port '${ports[1]}', dbname 'postgres');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard1 OPTIONS (user 'dp_test_shard', password '$shard_password');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard2 OPTIONS (user 'dp_test_shard', password '$shard_password');
CREATE TABLE person (county text NOT NULL, edu text NOT NULL) PARTITION BY LIST (county);
CREATE FOREIGN TABLE person_shard1 PARTITION OF person FOR VALUES IN (${shard_counties[0]})
    SERVER shard1 OPTIONS (schema_name 'public', table_name 'person');
CREATE FOREIGN TABLE person_shard2 PARTITION OF person FOR VALUES IN (${shard_counties[1]})
    SERVER shard2 OPTIONS (schema_name 'public', table_name 'person');
ANALYZE person;"
is "the partitioned table reads 135 rows from the two shards" "$(q $db "SELECT count(*) FROM person")" 135

source_sql='SELECT county, edu, count(*) FROM person GROUP BY 1, 2'
plan=$(q $db "SET enable_partitionwise_aggregate = on; EXPLAIN (VERBOSE, COSTS OFF) $source_sql")
echo "$plan" | sed 's/^/#   /'
is "EXPLAIN VERBOSE: two Remote SQL lines, each with GROUP BY (the aggregate runs on the shards)" \
   "$(grep -c 'Remote SQL: SELECT .*count(\*) FROM public.person GROUP BY' <<<"$plan")" 2
is "the pushed scans are foreign aggregates of person_shard1 and person_shard2" \
   "$(grep -oE 'Relations: Aggregate on \(public\.person_shard[12] ' <<<"$plan" | sort | tr -d '\n')" \
   "Relations: Aggregate on (public.person_shard1 Relations: Aggregate on (public.person_shard2 "
plan_off=$(q $db "SET enable_partitionwise_aggregate = off; EXPLAIN (VERBOSE, COSTS OFF) $source_sql")
is "without partitionwise aggregation the shards only scan (control: no GROUP BY in Remote SQL)" \
   "$(grep 'Remote SQL' <<<"$plan_off" | grep -c 'GROUP BY')" 0

# dp.privatize over the sharded source; auto_explain shows the plan of the
# query it runs (a nested statement) as a NOTICE.
privatized=$(psql -X -q -A -t -v ON_ERROR_STOP=1 -d $db 2> "${TMPDIR:-/tmp}/dp_test_shards.$$.log" <<SQL
SET enable_partitionwise_aggregate = on;
LOAD 'auto_explain';
SET auto_explain.log_min_duration = 0;
SET auto_explain.log_nested_statements = on;
SET auto_explain.log_verbose = on;
SET auto_explain.log_level = notice;
CREATE TEMP TABLE released AS
SELECT * FROM dp.privatize('$source_sql', 0.5, margins => '{county}') AS t(county text, edu text, n bigint);
RESET auto_explain.log_min_duration;
SELECT count(*), count(DISTINCT (county, edu)), bool_and(n = round(n)) FROM released;
SELECT county, sum(n) FROM released GROUP BY 1 ORDER BY 1;
SQL
)
on_exit "rm -f ${TMPDIR:-/tmp}/dp_test_shards.$$.log"
is "dp.privatize's own source query was pushed to both shards (auto_explain: 2 Remote SQL with GROUP BY)" \
   "$(grep -c 'Remote SQL: SELECT .*count(\*) FROM public.person GROUP BY' "${TMPDIR:-/tmp}/dp_test_shards.$$.log")" 2
is "the ad hoc release over the shards has all 16 cells, distinct" "$(head -1 <<<"$privatized")" "16|16|t"
is "its county margins are exact: the totals counted on the shards" "$(tail -n +2 <<<"$privatized")" "$true_totals"

# The same as a governed release: the foreign partitions are protected (not
# readable by PUBLIC), the owner's user mapping is used, the analyst reads.
ok "a governed release over the sharded table registers and draws" quiet q $db "
CREATE ROLE dp_test_shards_analyst;
SELECT dp.set_budget('dp_test sharded survey', 1.0);
SELECT dp.register_release('sharded_counts', 'dp_test sharded survey', source => '$source_sql',
    columns => 'county text, edu text, n bigint', epsilon => 0.5, margins => '{county}', options => jsonb_build_object('keys', 'public'));
SELECT dp.grant_release('sharded_counts', 'dp_test_shards_analyst');" &&
  quiet q $db "SELECT dp.refresh_release('sharded_counts')"
is "the analyst reads it: 16 cells, the shards' true margins" \
   "$(q $db "SET ROLE dp_test_shards_analyst; SELECT count(*) FROM sharded_counts")
$(q $db "SET ROLE dp_test_shards_analyst; SELECT county, sum(n) FROM sharded_counts GROUP BY 1 ORDER BY 1")" \
   "16
$true_totals"
is "the analyst cannot read the foreign partitions directly (42501)" \
   "$(sqlstate_of $db "SELECT count(*) FROM person_shard1" dp_test_shards_analyst)" 42501

# --- dp.noisy_count under parallel query --------------------------------------
parallel="SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
          SET min_parallel_table_scan_size = 0; SET parallel_leader_participation = off;"
ok "a local table of 200000 people" quiet q $db "
CREATE TABLE people AS
SELECT (ARRAY['Alpha', 'Beta', 'Gamma', 'Delta'])[1 + i % 4] AS county FROM generate_series(1, 200000) i;
ANALYZE people;"
plan=$(q $db "$parallel EXPLAIN (COSTS OFF) SELECT county, dp.noisy_count(1.0) FROM people GROUP BY county")
echo "$plan" | sed 's/^/#   /'
ok "grouped dp.noisy_count: Finalize aggregate over Gather" grep -qE 'Finalize (Hash|Group)Aggregate' <<<"$plan"
ok "... Gather with workers planned" grep -qE 'Workers Planned: [1-9]' <<<"$plan"
ok "... and a Partial aggregate in the workers" grep -qE 'Partial (Hash|Group)?Aggregate' <<<"$plan"
plan=$(q $db "$parallel EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT dp.noisy_count(1.0) FROM people")
echo "$plan" | sed 's/^/#   /'
ok "ungrouped dp.noisy_count: Finalize Aggregate, Gather, Partial Aggregate" \
   grep -qzE 'Finalize Aggregate.*Gather.*Partial Aggregate' <<<"$plan"
ok "the parallel workers were launched and did the scan (leader not participating)" \
   grep -qE 'Workers Launched: [1-9]' <<<"$plan"
# Discrete Laplace noise of scale 2 (epsilon 1): |noise| >= 60 has probability
# about 2 exp(-30) ~ 2e-13 per count, so the tolerance never fails by chance;
# losing one worker's partial state would be off by tens of thousands.
is "parallel noisy counts combine every worker's partial count (within 60 of 50000 per county)" \
   "$(q $db "$parallel SELECT string_agg(county || '=' || (abs(n - 50000) < 60), ',' ORDER BY county)
             FROM (SELECT county, dp.noisy_count(1.0) AS n FROM people GROUP BY county) t")" \
   "Alpha=true,Beta=true,Delta=true,Gamma=true"
is "and ungrouped (within 60 of 200000)" \
   "$(q $db "$parallel SELECT abs(dp.noisy_count(1.0) - 200000) < 60 FROM people")" t

# The source dp.privatize runs (through SPI) may use a parallel plan of its
# own, ad hoc and in a governed refresh (an INSERT ... SELECT, which itself
# never runs in parallel). A governed draw runs in a background worker, a
# session of its own: it plans with the database's settings, not the
# caller's, and auto_explain cannot be loaded into it; so the draw's plan is
# shown by EXPLAIN of the pinned source it reads, under those settings.
notices=$(psql -X -q -A -t -v ON_ERROR_STOP=1 -d $db 2>&1 > /dev/null <<SQL
$parallel
LOAD 'auto_explain';
SET auto_explain.log_min_duration = 0;
SET auto_explain.log_nested_statements = on;
SET auto_explain.log_analyze = on;
SET auto_explain.log_timing = off;
SET auto_explain.log_level = notice;
SELECT count(*) FROM dp.privatize('SELECT county, count(*) FROM people GROUP BY 1', 1.0) AS t(county text, n bigint);
SQL
)
is "dp.privatize's source ran in parallel (a Gather, workers launched)" \
   "$(grep -A12 'Query Text: SELECT county, count(\*) FROM people GROUP BY 1' <<<"$notices" | grep -cE 'Workers Launched: [1-9]')" 1
ok "a governed release of it, with the parallel settings on its database" quiet q $db "
ALTER DATABASE $db SET max_parallel_workers_per_gather = 2;
ALTER DATABASE $db SET parallel_setup_cost = 0;
ALTER DATABASE $db SET parallel_tuple_cost = 0;
ALTER DATABASE $db SET min_parallel_table_scan_size = 0;
SELECT dp.set_budget('dp_test people', 2.0);
SELECT dp.register_release('people_counts', 'dp_test people', source => 'SELECT county, count(*) FROM people GROUP BY 1',
    columns => 'county text, n bigint', epsilon => 1.0, options => jsonb_build_object('keys', 'public'));"
plan=$(q $db "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
              SELECT * FROM $(q $db "SELECT source_view FROM dp.releases WHERE release = 'people_counts'::regclass")")
echo "$plan" | sed 's/^/#   /'
ok "the pinned source a draw reads has a parallel plan (workers launched)" grep -qE 'Workers Launched: [1-9]' <<<"$plan"
ok "the refresh draws it" quiet q $db "SELECT dp.refresh_release('people_counts') > 0"
is "the refresh stored its 4 cells" "$(q $db "SELECT count(*) FROM people_counts")" 4

finish
