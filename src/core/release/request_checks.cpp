#include "request_checks.hpp"

#include "../errors.hpp"
#include "../mechanisms/mechanism.hpp"
#include "../request/options.hpp"
#include "../rollups/cascade_release_common.hpp"
#include "../rollups/crossed_grid.hpp"
#include "../rollups/crossed_release.hpp"
#include "../rollups/nonnegative_cascade_release.hpp"
#include "release_intervals.hpp"

namespace invariant_dp {

CheckedRequest check_request(RawRequest raw, const std::vector<std::string>& levels, bool epsilon_given) {
  CheckedRequest checked;
  // The hierarchy's options leave raw.options here: the ones only some
  // mechanisms take are refused for the others first.
  refuse_options_not_taken(mechanism_by_name(raw.mechanism), raw.options);
  checked.hierarchy = take_hierarchy_request(levels, raw.options);
  checked.budget.has_epsilon = epsilon_given;
  // Without epsilon only the cascades can be calibrated (from rho or absolute
  // targets); validate the rest with a stand-in epsilon never used to draw.
  if (!epsilon_given) raw.epsilon = 1.0;
  checked.release = validate_request(raw);
  const MechanismTraits& mechanism = *checked.release.mechanism;
  const bool cascade = mechanism.calibrated_on_tree;
  if (cascade && !checked.hierarchy.active())
    throw InvalidArgument(std::string("mechanism \"") + mechanism.name + "\" needs a hierarchy", {},
                          "Pass hierarchy => '{state,county,tract}', coarsest level first.");
  if (!epsilon_given && !cascade) throw NullValue("epsilon must not be NULL");
  if (cascade && mechanism.non_negative) check_nonnegative_cascade_request(checked.release, checked.hierarchy);
  // A cascade given both epsilon and rho, or neither (nor absolute targets;
  // crossed releases say so when they calibrate, with their own hint).
  if (cascade && !checked.hierarchy.is_crossed()) cascade_budget(checked.hierarchy, checked.budget);
  check_crossed_request(checked.release, checked.hierarchy);
  // The cascades, crossed or not, bound a unit's move by (G R)^2 times one
  // record's (hierarchy/cascade_privacy.hpp); the other mechanisms release
  // the leaves on the bounds and sum them up the tree (post-processing).
  if (checked.hierarchy.active() && checked.release.selection.method != SelectionMethod::None)
    throw InvalidArgument("partition selection cannot be used with a hierarchy",
                          "The rollups are exact sums of every leaf, so the leaves must be public.",
                          "Pass a domain listing the public leaves instead.");
  check_interval_request(checked.release, checked.hierarchy);
  return checked;
}

void check_columns(const CheckedRequest& checked, const std::vector<std::string>& key_columns) {
  check_margin_columns(checked.release, key_columns);
  for (const std::string& level : checked.hierarchy.levels) {
    bool found = false;
    for (const std::string& column : key_columns) found = found || column == level;
    if (found) continue;
    std::string known;
    for (const std::string& column : key_columns) known += (known.empty() ? "" : ", ") + column;
    throw InvalidArgument("hierarchy names column \"" + level + "\", which the source does not return",
                          "The source's key columns are: " + known + ".");
  }
  if (checked.hierarchy.is_crossed())
    check_crossed_columns(checked.hierarchy.levels, checked.hierarchy.crossed, key_columns);
}

void accept_columns(CheckedRequest& checked, const std::vector<std::string>& key_columns) {
  check_columns(checked, key_columns);
  checked.key_columns = key_columns;
  checked.columns_checked = true;
}

std::vector<bool> columns_named(const std::vector<std::string>& key_columns,
                                const std::vector<std::vector<std::string>>& name_lists) {
  std::vector<bool> named(key_columns.size(), false);
  for (const auto& names : name_lists)
    for (const std::string& name : names)
      for (std::size_t k = 0; k < key_columns.size(); ++k) named[k] = named[k] || key_columns[k] == name;
  return named;
}

std::vector<bool> encoded_columns(const CheckedRequest& checked, const std::vector<std::string>& key_columns) {
  if (checked.hierarchy.active()) return std::vector<bool>(key_columns.size(), true);
  return columns_named(key_columns, checked.release.margins);
}

}  // namespace invariant_dp
