// One proposal of the non-negative cascade's sampler (NONNEGATIVE.md,
// section 4): a child's value s drawn with probability W(s) / T, where the
// weights dominate the target's factor,
//
//   W(s) >= sigma * g(s) * F(rem - s)   for every s in the support,
//
// g the child's message, F the suffix function of the children after it (or
// F = 1), sigma a power of two. W is explicit on a window E (64-bit
// integers: the computed product times (1 + 2^-44), rounded up, and at
// least 1 on the support), and beyond E on either side a truncated
// geometric series, where g and F are both geometric: there
// W(s) = M (1 - r) r^j / (1 - r^n) for the j-th of the tail's n points,
// r = exp(-rate) d1 d2 the product of the two functions' ratios (rate the
// sum of the exp(-rho) factors, d1 and d2 doubles), M an integer at least
// sigma times the tail's mass. A tail point is drawn exactly: a geometric
// variable with ratio exp(-rate) (discrete_laplace.hpp), kept with
// probability (d1 d2)^j by exact Bernoulli coins, redrawn if j >= n. T is
// the exact integer total, so every draw's probability is a known real
// number, which the sampler's acceptance coin evaluates.
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "../samplers/interval.hpp"
#include "../samplers/wide_int.hpp"
#include "nonnegative_cascade_kernels.hpp"

namespace invariant_dp::hierarchy {

// Explicit weights exceed the computed products by this factor (then are
// rounded up): it covers the rounding of the products.
constexpr double kWeightMargin = 1 + 0x1p-44;
// Weights computed with their exponents apart (a table far out) exceed the
// products by this factor: their factors are upper bounds there (the
// stored values exactly, the powers of the rate and of a tail's ratio
// raised by their error bounds), so it covers the products' rounding.
constexpr double kSeparatedWeightMargin = 1 + 0x1p-40;

struct ProposalDraw {
  std::int64_t s = 0;
  Uint128 total = 0;   // T
  Uint128 weight = 0;  // explicit: W(s); tail: its mass M
  bool tail = false;
  std::uint64_t tail_index = 0;  // j: s is the j-th point of its tail from E
  std::int64_t tail_length = 0;  // n (kUnbounded: infinite)
  double tail_rate = 0;          // r = exp(-tail_rate) d1 d2
  double tail_d1 = 1, tail_d2 = 1;
  // sigma = 2^scale_exp2 relative to the absolute weights g(s) F(rem - s).
  int scale_exp2 = 0;
  double probability = 0;  // W_eff(s) / T, in double (the acceptance's fast path)
};

class ProposalTable {
 public:
  // Tails up to written_tail points (or keeping most of their series) are
  // written out; 0: every tail drawn as a series.
  explicit ProposalTable(std::int64_t written_tail = 64) : written_tail_(written_tail) {}

  // Draws s with the law W / T above. F == nullptr: F = 1 (a child alone).
  // rem must be feasible (rem - s >= F->support() for some s >= g.support).
  ProposalDraw draw(const ChildMessage& g, const Suffix* F, std::int64_t rem, RandomSource& rng,
                    const Interrupts& interrupts);

 private:
  std::int64_t written_tail_;
  std::vector<double> x_, f_;    // scratch: the explicit products, F's values
  std::vector<int> xe_;          // scratch: the products' binary exponents (a table far out)
  std::vector<Uint128> prefix_;  // scratch: cumulative explicit weights
};

// W_eff(s) / T of a draw as an enclosure, for the acceptance's exact path.
Interval proposal_probability(const ProposalDraw& d, mpfr_prec_t prec);

// Bernoulli(d) for a double 0 <= d <= 1, exactly (d's binary digits against
// a uniform's).
bool sample_bernoulli_double(RandomSource& rng, double d);

}  // namespace invariant_dp::hierarchy
