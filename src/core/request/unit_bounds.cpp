#include "unit_bounds.hpp"

#include <cmath>
#include <cstdlib>

#include "../errors.hpp"

namespace invariant_dp {
namespace {

std::int64_t parse_bound(const std::string& key, const std::string& value, std::int64_t max) {
  char* end = nullptr;
  const double number = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !(number >= 1 && number <= double(max)) || number != std::floor(number))
    throw InvalidArgument("bound \"" + key + "\" must be a whole number from 1 to " + std::to_string(max),
                          "Got \"" + value + "\".");
  return static_cast<std::int64_t>(number);
}

}  // namespace

void check_unit_has_bounds(bool has_privacy_unit, bool has_bounds) {
  if (has_privacy_unit && !has_bounds)
    throw InvalidArgument("a privacy unit needs contribution bounds",
                          "Without them one unit could move the counts without limit, and no epsilon would hold.",
                          "Pass bounds => '{\"max_groups_per_unit\": 3, \"max_rows_per_group\": 1}'.");
  if (has_bounds && !has_privacy_unit)
    throw InvalidArgument("bounds need a privacy unit",
                          "Without privacy_unit every row is one person and the source returns counts.",
                          "Pass privacy_unit => 'the column identifying a person', or drop bounds.");
}

ContributionBounds parse_contribution_bounds(const std::vector<std::pair<std::string, std::string>>& bounds) {
  ContributionBounds out;
  for (const auto& [key, value] : bounds) {
    if (key == "max_groups_per_unit")
      out.max_groups_per_unit = parse_bound(key, value, kMaxGroupsPerUnit);
    else if (key == "max_rows_per_group")
      out.max_rows_per_group = parse_bound(key, value, kMaxRowsPerGroup);
    else
      throw InvalidArgument("unknown bound \"" + key + "\"", "Known bounds: max_groups_per_unit, max_rows_per_group.");
  }
  if (out.max_groups_per_unit == 0 || out.max_rows_per_group == 0)
    throw InvalidArgument("a privacy unit needs both contribution bounds",
                          "Without them one unit could move the counts without limit, and no epsilon would hold.",
                          "Pass bounds => '{\"max_groups_per_unit\": 3, \"max_rows_per_group\": 1}'.");
  if (out.max_groups_per_unit * out.max_rows_per_group > kMaxContribution)
    throw InvalidArgument("the contribution bounds allow one unit more than " + std::to_string(kMaxContribution) +
                              " rows",
                          "max_groups_per_unit * max_rows_per_group = " +
                              std::to_string(out.max_groups_per_unit * out.max_rows_per_group) + ".");
  return out;
}

}  // namespace invariant_dp
