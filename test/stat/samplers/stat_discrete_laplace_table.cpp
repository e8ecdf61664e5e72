// The CDF-table discrete Laplace (samplers/discrete_laplace_table.hpp)
// against its pmf, with power checks against a wider law and a shifted one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <string>

#include "chi_square.hpp"
#include "random_source.hpp"
#include "samplers/discrete_laplace_table.hpp"

namespace invariant_dp {
namespace {

using namespace chi_square_test;

std::map<std::int64_t, double> pmf(double scale, std::int64_t shift = 0) {
  std::map<std::int64_t, double> p;
  const double a = std::exp(-1 / scale);
  const auto reach = static_cast<std::int64_t>(std::ceil(40 * scale)) + 2;
  for (std::int64_t x = -reach; x <= reach; ++x) p[x + shift] = (1 - a) / (1 + a) * std::pow(a, double(std::abs(x)));
  return p;
}

TEST(StatDiscreteLaplaceTable, MatchesThePmf) {
  constexpr std::size_t kDraws = 400000;
  for (const Rational scale : {Rational{1, 1}, Rational{7, 3}, Rational{25, 1}}) {
    const double s = scale.to_double();
    const DiscreteLaplaceTable table(scale, Interrupts());
    auto rng = make_seeded_random_source(700 + scale.num);
    std::map<std::int64_t, std::int64_t> counts;
    for (std::size_t t = 0; t < kDraws; ++t) ++counts[table.sample(*rng)];
    const std::string what = "discrete laplace table, scale " + std::to_string(s);
    const ChiSquare good = goodness_of_fit(pmf(s), counts, kDraws);
    report(what, good);
    EXPECT_TRUE(good.passes()) << what;
    // Power: a 5 % wider law, and the law moved by one.
    const ChiSquare wide = goodness_of_fit(pmf(1.05 * s), counts, kDraws);
    report(what + ", power: 1.05 scale", wide);
    EXPECT_FALSE(wide.passes()) << what;
    const ChiSquare moved = goodness_of_fit(pmf(s, 1), counts, kDraws);
    report(what + ", power: moved by one", moved);
    EXPECT_FALSE(moved.passes()) << what;
  }
}

}  // namespace
}  // namespace invariant_dp
