// Deterministic tests of the negative binomial acceptance coin
// (samplers/negative_binomial_coin.hpp): the mode is the argmax, the
// enclosures agree with the formula, a coin at the mode draws nothing, and
// the bounds kept for a total decide exactly as the full comparison does.
// Its law is tested through the three-line sampler's
// (test/stat/samplers/stat_three_line_table.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "errors.hpp"
#include "interrupts.hpp"
#include "random_source.hpp"
#include "samplers/lazy_bernoulli.hpp"
#include "samplers/negative_binomial_coin.hpp"
#include "table_checks.hpp"

namespace invariant_dp {
namespace {

using namespace table_checks;

// nb(m+1)/nb(m) = rho (m + k)/(m + 1) > 1, in long double.
bool rises(long double m, long double k, long double rate) { return std::exp(-rate) * (m + k) > m + 1; }
double log_nb(double m, double k, double rate) { return std::lgamma(m + k) - std::lgamma(m + 1) - m * rate; }

TEST(NegativeBinomialCoin, ModeIsTheArgmax) {
  for (Rational rate : {Rational{1, 1}, Rational{1, 8}, Rational{2, 125}, Rational{3, 1}})
    for (std::uint64_t k : {1, 2, 3, 23, 1000, 1000000}) {
      const NegativeBinomialCoin coin(rate, k);
      const long double r = static_cast<long double>(rate.num) / rate.den;
      const double m = double(coin.mode()), kk = double(k);
      EXPECT_FALSE(rises(m, kk, r)) << k << " " << rate.to_double();
      if (m > 0) {
        EXPECT_TRUE(rises(m - 1, kk, r)) << k << " " << rate.to_double();
      }
      // The enclosure agrees with the double formula (for moderate totals,
      // where the double differences keep their digits).
      if (m > 1e5) continue;
      const Interval bounds = coin.log_ratio_bounds(128, coin.mode() + 7);
      const double expected = log_nb(m + 7, kk, double(r)) - log_nb(m, kk, double(r));
      EXPECT_LE(to_double(bounds, End::lower), expected + 1e-6 * (1 + std::fabs(expected)));
      EXPECT_GE(to_double(bounds, End::upper), expected - 1e-6 * (1 + std::fabs(expected)));
    }
  EXPECT_THROW(NegativeBinomialCoin(Rational{0, 1}, 3), InvalidArgument);
  EXPECT_THROW(NegativeBinomialCoin(Rational{1, 1}, 0), InvalidArgument);
  EXPECT_THROW(NegativeBinomialCoin(Rational{1, std::uint64_t{1} << 40}, std::uint64_t{1} << 20), OutOfRange);
}

// Plays back no word: the coin at its mode is certain and draws nothing.
class NoCoinWords final : public RandomSource {
 public:
  std::uint64_t next_u64() override {
    ADD_FAILURE() << "drew a word";
    return 0;
  }
};

TEST(NegativeBinomialCoin, AtTheModeNoRandomnessIsUsed) {
  NegativeBinomialCoin coin(Rational{1, 4}, 50);
  NoCoinWords none;
  EXPECT_TRUE(coin.accept(none, coin.mode()));
}

// The bounds kept for a total decide from the first word; the decision is
// the same as the coin's without them (1[U < p] for the same U).
TEST(NegativeBinomialCoin, KeptBoundsDecideAsTheFullComparison) {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    NegativeBinomialCoin coin(Rational{1, 3}, 20);
    auto a = make_seeded_random_source(seed), b = make_seeded_random_source(seed);
    int accepted = 0;
    for (int i = 0; i < 2000; ++i) {
      const std::uint64_t m = coin.mode() + 1 + std::uint64_t(i % 13);
      const bool kept = coin.accept(*a, m);
      const bool full =
          sample_bernoulli_lazy(*b, [&](mpfr_prec_t prec) { return exp(coin.log_ratio_bounds(prec, m)); });
      EXPECT_EQ(kept, full) << i;
      accepted += kept;
    }
    EXPECT_GT(accepted, 0);
    EXPECT_LT(accepted, 2000);
  }
}

}  // namespace
}  // namespace invariant_dp
