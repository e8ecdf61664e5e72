// What dp.privatize's `hierarchy` argument and its options ask for, checked
// before the source runs: the level columns (coarsest first) and the
// cascade's per-level settings.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "options.hpp"

namespace invariant_dp {

struct HierarchyRequest {
  std::vector<std::string> levels;     // hierarchy => '{state,county,tract}'
  bool with_level = false;             // options {"level": true}: a trailing level column
  // cascade only. level_variance: per depth, the grand total first, either
  // relative (scaled to epsilon/delta or rho) or, with epsilon NULL,
  // absolute targets whose privacy cost the release reports.
  std::vector<double> level_variance;  // options {"level_variance": [v0, v1, ...]}
  double rho = 0;                      // options {"rho": r}: calibrate to rho-zCDP instead
  // options {"crossed": ["age_group", "age"]}: a second hierarchy's level
  // columns, coarsest first, crossed with `levels` (crossed_release.hpp).
  std::vector<std::string> crossed;
  bool active() const { return !levels.empty(); }
  bool is_crossed() const { return !crossed.empty(); }
};

// Takes the hierarchy options ("level", "level_variance", "rho", "crossed") out of
// options, so the rest validates like any release's. InvalidArgument for a
// repeated or empty level, a malformed value, or a hierarchy option without
// a hierarchy, a crossed column that repeats or is also a level.
HierarchyRequest take_hierarchy_request(std::vector<std::string> levels,
                                        std::vector<RawOption>& options);

// How epsilon was given: the cascade can also be calibrated from rho or
// from absolute per-level variance targets, with epsilon left NULL.
struct HierarchyBudget {
  bool has_epsilon = true;
};

}  // namespace invariant_dp
