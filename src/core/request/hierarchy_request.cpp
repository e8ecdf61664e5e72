#include "hierarchy_request.hpp"

#include <set>

#include "../errors.hpp"

namespace invariant_dp {
namespace {

// The crossed hierarchy's columns: each once, none also a level.
void check_crossed_levels(const HierarchyRequest& request) {
  std::set<std::string> seen(request.levels.begin(), request.levels.end());
  for (const std::string& column : request.crossed) {
    if (column.empty()) throw InvalidArgument("option \"crossed\" names an empty column");
    if (!seen.insert(column).second)
      throw InvalidArgument("column \"" + column + "\" is in both crossed hierarchies, or twice in one",
                            "Two crossed hierarchies split the key columns between them: each column is a level "
                            "of exactly one.");
  }
}

}  // namespace

HierarchyRequest take_hierarchy_request(std::vector<std::string> levels,
                                        std::vector<RawOption>& options) {
  HierarchyRequest request;
  std::set<std::string> seen;
  for (const std::string& level : levels) {
    if (level.empty()) throw InvalidArgument("hierarchy names an empty column");
    if (!seen.insert(level).second)
      throw InvalidArgument("hierarchy names column \"" + level + "\" twice",
                            "Each level is one key column, coarsest first.");
  }
  request.levels = std::move(levels);
  std::vector<RawOption> rest;
  for (RawOption& option : options) {
    const OptionSpec* row = find_option(option.key);
    if (row == nullptr || row->entry != OptionEntry::Hierarchy) {
      rest.push_back(std::move(option));
      continue;
    }
    check_option_value(option.key, option.value, option.type);
    if (option.key == "level") request.with_level = option_boolean(option.value);
    else if (option.key == "level_variance") request.level_variance = option_numbers(option.value);
    else if (option.key == "rho") request.rho = option_number(option.value);
    else request.crossed = option_names(option.value);
    if (!request.active())
      throw InvalidArgument("option \"" + option.key + "\" needs a hierarchy", {},
                            "Pass hierarchy => '{level1,level2,...}', coarsest level first.");
  }
  options = std::move(rest);
  check_crossed_levels(request);
  return request;
}

}  // namespace invariant_dp
