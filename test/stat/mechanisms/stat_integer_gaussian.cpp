// Statistical tests of integer_gaussian (mechanisms/integer_gaussian.cpp)
// through run_release: the lattice Gaussian on the invariant lattice,
// P(z) proportional to exp(-|z|_2^2 / (2 sigma^2)) on the integer vectors
// that keep the declared margins, sigma^2 the smallest whose
// (|v|_2^2 / (2 sigma^2))-zCDP converts to (epsilon, delta) for the shortest
// protected move v (Dharangutte, Gao, Gong, Yu 2023, arXiv:2212.00936,
// Eq. 8, Def. 13; calibration/zcdp.hpp, tested in test_zcdp.cpp), each
// drawn exactly here, at epsilon 1, delta 1e-6:
//  1. 100,000 pairs with their totals kept (one margin, the conditioned
//     sampler): |v|_2^2 = 2, and the first cell's noise m (the second's is
//     -m) has P(m) proportional to exp(-m^2 / sigma^2), a discrete Gaussian
//     of variance parameter sigma^2 / 2;
//  2. 50,000 2 x 3 tables with both margins (the Kronecker sampler):
//     |v|_2^2 = 4 (a 2 x 2 swap), against the law of each table enumerated
//     on its two free cells (table_laws.hpp).
// Chi-square goodness of fit at p = 1e-6 (noise_laws.hpp). Power, each must
// be rejected: the same draws against sigma^2 x 1.1, and against a sigma^2
// calibrated for another move (pairs: the unconditioned cell's
// exp(-m^2 / (2 sigma^2)); tables: one record's move, |v|_2^2 = 2).
// Assertions expected to pass: 2 at about 1e-6 each, so a correct mechanism
// fails this file with probability about 2e-6.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "calibration/zcdp.hpp"
#include "mechanism_release.hpp"
#include "noise_laws.hpp"
#include "table_laws.hpp"

using namespace invariant_dp;
using invariant_dp::mechanism_release::request;

namespace {

// The law's sigma^2 as the metadata states it, "num/den".
double published_sigma2(const ReleaseResult& result) {
  const std::string text = mechanism_release::text_at(mechanism_release::metadata(result), {"noise", "exact_parameter"});
  const auto slash = text.find('/');
  return std::stod(text.substr(0, slash)) / std::stod(text.substr(slash + 1));
}

// exp(-|z|_2^2 / (2 sigma2)) on 2 x 3 tables.
std::map<std::int64_t, double> table_law(double sigma2) {
  return table_laws::enumerate(2, 3, 60, [sigma2](const std::vector<std::int64_t>& z) {
    double s = 0;
    for (std::int64_t v : z) s += double(v) * double(v);
    return std::exp(-s / (2 * sigma2));
  });
}

}  // namespace

TEST(IntegerGaussian, PairNoiseIsTheLatticeGaussian) {
  const int pairs = 100000;
  const auto req = request("integer_gaussian", 1, {"g"}, 1e-6);
  const auto table = mechanism_release::pairs_table(pairs, 4, 900);
  const auto result = mechanism_release::release_once(table, req, 817);
  ASSERT_TRUE(result.integer_output);
  const double sigma2 = lattice_gaussian_sigma2(1, 1e-6, 2).to_double();
  ASSERT_DOUBLE_EQ(published_sigma2(result), sigma2);
  std::vector<std::int64_t> m(pairs);
  for (int g = 0; g < pairs; ++g) {
    m[g] = result.integer_values[2 * g] - 4;
    ASSERT_EQ(result.integer_values[2 * g + 1] - 900, -m[g]);
  }
  EXPECT_TRUE(noise_laws::fit("integer_gaussian pairs at sigma^2", noise_laws::discrete_gaussian(sigma2 / 2), m).passes());
  EXPECT_FALSE(
      noise_laws::fit("integer_gaussian pairs at 1.1 sigma^2", noise_laws::discrete_gaussian(1.1 * sigma2 / 2), m)
          .passes());
  EXPECT_FALSE(noise_laws::fit("integer_gaussian pairs, unconditioned", noise_laws::discrete_gaussian(sigma2), m)
                   .passes());
}

TEST(IntegerGaussian, TwoByThreeTablesFollowTheEnumeratedLaw) {
  const int tables = 50000;
  const auto req = request("integer_gaussian", 1, {"t,r", "t,c"}, 1e-6);
  std::vector<std::int64_t> counts(6 * tables);
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = std::int64_t(i % 7) * 10;
  const auto table = test_tables::grid({"t", "r", "c"}, {tables, 2, 3}, counts);
  const auto result = mechanism_release::release_once(table, req, 818);
  ASSERT_TRUE(result.integer_output);
  ASSERT_TRUE(mechanism_release::metadata(result).find_path({"sampler", "exact"})->boolean("exact"));
  const double sigma2 = lattice_gaussian_sigma2(1, 1e-6, 4).to_double();
  ASSERT_DOUBLE_EQ(published_sigma2(result), sigma2);
  std::vector<std::int64_t> keys(tables);
  for (int t = 0; t < tables; ++t) {
    std::int64_t z[6];
    for (int i = 0; i < 6; ++i) z[i] = result.integer_values[6 * t + i] - counts[6 * t + i];
    keys[t] = table_laws::key(z, 2, 3);
  }
  EXPECT_TRUE(noise_laws::fit("integer_gaussian 2 x 3 at sigma^2", table_law(sigma2), keys).passes());
  EXPECT_FALSE(noise_laws::fit("integer_gaussian 2 x 3 at 1.1 sigma^2", table_law(1.1 * sigma2), keys).passes());
  EXPECT_FALSE(noise_laws::fit("integer_gaussian 2 x 3 at one record's sigma^2",
                               table_law(lattice_gaussian_sigma2(1, 1e-6, 2).to_double()), keys)
                   .passes());
}
