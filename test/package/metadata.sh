#!/usr/bin/env bash
# test/package/metadata.sh: the extension's version and description are said
# in three places that must agree: invariant_dp.control (what the server
# reads), META.json (PGXN) and debian/changelog (the package's version).
# Prints TAP lines; needs no server.
set -uo pipefail
# Assertions: ok, is and isnt (TAP lines) from test/cluster/common.bash.
source "$(dirname "$0")/../cluster/common.bash"
cd "$repo"

control() { sed -n "s/^$1 = '\(.*\)'/\1/p" invariant_dp.control; }
# meta PATH: a value of META.json ("provides/invariant_dp/version"); empty if absent.
meta() {
  perl -MJSON::PP -e '
    local $/; my $v = JSON::PP->new->decode(<STDIN>);
    $v = ref $v eq "HASH" ? $v->{$_} : undef for split m{/}, $ARGV[0];
    print defined $v && !ref $v ? $v : "";' "$1" < META.json
}
version=$(control default_version)

ok "META.json is valid JSON" perl -MJSON::PP -e 'local $/; JSON::PP->new->decode(<STDIN>)' < META.json
is "META.json names the distribution after the extension" "$(meta name)" invariant_dp
is "META.json's version is the control file's default_version" "$(meta version)" "$version"
is "META.json provides the extension invariant_dp at that version" "$(meta provides/invariant_dp/version)" "$version"
is "META.json's abstract is the control file's comment" \
   "$(meta abstract)|$(meta provides/invariant_dp/abstract)" "$(control comment)|$(control comment)"
ok "the files META.json points to exist" \
   test -f "$(meta provides/invariant_dp/file)" -a -f "$(meta provides/invariant_dp/docfile)"
is "META.json requires the PostgreSQL major versions of debian/pgversions" \
   "$(meta prereqs/runtime/requires/PostgreSQL)" \
   ">= $(head -1 debian/pgversions).0.0, < $(($(head -1 debian/pgversions) + 1)).0.0"
ok "META.json states a license and the meta-spec 1.0.0" \
   test -n "$(meta license)" -a "$(meta meta-spec/version)" = 1.0.0
debian_version=$(dpkg-parsechangelog -l debian/changelog -S Version)
is "debian/changelog's newest entry packages that version" "${debian_version%-*}" "$version"
finish  # the summary line; exit status 1 if any assertion (ok, is, isnt) failed
