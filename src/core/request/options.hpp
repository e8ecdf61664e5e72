// The options catalogue: every option of every entry point, once. A row
// says the option's name, which entry point takes it, the JSON type and the
// range of its value (and the words a refusal uses), its default and what
// it does. Every parser of options reads a value through it: the name, the
// JSON type and the range are refused here, with the row's words, before
// anything else reads the value (release_request.cpp, hierarchy_request.cpp,
// release/diagnosis_entry.cpp). docs/reference.md's options table is
// checked against it (test/unit/test_options.cpp): a row in one and not the
// other, or a choice the reference does not list, fails the test command.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace invariant_dp {

struct MechanismTraits;

// The JSON type of a value as the caller gave it, when it says so (the
// shim does; a caller that passes plain text leaves it unknown).
enum class JsonType { Unknown, String, Number, Boolean, Array, Object, Null };

enum class OptionKind {
  Boolean,         // true or false
  Number,          // a number in (low, high) or [low, high]
  WholeNumber,     // a whole number in [low, high]
  Choice,          // one of the choices, a JSON string
  ChoiceOrObject,  // one of the choices, or a JSON object (partition_selection)
  NumberArray,     // a JSON array of numbers
  NameArray,       // a JSON array of strings
};

// Which entry points take an option.
enum class OptionEntry {
  Release,    // dp.privatize, dp.check_request, dp.diagnose, a governed release
  Hierarchy,  // a release with hierarchy => ...
  Diagnose,   // dp.diagnose only
};

// One member of an options object as the caller gave it: its value as
// text (a string's characters, a number's digits, an array's or object's
// JSON) and, when the caller says, its JSON type.
struct RawOption {
  RawOption(std::string key_, std::string value_, JsonType type_ = JsonType::Unknown)
      : key(std::move(key_)), value(std::move(value_)), type(type_) {}
  std::string key;
  std::string value;
  JsonType type;
};

struct OptionSpec {
  const char* name;
  OptionEntry entry;
  OptionKind kind;
  double low = 0, high = 0;  // Number, WholeNumber
  bool open = false;         // Number: (low, high) rather than [low, high]
  std::vector<const char*> choices;
  const char* must_be;  // the refusal: option "name" must be <must_be>
  const char* hint;     // the refusal's hint (empty: none)
  // Taken only by the mechanisms whose catalogue row names it
  // (MechanismTraits::options); any other mechanism refuses it.
  bool per_mechanism = false;
};

// The catalogue, in the reference's order.
const std::vector<OptionSpec>& option_catalogue();

// The row of an option; nullptr for an unknown name.
const OptionSpec* find_option(const std::string& name);

// A value checked against its row: InvalidArgument naming the option and
// what it must be, with the value got, for a wrong JSON type (when known),
// a value out of range or not among the choices. Returns its row.
const OptionSpec& check_option_value(const std::string& name, const std::string& value, JsonType type);

// Every option of a request checked against the catalogue (its name, JSON
// type and value) before any parser reads one: dp.diagnose's own options
// are known only with_diagnose.
void check_options(const std::vector<RawOption>& options, bool with_diagnose);

// Whether a mechanism takes an option: every mechanism takes an option that
// is not per_mechanism; the others, the mechanisms whose row names them.
bool mechanism_takes(const MechanismTraits& mechanism, const OptionSpec& option);

// The mechanisms that take an option, in the catalogue's order: "the a, b
// and c mechanisms".
std::string mechanisms_taking(const OptionSpec& option);

// InvalidArgument for the first of these options the mechanism does not
// take, naming the mechanisms that do (the options' values are not read).
void refuse_options_not_taken(const MechanismTraits& mechanism, const std::vector<RawOption>& options);

// InvalidArgument "unknown option" listing the options of these entry
// points (dp.privatize's: Release and Hierarchy; dp.diagnose's: all).
[[noreturn]] void refuse_unknown_option(const std::string& name, bool with_diagnose);

// A checked value read as its kind (the text as the shim passes it: a
// number's digits, a string's characters, an array's JSON).
bool option_boolean(const std::string& value);
double option_number(const std::string& value);
std::vector<double> option_numbers(const std::string& value);
std::vector<std::string> option_names(const std::string& value);

}  // namespace invariant_dp
