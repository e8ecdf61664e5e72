// Unit tests of error bars from what an analyst reads (accuracy/
// published_law.hpp, release_rows.hpp, published_release.hpp, through the C
// boundary invariant_dp_accuracy.h): releases made by idp_release, their
// tables' rows and their published laws in, variances out, checked against
// the dense projector, the accuracy library's closed forms and the
// identities a release must satisfy (a node's variance is that of its
// leaves' sum; a margin's sum has none). Also the JSON reader, the layout
// rules and every refusal.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <string>

#include "accuracy/published_law.hpp"
#include "accuracy/release_rows.hpp"
#include "accuracy_fixtures.hpp"
#include "capi/invariant_dp_accuracy.h"
#include "errors.hpp"
#include "hierarchy/streaming_cascade.hpp"
#include "accuracy/hierarchy_accuracy.hpp"
#include "json_reader.hpp"
#include "release_table_rows.hpp"
#include "samplers/conditioned_laplace_variance.hpp"
#include "samplers/discrete_laplace.hpp"
#include "prepared_release.hpp"

namespace invariant_dp {
namespace {

using namespace accuracy;
using test_tables::ReleaseTableRows;
using test_tables::TestTable;

// A release of `table` through the C boundary and its error bars, prepared
// from its table's rows and its law (law_edit rewrites the law first).
struct Released {
  std::unique_ptr<ReleaseTableRows> rows;
  idp_accuracy* accuracy = nullptr;
  idp_error error{};
  idp_status status = IDP_OK;
  ~Released() { idp_accuracy_free(accuracy); }

  // The variance of the rows selected (each weight 1) and its margin at 0.9.
  idp_error_bar sum(const std::vector<std::size_t>& rows_in_sum, double level = 0.9) {
    std::vector<idp_row_id> ids;
    for (std::size_t r : rows_in_sum) ids.push_back(rows->ids()[r]);
    idp_error_bar bar{};
    EXPECT_EQ(idp_accuracy_sum(accuracy, ids.size(), ids.data(), nullptr, level, nullptr, &bar, &error), IDP_OK)
        << error.message;
    return bar;
  }
  // Rows whose key k is `text` (nullptr: NULL), for every (k, text) given.
  std::vector<std::size_t> where(const std::vector<std::pair<std::size_t, const char*>>& keys) const {
    std::vector<std::size_t> out;
    for (std::size_t r = 0; r < rows->n_rows(); ++r) {
      bool all = true;
      for (const auto& [k, text] : keys) {
        const char* key = rows->key(r, k);
        all = all && ((key == nullptr && text == nullptr) || (key && text && std::string(key) == text));
      }
      if (all) out.push_back(r);
    }
    return out;
  }
};

struct Request {
  const char* mechanism = "integer_laplace";
  double epsilon = 1;
  double delta = 0;
  std::vector<const char*> margins{}, hierarchy{}, option_keys{}, option_values{};
};

std::unique_ptr<Released> release(const TestTable& table, const Request& r,
                                  const std::function<std::string(std::string)>& law_edit = nullptr,
                                  bool with_level = false) {
  const auto keys = table.text_keys();
  std::vector<const char*> names;
  for (const std::string& c : table.columns) names.push_back(c.c_str());
  idp_request request{};
  request.mechanism = r.mechanism;
  request.epsilon = r.epsilon;
  request.has_delta = r.delta > 0;
  request.delta = r.delta;
  request.n_margins = r.margins.size();
  request.margins = r.margins.data();
  request.n_hierarchy = r.hierarchy.size();
  request.hierarchy = r.hierarchy.data();
  request.n_options = r.option_keys.size();
  request.option_keys = r.option_keys.data();
  request.option_values = r.option_values.data();
  idp_cells cells{};
  cells.n_columns = names.size();
  cells.column_names = names.data();
  cells.dictionaries = keys.dictionaries();
  cells.n_source_rows = table.counts.size();
  cells.source_keys.columns = keys.codes();
  cells.source_counts = table.counts.data();
  // A seeded stream of its own (the session restarts it on a new
  // generation), so no release depends on which test ran before.
  static std::uint64_t generation = 0x5eed0000;
  idp_randomness randomness{true, 7, ++generation};
  idp_error error{};
  idp_release_table* out = nullptr;
  EXPECT_EQ(prepare_and_release(&request, &cells, &randomness, nullptr, &out, &error), IDP_OK) << error.message;
  auto released = std::make_unique<Released>();
  if (out == nullptr) return released;
  released->rows = std::make_unique<ReleaseTableRows>(table, *out);
  const bool integer = out->integer_output;
  idp_free_release(out);
  std::string law = released->rows->law();
  if (law_edit) law = law_edit(law);
  idp_table_columns columns = released->rows->columns(integer, with_level, false);
  idp_row_layout layout{};
  released->status = idp_accuracy_layout(law.c_str(), &columns, &layout, &released->error);
  if (released->status != IDP_OK) return released;
  const idp_release_rows rows = released->rows->rows(layout);
  released->status =
      idp_accuracy_prepare(law.c_str(), &columns, &rows, nullptr, &released->accuracy, &released->error);
  return released;
}

// The law with a field added to its "noise" object.
std::function<std::string(std::string)> with_noise_field(const std::string& field) {
  return [field](std::string law) {
    const std::size_t at = law.find("\"noise\": {");
    return law.insert(at + 10, field + ", ");
  };
}

TestTable table_3x4() {
  return test_tables::grid({"a", "b"}, {3, 4}, {5, 7, 2, 9, 4, 4, 8, 1, 6, 3, 3, 7});
}

// --- the JSON reader ---------------------------------------------------------

TEST(JsonReader, ReadsWhatTheMetadataWrites) {
  const JsonValue v = JsonValue::parse(R"( {"a": [1, -2.5e3, true, null], "b": {"c": "x\"\u00e9\ud83d\ude00"}} )");
  ASSERT_TRUE(v.is_object());
  EXPECT_EQ(v.find("a")->array("a").size(), 4u);
  EXPECT_DOUBLE_EQ(v.find("a")->array("a")[1].number("a"), -2500);
  EXPECT_TRUE(v.find("a")->array("a")[2].boolean("a"));
  EXPECT_TRUE(v.find("a")->array("a")[3].is_null());
  EXPECT_EQ(v.find_path({"b", "c"})->string("c"), "x\"\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(v.find("z"), nullptr);
}

TEST(JsonReader, RefusesMalformedTextWithoutCrashing) {
  for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "nul", "1 2", "\"\\x\"", "\"a\nb\"", "1e999", "[\"\\ud800\\u0041\"]"})
    EXPECT_THROW(JsonValue::parse(bad), InvalidArgument) << bad;
  EXPECT_THROW(JsonValue::parse(std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']')),
               InvalidArgument);
  EXPECT_NO_THROW(JsonValue::parse(std::string(kMaxJsonDepth - 1, '[') + std::string(kMaxJsonDepth - 1, ']')));
  EXPECT_THROW(JsonValue::parse("{\"a\": 1}").find("a")->string("a"), InvalidArgument);
}

// --- reading laws ------------------------------------------------------------

TEST(PublishedLaw, ReadsEachFamilysFields) {
  auto r = release(test_tables::delinquents(), Request{"integer_laplace", 0.5, 0, {"county"}});
  const PublishedLaw law = read_published_law(r->rows->law());
  EXPECT_EQ(law.family, LawFamily::laplace_lattice);
  EXPECT_TRUE(law.integer_output);
  EXPECT_EQ(law.exact_parameter.num, 4u);
  EXPECT_EQ(law.exact_parameter.den, 1u);
  EXPECT_EQ(law.structure, "partition");
  EXPECT_EQ(law.margins, std::vector<std::vector<std::string>>({{"county"}}));
  EXPECT_EQ(law.cells, 16);
  EXPECT_FALSE(law.chain);
  const PublishedLaw stream =
      read_published_law(R"({"mechanism": "cascade_stream", "error_law": "gaussian_stream", "variance": 2.5})");
  EXPECT_EQ(stream.family, LawFamily::stream);
  EXPECT_DOUBLE_EQ(stream.stream_variance, 2.5);
}

TEST(PublishedLaw, RefusesLawsWithoutErrorBars) {
  for (const char* m : {"congenial", "project_nn_l2", "project_nn_integer"}) {
    try {
      read_published_law(std::string(R"({"mechanism": ")") + m + R"(", "error_law": "data_dependent"})");
      FAIL() << m;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("has no error bars"), std::string::npos);
      EXPECT_NE(e.detail().find("depends on the counts"), std::string::npos);
    }
  }
  // The family is the law's "error_law", never its mechanism's name: an
  // unknown family is refused, and so is a law without one (as 0.6.0 wrote
  // them, before ALTER EXTENSION ... UPDATE adds it).
  EXPECT_THROW(read_published_law(R"({"mechanism": "integer_laplace", "error_law": "laplace_plus"})"), InvalidArgument);
  try {
    read_published_law(R"({"mechanism": "cascade_stream", "variance": 2.5})");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "the noise law has no error_law");
    EXPECT_NE(e.detail().find("ALTER EXTENSION invariant_dp UPDATE"), std::string::npos);
  }
  EXPECT_THROW(read_published_law(R"([1, 2])"), InvalidArgument);
  try {
    read_published_law(
        R"({"mechanism": "integer_laplace", "error_law": "laplace_lattice", "invariants": {"margins": []}, "noise": {}})");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "the noise law has no noise.exact_parameter");
  }
  EXPECT_THROW(read_published_law(
                   R"({"mechanism": "discrete_laplace", "error_law": "laplace_lattice", "invariants": {"margins": []},
                                     "noise": {"exact_parameter": "4/0"}})"),
               InvalidArgument);
  EXPECT_THROW(read_published_law(R"({"mechanism": "cascade_stream", "error_law": "gaussian_stream", "variance": -1})"),
               InvalidArgument);
}

TEST(PublishedLaw, CovarianceScaleIsOneNumberOrOnePerShape) {
  const PublishedLaw one = read_published_law(
      R"({"mechanism": "integer_laplace_l2", "error_law": "l2_lattice", "invariants": {"margins": []}, "noise": {"covariance_scale": 3}})");
  EXPECT_DOUBLE_EQ(one.covariance_scale.of_shape({3, 4}), 3);
  const PublishedLaw shapes = read_published_law(
      R"({"mechanism": "integer_laplace_l2", "error_law": "l2_lattice", "invariants": {"margins": []},
          "noise": {"covariance_scale": [{"shape": [3, 4], "scale": 2}, {"shape": [5], "scale": 1.5}]}})");
  EXPECT_DOUBLE_EQ(shapes.covariance_scale.of_shape({5}), 1.5);
  EXPECT_THROW(shapes.covariance_scale.of_shape({4, 3}), InvalidArgument);
  const PublishedLaw none = read_published_law(
      R"({"mechanism": "integer_laplace_l2", "error_law": "l2_lattice", "invariants": {"margins": []}, "noise": {}})");
  try {
    none.covariance_scale.of_shape({3, 4});
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "the release did not publish noise.covariance_scale");
  }
}

// --- layouts -----------------------------------------------------------------

TEST(RowLayout, KeysFromTheSourceOrFromTheLawAndTheTypes) {
  const PublishedLaw flat = read_published_law(
      R"({"mechanism": "subspace_gaussian", "error_law": "projected_gaussian", "invariants": {"margins": [["county"]]}, "noise": {"unit_variance": 1}})");
  using T = ColumnType;
  // Known key columns: the table's first ones, whatever they are called.
  RowLayout l = row_layout(flat, {{"c", "e", "n"}, {T::other, T::other, T::float8}, {"county", "edu"}});
  EXPECT_EQ(l.n_keys, 2u);
  EXPECT_EQ(l.key_names, std::vector<std::string>({"county", "edu"}));
  // Otherwise: the columns before the count, an sd column after it.
  l = row_layout(flat, {{"county", "edu", "n", "sd"}, {T::other, T::other, T::float8, T::float8}, {}});
  EXPECT_EQ(l.n_keys, 2u);
  l = row_layout(flat, {{"county", "n"}, {T::other, T::float8}, {}});
  EXPECT_EQ(l.n_keys, 1u);
  // A margin column the table lacks, no count after the keys: refused.
  EXPECT_THROW(row_layout(flat, {{"c", "e", "n"}, {T::other, T::other, T::float8}, {}}), InvalidArgument);
  EXPECT_THROW(row_layout(flat, {{"county", "edu"}, {T::other, T::other}, {}}), InvalidArgument);
  const PublishedLaw tree = read_published_law(
      R"({"mechanism": "cascade", "error_law": "gaussian_cascade", "invariants": {"margins": []}, "noise": {"level_variance": [1, 1, 1]},
          "hierarchy": {"levels": ["county"], "level_names": ["total", "county", "cell"], "nodes": 21, "leaves": 16}})");
  l = row_layout(tree, {{"county", "edu", "n", "level"}, {T::other, T::other, T::float8, T::int4}, {}});
  EXPECT_EQ(l.n_keys, 2u);
  EXPECT_EQ(l.level_columns, std::vector<int>({3}));
  l = row_layout(tree, {{"county", "edu", "n"}, {T::other, T::other, T::float8}, {}});
  EXPECT_EQ(l.level_columns, std::vector<int>({-1}));
}

// --- flat releases -----------------------------------------------------------

TEST(PublishedRelease, ProjectedLawsAreUnitVarianceTimesTheProjector) {
  const TestTable table = test_tables::delinquents();
  auto r = release(table, Request{"subspace_gaussian", 1, 1e-6, {"county", "edu"}});
  ASSERT_EQ(r->status, IDP_OK) << r->error.message;
  const double v = read_published_law(r->rows->law()).unit_variance;
  const Eigen::MatrixXd pi = accuracy_fixtures::dense_projector(accuracy_fixtures::grid({4, 4}), {{0}, {1}});
  std::mt19937_64 gen(3);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<std::size_t> rows;
    Eigen::VectorXd w = Eigen::VectorXd::Zero(16);
    for (std::size_t i = 0; i < 16; ++i)
      if (gen() % 2) {
        rows.push_back(i);
        w[Eigen::Index(i)] = 1;
      }
    if (rows.empty()) continue;
    const idp_error_bar bar = r->sum(rows);
    EXPECT_NEAR(bar.variance, v * w.dot(pi * w), 1e-9 * v);
    EXPECT_STREQ(bar.variance_kind, "exact");
    EXPECT_EQ(bar.cells, rows.size());
  }
  // A county's total is a margin: no noise, no margin of error.
  const idp_error_bar county = r->sum(r->where({{0, "county0"}}));
  EXPECT_EQ(county.variance, 0);
  EXPECT_EQ(county.margin_of_error, 0);
}

TEST(PublishedRelease, IntegerLaplaceOnAPartitionIsExact) {
  auto r = release(test_tables::delinquents(), Request{"integer_laplace", 0.5, 0, {"county"}});
  ASSERT_EQ(r->status, IDP_OK) << r->error.message;
  const Rational b{4, 1};
  const double vk = conditioned_laplace_variance(b, 4);
  EXPECT_NEAR(r->sum({0}).variance, vk, 1e-9 * vk);
  // Two cells of one group: 2 V - 2 V/3; of two groups: 2 V.
  EXPECT_NEAR(r->sum({0, 1}).variance, 2 * vk - 2 * vk / 3, 1e-9 * vk);
  EXPECT_NEAR(r->sum({0, 4}).variance, 2 * vk, 1e-9 * vk);
  EXPECT_EQ(r->sum(r->where({{0, "county2"}})).variance, 0);
  // A row counted twice counts twice: weight 2 on one cell is 4 V.
  EXPECT_NEAR(r->sum({3, 3}).variance, 4 * vk, 1e-9 * vk);
  const idp_error_bar bar = r->sum({0, 4});
  EXPECT_STREQ(bar.margin_kind, "certified");  // two cells: Chebyshev
  EXPECT_EQ(bar.margin_of_error, std::ceil(std::sqrt(2 * vk / 0.1)));
}

TEST(PublishedRelease, LatticeGaussianTablesAreCertified) {
  auto r = release(table_3x4(), Request{"integer_gaussian", 1, 1e-6, {"a", "b"}});
  ASSERT_EQ(r->status, IDP_OK) << r->error.message;
  const PublishedLaw law = read_published_law(r->rows->law());
  const double s2 = law.exact_parameter.to_double();
  const idp_error_bar one = r->sum({0});
  EXPECT_STREQ(one.variance_kind, "certified");
  EXPECT_NEAR(one.variance, s2 * (2.0 / 3) * (3.0 / 4), 1e-9 * s2);
  EXPECT_LE(one.variance_lower, one.variance);
  EXPECT_GT(one.variance_lower, 0.99 * one.variance);
  EXPECT_EQ(r->sum(r->where({{1, "b2"}})).variance, 0);  // a column total
}

// The law without its noise.covariance_scale field.
std::string without_covariance_scale(std::string law) {
  const std::size_t at = law.find(", \"covariance_scale\": [");
  if (at == std::string::npos) return law;
  return law.erase(at, law.find(']', law.find("}]", at)) + 1 - at);
}

TEST(PublishedRelease, ChainsAndTheThreeLineSamplerNeedTheirPublishedScalar) {
  const TestTable table = table_3x4();
  // The three-line sampler's release publishes its scalar, estimated from
  // further exact draws: its error bars are estimates from it.
  auto published = release(table, Request{"integer_laplace", 1, 0, {"a", "b"}});
  ASSERT_EQ(published->status, IDP_OK) << published->error.message;
  ASSERT_NE(published->rows->law().find("\"covariance_scale\": [{\"shape\": [3, 4], \"scale\": "), std::string::npos)
      << published->rows->law();
  EXPECT_STREQ(published->sum({0}).variance_kind, "estimate");
  // Without it the law gives no error bars.
  auto bare = release(table, Request{"integer_laplace", 1, 0, {"a", "b"}}, without_covariance_scale);
  ASSERT_EQ(bare->status, IDP_INVALID_ARGUMENT);
  EXPECT_STREQ(bare->error.message, "the release did not publish noise.covariance_scale");
  const auto add_scale = with_noise_field(R"("covariance_scale": [{"shape": [3, 4], "scale": 2.5}])");
  auto scaled = release(table, Request{"integer_laplace", 1, 0, {"a", "b"}},
                        [&](std::string law) { return add_scale(without_covariance_scale(law)); });
  ASSERT_EQ(scaled->status, IDP_OK) << scaled->error.message;
  const idp_error_bar one = scaled->sum({0});
  EXPECT_STREQ(one.variance_kind, "estimate");
  EXPECT_NEAR(one.variance, 2.5 * (2.0 / 3) * (3.0 / 4), 1e-12);
  // The l2 law is drawn by a chain: the figure is the law's, and says so.
  auto l2 = release(table, Request{"integer_laplace_l2", 1, 0, {"a", "b"}}, with_noise_field(R"("covariance_scale": 4)"));
  ASSERT_EQ(l2->status, IDP_OK) << l2->error.message;
  const idp_error_bar chain = l2->sum({0, 5});
  EXPECT_STREQ(chain.variance_kind, "estimate");
  ASSERT_NE(chain.caveat, nullptr);
  EXPECT_NE(std::string(chain.caveat).find("the figure is the law's"), std::string::npos);
}

// A basis chain publishes its scale too: on a margin group per group size
// (integer_laplace_l2 on one margin), and on general margins (a 3 x 4
// table without its first cell) one scalar of shape [], the cells' Monte
// Carlo variances summed over trace(Pi_N) = the null space's dimension.
TEST(PublishedRelease, BasisChainsPublishTheirScale) {
  const TestTable full = table_3x4();
  auto groups = release(full, Request{"integer_laplace_l2", 1, 0, {"a"}});
  ASSERT_EQ(groups->status, IDP_OK) << groups->error.message;
  EXPECT_NE(groups->rows->law().find("\"covariance_scale\": [{\"shape\": [4], \"scale\": "), std::string::npos)
      << groups->rows->law();
  EXPECT_STREQ(groups->sum({0}).variance_kind, "estimate");
  EXPECT_EQ(groups->sum(groups->where({{0, "a1"}})).variance, 0);  // a group's total is a margin

  TestTable incomplete{full.columns, {}, {}};
  for (std::size_t r = 1; r < full.counts.size(); ++r) {
    incomplete.text.push_back(full.text[2 * r]);
    incomplete.text.push_back(full.text[2 * r + 1]);
    incomplete.counts.push_back(full.counts[r]);
  }
  auto general = release(incomplete, Request{"integer_laplace", 1, 0, {"a", "b"}, {}, {"sampler", "stddev"},
                                             {"chain", "true"}});
  ASSERT_EQ(general->status, IDP_OK) << general->error.message;
  const PublishedLaw law = read_published_law(general->rows->law());
  EXPECT_EQ(law.structure, "general");
  ASSERT_EQ(law.null_dimension, 5);  // 11 cells, rank 3 + 4 - 1
  double variance = 0;
  for (std::size_t r = 0; r < general->rows->n_rows(); ++r) variance += std::pow(general->rows->sd(r), 2);
  EXPECT_NEAR(law.covariance_scale.of_shape({}), variance / 5, 1e-9 * variance);
  const idp_error_bar one = general->sum({0});
  EXPECT_STREQ(one.variance_kind, "estimate");
  EXPECT_GT(one.variance, 0);
  EXPECT_EQ(general->sum(general->where({{0, "a2"}})).variance, 0);  // a row total is a margin
}

TEST(PublishedRelease, IndependentCellsAndPrivacyUnitsTakeTheCalibratedScale) {
  auto r = release(test_tables::delinquents(), Request{"discrete_laplace", 1});
  ASSERT_EQ(r->status, IDP_OK) << r->error.message;
  const double v = discrete_laplace_variance(Rational{2, 1});
  EXPECT_NEAR(r->sum({0, 1, 2}).variance, 3 * v, 1e-9 * v);
}

// --- hierarchies -------------------------------------------------------------

TEST(PublishedRelease, ANodesVarianceIsThatOfItsLeavesSum) {
  const TestTable table = test_tables::delinquents();
  for (const char* mechanism : {"cascade", "integer_cascade"}) {
    auto r = release(table, Request{mechanism, 1, 1e-6, {}, {"county"}});
    ASSERT_EQ(r->status, IDP_OK) << r->error.message;
    const PublishedLaw law = read_published_law(r->rows->law());
    const auto county = r->where({{0, "county1"}, {1, nullptr}});
    ASSERT_EQ(county.size(), 1u);
    const idp_error_bar node = r->sum(county);
    EXPECT_NEAR(node.variance, law.level_variance[0][1], 1e-9 * node.variance);
    std::vector<std::size_t> leaves;
    for (std::size_t row : r->where({{0, "county1"}}))
      if (row != county[0]) leaves.push_back(row);
    ASSERT_EQ(leaves.size(), 4u);
    EXPECT_NEAR(r->sum(leaves).variance, node.variance, 1e-9 * node.variance);
    EXPECT_STREQ(node.variance_kind, law.integer_output ? "certified" : "exact");
    // The total and its four counties at once: weights 1 on five nodes.
    auto all = r->where({{1, nullptr}});
    EXPECT_EQ(all.size(), 5u);
    EXPECT_GT(r->sum(all).variance, 0);
  }
}

TEST(PublishedRelease, MarginsOfAHierarchyAreExact) {
  const TestTable table = test_tables::delinquents();
  // The cascade conditioned on the county totals, and integer_laplace rolled up.
  for (const char* mechanism : {"cascade", "integer_laplace"}) {
    Request req{mechanism, 1, std::string(mechanism) == "cascade" ? 1e-6 : 0, {"county"}, {"county"}};
    auto r = release(table, req);
    ASSERT_EQ(r->status, IDP_OK) << r->error.message;
    EXPECT_EQ(r->sum(r->where({{0, "county3"}, {1, nullptr}})).variance, 0) << mechanism;
    EXPECT_EQ(r->sum(r->where({{0, nullptr}})).variance, 0) << mechanism;
    EXPECT_GT(r->sum(r->where({{0, "county3"}, {1, "edu1"}})).variance, 0) << mechanism;
  }
}

TEST(PublishedRelease, LevelColumnsAreReadWhenPresent) {
  auto r = release(test_tables::delinquents(), Request{"cascade", 1, 1e-6, {}, {"county"}, {"level"}, {"true"}},
                   nullptr, true);
  ASSERT_EQ(r->status, IDP_OK) << r->error.message;
  EXPECT_GT(r->sum({0}).variance, 0);
}

TEST(PublishedRelease, CrossedRectanglesAreProductsOfTheTwoTrees) {
  const TestTable table = test_tables::delinquents();
  auto r = release(table, Request{"cascade", 1, 1e-6, {}, {"county"}, {"crossed"}, {"[\"edu\"]"}});
  ASSERT_EQ(r->status, IDP_OK) << r->error.message;
  const PublishedLaw law = read_published_law(r->rows->law());
  const auto rect = r->where({{0, "county2"}, {1, nullptr}});
  ASSERT_EQ(rect.size(), 1u);
  EXPECT_NEAR(r->sum(rect).variance, law.level_variance[0][1] * law.level_variance[1][0], 1e-9);
  // The county's row equals the sum of its four cells.
  std::vector<std::size_t> cells;
  for (std::size_t row : r->where({{0, "county2"}}))
    if (r->rows->key(row, 1) != nullptr) cells.push_back(row);
  ASSERT_EQ(cells.size(), 4u);
  EXPECT_NEAR(r->sum(cells).variance, r->sum(rect).variance, 1e-9 * r->sum(rect).variance);
}

// --- streams -------------------------------------------------------------------

TEST(PublishedRelease, StreamPeriodsInPeriodOrder) {
  const char* law = R"({"mechanism": "cascade_stream", "error_law": "gaussian_stream", "variance": 2})";
  const TestTable periods = test_tables::grid({"day"}, {6}, {1, 2, 3, 4, 5, 6});
  const auto keys = periods.text_keys();
  std::vector<idp_row_id> ids;
  for (std::size_t r = 0; r < 6; ++r) ids.push_back(test_tables::row_id(r));
  idp_key_codes codes{keys.codes()[0], 6, 0xffffffffu};
  const char* names[] = {"day", "n"};
  const idp_column_type types[] = {IDP_COLUMN_OTHER, IDP_COLUMN_FLOAT8};
  idp_table_columns columns{2, names, types, 0, nullptr};
  idp_row_layout layout{};
  idp_error error{};
  ASSERT_EQ(idp_accuracy_layout(law, &columns, &layout, &error), IDP_OK) << error.message;
  EXPECT_TRUE(layout.period_order);
  idp_release_rows rows{6, ids.data(), &codes, nullptr};
  idp_accuracy* accuracy = nullptr;
  ASSERT_EQ(idp_accuracy_prepare(law, &columns, &rows, nullptr, &accuracy, &error), IDP_OK) << error.message;
  idp_error_bar bar{};
  ASSERT_EQ(idp_accuracy_sum(accuracy, 1, &ids[2], nullptr, 0.95, nullptr, &bar, &error), IDP_OK);
  EXPECT_DOUBLE_EQ(bar.variance, 2);
  ASSERT_EQ(idp_accuracy_sum(accuracy, 4, ids.data(), nullptr, 0.95, nullptr, &bar, &error), IDP_OK);
  EXPECT_NEAR(bar.variance, stream_variance(2, {0, 1, 2, 3}, {1, 1, 1, 1}), 1e-12);
  EXPECT_STREQ(bar.variance_kind, "exact");
  EXPECT_STREQ(bar.margin_kind, "exact");  // Gaussian: the normal law
  idp_accuracy_free(accuracy);
}

// --- refusals -------------------------------------------------------------------

TEST(PublishedRelease, RowsThatAreNotTheLawsReleaseAreRefused) {
  const TestTable table = test_tables::delinquents();
  auto r = release(table, Request{"integer_laplace", 0.5, 0, {"county"}});
  ASSERT_EQ(r->status, IDP_OK);
  // A row the structure does not know: reported, no figure.
  const idp_row_id stranger{1, 2};
  idp_error_bar bar{};
  ASSERT_EQ(idp_accuracy_sum(r->accuracy, 1, &stranger, nullptr, 0.9, nullptr, &bar, &r->error), IDP_OK);
  EXPECT_EQ(bar.unknown_rows, 1u);
  // The law of a release of 16 cells against 15 rows.
  idp_table_columns columns = r->rows->columns(true, false, false);
  idp_row_layout layout{};
  ASSERT_EQ(idp_accuracy_layout(r->rows->law().c_str(), &columns, &layout, &r->error), IDP_OK);
  idp_release_rows rows = r->rows->rows(layout);
  rows.n_rows = 15;
  idp_accuracy* accuracy = nullptr;
  EXPECT_EQ(idp_accuracy_prepare(r->rows->law().c_str(), &columns, &rows, nullptr, &accuracy, &r->error),
            IDP_INVALID_DATA);
  EXPECT_EQ(accuracy, nullptr);
  // The same row twice.
  std::vector<idp_row_id> ids = r->rows->ids();
  ids[1] = ids[0];
  rows = r->rows->rows(layout);
  rows.ids = ids.data();
  EXPECT_EQ(idp_accuracy_prepare(r->rows->law().c_str(), &columns, &rows, nullptr, &accuracy, &r->error),
            IDP_INVALID_DATA);
  // A law of another mechanism's release.
  EXPECT_EQ(idp_accuracy_prepare(R"({"mechanism": "congenial", "error_law": "data_dependent"})", &columns, &rows,
                                 nullptr, &accuracy, &r->error),
            IDP_INVALID_ARGUMENT);
  // A confidence outside (0, 1).
  EXPECT_EQ(idp_accuracy_sum(r->accuracy, 1, &r->rows->ids()[0], nullptr, 1.5, nullptr, &bar, &r->error),
            IDP_INVALID_ARGUMENT);
}

TEST(PublishedRelease, PreparationPollsForCancellation) {
  const TestTable table = test_tables::grid({"a", "b"}, {100, 100}, std::vector<std::int64_t>(10000, 3));
  auto r = release(table, Request{"subspace_laplace", 1, 0, {"a", "b"}});
  ASSERT_EQ(r->status, IDP_OK);
  idp_table_columns columns = r->rows->columns(false, false, false);
  idp_row_layout layout{};
  ASSERT_EQ(idp_accuracy_layout(r->rows->law().c_str(), &columns, &layout, &r->error), IDP_OK);
  const idp_release_rows rows = r->rows->rows(layout);
  idp_interrupts stop{[](void*) { return true; }, nullptr, nullptr};
  idp_accuracy* accuracy = nullptr;
  EXPECT_EQ(idp_accuracy_prepare(r->rows->law().c_str(), &columns, &rows, &stop, &accuracy, &r->error),
            IDP_INTERRUPTED);
  EXPECT_EQ(accuracy, nullptr);
}

}  // namespace
}  // namespace invariant_dp
