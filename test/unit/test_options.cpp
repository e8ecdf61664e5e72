// The options catalogue: every option is read through it, refused with its
// row's words, and docs/reference.md's options table lists exactly its rows.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "errors.hpp"
#include "mechanisms/mechanism.hpp"
#include "request/options.hpp"
#include "request/release_request.hpp"

using namespace invariant_dp;

namespace {

std::string reference_text() {
  std::ifstream file(std::string(INVARIANT_DP_SOURCE_DIR) + "/docs/reference.md");
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The "## Options" table's rows: option name -> the row's text.
std::map<std::string, std::string> reference_rows() {
  const std::string text = reference_text();
  std::map<std::string, std::string> rows;
  const auto start = text.find("\n## Options\n");
  if (start == std::string::npos) return rows;
  const auto end = text.find("\n## ", start + 1);
  std::istringstream lines(text.substr(start, end - start));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("| `", 0) != 0) continue;
    const auto close = line.find('`', 3);
    rows[line.substr(3, close - 3)] = line;
  }
  return rows;
}

std::string refusal(const std::string& name, const std::string& value, JsonType type) {
  try {
    check_option_value(name, value, type);
  } catch (const InvalidArgument& e) {
    return std::string(e.what()) + " | " + e.detail() + " | " + e.hint();
  }
  return "accepted";
}

RawRequest request_with(std::vector<RawOption> options) {
  RawRequest raw;
  raw.mechanism = "discrete_laplace";
  raw.epsilon = 1;
  raw.options = std::move(options);
  return raw;
}

}  // namespace

TEST(Options, TheReferenceListsEveryOptionAndEveryChoice) {
  const auto rows = reference_rows();
  ASSERT_GT(rows.size(), 10u) << "docs/reference.md's options table was not found";
  std::set<std::string> catalogued;
  for (const OptionSpec& spec : option_catalogue()) {
    catalogued.insert(spec.name);
    const auto row = rows.find(spec.name);
    ASSERT_NE(row, rows.end()) << "docs/reference.md has no row for option " << spec.name;
    for (const char* choice : spec.choices)
      EXPECT_NE(row->second.find(std::string("`\"") + choice + "\"`"), std::string::npos)
          << "the reference's row for " << spec.name << " does not list \"" << choice << "\"";
  }
  for (const auto& [name, row] : rows) {
    // dp.register_stream's "mechanism" is listed only to say it is refused.
    if (name == "mechanism") continue;
    EXPECT_TRUE(catalogued.count(name)) << "the reference lists option " << name << ", which nothing takes";
  }
}

TEST(Options, ARightValueOfTheWrongJsonTypeIsRefused) {
  // {"interval": "0.9"} used to pass as 0.9.
  const std::string quoted = refusal("interval", "0.9", JsonType::String);
  EXPECT_NE(quoted.find("option \"interval\" must be a level strictly between 0 and 1"), std::string::npos) << quoted;
  EXPECT_NE(quoted.find("Got \"0.9\" (a JSON string)"), std::string::npos) << quoted;
  EXPECT_NE(quoted.find("without quotes"), std::string::npos) << quoted;
  EXPECT_EQ(refusal("interval", "0.9", JsonType::Number), "accepted");
  EXPECT_NE(refusal("stddev", "true", JsonType::String).find("must be true or false"), std::string::npos);
  EXPECT_EQ(refusal("stddev", "true", JsonType::Boolean), "accepted");
  EXPECT_NE(refusal("iterations", "100", JsonType::String).find("a whole number"), std::string::npos);
  EXPECT_NE(refusal("sampler", "1", JsonType::Number).find("must be \"auto\""), std::string::npos);
  EXPECT_NE(refusal("level_variance", "4", JsonType::Number).find("an array of positive numbers"), std::string::npos);
  EXPECT_NE(refusal("crossed", "age", JsonType::String).find("an array of column names"), std::string::npos);
  EXPECT_EQ(refusal("partition_selection", "{\"budget_share\": 0.8}", JsonType::Object), "accepted");
  EXPECT_NE(refusal("partition_selection", "[1]", JsonType::Array).find("or an object"), std::string::npos);
  EXPECT_NE(refusal("keys", "null", JsonType::Null).find("(JSON null)"), std::string::npos);
}

TEST(Options, RangesAndChoicesAreTheRows) {
  EXPECT_NE(refusal("interval", "1", JsonType::Number).find("strictly between 0 and 1"), std::string::npos);
  EXPECT_NE(refusal("interval", "0", JsonType::Unknown).find("strictly between 0 and 1"), std::string::npos);
  EXPECT_NE(refusal("interval", "nan", JsonType::Unknown).find("strictly between"), std::string::npos);
  EXPECT_EQ(refusal("iterations", "1e10", JsonType::Number), "accepted");
  EXPECT_NE(refusal("iterations", "1.5", JsonType::Number).find("whole number"), std::string::npos);
  EXPECT_NE(refusal("iterations", "1e11", JsonType::Number).find("whole number"), std::string::npos);
  EXPECT_NE(refusal("rho", "0", JsonType::Number).find("a positive number"), std::string::npos);
  EXPECT_EQ(refusal("rho", "1e300", JsonType::Number), "accepted");
  EXPECT_NE(refusal("level_variance", "[1, 0]", JsonType::Array).find("positive numbers"), std::string::npos);
  EXPECT_NE(refusal("level_variance", "[]", JsonType::Array).find("is empty"), std::string::npos);
  EXPECT_NE(refusal("level_variance", "[1, \"2\"]", JsonType::Array).find("positive numbers"), std::string::npos);
  EXPECT_NE(refusal("crossed", "[\"a\", 2]", JsonType::Array).find("column names"), std::string::npos);
  EXPECT_EQ(refusal("crossed", "[\"age_group\", \"age\"]", JsonType::Array), "accepted");
  EXPECT_NE(refusal("neighbours", "replace one", JsonType::String).find("\"replace_one\" or \"add_remove\""),
            std::string::npos);
  EXPECT_EQ(refusal("lag", "10000000", JsonType::Number), "accepted");
  EXPECT_NE(refusal("lag", "10000001", JsonType::Number).find("from 1 to 1e7"), std::string::npos);
}

TEST(Options, UnknownOptionsListTheEntryPointsOwn) {
  try {
    validate_request(request_with({{"stdev", "true", JsonType::Boolean}}));
    FAIL() << "an unknown option was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "unknown option \"stdev\"");
    EXPECT_NE(e.detail().find("stddev"), std::string::npos);
    EXPECT_EQ(e.detail().find("coupled_pairs"), std::string::npos) << "dp.privatize does not take dp.diagnose's";
  }
  try {
    check_options({{"lagg", "3", JsonType::Number}}, /*with_diagnose=*/true);
    FAIL() << "an unknown option was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(e.detail().find("coupled_pairs"), std::string::npos);
  }
  // dp.diagnose's options are unknown to dp.privatize.
  EXPECT_THROW(validate_request(request_with({{"lag", "3", JsonType::Number}})), InvalidArgument);
}

TEST(Options, ValidateRequestReadsTheCheckedValues) {
  const ReleaseRequest request = validate_request(request_with(
      {{"stddev", "true", JsonType::Boolean}, {"interval", "0.8", JsonType::Number}, {"neighbours", "add_remove"}}));
  EXPECT_TRUE(request.with_stddev);
  EXPECT_DOUBLE_EQ(request.interval_level, 0.8);
  EXPECT_EQ(request.neighbours, Neighbours::AddRemove);
  EXPECT_THROW(validate_request(request_with({{"interval", "0.8", JsonType::String}})), InvalidArgument);
  // A hierarchy's option where nothing takes it out of the list.
  try {
    validate_request(request_with({{"level", "true", JsonType::Boolean}}));
    FAIL() << "a hierarchy option without a hierarchy was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "option \"level\" needs a hierarchy");
  }
}

namespace {

// The mechanisms a reference row names in its "taken by" column (its second).
std::set<std::string> mechanisms_named(const std::string& row) {
  std::set<std::string> names;
  const auto first = row.find('|', 1), second = row.find('|', first + 1);
  const std::string column = row.substr(first + 1, second - first - 1);
  for (const MechanismTraits& mechanism : mechanism_catalogue())
    if (column.find(std::string("`") + mechanism.name + "`") != std::string::npos) names.insert(mechanism.name);
  return names;
}

std::set<std::string> mechanisms_taking_set(const OptionSpec& option) {
  std::set<std::string> names;
  for (const MechanismTraits& mechanism : mechanism_catalogue())
    if (mechanism_takes(mechanism, option)) names.insert(mechanism.name);
  return names;
}

}  // namespace

TEST(Options, TheReferenceNamesTheMechanismsTakingEachOption) {
  const auto rows = reference_rows();
  std::set<std::string> per_mechanism;
  for (const OptionSpec& option : option_catalogue()) {
    if (!option.per_mechanism) continue;
    per_mechanism.insert(option.name);
    const std::set<std::string> taking = mechanisms_taking_set(option);
    EXPECT_FALSE(taking.empty()) << "no mechanism takes option " << option.name;
    ASSERT_TRUE(rows.count(option.name));
    EXPECT_EQ(mechanisms_named(rows.at(option.name)), taking)
        << "docs/reference.md's row for " << option.name << " names other mechanisms than the catalogue";
  }
  EXPECT_GE(per_mechanism.size(), 5u);
  // Every option a catalogue row names is one only some mechanisms take.
  for (const MechanismTraits& mechanism : mechanism_catalogue()) {
    std::istringstream words(mechanism.options);
    for (std::string word; words >> word;)
      EXPECT_TRUE(per_mechanism.count(word)) << mechanism.name << " names option " << word
                                             << ", which is not an option only some mechanisms take";
  }
  // Power: a row that forgets a mechanism, or names one too many, differs.
  const std::string iterations = rows.at("iterations");
  std::string forgetful = iterations;
  forgetful.replace(forgetful.find("`integer_gaussian`"), 18, "`gaussian`");
  EXPECT_NE(mechanisms_named(forgetful), mechanisms_taking_set(*find_option("iterations")));
  std::string generous = iterations;
  generous.insert(generous.find('|', 1) + 1, " `discrete_laplace`,");
  EXPECT_NE(mechanisms_named(generous), mechanisms_taking_set(*find_option("iterations")));
}

TEST(Options, AnOptionOnlySomeMechanismsTakeIsRefusedByTheOthers) {
  RawRequest raw = request_with({{"iterations", "500", JsonType::Number}});
  try {
    validate_request(raw);
    FAIL() << "discrete_laplace took option \"iterations\"";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(),
                 "option \"iterations\" applies to the integer_laplace, integer_laplace_l2, integer_gaussian and "
                 "congenial mechanisms only");
    EXPECT_EQ(e.detail(), "Mechanism \"discrete_laplace\" does not take it.");
  }
  raw.mechanism = "integer_laplace";
  EXPECT_EQ(validate_request(raw).iterations, 500u);
  raw.options = {{"sampler", "mis", JsonType::String}};
  raw.mechanism = "integer_gaussian";
  raw.has_delta = true;
  raw.delta = 1e-6;
  try {
    validate_request(raw);
    FAIL() << "integer_gaussian took option \"sampler\"";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "option \"sampler\" applies to the integer_laplace and congenial mechanisms only");
  }
  // A hierarchy's option, before the hierarchy takes it.
  try {
    refuse_options_not_taken(mechanism_by_name("integer_laplace"), {{"rho", "0.5", JsonType::Number}});
    FAIL() << "integer_laplace took option \"rho\"";
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "option \"rho\" applies to the cascade and integer_cascade mechanisms only");
  }
  EXPECT_NO_THROW(refuse_options_not_taken(mechanism_by_name("cascade"), {{"rho", "0.5", JsonType::Number}}));
}
