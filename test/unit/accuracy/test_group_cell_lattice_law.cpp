// One project_l2 cell's law in zero-sum groups of every size at once
// (accuracy/group_cell_lattice_law.hpp): the same quantile as the Fourier
// inversion of that cell's weights (independent_sum_quantiles.hpp), exact
// both ways; enclosures that hold a direct convolution's coverage and are
// narrow enough to decide; refusals before any work; cancels.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "accuracy/group_cell_lattice_law.hpp"
#include "accuracy/independent_sum_quantiles.hpp"
#include "accuracy/projected_laplace.hpp"
#include "errors.hpp"
#include "interrupt_callbacks.hpp"

namespace invariant_dp::accuracy {
namespace {

std::vector<std::size_t> sizes_up_to(std::size_t largest) {
  std::vector<std::size_t> sizes;
  for (std::size_t g = 2; g <= largest; ++g) sizes.push_back(g);
  return sizes;
}

TEST(GroupCellLatticeLaw, TheInversionsQuantileForEverySize) {
  const Rational scales[] = {{1, 3}, {2, 1}, {7, 3}, {10, 1}};
  const double levels[] = {0.5, 0.9, 0.99};
  for (const Rational b : scales)
    for (const double level : levels) {
      const auto all = group_cell_lattice_quantiles(b, sizes_up_to(120), level, Interrupts());
      ASSERT_EQ(all.size(), 119u);
      for (const auto& [g, q] : all) {
        const Quantile fourier = independent_sum_quantile(IntegerNoise{IntegerNoise::Kind::laplace, b},
                                                          cell_projected_numerators({g}).numerators, level, {});
        ASSERT_TRUE(fourier.exact);
        EXPECT_TRUE(q.exact) << "b " << b.to_double() << " level " << level << " g " << g;
        EXPECT_EQ(q.half_width, fourier.half_width) << "b " << b.to_double() << " level " << level << " g " << g;
        EXPECT_GE(q.coverage_lower, level);
        EXPECT_LT(q.narrower_upper, level);
      }
    }
}

// P(|m e_0 - T_m| <= q) by direct convolution of m + 1 discrete Laplace
// pmfs on [-L, L], in long double (the mass past L is below 1e-30 here).
long double direct_coverage(Rational b, int m, std::int64_t q) {
  const long double a = std::exp(-(long double)b.den / b.num), c = (1 - a) / (1 + a);
  const int L = 40 * int(std::ceil(b.to_double())) * 8;
  std::vector<long double> p(2 * L + 1), t(2 * L + 1, 0);
  for (int y = -L; y <= L; ++y) p[y + L] = c * std::pow(a, (long double)std::abs(y));
  t[L] = 1;
  for (int step = 0; step < m; ++step) {
    std::vector<long double> next(2 * L + 1, 0);
    for (int x = -L; x <= L; ++x)
      if (t[x + L] != 0)
        for (int y = -L; y <= L; ++y)
          if (x + y >= -L && x + y <= L) next[x + y + L] += t[x + L] * p[y + L];
    t = next;
  }
  long double covered = 0;
  for (int k = -L; k <= L; ++k)
    for (int s = -L; s <= L; ++s)
      if (std::llabs(std::int64_t(m) * k - s) <= q) covered += p[k + L] * t[s + L];
  return covered;
}

TEST(GroupCellLatticeLaw, EnclosuresHoldADirectConvolution) {
  const Rational scales[] = {{1, 2}, {3, 2}};
  for (const Rational b : scales) {
    const auto all = group_cell_lattice_quantiles(b, {2, 3, 5}, 0.9, Interrupts());
    for (const auto& [g, q] : all) {
      const int m = int(g) - 1;
      const long double at_q = direct_coverage(b, m, q.half_width);
      const long double below = direct_coverage(b, m, q.half_width - 1);
      EXPECT_LE(q.coverage_lower, at_q) << g;
      EXPECT_GT(q.coverage_lower, at_q - 1e-12) << g;  // narrow: it decides
      EXPECT_GE(q.narrower_upper, below) << g;
      EXPECT_LT(q.narrower_upper, below + 1e-12) << g;
      // Power: the direct law says the quantile is this q, and not q - 1.
      EXPECT_GE(at_q, 0.9L) << g;
      EXPECT_LT(below, 0.9L) << g;
    }
  }
}

TEST(GroupCellLatticeLaw, AWrongScaleMovesTheQuantiles) {
  // Power for the comparison above: 5 % on the scale moves some sizes'
  // quantiles, so equal quantiles say the laws agree.
  const auto right = group_cell_lattice_quantiles({2, 1}, sizes_up_to(60), 0.9, Interrupts());
  const auto wrong = group_cell_lattice_quantiles({21, 10}, sizes_up_to(60), 0.9, Interrupts());
  int moved = 0;
  for (const auto& [g, q] : right) moved += q.half_width != wrong.at(g).half_width;
  EXPECT_GT(moved, 40);
}

TEST(GroupCellLatticeLaw, RefusesBeforeItWorks) {
  EXPECT_THROW(group_cell_lattice_quantiles({2, 1}, {1, 3}, 0.9, Interrupts()), InvalidArgument);
  EXPECT_THROW(group_cell_lattice_quantiles({2, 1}, {3}, 1.0, Interrupts()), InvalidArgument);
  EXPECT_TRUE(group_cell_lattice_quantiles({2, 1}, {}, 0.9, Interrupts()).empty());
  // A wide scale over many sizes: refused at once, even with a cancel
  // pending at the first poll.
  EXPECT_THROW(group_cell_lattice_quantiles({4000, 1}, sizes_up_to(1000), 0.9,
                                            Interrupts(test_interrupts::always_pending, nullptr)),
               TooLarge);
  // A scale whose tails pass any window (epsilon about 1e-17): refused
  // before its tail is even sought.
  EXPECT_THROW(group_cell_lattice_quantiles({std::uint64_t(1) << 60, 1}, {2, 3}, 0.9, Interrupts()), TooLarge);
}

TEST(GroupCellLatticeLaw, ACancelStops) {
  for (int polls = 0; polls < 3; ++polls) {
    int polls_left = polls;
    EXPECT_THROW(group_cell_lattice_quantiles({2, 1}, sizes_up_to(300), 0.9,
                                              Interrupts(test_interrupts::pending_after, &polls_left)),
                 Interrupted);
  }
}

}  // namespace
}  // namespace invariant_dp::accuracy
