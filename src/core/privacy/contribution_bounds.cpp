#include "contribution_bounds.hpp"

#include <cmath>

namespace invariant_dp {

double ContributionBounds::l1_factor() const {
  return active() ? double(max_groups_per_unit) * double(max_rows_per_group) : 1.0;
}

double ContributionBounds::l2_factor() const {
  return active() ? std::sqrt(double(max_groups_per_unit)) * double(max_rows_per_group) : 1.0;
}

}  // namespace invariant_dp
