#!/usr/bin/env bash
# test/package/remove.sh: the package comes out again through the package
# manager (apt-get purge, test/package/apt) and leaves no invariant_dp file
# in the server's lib and extension directories. Prints TAP lines; needs no
# server.
set -uo pipefail
# Assertions: ok, is and isnt (TAP lines) from test/cluster/common.bash.
source "$(dirname "$0")/../cluster/common.bash"
cd "$repo"
pg=$(head -1 debian/pgversions)
package=postgresql-$pg-invariant-dp
pg_config=${PG_CONFIG:-/usr/lib/postgresql/$pg/bin/pg_config}

leftovers() {
  find "$("$pg_config" --pkglibdir)" "$("$pg_config" --sharedir)/extension" -maxdepth 1 -name 'invariant_dp*' | sort
}
isnt "the package's files are in the server's directories before its removal" "$(leftovers)" ""
ok "$package is purged" test/package/apt purge "$package"
is "no invariant_dp file is left in the server's lib and extension directories" "$(leftovers)" ""
finish  # the summary line; exit status 1 if any assertion (ok, is, isnt) failed
