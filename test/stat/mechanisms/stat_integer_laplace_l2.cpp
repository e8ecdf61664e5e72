// Statistical tests of integer_laplace_l2 (mechanisms/integer_laplace_l2.cpp)
// through run_release: P(z) proportional to exp(-|z|_2 / b) on the integer
// vectors that keep the declared margins, b = |v|_2 / epsilon for the
// shortest protected move v (Dharangutte, Gao, Gong, Yu 2023,
// arXiv:2212.00936, Def. 9 in l2). It has no exact sampler: on a complete
// table the release runs the Gibbs sampler on the law's Gaussian scale
// mixture (mcmc/scale_mixture_chain.hpp) for its default 20 iterations,
// so a pass says the chain's law at its default is within what the draws
// can see of the exact law, not that it is exact. The l2 norm couples every
// cell, so tables released together are not independent: each release is
// one 2 x 3 table with both margins (|v|_2 = 2, a 2 x 2 swap), 5,000
// releases at epsilon 2 (b = 1; each release runs its own chain, the
// test's whole cost), against the law enumerated on the table's two free
// cells (table_laws.hpp) by chi-square goodness of fit at p = 1e-6
// (noise_laws.hpp). Power, each must be rejected: the same draws against
// b x 1.2 (noncentrality about 390 against a critical value about 100),
// and against the l1 law of integer_laplace at the same epsilon
// (exp(-|z|_1 / b'), b' = |v|_1 / epsilon = 2; noncentrality about 200
// against about 93), so a correct mechanism passes either with
// probability below 1e-6. A correct mechanism fails this file with
// probability about 1e-6.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "mechanism_release.hpp"
#include "noise_laws.hpp"
#include "table_laws.hpp"

using namespace invariant_dp;
using invariant_dp::mechanism_release::request;

namespace {

// exp(-|z|_2 / b) on 2 x 3 tables.
std::map<std::int64_t, double> l2_law(double b) {
  return table_laws::enumerate(2, 3, 40, [b](const std::vector<std::int64_t>& z) {
    double s = 0;
    for (std::int64_t v : z) s += double(v) * double(v);
    return std::exp(-std::sqrt(s) / b);
  });
}

}  // namespace

TEST(IntegerLaplaceL2, TwoByThreeTablesFollowTheEnumeratedLawAtTheDefaultIterations) {
  const int releases = 5000;
  const auto req = request("integer_laplace_l2", 2, {"r", "c"});
  const auto table = test_tables::grid({"r", "c"}, {2, 3}, {5, 0, 12, 7, 3, 40});
  const auto keys = table.keys();
  auto rng = make_seeded_random_source(823);
  const double b = 1;
  std::vector<std::int64_t> draws(releases);
  for (int r = 0; r < releases; ++r) {
    const auto result = run_release(keys, table.counts.data(), req, *rng, Interrupts());
    ASSERT_TRUE(result.integer_output);
    if (r == 0) {
      ASSERT_DOUBLE_EQ(mechanism_release::number_at(mechanism_release::metadata(result), {"noise", "scale"}), b);
    }
    std::int64_t z[6];
    for (int i = 0; i < 6; ++i) z[i] = result.integer_values[i] - table.counts[i];
    draws[r] = table_laws::key(z, 2, 3);
  }
  EXPECT_TRUE(noise_laws::fit("integer_laplace_l2 2 x 3 at b", l2_law(b), draws).passes());
  EXPECT_FALSE(noise_laws::fit("integer_laplace_l2 2 x 3 at 1.2 b", l2_law(1.2 * b), draws).passes());
  EXPECT_FALSE(noise_laws::fit("integer_laplace_l2 2 x 3 against the l1 law", table_laws::l1_law(2, 3, 2, 40), draws)
                   .passes());
}
