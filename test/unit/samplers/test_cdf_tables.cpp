// The CDF-table samplers (samplers/cdf_table.hpp): the discrete Laplace
// table's certified words, and for both tables the exact fallback on the
// words a table cannot decide.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "errors.hpp"
#include "samplers/discrete_gaussian_table.hpp"
#include "samplers/discrete_laplace_table.hpp"
#include "scripted_source.hpp"

namespace invariant_dp {
namespace {

using test_sources::ScriptedSource;

// The closed-form CDF in double precision, for checking the words.
double cdf(double scale, std::int64_t x) {
  const double a = std::exp(-1 / scale);
  return x < 0 ? std::pow(a, double(-x)) / (1 + a) : 1 - std::pow(a, double(x + 1)) / (1 + a);
}

TEST(DiscreteLaplaceTable, WordsEncloseTheCdf) {
  const Rational scale{7, 3};
  const DiscreteLaplaceTable table(scale, Interrupts());
  EXPECT_EQ(table.entries(), DiscreteLaplaceTable::entries_for(scale));
  EXPECT_EQ(table.first_x(), -std::int64_t(std::ceil(35 * 7.0 / 3)) - 2);
  for (std::size_t k = 0; k < table.entries(); ++k) {
    const double expected = std::ldexp(cdf(7.0 / 3, table.first_x() + std::int64_t(k)), 64);
    // Words are certified to 2^-64; double is good to about 2^-52 of the value.
    EXPECT_NEAR(double(table.lower_word(k)), expected, 1e-12 * expected + 2) << k;
    if (k > 0) {
      EXPECT_LT(table.lower_word(k - 1), table.lower_word(k));
    }
  }
}

// Words inside an enclosure, or beyond the table, reach the exact path; its
// answer is the inversion of the same U. top_at_least: a draw the top word
// (U within 2^-64 of 1) must reach.
template <class Table>
void expect_exact_path_decides_ambiguous_words(const Table& table, std::int64_t top_at_least) {
  std::size_t k = 0;
  while (table.lower_word(k) < (std::uint64_t(1) << 62)) ++k;  // an entry inside the bulk
  const std::uint64_t a = table.lower_word(k);
  const std::int64_t x = table.first_x() + static_cast<std::int64_t>(k);
  // U = (a + V)/2^64 with 2^64 CDF(x) in (a, a + 1): V = 0 gives U < CDF(x), V near 1 does not.
  ScriptedSource low({a, 0, 0}, ScriptedSource::Then::Seeded);
  EXPECT_EQ(table.sample(low), x);
  ScriptedSource high({a, ~std::uint64_t{0}, ~std::uint64_t{0}, ~std::uint64_t{0}}, ScriptedSource::Then::Seeded);
  EXPECT_EQ(table.sample(high), x + 1);
  // The top and bottom words fall in the tails (U within 2^-64 of 1, and
  // below 2^-256).
  ScriptedSource top({~std::uint64_t{0}}, ScriptedSource::Then::Seeded);
  EXPECT_GE(table.sample(top), top_at_least);
  ScriptedSource bottom({0, 0, 0, 0}, ScriptedSource::Then::Seeded);
  EXPECT_LE(table.sample(bottom), table.first_x());
}

TEST(DiscreteGaussianTable, ExactPathDecidesAmbiguousWords) {
  // s^2 = 3/4, centre 1/3: the upper tail beyond x = 6 has mass above 2^-64.
  expect_exact_path_decides_ambiguous_words(DiscreteGaussianTable(3, 4, 1, 3, Interrupts()), 6);
}

TEST(DiscreteLaplaceTable, ExactPathDecidesAmbiguousWords) {
  // The top word lies beyond the table's last entry.
  const DiscreteLaplaceTable table(Rational{3, 2}, Interrupts());
  expect_exact_path_decides_ambiguous_words(table, table.first_x() + std::int64_t(table.entries()) - 1);
}

TEST(DiscreteLaplaceTable, RefusesScalesBeyondItsSize) {
  EXPECT_THROW(DiscreteLaplaceTable(Rational{0, 1}, Interrupts()), InvalidArgument);
  EXPECT_THROW(DiscreteLaplaceTable(Rational{100000, 1}, Interrupts()), OutOfRange);
  EXPECT_FALSE(DiscreteLaplaceTable::worth_it(Rational{1, 1}, 100));  // a few draws: Algorithm 2
  EXPECT_TRUE(DiscreteLaplaceTable::worth_it(Rational{1, 1}, 1000000));
  EXPECT_FALSE(DiscreteLaplaceTable::worth_it(Rational{100000, 1}, std::size_t(1) << 40));
  // Cancelled while building.
  int polls = 0;
  const Interrupts cancel([](void* n) { return ++*static_cast<int*>(n) > 1; }, &polls);
  EXPECT_THROW(DiscreteLaplaceTable(Rational{500, 1}, cancel), Interrupted);
}

}  // namespace
}  // namespace invariant_dp
