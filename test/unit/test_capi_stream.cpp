// Unit tests of the streaming cascade's C boundary (invariant_dp_stream.h):
// appends through the text state continue one stream, a state that does not
// match the catalog is refused, the horizon is enforced without drawing, and
// the public range variance equals the one computed from the state.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "calibration/analytic_gaussian.hpp"
#include "capi/invariant_dp_stream.h"
#include "hierarchy/streaming_cascade.hpp"
#include "random_source.hpp"

namespace invariant_dp {
namespace {

const idp_randomness kSeeded{true, 11, 1};

// One append through the C API; returns the new state ("" on error).
std::string append(const char* state, std::uint64_t n_released, std::uint64_t count, std::vector<double>& noise,
                   idp_status& status) {
  noise.assign(count, 0);
  char* next = nullptr;
  idp_error error{};
  status = idp_stream_append(state, 2.0, 4, n_released, count, nullptr, &kSeeded, nullptr, nullptr, noise.data(), &next, &error);
  std::string out = next ? next : "";
  idp_free(next);
  return out;
}

TEST(CapiStream, AppendsContinueThroughTheState) {
  std::vector<double> noise;
  idp_status status;
  std::string state = append(nullptr, 0, 3, noise, status);
  ASSERT_EQ(status, IDP_OK);
  state = append(state.c_str(), 3, 5, noise, status);
  ASSERT_EQ(status, IDP_OK);
  EXPECT_EQ(hierarchy::StreamingCascade::deserialize(state).n_released(), 8u);
  // The horizon (2^4 = 16 leaves) refuses 9 more, and the state is not returned.
  const std::string refused = append(state.c_str(), 8, 9, noise, status);
  EXPECT_EQ(status, IDP_TOO_LARGE);
  EXPECT_EQ(refused, "");
  append(state.c_str(), 8, 8, noise, status);
  EXPECT_EQ(status, IDP_OK);
}

TEST(CapiStream, RefusesAStateThatDoesNotMatchTheCatalog) {
  std::vector<double> noise;
  idp_status status;
  const std::string state = append(nullptr, 0, 3, noise, status);
  append(state.c_str(), 2, 1, noise, status);  // the release table lost a row
  EXPECT_EQ(status, IDP_INVALID_DATA);
  append(nullptr, 3, 1, noise, status);  // the state was lost
  EXPECT_EQ(status, IDP_INVALID_DATA);
  char* next = nullptr;
  idp_error error{};
  EXPECT_EQ(idp_stream_append(state.c_str(), 3.0, 4, 3, 1, nullptr, &kSeeded, nullptr, nullptr, noise.data(), &next, &error),
            IDP_INVALID_DATA);  // another variance
  EXPECT_EQ(idp_stream_append("cascade_stream/1 garbage", 2.0, 4, 3, 1, nullptr, &kSeeded, nullptr, nullptr, noise.data(), &next, &error),
            IDP_INVALID_DATA);
  EXPECT_EQ(next, nullptr);
}

TEST(CapiStream, PublicRangeVarianceEqualsTheStatefulOne) {
  auto rng = make_seeded_random_source(3);
  for (std::uint64_t n : {1u, 2u, 5u, 8u, 13u}) {
    hierarchy::StreamingCascade stream(1.5, 6);
    stream.append(n, *rng, Interrupts());
    for (std::uint64_t lo = 0; lo < n; ++lo)
      for (std::uint64_t hi = lo; hi < n; ++hi) {
        double v = 0;
        idp_error error{};
        ASSERT_EQ(idp_stream_range_variance(1.5, lo, hi, &v, &error), IDP_OK);
        EXPECT_NEAR(v, stream.range_variance(lo, hi), 1e-12) << n << " " << lo << ".." << hi;
      }
  }
  // Oracle values at v = 1: a leaf, two siblings (their parent), two cousins.
  double v = 0;
  idp_error error{};
  idp_stream_range_variance(1.0, 3, 3, &v, &error);
  EXPECT_NEAR(v, 1.0, 1e-12);
  idp_stream_range_variance(1.0, 0, 1, &v, &error);
  EXPECT_NEAR(v, 1.0, 1e-12);
  idp_stream_range_variance(1.0, 1, 2, &v, &error);
  EXPECT_NEAR(v, 1.75, 1e-12);  // 2v + 2 Cov, cousins' covariance -v/8
}

TEST(CapiStream, CalibratesOnTheHorizonsSensitivity) {
  double v = 0;
  idp_error error{};
  ASSERT_EQ(idp_stream_variance(1.0, 1e-6, 9, "add_remove", nullptr, &v, &error), IDP_OK);
  const double sigma = analytic_gaussian_sigma(1.0, 1e-6, std::sqrt(1 + 9 / 3.0));
  EXPECT_DOUBLE_EQ(v, sigma * sigma);
  ASSERT_EQ(idp_stream_variance(1.0, 1e-6, 9, "replace_one", nullptr, &v, &error), IDP_OK);
  const double sigma_r = analytic_gaussian_sigma(1.0, 1e-6, std::sqrt(20 / 3.0));
  EXPECT_DOUBLE_EQ(v, sigma_r * sigma_r);
  EXPECT_EQ(idp_stream_variance(1.0, 1e-6, 63, "add_remove", nullptr, &v, &error), IDP_INVALID_ARGUMENT);
  EXPECT_EQ(idp_stream_variance(1.0, 1e-6, -1, "add_remove", nullptr, &v, &error), IDP_INVALID_ARGUMENT);
  EXPECT_EQ(idp_stream_variance(1.0, 1e-6, 9, "both", nullptr, &v, &error), IDP_INVALID_ARGUMENT);
  EXPECT_EQ(idp_stream_range_variance(1.0, 2, 1, &v, &error), IDP_INVALID_ARGUMENT);
  EXPECT_EQ(idp_stream_range_variance(1.0, -1, 1, &v, &error), IDP_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace invariant_dp
