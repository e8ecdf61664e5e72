// The non-negative cascade's subtree convolution (hierarchy/
// nonnegative_cascade_kernels): when it says its results are tight (what
// it left out bounded per result, by F's largest value on the half-line
// the left-out terms reach), each result times (1 + 2^-40) is at least the
// whole sum, against a brute-force sum over every term, on results
// spanning hundreds of nats, where the left-out terms decide (the bound
// must then read further, and must not say tight before).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "errors.hpp"
#include "hierarchy/nonnegative_cascade_kernels.hpp"
#include "hierarchy/nonnegative_cascade_table.hpp"
#include "random_source.hpp"

namespace invariant_dp::hierarchy {
namespace {

// A log-concave window: exp(-(r - centre)^2 / (2 var)) on [lo, lo + n),
// made an exact log-concave majorant with geometric tails.
WindowFn gaussian_window(std::int64_t lo, std::size_t n, double centre, double var, std::int64_t support) {
  WindowFn F;
  F.lo = lo;
  F.support = support;
  F.v.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double d = double(lo + static_cast<std::int64_t>(i)) - centre;
    F.v[i] = std::exp(-d * d / (2 * var));
  }
  make_log_concave_majorant(F, 1 + 0x1p-30);
  return F;
}

// sum_s g(s) F(r - s) over every s where a term is not negligible against
// 2^-60 of the result's order (g and F both decay geometrically beyond
// what is summed), in long double.
long double brute_force(const ChildMessage& g, const WindowFn& F, std::int64_t r) {
  long double sum = 0;
  for (std::int64_t s = g.support; s <= 20000; ++s) sum += (long double)g.g(s) * F.at(r - s);
  return sum;
}

TEST(NonnegativeCascadeKernels, SubtreeConvolutionIsTightPerResultAndBoundsTheWholeSum) {
  const RatePowers pow(0.25, 4096);
  // A subtree's message h: a narrow log-concave bump near 200, its support
  // from -50 (so exp(-rho |s|) h(s) has its mass near 200 and a kink at 0).
  const WindowFn h = gaussian_window(150, 101, 200, 40, -50);
  ChildMessage g;
  g.pow = &pow;
  g.leaf = false;
  g.support = -50;
  g.lo = h.lo;
  g.values = h.v.data();
  g.n = static_cast<std::uint32_t>(h.v.size());
  g.left = h.left;
  g.right = h.right;
  describe_subtree_message(g);
  // F spans about 700 nats over its window.
  const WindowFn F = gaussian_window(-300, 601, 0, 64, -300);
  ASSERT_LT(F.v.front() / F.v[300], std::exp(-600.0));
  // Results from the peak (near r = 200) to 400 nats below it.
  const std::int64_t lo = -50, hi = 450;
  WindowFn out;
  bool tight = false;
  int doublings = 0;
  for (; doublings <= 6; ++doublings) {
    convolve(g, Suffix{&F, nullptr}, lo, hi, 1.0, std::ldexp(44.0, doublings), &tight, out, Interrupts());
    if (tight) break;
  }
  ASSERT_TRUE(tight);
  // Results 400 nats below the peak are made of g's far tails: the bound
  // reads further before it says tight.
  EXPECT_GE(doublings, 1);
  const double scale = std::ldexp(1.0, out.exp2 - g.exp2 - F.exp2);
  for (std::int64_t r = lo; r <= hi; r += 5) {
    const long double exact = brute_force(g, F, r);
    const long double computed = (long double)out.v[static_cast<std::size_t>(r - lo)] * scale;
    ASSERT_GT(exact, 0) << r;
    EXPECT_GE(computed * (1 + 0x1p-40L), exact) << "r " << r << ": the result misses more than 2^-40 of its sum";
    EXPECT_LE(computed, exact * (1 + 0x1p-40L)) << "r " << r << ": the result exceeds its sum";
  }
}

// A child whose window starts at `lo` (rate 0.5, h = 1 on 21 points, its
// tails halving per step), drawn 2,000 times from a table at rem = 0: each
// explicit weight must bound sigma times the exact value, W(s) >= 2^sexp
// e^{-rho |s|} h(s), and stay within 2^-39 of it (a table this far out is
// computed with exponents apart, margin 2^-40; plus rounding up).
void expect_weights_follow_far_values(std::int64_t lo, std::uint64_t seed) {
  SCOPED_TRACE("window at " + std::to_string(lo));
  const RatePowers pow(0.5, 4096);
  const std::vector<double> flat(21, 1.0);
  ChildMessage g;
  g.pow = &pow;
  g.leaf = false;
  g.support = 0;
  g.lo = lo;
  g.values = flat.data();
  g.n = static_cast<std::uint32_t>(flat.size());
  g.left = g.right = 0.5;
  describe_subtree_message(g);
  const std::int64_t hi = lo + 20;
  auto exact = [&](std::int64_t s) {  // e^{-rho |s|} h(s)
    const long double h = s < lo ? std::pow(0.5L, lo - s) : s > hi ? std::pow(0.5L, s - hi) : 1.0L;
    return std::exp(-0.5L * (long double)s) * h;
  };
  ProposalTable table;
  auto rng = make_seeded_random_source(seed);
  int explicit_draws = 0;
  for (int draw = 0; draw < 2000; ++draw) {
    const ProposalDraw d = table.draw(g, nullptr, 0, *rng, Interrupts());
    ASSERT_GT(d.total, Uint128{0});
    if (d.tail) continue;
    ++explicit_draws;
    const long double bound = std::ldexp(exact(d.s), d.scale_exp2 + g.exp2);
    const auto weight = static_cast<long double>(static_cast<std::uint64_t>(d.weight));
    ASSERT_GE(weight, bound) << "s " << d.s;
    ASSERT_LE(weight, bound * (1 + 0x1p-39L) + 2) << "s " << d.s;
  }
  EXPECT_GT(explicit_draws, 1000);
}

// Values 700 nats out (exp(-rho |s|) near 2^-1010, below it underflowing):
// computing sigma as one double overflowed there and gave garbage weights.
TEST(NonnegativeCascadeKernels, ProposalWeightsBoundValuesNearTheDoubleRangesEnd) {
  expect_weights_follow_far_values(1400, 3);
}

// Values 3,000 nats out (e^-3000, far below every double, the rate's powers
// read beyond the table's normal entries, h's tails thousands of steps
// long): in double every product rounded to 0 and the draw was refused.
TEST(NonnegativeCascadeKernels, ProposalWeightsFollowValuesFarBelowTheDoubleRange) {
  expect_weights_follow_far_values(6000, 4);
}

// exp(-rho j) and x^j with their exponents apart, against long double
// references, from the table's range to far beyond the doubles'.
TEST(NonnegativeCascadeKernels, SeparatedPowersMatchTheirValues) {
  const RatePowers pow(0.25, 8192);
  for (std::int64_t j : {0, 1, 100, 2770, 2771, 2772, 4000, 8191, 8192, 20000, 123457}) {
    const Separated p = pow.at_separated(j);
    const long double exact = std::exp(-0.25L * (long double)j);
    const long double got = std::ldexp((long double)p.m, p.e);
    EXPECT_GE(got, exact * (1 - 0x1p-48L)) << "j " << j;  // at most rounding below
    EXPECT_LE(got, exact * (1 + 0x1p-44L)) << "j " << j;  // a few ulp of upper bounds above
  }
  for (std::int64_t j : {0, 1, 7, 1000, 65536, 1000003}) {
    const Separated p = ratio_power_separated(0.9921875, j);
    const long double exact = std::pow(0.9921875L, (long double)j);
    const long double got = std::ldexp((long double)p.m, p.e);
    EXPECT_GE(got, exact * (1 - 0x1p-60L)) << "j " << j;  // an upper bound
    EXPECT_LE(got, exact * (1 + 0x1p-45L)) << "j " << j;
  }
  // A power far below 2^-2^28 is bounded by 2^-2^28, its exponent in range.
  const Separated far = ratio_power_separated(0.5, std::int64_t{1} << 40);
  EXPECT_EQ(far.m, 0.5);
  EXPECT_EQ(far.e, -(1 << 28) + 1);
  EXPECT_EQ(ratio_power_separated(0.0, 5).m, 0.0);
  EXPECT_EQ(ratio_power_separated(0.0, 0).m, 0.5);
}

// A window whose largest value two neighbours share at its end (a flat top
// in double, met on a split of 31 groups of 64 leaves at epsilon 0.1) has
// no falling tail: the majorant refuses it, so the windows' room check must
// too (and widen the window) rather than take "a point after the largest
// value" for room. Each side, against a window whose ends fall.
TEST(NonnegativeCascadeKernels, TailsFallOnlyWhereTheEndStepsFall) {
  const double tilt = 1 + 0x1p-30;
  auto window = [](std::int64_t lo, std::int64_t support, std::vector<double> v) {
    WindowFn F;
    F.lo = lo;
    F.support = support;
    F.v = std::move(v);
    return F;
  };
  const WindowFn falls = window(5, 0, {0.25, 0.5, 0.875, 0.75});
  const WindowFn flat_end = window(5, 0, {0.25, 0.5, 0.875, 0.875});
  const WindowFn flat_start = window(5, 0, {0.875, 0.875, 0.5, 0.25});
  const WindowFn from_support = window(0, 0, {0.875, 0.875, 0.5, 0.25});
  const WindowFn within_tilt = window(5, 0, {0.25, 0.5, 0.875, 0.875 * (1 - 0x1p-40)});
  EXPECT_TRUE(majorant_tails_fall(falls, tilt));
  EXPECT_FALSE(majorant_tails_fall(flat_end, tilt));
  EXPECT_FALSE(majorant_tails_fall(flat_start, tilt));
  EXPECT_TRUE(majorant_tails_fall(from_support, tilt));  // no left tail there
  EXPECT_FALSE(majorant_tails_fall(within_tilt, tilt));  // a fall the tilt undoes
  EXPECT_FALSE(majorant_tails_fall(window(5, 0, {0.5, 0.25}), tilt));
  // What the check stands for: the majorant takes exactly the windows it passes.
  for (const WindowFn& F : {falls, flat_end, flat_start, from_support, within_tilt}) {
    WindowFn copy = F;
    if (majorant_tails_fall(F, tilt)) {
      EXPECT_NO_THROW(make_log_concave_majorant(copy, tilt));
    } else {
      EXPECT_THROW(make_log_concave_majorant(copy, tilt), Error);
    }
  }
}

// A window whose values rise geometrically from 400 nats below its largest
// (a leaf split of a group with one count in the hundreds, at epsilon 2):
// where the majorant caps a value to keep log-concavity, b b / a of two
// values under 2^-537 rounded to 0 and the majorant fell below its values
// (an internal error on a valid request). It now dominates them, log-concave.
TEST(NonnegativeCascadeKernels, MajorantsHoldValuesFarBelowTheirLargest) {
  const double tilt = 1.0000000000237588, rise = 1.6201608577183921;
  WindowFn F;
  F.lo = -631;
  F.support = -1629;
  F.v.push_back(2.3397878275126805e-175);
  // Ends: at the first value past 0.69 (about 830 steps).
  while (F.v.back() < 0.69) F.v.push_back(F.v.back() * rise);
  const double top = F.v.back();
  for (int j = 1; j <= 400; ++j) F.v.push_back(top * std::exp(-double(j) * j / 2000));
  const std::vector<double> values = F.v;
  ASSERT_NO_THROW(make_log_concave_majorant(F, tilt));
  ASSERT_EQ(F.lo, -631);
  ASSERT_EQ(F.v.size(), values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_GE(F.v[i], values[i]) << i;
    EXPECT_LE(F.v[i], values[i] * 1.001) << i;  // raised by the tilt's compounding, not floored
    if (i > 0 && i + 1 < values.size()) {
      EXPECT_GE(F.v[i] * F.v[i], F.v[i - 1] * F.v[i + 1] * (1 - 1e-15)) << i;
    }
  }
}

}  // namespace
}  // namespace invariant_dp::hierarchy
