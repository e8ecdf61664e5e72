// A privacy unit's contribution bounds (dp.privatize's bounds, a stream's):
// at most G = max_groups_per_unit cells per unit, at most
// R = max_rows_per_group rows in each. Every calibration below and above
// the mechanisms scales one record's sensitivity by them
// (mechanisms/privacy_unit.hpp bounds the rows).
#pragma once

#include <cstdint>

namespace invariant_dp {

struct ContributionBounds {
  std::int64_t max_groups_per_unit = 0;  // 0: no privacy unit, one row per person
  std::int64_t max_rows_per_group = 0;

  bool active() const { return max_groups_per_unit > 0; }
  // How far one unit moves the count vector, relative to one record:
  // l1 by G R, l2 by sqrt(G) R (the same for add/remove and replace-one).
  double l1_factor() const;
  double l2_factor() const;
};

// Largest bounds accepted: G R beyond this is no longer a bound.
constexpr std::int64_t kMaxGroupsPerUnit = 1000000;
constexpr std::int64_t kMaxRowsPerGroup = 1000000;
constexpr std::int64_t kMaxContribution = 1000000000;

}  // namespace invariant_dp
