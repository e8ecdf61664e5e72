#include "hierarchy_request.hpp"

#include <cmath>
#include <cstdlib>
#include <set>

#include "../errors.hpp"

namespace invariant_dp {
namespace {

// "[1, 0.5, 2]" -> {1, 0.5, 2}: the jsonb array the shim passes as text.
std::vector<double> parse_number_array(const std::string& text) {
  const std::string hint = "Give one positive variance per level, the grand total first: "
                           "{\"level_variance\": [4, 2, 1, 1]}.";
  if (text.size() < 2 || text.front() != '[' || text.back() != ']')
    throw InvalidArgument("option \"level_variance\" must be an array of numbers", "Got " + text + ".", hint);
  std::vector<double> values;
  const char* p = text.c_str() + 1;
  // Ends: each pass consumes a number of the text, and its end fails.
  while (true) {
    while (*p == ' ') ++p;
    if (*p == ']' && values.empty()) break;
    char* end = nullptr;
    const double v = std::strtod(p, &end);
    if (end == p || !std::isfinite(v) || v <= 0)
      throw InvalidArgument("option \"level_variance\" must hold positive numbers", "Got " + text + ".", hint);
    values.push_back(v);
    p = end;
    // Ends: each pass consumes a character of the text.
    while (*p == ' ') ++p;
    if (*p == ']') break;
    if (*p != ',')
      throw InvalidArgument("option \"level_variance\" must be an array of numbers", "Got " + text + ".", hint);
    ++p;
  }
  if (values.empty()) throw InvalidArgument("option \"level_variance\" is empty", {}, hint);
  return values;
}

// "[\"age_group\", \"age\"]" -> {"age_group", "age"}: a jsonb array of
// plain column names, as the shim passes it (JSON text).
std::vector<std::string> parse_name_array(const std::string& text) {
  const std::string hint = "Name the second hierarchy's level columns, coarsest first: "
                           "{\"crossed\": [\"age_group\", \"age\"]}.";
  const auto malformed = [&] {
    return InvalidArgument("option \"crossed\" must be an array of column names", "Got " + text + ".", hint);
  };
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') throw malformed();
  std::vector<std::string> names;
  std::size_t i = 1;
  // Ends: each pass consumes a name of the text, and its end fails.
  while (true) {
    while (text[i] == ' ') ++i;
    if (text[i] == ']' && names.empty()) break;
    if (text[i] != '"') throw malformed();
    const std::size_t end = text.find('"', i + 1);
    // An escaped character would need JSON unescaping; column names with
    // quotes or backslashes are not worth it.
    if (end == std::string::npos || text.find('\\', i) < end) throw malformed();
    names.push_back(text.substr(i + 1, end - i - 1));
    i = end + 1;
    // Ends: each pass consumes a character of the text, which ends in ']'.
    while (text[i] == ' ') ++i;
    if (text[i] == ']') break;
    if (text[i] != ',') throw malformed();
    ++i;
  }
  if (names.empty()) throw InvalidArgument("option \"crossed\" is empty", {}, hint);
  return names;
}

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

bool parse_bool(const std::string& key, const std::string& value) {
  if (value == "true") return true;
  if (value == "false") return false;
  throw InvalidArgument("option \"" + key + "\" must be true or false", "Got \"" + value + "\".");
}

}  // namespace

HierarchyRequest take_hierarchy_request(std::vector<std::string> levels,
                                        std::vector<std::pair<std::string, std::string>>& options) {
  HierarchyRequest request;
  std::set<std::string> seen;
  for (const std::string& level : levels) {
    if (level.empty()) throw InvalidArgument("hierarchy names an empty column");
    if (!seen.insert(level).second)
      throw InvalidArgument("hierarchy names column \"" + level + "\" twice",
                            "Each level is one key column, coarsest first.");
  }
  request.levels = std::move(levels);
  std::vector<std::pair<std::string, std::string>> rest;
  for (const auto& [key, value] : options) {
    if (key == "level") {
      request.with_level = parse_bool(key, value);
    } else if (key == "level_variance") {
      request.level_variance = parse_number_array(value);
    } else if (key == "rho") {
      char* end = nullptr;
      request.rho = std::strtod(value.c_str(), &end);
      if (*end != '\0' || !std::isfinite(request.rho) || request.rho <= 0)
        throw InvalidArgument("option \"rho\" must be a positive number", "Got \"" + value + "\".");
    } else if (key == "crossed") {
      request.crossed = parse_name_array(value);
    } else {
      rest.emplace_back(key, value);
      continue;
    }
    if (!request.active())
      throw InvalidArgument("option \"" + key + "\" needs a hierarchy", {},
                            "Pass hierarchy => '{level1,level2,...}', coarsest level first.");
  }
  options = std::move(rest);
  check_crossed_levels(request);
  return request;
}

}  // namespace invariant_dp
