#!/usr/bin/env bash
# test/package/upgrade.sh OLD_DEB NEW_DEB: an upgrade through the package
# manager, as an administrator does it. Runs in a throwaway cluster of the
# server the packages install into (libpq's environment points at it;
# scripts/test-package starts it with pg_virtualenv). The package of the
# previous release (test/upgrade/) is installed, a governed release drawn with it;
# the new package replaces it while the cluster runs; the new library
# refuses to draw until ALTER EXTENSION invariant_dp UPDATE; after it the
# release reads as before, its budget and audit log are unchanged, and a
# new draw is charged on that budget. Leaves the new package installed.
# The packages go in through test/package/apt (apt-get install).
set -uo pipefail
source "$(dirname "$0")/../cluster/common.bash"
old_deb=${1:?usage: upgrade.sh OLD_DEB NEW_DEB}
new_deb=${2:?usage: upgrade.sh OLD_DEB NEW_DEB}
old_version=$(dpkg-deb -f "$old_deb" Version); old_version=${old_version%-*}
new_version=$(dpkg-deb -f "$new_deb" Version); new_version=${new_version%-*}

install_package() { "$repo/test/package/apt" install "$1"; }
available() { q postgres "SELECT default_version FROM pg_available_extensions WHERE name = 'invariant_dp'"; }

db=dp_test_package_upgrade
analyst=dp_test_package_analyst
release=public.county_edu
on_exit "drop_role $analyst"
drop_db $db > /dev/null 2>&1
drop_role $analyst > /dev/null 2>&1

# --- the previous release's package ------------------------------------------
ok "the $old_version package installs ($(basename "$old_deb"))" install_package "$old_deb"
is "the server offers invariant_dp $old_version" "$(available)" "$old_version"
ok "CREATE EXTENSION invariant_dp with the $old_version package" new_db $db
is "the extension is at $old_version" \
   "$(q $db "SELECT extversion FROM pg_extension WHERE extname = 'invariant_dp'")" "$old_version"
q $db "
CREATE ROLE $analyst;
SELECT dp.set_budget('dp_test package', 1.0);
SELECT dp.register_release('$release', 'dp_test package',
    source => 'SELECT county, edu, count(*) FROM delinquents GROUP BY 1, 2',
    columns => 'county text, edu text, n bigint', epsilon => 0.25, margins => '{county}',
    options => jsonb_build_object('keys', 'public'));
SELECT dp.grant_release('$release', '$analyst');" > /dev/null
ok "a governed draw with the $old_version package" quiet q $db "SELECT dp.refresh_release('$release')"

content() { q $db "SET ROLE $analyst; SELECT county, edu, n FROM $release ORDER BY 1, 2"; }
budget() { q $db "SELECT epsilon_spent, epsilon_total FROM dp.budgets WHERE dataset = 'dp_test package'"; }
# The upgrade names each logged law's family ("error_law", which the error
# bars read); nothing else in the log changes.
audit() { q $db "SELECT draw_id, release::text, dataset, drawn_by, drawn_at, epsilon, noise_law - 'error_law', cells FROM dp.draws ORDER BY 1"; }
before_content=$(content)
before_budget=$(budget)
before_audit=$(audit)
is "the $old_version draw: 16 cells with the true county totals, 0.25 spent" \
   "$(q $db "SELECT county, sum(n) FROM $release GROUP BY 1 ORDER BY 1")|$(wc -l <<<"$before_content")|$before_budget" \
   "$true_margins|16|0.25|1.0"

# --- the new package, installed over it while the cluster runs ---------------
ok "the $new_version package installs over it ($(basename "$new_deb"))" install_package "$new_deb"
is "the server offers invariant_dp $new_version" "$(available)" "$new_version"
is "the database is still at $old_version" \
   "$(q $db "SELECT extversion FROM pg_extension WHERE extname = 'invariant_dp'")" "$old_version"
is "the $new_version library refuses to draw with the $old_version SQL (55000)" \
   "$(sqlstate_of $db "SELECT dp.refresh_release('$release')")" 55000
is "the refused draw charged nothing" "$(budget)" "$before_budget"

ok "ALTER EXTENSION invariant_dp UPDATE" quiet q $db "ALTER EXTENSION invariant_dp UPDATE"
is "the extension is at $new_version" \
   "$(q $db "SELECT extversion FROM pg_extension WHERE extname = 'invariant_dp'")" "$new_version"
is "the analyst reads the same release" "$(content)" "$before_content"
is "its budget is unchanged" "$(budget)" "$before_budget"
is "the audit log is unchanged" "$(audit)" "$before_audit"
is "the logged law names its family" "$(q $db "SELECT noise_law->>'error_law' IS NOT NULL FROM dp.draws ORDER BY draw_id LIMIT 1")" t
is "the analyst's error bar of a county reads the logged law" \
   "$(q $db "SET ROLE $analyst; SELECT count(*) FROM (SELECT dp.margin_of_error(r, 0.9) FROM $release r GROUP BY county) m")" 4
is "the analyst still cannot read the raw rows" \
   "$(q $db "SELECT has_table_privilege('$analyst', 'delinquents', 'SELECT')")" f

ok "a new draw after the update" quiet q $db "SELECT dp.refresh_release('$release')"
is "it is charged on the same budget: 0.50 spent, 2 draws audited" \
   "$(q $db "SELECT epsilon_spent FROM dp.budgets WHERE dataset = 'dp_test package'")|$(q $db "SELECT count(*) FROM dp.draws")" \
   "0.50|2"
is "the new draw keeps the true county totals" \
   "$(q $db "SET ROLE $analyst; SELECT county, sum(n) FROM $release GROUP BY 1 ORDER BY 1")" "$true_margins"
finish
