// One proposal of the non-negative cascade's sampler (NONNEGATIVE.md,
// section 4): a child's value s drawn with probability W(s) / T, where the
// integer weights dominate the target's factor,
//
//   W(s) >= sigma * g(s) * F(rem - s)   for every s in the support,
//
// g the child's message, F the suffix function of the children after it (or
// F = 1), sigma a power of two. W is explicit on a window E (64-bit
// integers: the computed product times (1 + 2^-44), rounded up, and at
// least 1 on the support), and a truncated geometric series with ratio
// q = exp(-rho) on each side of E, where both g / exp(-rho |s|) and F are
// constant: those two tails have integer masses M (rounded up) and are
// drawn exactly as geometric variables (discrete_laplace.hpp). T is the
// exact integer total, so the probability of every draw is a known real
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

struct ProposalDraw {
  std::int64_t s = 0;
  Uint128 total = 0;           // T
  Uint128 weight = 0;          // explicit: W(s); tail: its mass M
  bool tail = false;
  std::uint64_t tail_index = 0;  // j: s is the j-th point of its tail from E
  std::int64_t tail_length = 0;  // n (kUnbounded: infinite)
  // sigma = 2^scale_exp2 relative to the absolute weights g(s) F(rem - s)
  // (mantissas at exponent g.exp2 + F.exp2): W ~ 2^scale_exp2 * g F.
  int scale_exp2 = 0;
  // Double approximations for the acceptance's fast path.
  double probability = 0;  // W_eff(s) / T
};

class ProposalTable {
 public:
  // Draws s with the law W / T above. F == nullptr: F = 1 (a child alone).
  // rem must be feasible (rem - s >= F->support for some s >= g.support).
  ProposalDraw draw(const ChildMessage& g, const WindowFn* F, std::int64_t rem, RandomSource& rng,
                    const Interrupts& interrupts);

 private:
  std::vector<Uint128> prefix_;  // scratch: cumulative explicit weights
};

// W_eff(s) / T of a draw as an enclosure (tails: M (1 - q) q^j / (1 - q^n)
// with q = exp(-rho), over T), for the acceptance's exact path.
Interval proposal_probability(const ProposalDraw& d, double rho, mpfr_prec_t prec);

}  // namespace invariant_dp::hierarchy
