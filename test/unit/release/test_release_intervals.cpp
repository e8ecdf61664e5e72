// Per-cell intervals across the C boundary (options {"interval": level},
// release/release_intervals.hpp): the request says it will return them, the
// table carries them in the values' type, they are centred on the values
// and drawn from nothing, and requests no published law can answer are
// refused before anything is read.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "capi/invariant_dp_core.h"
#include "prepared_release.hpp"
#include "release_table_rows.hpp"
#include "table_builder.hpp"
#include "table_request.hpp"

namespace invariant_dp {
namespace {

using test_tables::delinquents;

// The delinquents table (county x edu) released with `request` (seeded).
struct IntervalRelease {
  test_tables::TestTable table = delinquents();
  test_tables::TableCells cells{table};
  test_tables::Request request;

  idp_status run(const char* mechanism, double delta, idp_release_table** out, idp_error* error) {
    request.mechanism = mechanism;
    request.delta = delta;
    const idp_request c_request = request.c_request();
    // A new generation restarts the seeded stream: every release here
    // draws the same noise from seed 5.
    static std::uint64_t generation = 0x1e7a;
    idp_randomness randomness{true, 5, ++generation};
    return prepare_and_release(&c_request, &cells.cells(), &randomness, nullptr, out, error);
  }
  void interval(const char* level) {
    request.option_keys = {"interval"};
    request.option_values = {level};
  }
};

TEST(CApiIntervals, IntegerReleasesGetIntegerBoundsCentredOnTheValues) {
  IntervalRelease r;
  r.request.margins = {"county"};
  r.interval("0.9");
  idp_request_info info{};
  idp_error error{};
  const idp_request c_request = r.request.c_request();
  ASSERT_EQ(check_prepared(&c_request, 0, nullptr, &info, &error), IDP_OK) << error.message;
  EXPECT_DOUBLE_EQ(info.interval_level, 0.9);

  idp_release_table* out = nullptr;
  ASSERT_EQ(r.run("integer_laplace", 0, &out, &error), IDP_OK) << error.message;
  ASSERT_TRUE(out->has_intervals);
  // Read as the shim reads them, all rows at once and a row at a time: the
  // same bounds, centred on the values.
  std::vector<std::int64_t> lower(out->n_rows), upper(out->n_rows);
  std::vector<double> untouched(out->n_rows, -1.0);
  idp_release_bounds(out, 0, out->n_rows, untouched.data(), untouched.data(), lower.data(), upper.data());
  for (std::size_t i = 0; i < out->n_rows; ++i) {
    EXPECT_LE(lower[i], out->integer_values[i]);
    EXPECT_EQ(out->integer_values[i] - lower[i], upper[i] - out->integer_values[i]);
    EXPECT_EQ(untouched[i], -1.0);  // the real pair is not written
    const test_tables::RowInterval one = test_tables::row_interval(*out, i);
    EXPECT_EQ(one.lower, double(lower[i]));
    EXPECT_EQ(one.upper, double(upper[i]));
  }
  const std::string law = out->metadata_json;
  EXPECT_NE(
      law.find("\"interval\": {\"level\": 0.9, \"method\": \"exact: the quantile of the conditioned cell's law\", "
               "\"kind\": \"exact\"}"),
      std::string::npos)
      << law;

  // The same seed without intervals: the same values, no bounds.
  IntervalRelease plain;
  plain.request.margins = {"county"};
  idp_release_table* without = nullptr;
  ASSERT_EQ(plain.run("integer_laplace", 0, &without, &error), IDP_OK) << error.message;
  ASSERT_EQ(without->n_rows, out->n_rows);
  EXPECT_EQ(std::memcmp(without->integer_values, out->integer_values, sizeof(int64_t) * out->n_rows), 0);
  EXPECT_FALSE(without->has_intervals);
  EXPECT_EQ(std::string(without->metadata_json).find("\"interval\""), std::string::npos);
  idp_free_release(without);
  idp_free_release(out);
}

// Independent integer cells share one half-width; without intervals a
// table has none.
TEST(CApiIntervals, OneHalfWidthForIndependentIntegerCells) {
  IntervalRelease r;
  r.interval("0.9");
  idp_error error{};
  idp_release_table* out = nullptr;
  ASSERT_EQ(r.run("discrete_laplace", 0, &out, &error), IDP_OK) << error.message;
  ASSERT_TRUE(out->has_intervals);
  // b = 2 (replace_one at epsilon 1): P(|Z| <= t) = 1 - 2 a^(t+1) / (1 + a),
  // a = e^(-1/2), first at least 0.9 at t = 5.
  for (std::size_t i = 0; i < out->n_rows; ++i) {
    const test_tables::RowInterval one = test_tables::row_interval(*out, i);
    EXPECT_EQ(one.lower, double(out->integer_values[i] - 5));
    EXPECT_EQ(one.upper, double(out->integer_values[i] + 5));
  }
  idp_free_release(out);
  IntervalRelease plain;
  ASSERT_EQ(plain.run("discrete_laplace", 0, &out, &error), IDP_OK) << error.message;
  EXPECT_FALSE(out->has_intervals);
  idp_free_release(out);
}

TEST(CApiIntervals, RealReleasesGetRealBounds) {
  IntervalRelease r;
  r.request.margins = {"county", "edu"};
  r.interval("0.95");
  idp_error error{};
  idp_release_table* out = nullptr;
  ASSERT_EQ(r.run("subspace_gaussian", 1e-6, &out, &error), IDP_OK) << error.message;
  ASSERT_TRUE(out->has_intervals);
  std::vector<double> lower(out->n_rows), upper(out->n_rows);
  std::vector<std::int64_t> untouched(out->n_rows, -1);
  idp_release_bounds(out, 0, out->n_rows, lower.data(), upper.data(), untouched.data(), untouched.data());
  for (std::size_t i = 0; i < out->n_rows; ++i) {
    EXPECT_LT(lower[i], out->values[i]);
    EXPECT_GT(upper[i], out->values[i]);
    EXPECT_EQ(untouched[i], -1);  // the integer pair is not written
  }
  // Rows past the table are not read.
  double past = 7;
  idp_release_bounds(out, out->n_rows, 1, &past, &past, nullptr, nullptr);
  EXPECT_EQ(past, 7);
  EXPECT_NE(std::string(out->metadata_json).find("\"kind\": \"exact\""), std::string::npos);
  idp_free_release(out);
}

TEST(CApiIntervals, ACascadeGetsOneIntervalPerNode) {
  IntervalRelease r;
  r.request.hierarchy = {"county"};
  r.interval("0.9");
  idp_error error{};
  idp_release_table* out = nullptr;
  ASSERT_EQ(r.run("cascade", 1e-6, &out, &error), IDP_OK) << error.message;
  ASSERT_GT(out->n_rows, r.table.counts.size());  // the total and the counties too
  ASSERT_TRUE(out->has_intervals);
  for (std::size_t i = 0; i < out->n_rows; ++i) {
    const test_tables::RowInterval one = test_tables::row_interval(*out, i);
    EXPECT_LT(one.lower, one.upper);
  }
  idp_free_release(out);
}

TEST(CApiIntervals, RefusesLevelsAndLawsItCannotAnswer) {
  idp_error error{};
  idp_release_table* out = nullptr;
  for (const char* level : {"0", "1", "1.5", "-0.1", "high", ""}) {
    IntervalRelease r;
    r.interval(level);
    EXPECT_EQ(r.run("discrete_laplace", 0, &out, &error), IDP_INVALID_ARGUMENT) << level;
    EXPECT_STREQ(error.message, "option \"interval\" must be a level strictly between 0 and 1");
    EXPECT_EQ(out, nullptr);
  }
  for (const char* mechanism : {"congenial", "project_nn_l2", "project_nn_integer"}) {
    IntervalRelease r;
    r.request.margins = {"county"};
    r.interval("0.9");
    EXPECT_EQ(r.run(mechanism, 0, &out, &error), IDP_INVALID_ARGUMENT) << mechanism;
    EXPECT_EQ(std::string(error.message), std::string("option \"interval\" is not available for mechanism \"") +
                                               mechanism + "\"");
    EXPECT_NE(std::string(error.detail).find("depends on the counts"), std::string::npos);
  }
  // A rolled-up hierarchy's nodes are sums: their error bars are dp.margin_of_error's.
  IntervalRelease rolled;
  rolled.request.hierarchy = {"county"};
  rolled.interval("0.9");
  EXPECT_EQ(rolled.run("discrete_laplace", 0, &out, &error), IDP_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error.hint).find("dp.margin_of_error"), std::string::npos);
}

}  // namespace
}  // namespace invariant_dp
