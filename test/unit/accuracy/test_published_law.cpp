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
#include <numeric>
#include <random>
#include <string>

#include "accuracy/published_law.hpp"
#include "accuracy/release_rows.hpp"
#include "accuracy/table_covariance_scale.hpp"
#include "accuracy/zero_sum_quantiles.hpp"
#include "accuracy_fixtures.hpp"
#include "capi/invariant_dp_accuracy.h"
#include "errors.hpp"
#include "hierarchy/streaming_cascade.hpp"
#include "interrupt_callbacks.hpp"
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
  std::vector<double> interval_half_width;  // per row, when the release carries intervals
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
  // The same with a weight per row.
  idp_error_bar weighted_sum(const std::vector<std::size_t>& rows_in_sum, const std::vector<double>& weights,
                             double level) {
    std::vector<idp_row_id> ids;
    for (std::size_t r : rows_in_sum) ids.push_back(rows->ids()[r]);
    idp_error_bar bar{};
    EXPECT_EQ(idp_accuracy_sum(accuracy, ids.size(), ids.data(), weights.data(), level, nullptr, &bar, &error), IDP_OK)
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

std::unique_ptr<Released> run_release(const TestTable& table, const Request& r,
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
  if (out->has_intervals)
    for (std::size_t row = 0; row < out->n_rows; ++row) {
      const test_tables::RowInterval i = test_tables::row_interval(*out, row);
      released->interval_half_width.push_back((i.upper - i.lower) / 2);
    }
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
  auto r = run_release(test_tables::delinquents(), Request{"integer_laplace", 0.5, 0, {"county"}});
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
  auto r = run_release(table, Request{"subspace_gaussian", 1, 1e-6, {"county", "edu"}});
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
  auto r = run_release(test_tables::delinquents(), Request{"integer_laplace", 0.5, 0, {"county"}});
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
  // Two cells of two groups: the exact quantile of their sum's law (each a
  // cell of a zero-sum group of 4), narrower than Chebyshev's bound.
  const idp_error_bar bar = r->sum({0, 4});
  EXPECT_STREQ(bar.margin_kind, "exact");
  const Quantile q = zero_sum_quantile(IntegerNoise{IntegerNoise::Kind::laplace, b}, {{SignedCounts{1, 0, 3}, 2}}, 0.9, {});
  EXPECT_EQ(bar.margin_of_error, double(q.half_width));
  EXPECT_LT(bar.margin_of_error, std::ceil(std::sqrt(2 * vk / 0.1)));
}

TEST(PublishedRelease, LatticeGaussianTablesAreExactWhereTheScaleIsComputed) {
  // 3 x 4: c computed by quadrature (a side of at most four levels), exact.
  auto r = run_release(table_3x4(), Request{"integer_gaussian", 1, 1e-6, {"a", "b"}});
  ASSERT_EQ(r->status, IDP_OK) << r->error.message;
  const PublishedLaw law = read_published_law(r->rows->law());
  const double s2 = law.exact_parameter.to_double();
  const double c = table_covariance_scale(IntegerNoise{IntegerNoise::Kind::gaussian, law.exact_parameter}, 3, 4, {}).scale;
  const idp_error_bar one = r->sum({0});
  EXPECT_STREQ(one.variance_kind, "exact");
  EXPECT_NEAR(one.variance, c * (2.0 / 3) * (3.0 / 4), 1e-12 * s2);
  EXPECT_NEAR(c, s2, 1e-9 * s2);  // a calibrated sigma^2: c is sigma^2 to rounding
  EXPECT_EQ(one.variance_lower, one.variance);
  EXPECT_EQ(r->sum(r->where({{1, "b2"}})).variance, 0);  // a column total
  // 5 x 5: no computation, the certified bracket [(1 - B) sigma^2, sigma^2].
  std::vector<std::int64_t> counts(25);
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = std::int64_t(i % 7);
  auto wide =
      run_release(test_tables::grid({"a", "b"}, {5, 5}, counts), Request{"integer_gaussian", 1, 1e-6, {"a", "b"}});
  ASSERT_EQ(wide->status, IDP_OK) << wide->error.message;
  const idp_error_bar cell = wide->sum({0});
  EXPECT_STREQ(cell.variance_kind, "certified");
  EXPECT_LE(cell.variance_lower, cell.variance);
  EXPECT_GT(cell.variance_lower, 0.99 * cell.variance);
}

// The law without its noise.covariance_scale field.
std::string without_covariance_scale(std::string law) {
  const std::size_t at = law.find(", \"covariance_scale\": [");
  if (at == std::string::npos) return law;
  return law.erase(at, law.find(']', law.find("}]", at)) + 1 - at);
}

TEST(PublishedRelease, ChainsAndTheThreeLineSamplerNeedTheirPublishedScalar) {
  // A 3 x 4 table's scale is computed from the law's b and the shape: exact,
  // with or without the Monte Carlo scale the release publishes beside it.
  const TestTable table = table_3x4();
  auto published = run_release(table, Request{"integer_laplace", 1, 0, {"a", "b"}});
  ASSERT_EQ(published->status, IDP_OK) << published->error.message;
  ASSERT_NE(published->rows->law().find("\"covariance_scale\": [{\"shape\": [3, 4], \"scale\": "), std::string::npos)
      << published->rows->law();
  EXPECT_STREQ(published->sum({0}).variance_kind, "exact");
  auto computed = run_release(table, Request{"integer_laplace", 1, 0, {"a", "b"}}, without_covariance_scale);
  ASSERT_EQ(computed->status, IDP_OK) << computed->error.message;
  EXPECT_EQ(computed->sum({0}).variance, published->sum({0}).variance);
  // A 5 x 5 table has no computed scale: its release's Monte Carlo scalar,
  // labelled an estimate; without it the law gives no error bars.
  std::vector<std::int64_t> counts(25);
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = std::int64_t(i % 5 + 1);
  const TestTable five = test_tables::grid({"a", "b"}, {5, 5}, counts);
  auto estimated = run_release(five, Request{"integer_laplace", 1, 0, {"a", "b"}});
  ASSERT_EQ(estimated->status, IDP_OK) << estimated->error.message;
  EXPECT_STREQ(estimated->sum({0}).variance_kind, "estimate");
  auto bare = run_release(five, Request{"integer_laplace", 1, 0, {"a", "b"}}, without_covariance_scale);
  ASSERT_EQ(bare->status, IDP_INVALID_ARGUMENT);
  EXPECT_STREQ(bare->error.message, "the release did not publish noise.covariance_scale");
  const auto add_scale = with_noise_field(R"("covariance_scale": [{"shape": [5, 5], "scale": 2.5}])");
  auto scaled = run_release(five, Request{"integer_laplace", 1, 0, {"a", "b"}},
                            [&](std::string law) { return add_scale(without_covariance_scale(law)); });
  ASSERT_EQ(scaled->status, IDP_OK) << scaled->error.message;
  const idp_error_bar one = scaled->sum({0});
  EXPECT_STREQ(one.variance_kind, "estimate");
  EXPECT_NEAR(one.variance, 2.5 * (4.0 / 5) * (4.0 / 5), 1e-12);
  // The l2 law is drawn by a chain: the figure is the law's, and says so.
  auto l2 =
      run_release(table, Request{"integer_laplace_l2", 1, 0, {"a", "b"}}, with_noise_field(R"("covariance_scale": 4)"));
  ASSERT_EQ(l2->status, IDP_OK) << l2->error.message;
  const idp_error_bar chain = l2->sum({0, 5});
  EXPECT_STREQ(chain.variance_kind, "estimate");
  ASSERT_NE(chain.caveat, nullptr);
  EXPECT_NE(std::string(chain.caveat).find("the figure is the law's"), std::string::npos);
}

// A four-line table whose scale is past a release's work at the published
// target (4 x 6 at epsilon 1/6, b = 24) takes it from the coarser grid of
// kCertifiedScaleError, the release and its error bars alike: the published
// scale is that c, a sum's variance a certified bracket around c's exact
// figure (no Monte Carlo estimate), and the figure is the same however
// often it is asked.
TEST(PublishedRelease, FourLineTablesPastThePublishedTargetTakeTheCertifiedScale) {
  std::vector<std::int64_t> counts(24);
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = std::int64_t(4 + (i * 7) % 9);
  const TestTable table = test_tables::grid({"a", "b"}, {4, 6}, counts);
  auto r = run_release(table, Request{"integer_laplace", 1.0 / 6, 0, {"a", "b"}});
  ASSERT_EQ(r->status, IDP_OK) << r->error.message;
  const PublishedLaw law = read_published_law(r->rows->law());
  const IntegerNoise noise{IntegerNoise::Kind::laplace, law.exact_parameter};
  EXPECT_THROW(table_covariance_scale(noise, 4, 6, Interrupts(), kErrorBarScalePoints, kPublishedScaleError), TooLarge);
  const TableScale certified =
      table_covariance_scale(noise, 4, 6, Interrupts(), kErrorBarScalePoints, kCertifiedScaleError);
  const double c = table_covariance_scale(noise, 4, 6, Interrupts(), kMaxScalePoints, kPublishedScaleError).scale;
  EXPECT_NEAR(law.covariance_scale.of_shape({4, 6}) / certified.scale - 1, 0, 1e-12);
  EXPECT_NE(r->rows->law().find("within a certified relative error below 1e-3 on tables with a side of three or four "
                                "levels past the exact quadrature's work limit"),
            std::string::npos)
      << r->rows->law();
  // A pair of cells of one row: Var = c (Pi_11 + Pi_22 + 2 Pi_12), Pi of a
  // 4 x 6 table: (1 - 1/4)(1 - 1/6) on the diagonal, -(1 - 1/4)/6 off it.
  const double form = 2 * (0.75 * 5.0 / 6) - 2 * 0.75 / 6;
  const idp_error_bar pair = r->sum({0, 1}, 0.9);
  EXPECT_STREQ(pair.variance_kind, "certified");
  EXPECT_STRNE(pair.margin_kind, "estimate");
  EXPECT_LE(pair.variance_lower, c * form);
  EXPECT_GE(pair.variance, c * form);
  EXPECT_LE(pair.variance / pair.variance_lower - 1, 2.1 * kCertifiedScaleError);
  EXPECT_EQ(r->sum({0, 1}, 0.9).margin_of_error, pair.margin_of_error);
  // A 4 x 4 table at epsilon 0.02 (b = 200) and at epsilon 0.004 (b =
  // 1000) is certified too, by the residues' box; at epsilon 1e-5 (b =
  // 400,000) the grid's side would pass 2^24 points: an estimate.
  std::vector<std::int64_t> short_counts(16, 5);
  for (const double epsilon : {0.02, 0.004}) {
    auto short_table = run_release(test_tables::grid({"a", "b"}, {4, 4}, short_counts),
                                   Request{"integer_laplace", epsilon, 0, {"a", "b"}});
    ASSERT_EQ(short_table->status, IDP_OK) << short_table->error.message;
    EXPECT_STREQ(short_table->sum({0, 1}, 0.9).variance_kind, "certified") << epsilon;
  }
  auto past =
      run_release(test_tables::grid({"a", "b"}, {4, 4}, short_counts), Request{"integer_laplace", 1e-5, 0, {"a", "b"}});
  ASSERT_EQ(past->status, IDP_OK) << past->error.message;
  EXPECT_STREQ(past->sum({0, 1}, 0.9).variance_kind, "estimate");
}

// A basis chain publishes its scale too: on a margin group per group size
// (integer_laplace_l2 on one margin), and on general margins (a 3 x 4
// table without its first cell) one scalar of shape [], the cells' Monte
// Carlo variances summed over trace(Pi_N) = the null space's dimension.
TEST(PublishedRelease, BasisChainsPublishTheirScale) {
  const TestTable full = table_3x4();
  auto groups = run_release(full, Request{"integer_laplace_l2", 1, 0, {"a"}});
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
  auto general = run_release(
      incomplete, Request{"integer_laplace", 1, 0, {"a", "b"}, {}, {"sampler", "stddev"}, {"chain", "true"}});
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
  auto r = run_release(test_tables::delinquents(), Request{"discrete_laplace", 1});
  ASSERT_EQ(r->status, IDP_OK) << r->error.message;
  const double v = discrete_laplace_variance(Rational{2, 1});
  EXPECT_NEAR(r->sum({0, 1, 2}).variance, 3 * v, 1e-9 * v);
}

// --- hierarchies -------------------------------------------------------------

TEST(PublishedRelease, ANodesVarianceIsThatOfItsLeavesSum) {
  const TestTable table = test_tables::delinquents();
  for (const char* mechanism : {"cascade", "integer_cascade"}) {
    auto r = run_release(table, Request{mechanism, 1, 1e-6, {}, {"county"}});
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
    auto r = run_release(table, req);
    ASSERT_EQ(r->status, IDP_OK) << r->error.message;
    EXPECT_EQ(r->sum(r->where({{0, "county3"}, {1, nullptr}})).variance, 0) << mechanism;
    EXPECT_EQ(r->sum(r->where({{0, nullptr}})).variance, 0) << mechanism;
    EXPECT_GT(r->sum(r->where({{0, "county3"}, {1, "edu1"}})).variance, 0) << mechanism;
  }
}

TEST(PublishedRelease, LevelColumnsAreReadWhenPresent) {
  auto r = run_release(test_tables::delinquents(), Request{"cascade", 1, 1e-6, {}, {"county"}, {"level"}, {"true"}},
                       nullptr, true);
  ASSERT_EQ(r->status, IDP_OK) << r->error.message;
  EXPECT_GT(r->sum({0}).variance, 0);
}

TEST(PublishedRelease, CrossedRectanglesAreProductsOfTheTwoTrees) {
  const TestTable table = test_tables::delinquents();
  auto r = run_release(table, Request{"cascade", 1, 1e-6, {}, {"county"}, {"crossed"}, {"[\"edu\"]"}});
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

// --- one error bar for one functional ----------------------------------------

// Every row's interval (the release's option "interval" at 0.9) is the
// margin of that row alone at 0.9.
void expect_intervals_are_margins_alone(const std::unique_ptr<Released>& r, const std::string& what) {
  ASSERT_EQ(r->status, IDP_OK) << what << ": " << r->error.message;
  ASSERT_EQ(r->interval_half_width.size(), r->rows->n_rows()) << what;
  const bool integer = read_published_law(r->rows->law()).integer_output;
  for (std::size_t row = 0; row < r->rows->n_rows(); ++row) {
    const idp_error_bar alone = r->sum({row}, 0.9);
    // Integer bounds carry the half-width exactly; real ones only as
    // value -+ t, whose difference halved is t up to the value's rounding.
    if (integer)
      EXPECT_EQ(alone.margin_of_error, r->interval_half_width[row]) << what << ", row " << row;
    else
      EXPECT_NEAR(alone.margin_of_error, r->interval_half_width[row], 1e-12 * alone.margin_of_error)
          << what << ", row " << row;
    EXPECT_GT(alone.margin_of_error, 0) << what << ", row " << row;
  }
}

// A row of a two-key table whose first `margins` key columns are margins,
// asked as the rest of its line along each (its line's other rows) and with
// its line added (its line's rows, itself twice): the same random variable
// given the margins (minus it, or it), so the same margin, kind and method
// as the row alone, at every level.
void expect_one_cell_however_asked(const std::unique_ptr<Released>& r, std::size_t margins, const std::string& what) {
  ASSERT_EQ(r->status, IDP_OK) << what << ": " << r->error.message;
  for (std::size_t row = 0; row < r->rows->n_rows(); ++row)
    for (std::size_t k = 0; k < margins; ++k) {
      const std::vector<std::size_t> line = r->where({{k, r->rows->key(row, k)}});
      std::vector<std::size_t> rest, with_line = line;
      for (const std::size_t other : line)
        if (other != row) rest.push_back(other);
      with_line.push_back(row);
      for (const double level : {0.5, 0.9, 0.99}) {
        const idp_error_bar alone = r->sum({row}, level);
        for (const auto& [name, asked] : {std::pair{"rest of its line", &rest}, {"with its line", &with_line}}) {
          const idp_error_bar bar = r->sum(*asked, level);
          EXPECT_EQ(bar.margin_of_error, alone.margin_of_error) << what << ", row " << row << " " << name;
          EXPECT_STREQ(bar.margin_kind, alone.margin_kind) << what << ", row " << row << " " << name;
          EXPECT_STREQ(bar.method, alone.method) << what << ", row " << row << " " << name;
          EXPECT_EQ(bar.variance, alone.variance) << what << ", row " << row << " " << name;
        }
      }
    }
}

// A pair of rows of a two-key table whose first `margins` key columns are
// margins, asked alone and with the whole line of the first row along each
// margin added (its line's rows; the first row then twice): one random
// variable given the margins, so one margin, kind, method and variance,
// whether the sum's own law, a tail bound or the normal approximation gives
// it.
void expect_sum_however_asked(const std::unique_ptr<Released>& r, std::size_t margins, const std::string& what) {
  ASSERT_EQ(r->status, IDP_OK) << what << ": " << r->error.message;
  const std::size_t n = r->rows->n_rows();
  // One pair a release (a pair's exact law can cost seconds on short
  // integer_laplace tables), each line at one level, the levels in turn.
  const double levels[] = {0.5, 0.9, 0.99};
  const std::vector<std::size_t> pair{0, 5 % n};
  if (pair[0] == pair[1]) return;
  for (std::size_t k = 0; k < margins; ++k) {
    std::vector<std::size_t> with_line = pair;
    for (const std::size_t other : r->where({{k, r->rows->key(pair[0], k)}})) with_line.push_back(other);
    const double level = levels[k % 3];
    const idp_error_bar alone = r->sum(pair, level), bar = r->sum(with_line, level);
    const std::string asked = what + ", rows " + std::to_string(pair[0]) + " and " + std::to_string(pair[1]) +
                              " with the line of key " + std::to_string(k) + " at " + std::to_string(level);
    // One number, up to the rounding of two orders of summation.
    EXPECT_NEAR(bar.margin_of_error, alone.margin_of_error, 1e-9 * std::max(1.0, alone.margin_of_error)) << asked;
    EXPECT_STREQ(bar.margin_kind, alone.margin_kind) << asked;
    EXPECT_STREQ(bar.method, alone.method) << asked;
    EXPECT_NEAR(bar.variance, alone.variance, 1e-9 * alone.variance) << asked;
  }
}

// Each row's interval (the release's option "interval") and the margin of
// that row alone at the same level are one number, for every family with
// intervals, on tables whose single-cell laws are exact (a margin group, a
// 2 x n table), certified (integer_gaussian's two-way table, the integer
// cascade) or known by their variance (projected laws).
TEST(OneErrorBar, ACellsIntervalIsTheMarginOfThatCellAlone) {
  const TestTable two_by_five = test_tables::grid({"a", "b"}, {2, 5}, {5, 7, 2, 9, 4, 4, 8, 1, 6, 3});
  const TestTable three_by_four = table_3x4();
  const TestTable delinquents = test_tables::delinquents();
  struct Case {
    const char* name;
    const TestTable& table;
    Request request;
  };
  const Case cases[] = {
      {"integer_laplace 2 x 5, both margins", two_by_five, {"integer_laplace", 1, 0, {"a", "b"}, {}, {"interval"}, {"0.9"}}},
      {"integer_laplace, one margin", three_by_four, {"integer_laplace", 1, 0, {"a"}, {}, {"interval"}, {"0.9"}}},
      {"integer_gaussian 3 x 4, both margins", three_by_four,
       {"integer_gaussian", 1, 1e-6, {"a", "b"}, {}, {"interval"}, {"0.9"}}},
      {"discrete_laplace", three_by_four, {"discrete_laplace", 1, 0, {}, {}, {"interval"}, {"0.9"}}},
      {"subspace_gaussian, both margins", three_by_four,
       {"subspace_gaussian", 1, 1e-6, {"a", "b"}, {}, {"interval"}, {"0.9"}}},
      {"integer_cascade", delinquents, {"integer_cascade", 1, 1e-6, {}, {"county"}, {"interval"}, {"0.9"}}},
      {"cascade", delinquents, {"cascade", 1, 1e-6, {}, {"county"}, {"interval"}, {"0.9"}}},
      {"integer_cascade, crossed", delinquents,
       {"integer_cascade", 1, 1e-6, {}, {"county"}, {"crossed", "interval"}, {"[\"edu\"]", "0.9"}}},
      {"cascade, crossed", delinquents,
       {"cascade", 1, 1e-6, {}, {"county"}, {"crossed", "interval"}, {"[\"edu\"]", "0.9"}}},
  };
  for (const Case& c : cases) expect_intervals_are_margins_alone(run_release(c.table, c.request), c.name);
}

// A node of a cascade read from its row, as the sum of its children's rows
// or of its leaves' rows is one random variable in a consistent release:
// one error bar, whichever way it is asked, at every level.
TEST(OneErrorBar, ANodeFromItsRowOrFromItsChildren) {
  // A region holds 36 tracts: as many rows as once took the normal
  // approximation, where its own row took a certified bound.
  std::vector<std::int64_t> tracts(2 * 3 * 12);
  for (std::size_t i = 0; i < tracts.size(); ++i) tracts[i] = std::int64_t((i * 7 + 3) % 11);
  const TestTable table = test_tables::grid({"region", "county", "tract"}, {2, 3, 12}, tracts);
  for (const char* mechanism : {"integer_cascade", "cascade"}) {
    auto r = run_release(table, Request{mechanism, 1, 1e-6, {}, {"region", "county", "tract"}});
    ASSERT_EQ(r->status, IDP_OK) << r->error.message;
    for (double level : {0.5, 0.9, 0.99}) {
      // The grand total, a region and a county: each from its row, its
      // children's rows and its leaves' rows.
      const std::vector<std::pair<std::vector<std::pair<std::size_t, const char*>>, std::size_t>> nodes = {
          {{{0, nullptr}}, 0}, {{{0, "region1"}, {1, nullptr}}, 1}, {{{0, "region0"}, {1, "county2"}, {2, nullptr}}, 2}};
      for (const auto& [keys, depth] : nodes) {
        std::vector<std::pair<std::size_t, const char*>> row_keys = keys;
        const auto row = r->where(row_keys);
        ASSERT_EQ(row.size(), 1u);
        // Children: one key more, then nothing below; leaves: every key set.
        std::vector<std::size_t> children, leaves;
        for (std::size_t candidate = 0; candidate < r->rows->n_rows(); ++candidate) {
          bool under = true;
          for (std::size_t k = 0; k < depth; ++k)
            under = under && r->rows->key(candidate, k) != nullptr &&
                    std::string(r->rows->key(candidate, k)) == keys[k].second;
          if (!under) continue;
          const bool child = r->rows->key(candidate, depth) != nullptr &&
                             (depth + 1 == 3 || r->rows->key(candidate, depth + 1) == nullptr);
          const bool leaf = r->rows->key(candidate, 2) != nullptr;
          if (child) children.push_back(candidate);
          if (leaf) leaves.push_back(candidate);
        }
        ASSERT_GT(children.size(), 1u);
        const idp_error_bar from_row = r->sum(row, level);
        const idp_error_bar from_children = r->sum(children, level);
        const idp_error_bar from_leaves = r->sum(leaves, level);
        EXPECT_GT(from_row.margin_of_error, 0);
        EXPECT_EQ(from_children.margin_of_error, from_row.margin_of_error) << mechanism << " depth " << depth;
        EXPECT_EQ(from_leaves.margin_of_error, from_row.margin_of_error) << mechanism << " depth " << depth;
        EXPECT_EQ(from_children.variance, from_row.variance) << mechanism << " depth " << depth;
        EXPECT_STREQ(from_children.method, from_row.method);
        // The node and its children together: the node twice.
        std::vector<std::size_t> twice = children;
        twice.push_back(row[0]);
        const idp_error_bar doubled = r->sum(twice, level);
        EXPECT_EQ(doubled.variance, 4 * from_row.variance) << mechanism << " depth " << depth;
        EXPECT_EQ(doubled.margin_of_error, 2 * from_row.margin_of_error) << mechanism << " depth " << depth;
      }
    }
  }
}

// A sum that is not one node keeps its own figure: two counties of
// different regions are no node, and their margin is the sum's.
TEST(OneErrorBar, SumsThatAreNoNodeStaySums) {
  const TestTable table = test_tables::grid({"region", "county"}, {2, 3}, {5, 7, 2, 9, 4, 4});
  auto r = run_release(table, Request{"integer_cascade", 1, 1e-6, {}, {"region", "county"}});
  ASSERT_EQ(r->status, IDP_OK) << r->error.message;
  std::vector<std::size_t> two = r->where({{0, "region0"}, {1, "county0"}});
  const auto other = r->where({{0, "region1"}, {1, "county0"}});
  two.insert(two.end(), other.begin(), other.end());
  ASSERT_EQ(two.size(), 2u);
  const idp_error_bar sum = r->sum(two);
  EXPECT_EQ(sum.cells, 2u);
  EXPECT_GT(sum.margin_of_error, r->sum({two[0]}).margin_of_error);
}

// Each row's interval and the margin of that row alone, on random tables:
// every family with intervals, each structure it has (no margin, one margin,
// 2 x n, tables of three and four lines, complete two-way tables); with a
// margin, the row asked as the rest of its line or with its line added too.
// integer_laplace at epsilon 2: its laws take the same paths as at 1 on
// grids that shrink with the scale (a third of this test's time at 1).
TEST(OneErrorBar, EveryFamilysCellIntervalIsItsMarginAloneOnRandomTables) {
  std::mt19937_64 gen(20261129);
  struct Family {
    const char* mechanism;
    double epsilon, delta;
  };
  const Family families[] = {{"discrete_laplace", 1, 0},    {"discrete_gaussian", 1, 1e-6}, {"integer_laplace", 2, 0},
                             {"integer_gaussian", 1, 1e-6}, {"subspace_gaussian", 1, 1e-6}, {"subspace_laplace", 1, 0},
                             {"project_l2", 1, 0}};
  for (int trial = 0; trial < 4; ++trial) {
    const int rows = 2 + int(gen() % 3), cols = 3 + int(gen() % 4);
    std::vector<std::int64_t> counts(std::size_t(rows * cols));
    for (auto& c : counts) c = std::int64_t(gen() % 20);
    const TestTable table = test_tables::grid({"a", "b"}, {rows, cols}, counts);
    for (const Family& f : families) {
      const bool flat_only = std::string(f.mechanism).rfind("discrete_", 0) == 0;
      for (const std::vector<const char*>& margins :
           flat_only ? std::vector<std::vector<const char*>>{{}}
                     : std::vector<std::vector<const char*>>{{}, {"a"}, {"a", "b"}}) {
        const auto released =
            run_release(table, Request{f.mechanism, f.epsilon, f.delta, margins, {}, {"interval"}, {"0.9"}});
        const std::string what = std::string(f.mechanism) + " " + std::to_string(rows) + " x " + std::to_string(cols) +
                                 " margins " + std::to_string(margins.size());
        expect_intervals_are_margins_alone(released, what);
        expect_one_cell_however_asked(released, margins.size(), what);
        expect_sum_however_asked(released, margins.size(), what);
      }
    }
  }
}

// General margins (a 4 x 6 table without three of its cells): each family
// with intervals, the row asked alone, as the rest of its line or with its
// line added.
TEST(OneErrorBar, IncompleteTablesOneCellHoweverAsked) {
  TestTable table{{"a", "b"}, {}, {}};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 6; ++j) {
      if ((i == 0 && j == 0) || (i == 1 && j == 3) || (i == 3 && j == 5)) continue;
      table.text.push_back("a" + std::to_string(i));
      table.text.push_back("b" + std::to_string(j));
      table.counts.push_back(3 + (i * 7 + j * 5) % 11);
    }
  const Request requests[] = {{"integer_gaussian", 1, 1e-6, {"a", "b"}, {}, {"interval"}, {"0.9"}},
                              {"integer_laplace", 1, 0, {"a", "b"}, {}, {"interval", "sampler"}, {"0.9", "chain"}},
                              {"subspace_gaussian", 1, 1e-6, {"a", "b"}, {}, {"interval"}, {"0.9"}},
                              {"subspace_laplace", 1, 0, {"a", "b"}, {}, {"interval"}, {"0.9"}},
                              {"project_l2", 1, 0, {"a", "b"}, {}, {"interval"}, {"0.9"}}};
  for (const Request& request : requests) {
    const auto r = run_release(table, request);
    ASSERT_EQ(r->status, IDP_OK) << request.mechanism << ": " << r->error.message;
    EXPECT_EQ(read_published_law(r->rows->law()).structure, "general") << request.mechanism;
    expect_intervals_are_margins_alone(r, std::string(request.mechanism) + " incomplete");
    expect_one_cell_however_asked(r, 2, std::string(request.mechanism) + " incomplete");
    expect_sum_however_asked(r, 2, std::string(request.mechanism) + " incomplete");
  }
}

// integer_laplace on 4 x 4 tables: at epsilon 0.5 (b = 8) and 1/3 (b =
// 12) a cell's law is exact within a release's limit; at 1/4 (b = 16) it
// is past it and the interval is an estimate. Either way the rest of a cell's row or column,
// and the cell with its line, take the cell's figure and its label.
TEST(OneErrorBar, ShortFourLineTablesOneCellHoweverAsked) {
  std::vector<std::int64_t> counts(16);
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = std::int64_t(3 + (i * 5) % 7);
  const TestTable table = test_tables::grid({"a", "b"}, {4, 4}, counts);
  for (const auto& [epsilon, kind] : {std::pair{0.5, "exact"}, {1.0 / 3, "exact"}, {0.25, "estimate"}}) {
    const auto r = run_release(table, Request{"integer_laplace", epsilon, 0, {"a", "b"}, {}, {"interval"}, {"0.9"}});
    ASSERT_EQ(r->status, IDP_OK) << r->error.message;
    EXPECT_STREQ(r->sum({0}, 0.9).margin_kind, kind) << epsilon;
    expect_intervals_are_margins_alone(r, "4 x 4 at epsilon " + std::to_string(epsilon));
    expect_one_cell_however_asked(r, 2, "4 x 4 at epsilon " + std::to_string(epsilon));
  }
}

// A random tree of regions, counties and tracts (some counties with one
// tract, some regions with one county: families of one child).
TestTable random_geography(std::mt19937_64& gen) {
  TestTable t{{"region", "county", "tract"}, {}, {}};
  const int regions = 2 + int(gen() % 2);
  for (int r = 0; r < regions; ++r) {
    const int counties = 1 + int(gen() % 4);
    for (int c = 0; c < counties; ++c) {
      const int tracts = 1 + int(gen() % 5);
      for (int k = 0; k < tracts; ++k) {
        t.text.push_back("r" + std::to_string(r));
        t.text.push_back("c" + std::to_string(r) + "_" + std::to_string(c));
        t.text.push_back("t" + std::to_string(r) + "_" + std::to_string(c) + "_" + std::to_string(k));
        t.counts.push_back(std::int64_t(gen() % 15));
      }
    }
  }
  return t;
}

// Rows by their keys: depth (keys set) and, for each row, those under a node.
struct TreeRows {
  const Released& r;
  std::size_t depth(std::size_t row) const {
    std::size_t d = 0;
    while (d < 3 && r.rows->key(row, d) != nullptr) ++d;
    return d;
  }
  bool under(std::size_t row, std::size_t node) const {
    for (std::size_t k = 0; k < depth(node); ++k)
      if (r.rows->key(row, k) == nullptr || std::string(r.rows->key(row, k)) != r.rows->key(node, k)) return false;
    return true;
  }
  std::vector<std::size_t> at_depth_under(std::size_t d, std::size_t node) const {
    std::vector<std::size_t> out;
    for (std::size_t row = 0; row < r.rows->n_rows(); ++row)
      if (depth(row) == d && under(row, node)) out.push_back(row);
    return out;
  }
  // The rows above the leaves.
  std::vector<std::size_t> inner_nodes() const {
    std::vector<std::size_t> out;
    for (std::size_t row = 0; row < r.rows->n_rows(); ++row)
      if (depth(row) < 3) out.push_back(row);
    return out;
  }
};

// Each request released on three random geographies drawn from seed; check
// gets each release, its rows as a tree, and the mechanism's name.
template <typename Check>
void on_random_trees(std::uint64_t seed, const std::vector<Request>& requests, Check check) {
  std::mt19937_64 gen(seed);
  for (int trial = 0; trial < 3; ++trial) {
    const TestTable table = random_geography(gen);
    for (const Request& request : requests) {
      auto r = run_release(table, request);
      ASSERT_EQ(r->status, IDP_OK) << request.mechanism << ": " << r->error.message;
      check(*r, TreeRows{*r}, std::string(request.mechanism));
    }
  }
}

// Every node of random trees, read from its row, its children's rows and
// its leaves' rows: one error bar, for the cascades (each node a unit) and
// for flat laws rolled up (each node the sum of its leaves).
TEST(OneErrorBar, NodesOfRandomTreesFromTheirRowsOrChildren) {
  on_random_trees(4711,
                  {{"cascade", 1, 1e-6, {}, {"region", "county", "tract"}},
                   {"integer_cascade", 1, 1e-6, {}, {"region", "county", "tract"}},
                   {"discrete_laplace", 1, 0, {}, {"region", "county", "tract"}},
                   {"discrete_gaussian", 1, 1e-6, {}, {"region", "county", "tract"}},
                   {"integer_laplace", 1, 0, {"region"}, {"region", "county", "tract"}},
                   {"subspace_gaussian", 1, 1e-6, {}, {"region", "county", "tract"}}},
                  [](Released& r, const TreeRows& tree, const std::string& mechanism) {
                    for (const std::size_t node : tree.inner_nodes()) {
                      const std::size_t d = tree.depth(node);
                      const auto children = tree.at_depth_under(d + 1, node), leaves = tree.at_depth_under(3, node);
                      for (const double level : {0.5, 0.9, 0.99}) {
                        const idp_error_bar from_row = r.sum({node}, level);
                        const idp_error_bar from_children = r.sum(children, level);
                        const idp_error_bar from_leaves = r.sum(leaves, level);
                        const std::string what = mechanism + " node " + std::to_string(node) + " at depth " +
                                                 std::to_string(d) + " level " + std::to_string(level);
                        EXPECT_EQ(from_children.margin_of_error, from_row.margin_of_error) << what;
                        EXPECT_EQ(from_leaves.margin_of_error, from_row.margin_of_error) << what;
                        EXPECT_EQ(from_children.variance, from_row.variance) << what;
                        EXPECT_EQ(from_leaves.variance, from_row.variance) << what;
                        EXPECT_STREQ(from_children.method, from_row.method) << what;
                        EXPECT_STREQ(from_leaves.margin_kind, from_row.margin_kind) << what;
                      }
                      // With a leaf outside it (nodes of two depths, neither
                      // above the other): the same as its leaves with that leaf.
                      std::size_t outside = r.rows->n_rows();
                      for (std::size_t row = 0; row < r.rows->n_rows(); ++row)
                        if (tree.depth(row) == 3 && !tree.under(row, node)) outside = row;
                      if (outside == r.rows->n_rows()) continue;
                      std::vector<std::size_t> spelled = leaves;
                      spelled.push_back(outside);
                      const idp_error_bar asked = r.sum({node, outside}, 0.9), same = r.sum(spelled, 0.9);
                      const std::string what =
                          mechanism + " node " + std::to_string(node) + " with leaf " + std::to_string(outside);
                      EXPECT_GT(asked.variance, 0) << what;
                      EXPECT_EQ(asked.margin_of_error, same.margin_of_error) << what;
                      EXPECT_EQ(asked.variance, same.variance) << what;
                      EXPECT_STREQ(asked.method, same.method) << what;
                    }
                  });
}

// A node less some of its children is the others, and a node with one of
// its children is that child twice beside its siblings: on random trees,
// for every node of two children or more, each way of writing the same sum
// has one error bar (a single child's being its interval's).
TEST(OneErrorBar, NodesLessTheirChildrenAreTheOtherChildren) {
  on_random_trees(
      1912,
      {{"cascade", 1, 1e-6, {}, {"region", "county", "tract"}},
       {"integer_cascade", 1, 1e-6, {}, {"region", "county", "tract"}},
       {"integer_cascade", 1, 1e-6, {"region"}, {"region", "county", "tract"}},
       {"discrete_laplace", 1, 0, {}, {"region", "county", "tract"}}},
      [](Released& r, const TreeRows& tree, const std::string& mechanism) {
        std::size_t families = 0;
        for (const std::size_t node : tree.inner_nodes()) {
          const std::size_t d = tree.depth(node);
          const auto children = tree.at_depth_under(d + 1, node);
          if (children.size() < 2) continue;
          ++families;
          const double level = (node % 3 == 0) ? 0.5 : (node % 3 == 1 ? 0.9 : 0.99);
          const std::vector<std::size_t> others(children.begin() + 1, children.end());
          // The node less every child but the first, and less the first: the
          // first child, and the rest.
          std::vector<std::size_t> node_less_others{node}, node_less_first{node, children[0]};
          std::vector<double> less_others{1}, less_first{1, -1};
          for (const std::size_t c : others) {
            node_less_others.push_back(c);
            less_others.push_back(-1);
          }
          const std::string what = mechanism + " node " + std::to_string(node) + " at depth " + std::to_string(d) +
                                   " level " + std::to_string(level);
          const idp_error_bar first = r.sum({children[0]}, level), rest = r.sum(others, level);
          for (const auto& [asked, same] : {std::pair{r.weighted_sum(node_less_others, less_others, level), first},
                                            std::pair{r.weighted_sum(node_less_first, less_first, level), rest}}) {
            EXPECT_EQ(asked.margin_of_error, same.margin_of_error) << what;
            EXPECT_EQ(asked.variance, same.variance) << what;
            EXPECT_STREQ(asked.margin_kind, same.margin_kind) << what;
            EXPECT_STREQ(asked.method, same.method) << what;
          }
          // The node with its first child: that child twice and the others.
          std::vector<std::size_t> twice_and_others{children[0], children[0]};
          twice_and_others.insert(twice_and_others.end(), others.begin(), others.end());
          const idp_error_bar with_child = r.sum({node, children[0]}, level), spelled = r.sum(twice_and_others, level);
          EXPECT_EQ(with_child.margin_of_error, spelled.margin_of_error) << what;
          EXPECT_EQ(with_child.variance, spelled.variance) << what;
          EXPECT_STREQ(with_child.method, spelled.method) << what;
        }
        EXPECT_GT(families, 0u) << mechanism;
      });
}

// A rectangle of a crossed cascade (row node x column node) read from its
// row, from its children along either tree, or from its leaves' grid: one
// error bar.
TEST(OneErrorBar, RectanglesOfCrossedCascadesFromTheirRowsOrChildren) {
  std::mt19937_64 gen(99);
  std::vector<std::int64_t> counts(3 * 4 * 5);
  for (auto& c : counts) c = std::int64_t(gen() % 12);
  const TestTable table = test_tables::grid({"region", "county", "age"}, {3, 4, 5}, counts);
  for (const char* mechanism : {"cascade", "integer_cascade", "discrete_laplace"}) {
    auto r = run_release(table, Request{mechanism,
                                        1,
                                        std::string(mechanism) == "discrete_laplace" ? 0 : 1e-6,
                                        {},
                                        {"region", "county"},
                                        {"crossed"},
                                        {"[\"age\"]"}});
    ASSERT_EQ(r->status, IDP_OK) << mechanism << ": " << r->error.message;
    // Rows: (region or NULL, county or NULL, age or NULL).
    const auto matches = [&](std::size_t row, const char* region, const char* county, bool age_set) {
      const auto is = [&](std::size_t k, const char* text) {
        const char* key = r->rows->key(row, k);
        return text == nullptr ? key == nullptr : key != nullptr && std::string(key) == text;
      };
      return is(0, region) && is(1, county) && (r->rows->key(row, 2) != nullptr) == age_set;
    };
    const auto rows_where = [&](const std::function<bool(std::size_t)>& keep) {
      std::vector<std::size_t> out;
      for (std::size_t row = 0; row < r->rows->n_rows(); ++row)
        if (keep(row)) out.push_back(row);
      return out;
    };
    for (const double level : {0.5, 0.9, 0.99}) {
      // region1 x all ages: its row; its counties' rows (x all ages); its
      // own rows by age; the leaves' grid.
      const auto node = rows_where([&](std::size_t row) { return matches(row, "region1", nullptr, false); });
      ASSERT_EQ(node.size(), 1u);
      const auto by_county = rows_where([&](std::size_t row) {
        return r->rows->key(row, 0) && std::string(r->rows->key(row, 0)) == "region1" && r->rows->key(row, 1) &&
               !r->rows->key(row, 2);
      });
      const auto by_age = rows_where([&](std::size_t row) { return matches(row, "region1", nullptr, true); });
      const auto grid = rows_where([&](std::size_t row) {
        return r->rows->key(row, 0) && std::string(r->rows->key(row, 0)) == "region1" && r->rows->key(row, 1) &&
               r->rows->key(row, 2);
      });
      ASSERT_EQ(by_county.size(), 4u);
      ASSERT_EQ(by_age.size(), 5u);
      ASSERT_EQ(grid.size(), 20u);
      // Rectangles no family collapses, in an order that sorting by either
      // tree reverses: the canonical form ends, with both.
      const auto anti = rows_where([&](std::size_t row) {
        return (matches(row, "region0", "county0", true) && std::string(r->rows->key(row, 2)) == "age1") ||
               (matches(row, "region0", "county1", true) && std::string(r->rows->key(row, 2)) == "age0");
      });
      ASSERT_EQ(anti.size(), 2u);
      EXPECT_EQ(r->sum(anti, level).cells, 2u);
      const idp_error_bar one = r->sum(node, level);
      EXPECT_GT(one.margin_of_error, 0) << mechanism;
      // A rectangle alone is its interval, of the kind the interval reports:
      // the quantile of its law (the cascades), decided at this scale.
      if (std::string(mechanism) != "discrete_laplace") {
        EXPECT_STREQ(one.margin_kind, "exact") << mechanism << " at " << level;
      }
      for (const auto* ways : {&by_county, &by_age, &grid}) {
        const idp_error_bar other = r->sum(*ways, level);
        EXPECT_EQ(other.margin_of_error, one.margin_of_error) << mechanism << " " << ways->size() << " rows at " << level;
        EXPECT_EQ(other.variance, one.variance) << mechanism << " " << ways->size() << " rows";
        EXPECT_STREQ(other.method, one.method) << mechanism;
      }
    }
  }
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
  // One error bar whatever the order the periods are given in; a period
  // given twice counts twice.
  const auto sum_of = [&](const std::vector<std::size_t>& which) {
    std::vector<idp_row_id> q;
    for (std::size_t k : which) q.push_back(ids[k]);
    idp_error_bar out{};
    EXPECT_EQ(idp_accuracy_sum(accuracy, q.size(), q.data(), nullptr, 0.9, nullptr, &out, &error), IDP_OK);
    return out;
  };
  const idp_error_bar forward = sum_of({0, 1, 2, 3, 4, 5}), backward = sum_of({5, 3, 1, 4, 2, 0});
  EXPECT_EQ(forward.margin_of_error, backward.margin_of_error);
  EXPECT_EQ(forward.variance, backward.variance);
  const idp_error_bar twice = sum_of({4, 4}), once = sum_of({4});
  EXPECT_EQ(twice.variance, 4 * once.variance);
  EXPECT_EQ(twice.margin_of_error, 2 * once.margin_of_error);
  idp_accuracy_free(accuracy);
}

// --- refusals -------------------------------------------------------------------

TEST(PublishedRelease, RowsThatAreNotTheLawsReleaseAreRefused) {
  const TestTable table = test_tables::delinquents();
  auto r = run_release(table, Request{"integer_laplace", 0.5, 0, {"county"}});
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

// A prepared release is kept for later statements: a sum a cancel stopped
// at any of its polls (here a rolled-up hierarchy's 10,101 rows, whose
// leaves' cells are gathered in a builder the release keeps) leaves the
// next sums' figures what they were.
TEST(PublishedRelease, ASumACancelStoppedLeavesTheNextSumsTheSame) {
  const TestTable table = test_tables::grid({"a", "b"}, {100, 100}, std::vector<std::int64_t>(10000, 3));
  auto r = run_release(table, Request{"integer_laplace", 1, 0, {}, {"a"}});
  ASSERT_EQ(r->status, IDP_OK) << r->error.message;
  std::vector<std::size_t> all(r->rows->n_rows()), part = r->where({{0, "a7"}});
  std::iota(all.begin(), all.end(), std::size_t(0));
  ASSERT_EQ(all.size(), 10101u);
  const idp_error_bar whole = r->sum(all), some = r->sum(part);
  std::vector<idp_row_id> ids;
  for (std::size_t row : all) ids.push_back(r->rows->ids()[row]);
  int polls = 0;
  idp_interrupts count{[](void* n) { return ++*static_cast<int*>(n) < 0; }, &polls, nullptr};
  idp_error_bar counted{};
  ASSERT_EQ(idp_accuracy_sum(r->accuracy, ids.size(), ids.data(), nullptr, 0.9, &count, &counted, &r->error), IDP_OK);
  ASSERT_GE(polls, 5);
  for (int k = 1; k <= polls; ++k) {
    int left = k - 1;
    idp_interrupts stop{test_interrupts::pending_after, &left, nullptr};
    idp_error_bar bar{};
    EXPECT_EQ(idp_accuracy_sum(r->accuracy, ids.size(), ids.data(), nullptr, 0.9, &stop, &bar, &r->error),
              IDP_INTERRUPTED)
        << "stopped at poll " << k;
    EXPECT_EQ(r->sum(part).variance, some.variance) << "stopped at poll " << k;
    EXPECT_EQ(r->sum(all).variance, whole.variance) << "stopped at poll " << k;
  }
}

TEST(PublishedRelease, PreparationPollsForCancellation) {
  const TestTable table = test_tables::grid({"a", "b"}, {100, 100}, std::vector<std::int64_t>(10000, 3));
  auto r = run_release(table, Request{"subspace_laplace", 1, 0, {"a", "b"}});
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
