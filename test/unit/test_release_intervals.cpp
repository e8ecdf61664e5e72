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
  EXPECT_EQ(out->integer_half_width, -1);  // per cell, from the groups' sizes
  ASSERT_NE(out->integer_lower, nullptr);
  ASSERT_NE(out->integer_upper, nullptr);
  EXPECT_EQ(out->lower, nullptr);
  EXPECT_EQ(out->upper, nullptr);
  for (std::size_t i = 0; i < out->n_rows; ++i) {
    EXPECT_LE(out->integer_lower[i], out->integer_values[i]);
    EXPECT_EQ(out->integer_values[i] - out->integer_lower[i], out->integer_upper[i] - out->integer_values[i]);
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
  EXPECT_EQ(without->integer_lower, nullptr);
  EXPECT_EQ(without->integer_upper, nullptr);
  EXPECT_EQ(std::string(without->metadata_json).find("\"interval\""), std::string::npos);
  idp_free_release(without);
  idp_free_release(out);
}

// Independent integer cells share one half-width: the table carries it
// alone, not two arrays of bounds, and without intervals it carries none.
TEST(CApiIntervals, OneHalfWidthForIndependentIntegerCells) {
  IntervalRelease r;
  r.interval("0.9");
  idp_error error{};
  idp_release_table* out = nullptr;
  ASSERT_EQ(r.run("discrete_laplace", 0, &out, &error), IDP_OK) << error.message;
  EXPECT_EQ(out->integer_lower, nullptr);
  EXPECT_EQ(out->integer_upper, nullptr);
  // b = 2 (replace_one at epsilon 1): P(|Z| <= t) = 1 - 2 a^(t+1) / (1 + a),
  // a = e^(-1/2), first at least 0.9 at t = 5.
  EXPECT_EQ(out->integer_half_width, 5);
  idp_free_release(out);
  IntervalRelease plain;
  ASSERT_EQ(plain.run("discrete_laplace", 0, &out, &error), IDP_OK) << error.message;
  EXPECT_EQ(out->integer_half_width, -1);
  idp_free_release(out);
}

TEST(CApiIntervals, RealReleasesGetRealBounds) {
  IntervalRelease r;
  r.request.margins = {"county", "edu"};
  r.interval("0.95");
  idp_error error{};
  idp_release_table* out = nullptr;
  ASSERT_EQ(r.run("subspace_gaussian", 1e-6, &out, &error), IDP_OK) << error.message;
  ASSERT_NE(out->lower, nullptr);
  ASSERT_NE(out->upper, nullptr);
  EXPECT_EQ(out->integer_lower, nullptr);
  for (std::size_t i = 0; i < out->n_rows; ++i) {
    EXPECT_LT(out->lower[i], out->values[i]);
    EXPECT_GT(out->upper[i], out->values[i]);
  }
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
  ASSERT_NE(out->lower, nullptr);
  for (std::size_t i = 0; i < out->n_rows; ++i) EXPECT_LT(out->lower[i], out->upper[i]);
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
