#!/usr/bin/env bash
# test/package/contents.sh DEB: what the package holds and what it pulls in.
# Only files under the server's directories (the module, the control file,
# the install script and an upgrade script from every released version) and
# its documentation; dependencies on runtime libraries and the server only
# (no -dev package, no JDK), exactly the runtime list of scripts/install-deps.
# Prints TAP lines; needs no server.
set -uo pipefail
# Assertions: ok, is and isnt (TAP lines) from test/cluster/common.bash.
source "$(dirname "$0")/../cluster/common.bash"
deb=${1:?usage: contents.sh DEB}
cd "$repo"
version=$(sed -n "s/^default_version = '\(.*\)'/\1/p" invariant_dp.control)
pg=$(head -1 debian/pgversions)
package=$(dpkg-deb -f "$deb" Package)

is "the package is named the Debian way" "$package" "postgresql-$pg-invariant-dp"
is "its version is the extension's" "$(dpkg-deb -f "$deb" Version | sed 's/-[^-]*$//')" "$version"

files=$(dpkg-deb --contents "$deb" | awk '$1 !~ /^d/ { sub(/^\.\//, "/", $6); print $6 }' | sort)
is "every file is under the server's lib and extension directories or the package's docs" \
   "$(grep -vE "^/usr/lib/postgresql/$pg/lib/[^/]+\.so$|^/usr/share/postgresql/$pg/extension/[^/]+$|^/usr/share/doc/$package/" <<<"$files")" ""
expected=$(printf '/usr/lib/postgresql/%s/lib/invariant_dp.so\n' "$pg"
           printf '/usr/share/postgresql/%s/extension/invariant_dp.control\n' "$pg"
           printf '/usr/share/postgresql/%s/extension/invariant_dp--%s.sql\n' "$pg" "$version"
           for from in $(scripts/build-sql versions); do
             printf '/usr/share/postgresql/%s/extension/invariant_dp--%s--%s.sql\n' "$pg" "$from" "$version"
           done)
is "the server's files: the module, the control file, the install script, an upgrade from every release" \
   "$(grep -v "^/usr/share/doc/" <<<"$files")" "$(sort <<<"$expected")"
is "the control file is the tree's" \
   "$(dpkg-deb --fsys-tarfile "$deb" | tar -xOf - "./usr/share/postgresql/$pg/extension/invariant_dp.control")" \
   "$(cat invariant_dp.control)"

# Depends as dpkg -I shows it, one package name a line.
depends=$(dpkg-deb -f "$deb" Depends)
echo "# Depends: $depends"
names=$(tr ',' '\n' <<<"$depends" | sed -E 's/^ *//; s/[ (:].*//' | sort -u)
is "no -dev package, no JDK or JRE among its dependencies" \
   "$(grep -E -- '-dev$|jdk|jre|java' <<<"$names")" ""
is "it depends on the server it was built for" "$(grep -x "postgresql-$pg" <<<"$names")" "postgresql-$pg"
# The C and C++ runtimes come with every Debian system; the rest is what
# scripts/install-deps lists as needed at run time.
is "its other dependencies are the runtime libraries scripts/install-deps lists" \
   "$(grep -vxE 'libc6|libgcc-s1|libstdc\+\+6' <<<"$names")" \
   "$(scripts/install-deps --list run | sort -u)"
finish  # the summary line; exit status 1 if any assertion (ok, is, isnt) failed
