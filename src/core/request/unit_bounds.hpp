// A privacy unit and its contribution bounds as a request states them
// (dp.privatize's privacy_unit and bounds arguments, a governed stream's):
// the rules that hold of them, and the bounds object read into
// ContributionBounds (privacy/contribution_bounds.hpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "../privacy/contribution_bounds.hpp"

namespace invariant_dp {
// A privacy unit and contribution bounds come together or not at all (a
// unit without bounds could move the counts without limit; bounds without a
// unit bound nothing). Throws InvalidArgument otherwise. dp.privatize, a
// governed release and a governed stream all check it here.
void check_unit_has_bounds(bool has_privacy_unit, bool has_bounds);

// dp.privatize's bounds argument (jsonb flattened to key/value text):
// max_groups_per_unit and max_rows_per_group, both whole numbers >= 1.
// InvalidArgument (22023) names what is wrong; none given with a privacy
// unit is refused with a hint.
ContributionBounds parse_contribution_bounds(const std::vector<std::pair<std::string, std::string>>& bounds);

}  // namespace invariant_dp
