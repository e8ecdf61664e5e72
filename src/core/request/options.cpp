#include "options.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>

#include "../errors.hpp"
#include "../json_reader.hpp"
#include "../mechanisms/mechanism.hpp"

namespace invariant_dp {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The rows, in the order of docs/reference.md's table. A row's `must_be`
// completes "option \"name\" must be ...": the words users have seen.
std::vector<OptionSpec> rows() {
  using E = OptionEntry;
  using K = OptionKind;
  return {
      {"stddev", E::Release, K::Boolean, 0, 0, false, {}, "true or false", ""},
      {"interval", E::Release, K::Number, 0, 1, true, {}, "a level strictly between 0 and 1",
       "Pass the coverage wanted, e.g. {\"interval\": 0.9}."},
      {"neighbours", E::Release, K::Choice, 0, 0, false, {"replace_one", "add_remove"},
       "\"replace_one\" or \"add_remove\"", ""},
      {"iterations", E::Release, K::WholeNumber, 1, 1e10, false, {}, "a whole number from 1 to 1e10", "", true},
      {"proposal_a", E::Release, K::Number, 0, 1, true, {}, "between 0 and 1", "", true},
      {"partition_selection", E::Release, K::ChoiceOrObject, 0, 0, false,
       {"truncated_geometric", "dp_sips", "laplace", "gaussian", "noisy_count", "auto"},
       "\"truncated_geometric\", \"dp_sips\", \"laplace\", \"gaussian\", \"noisy_count\" or \"auto\", or an object",
       "For example {\"partition_selection\": {\"method\": \"truncated_geometric\", \"budget_share\": 0.5}}."},
      {"keys", E::Release, K::Choice, 0, 0, false, {"public"}, "\"public\"",
       "State {\"keys\": \"public\"} only when every cell the source can return is public knowledge; otherwise "
       "pass a domain or use partition selection."},
      {"source", E::Release, K::Choice, 0, 0, false, {"counts", "rows"}, "\"counts\" or \"rows\"",
       "\"counts\" (the default): the source returns the key columns and a count; \"rows\": one row per person, "
       "the key columns only, counted by the release."},
      {"rows_outside_domain", E::Release, K::Choice, 0, 0, false, {"error", "drop"}, "\"error\" or \"drop\"", ""},
      {"sampler", E::Release, K::Choice, 0, 0, false, {"auto", "chain", "rejection", "lattice", "mis"},
       "\"auto\", \"chain\", \"rejection\", \"lattice\" or \"mis\"", "", true},
      {"level", E::Hierarchy, K::Boolean, 0, 0, false, {}, "true or false", ""},
      {"level_variance", E::Hierarchy, K::NumberArray, 0, kInfinity, true, {}, "an array of positive numbers",
       "Give one positive variance per level, the grand total first: {\"level_variance\": [4, 2, 1, 1]}.", true},
      {"rho", E::Hierarchy, K::Number, 0, kInfinity, true, {}, "a positive number", "", true},
      {"crossed", E::Hierarchy, K::NameArray, 0, 0, false, {}, "an array of column names",
       "Name the second hierarchy's level columns, coarsest first: {\"crossed\": [\"age_group\", \"age\"]}."},
      {"coupled_pairs", E::Diagnose, K::WholeNumber, 1, 1e7, false, {}, "a whole number from 1 to 1e7", ""},
      {"lag", E::Diagnose, K::WholeNumber, 1, 1e7, false, {}, "a whole number from 1 to 1e7", ""},
      {"surrogate_count", E::Diagnose, K::WholeNumber, 1, 1e7, false, {}, "a whole number from 1 to 1e7", ""},
  };
}

const char* type_name(JsonType type) {
  switch (type) {
    case JsonType::String: return "a JSON string";
    case JsonType::Number: return "a JSON number";
    case JsonType::Boolean: return "a JSON boolean";
    case JsonType::Array: return "a JSON array";
    case JsonType::Object: return "a JSON object";
    case JsonType::Null: return "JSON null";
    case JsonType::Unknown: break;
  }
  return "";
}

bool type_fits(OptionKind kind, JsonType type) {
  switch (kind) {
    case OptionKind::Boolean: return type == JsonType::Boolean;
    case OptionKind::Number:
    case OptionKind::WholeNumber: return type == JsonType::Number;
    case OptionKind::Choice: return type == JsonType::String;
    case OptionKind::ChoiceOrObject: return type == JsonType::String || type == JsonType::Object;
    case OptionKind::NumberArray:
    case OptionKind::NameArray: return type == JsonType::Array;
  }
  return false;
}

// The value as it was written: a string in quotes.
std::string shown(const std::string& value, JsonType type) {
  return type == JsonType::String ? "\"" + value + "\"" : value;
}

[[noreturn]] void refuse(const OptionSpec& row, const std::string& value, JsonType type, std::string hint = {}) {
  std::string detail = "Got " + shown(value, type);
  if (type != JsonType::Unknown) detail += std::string(" (") + type_name(type) + ")";
  throw InvalidArgument(std::string("option \"") + row.name + "\" must be " + row.must_be, detail + ".",
                        hint.empty() ? row.hint : hint);
}

bool parses_as_number(const std::string& value, double& number) {
  char* end = nullptr;
  number = std::strtod(value.c_str(), &end);
  return !value.empty() && *end == '\0' && std::isfinite(number);
}

bool in_range(const OptionSpec& row, double number) {
  if (row.open) return number > row.low && number < row.high;
  return number >= row.low && number <= row.high;
}

// An array option's text parsed; the reader's own words replaced by the row's.
JsonValue parsed_array(const OptionSpec& row, const std::string& value, JsonType type) {
  JsonValue parsed;
  try {
    parsed = JsonValue::parse(value);
  } catch (const InvalidArgument&) {
    refuse(row, value, type);
  }
  if (!parsed.is_array()) refuse(row, value, type);
  if (parsed.array(row.name).empty())
    throw InvalidArgument(std::string("option \"") + row.name + "\" is empty", {}, row.hint);
  for (const JsonValue& item : parsed.array(row.name)) {
    const bool fits = row.kind == OptionKind::NumberArray ? item.is_number() && in_range(row, item.number(row.name))
                                                          : item.is_string();
    if (!fits) refuse(row, value, type);
  }
  return parsed;
}

// A value whose JSON type is right (or unknown) checked against its row.
void check_value(const OptionSpec& row, const std::string& value, JsonType type) {
  double number = 0;
  switch (row.kind) {
    case OptionKind::Boolean:
      if (value != "true" && value != "false") refuse(row, value, type);
      return;
    case OptionKind::Number:
      if (!parses_as_number(value, number) || !in_range(row, number)) refuse(row, value, type);
      return;
    case OptionKind::WholeNumber:
      if (!parses_as_number(value, number) || !in_range(row, number) || number != std::floor(number))
        refuse(row, value, type);
      return;
    case OptionKind::ChoiceOrObject:
      // An object's members are its parser's to check (its own settings).
      if (type == JsonType::Object || (type == JsonType::Unknown && !value.empty() && value.front() == '{')) return;
      [[fallthrough]];
    case OptionKind::Choice:
      for (const char* choice : row.choices)
        if (value == choice) return;
      refuse(row, value, type);
    case OptionKind::NumberArray:
    case OptionKind::NameArray:
      parsed_array(row, value, type);
      return;
  }
}

}  // namespace

const std::vector<OptionSpec>& option_catalogue() {
  static const std::vector<OptionSpec> catalogue = rows();
  return catalogue;
}

const OptionSpec* find_option(const std::string& name) {
  for (const OptionSpec& row : option_catalogue())
    if (name == row.name) return &row;
  return nullptr;
}

const OptionSpec& check_option_value(const std::string& name, const std::string& value, JsonType type) {
  const OptionSpec* row = find_option(name);
  if (row == nullptr) refuse_unknown_option(name, true);
  if (type != JsonType::Unknown && !type_fits(row->kind, type)) {
    // The right value in the wrong JSON type ("0.9" for 0.9) says so.
    double number = 0;
    const bool quoted_number = type == JsonType::String && parses_as_number(value, number);
    refuse(*row, value, type,
           quoted_number ? "Write it as a JSON number, without quotes: {\"" + std::string(row->name) + "\": " +
                               value + "}."
                         : std::string(row->hint));
  }
  check_value(*row, value, type);
  return *row;
}

void check_options(const std::vector<RawOption>& options, bool with_diagnose) {
  for (const RawOption& option : options) {
    const OptionSpec* row = find_option(option.key);
    if (row == nullptr || (row->entry == OptionEntry::Diagnose && !with_diagnose))
      refuse_unknown_option(option.key, with_diagnose);
    check_option_value(option.key, option.value, option.type);
  }
}

bool mechanism_takes(const MechanismTraits& mechanism, const OptionSpec& option) {
  if (!option.per_mechanism) return true;
  const std::string taken = std::string(" ") + mechanism.options + " ";
  return taken.find(std::string(" ") + option.name + " ") != std::string::npos;
}

std::string mechanisms_taking(const OptionSpec& option) {
  std::vector<std::string> names;
  for (const MechanismTraits& mechanism : mechanism_catalogue())
    if (mechanism_takes(mechanism, option)) names.push_back(mechanism.name);
  std::string out = "the ";
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out + (names.size() == 1 ? " mechanism" : " mechanisms");
}

void refuse_options_not_taken(const MechanismTraits& mechanism, const std::vector<RawOption>& options) {
  for (const RawOption& option : options) {
    const OptionSpec* row = find_option(option.key);
    if (row == nullptr || mechanism_takes(mechanism, *row)) continue;
    throw InvalidArgument("option \"" + option.key + "\" applies to " + mechanisms_taking(*row) + " only",
                          std::string("Mechanism \"") + mechanism.name + "\" does not take it.", "Drop the option.");
  }
}

void refuse_unknown_option(const std::string& name, bool with_diagnose) {
  std::string known;
  for (const OptionSpec& row : option_catalogue())
    if (row.entry != OptionEntry::Diagnose || with_diagnose) known += (known.empty() ? "" : ", ") + std::string(row.name);
  throw InvalidArgument("unknown option \"" + name + "\"", "Known options: " + known + ".");
}

bool option_boolean(const std::string& value) { return value == "true"; }

double option_number(const std::string& value) { return std::strtod(value.c_str(), nullptr); }

std::vector<double> option_numbers(const std::string& value) {
  const JsonValue parsed = JsonValue::parse(value);  // outlives the loop over its items
  std::vector<double> out;
  for (const JsonValue& item : parsed.array("an option")) out.push_back(item.number("an option"));
  return out;
}

std::vector<std::string> option_names(const std::string& value) {
  const JsonValue parsed = JsonValue::parse(value);
  std::vector<std::string> out;
  for (const JsonValue& item : parsed.array("an option")) out.push_back(item.string("an option"));
  return out;
}

}  // namespace invariant_dp
