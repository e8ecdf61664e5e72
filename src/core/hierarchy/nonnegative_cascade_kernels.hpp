// The numeric pieces of the non-negative cascade's messages
// (NONNEGATIVE.md, section 3): functions on the integers kept as a window of
// doubles plus a closed form outside it, and their convolutions, all sums of
// non-negative terms (no subtraction), so that every computed value is
// within a relative error proportional to the number of operations behind
// it, which the sampler's margin (kMessageMargin) covers.
//
// Two kinds of function, each stored as mantissas times 2^exp2 (a subtree
// of many leaves has weights far outside the double range):
//   WindowFn  F(r): window values on [lo, lo + n); a constant `outside` for
//             r >= support outside the window; 0 for r < support. The
//             suffix sums of a split and their bounds (the constant
//             dominates what the window leaves out).
//   ChildMessage g(s) = exp(-rho |s|) h(s): a leaf (h = 1 for s >= support,
//             support = -count) or a subtree (h = window values on
//             [lo, lo + n), kappa outside, 0 below support), rho the sum of
//             the epsilons of the chain of nodes it stands for.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "../interrupts.hpp"

namespace invariant_dp::hierarchy {

constexpr std::int64_t kNoSupport = std::numeric_limits<std::int64_t>::min() / 4;
constexpr std::int64_t kUnbounded = std::numeric_limits<std::int64_t>::max() / 4;

// exp(-rho j) for j >= 0: a table of certified upper bounds (each within one
// ulp of the exact value, MPFR), and the partial sums of the geometric
// series sum_{i<n} exp(-rho i).
class RatePowers {
 public:
  // rho: a positive multiple of 2^-40 (exact); length: table entries.
  RatePowers(double rho, std::size_t length);

  double rho() const { return rho_; }
  // exp(-rho j); beyond the table from libm (then far below every window).
  double at(std::int64_t j) const {
    return j < static_cast<std::int64_t>(pow_.size()) ? pow_[j] : far(j);
  }
  // sum_{i=0}^{n-1} exp(-rho i), n >= 0 (n = kUnbounded: the whole series).
  double partial_sum(std::int64_t n) const;
  // sum_{d=a}^{b} exp(-rho |d|) for a <= b (b may be kUnbounded); 0 if a > b.
  double range_sum(std::int64_t a, std::int64_t b) const;
  const double* table() const { return pow_.data(); }
  std::size_t length() const { return pow_.size(); }

 private:
  double far(std::int64_t j) const;
  double rho_;
  std::vector<double> pow_, cumulative_;  // cumulative_[n] = sum_{i<n} pow_[i]
  double series_ = 0;                     // >= 1 / (1 - exp(-rho))
};

struct WindowFn {
  std::int64_t lo = 0;
  std::vector<double> v;  // on [lo, lo + v.size())
  double outside = 0;
  std::int64_t support = kNoSupport;
  int exp2 = 0;

  std::int64_t hi() const { return lo + static_cast<std::int64_t>(v.size()) - 1; }
  bool in_window(std::int64_t r) const { return r >= lo && r <= hi(); }
  // The mantissa of F(r) (times 2^exp2).
  double at(std::int64_t r) const {
    if (r < support) return 0;
    return in_window(r) ? v[static_cast<std::size_t>(r - lo)] : outside;
  }
};

struct ChildMessage {
  const RatePowers* pow = nullptr;
  bool leaf = true;
  std::int64_t support = 0;  // h = 0 below
  // Subtrees: h on the window, kappa outside (above support).
  std::int64_t lo = 0;
  const double* values = nullptr;
  std::uint32_t n = 0;
  double kappa = 0;
  int exp2 = 0;
  double hmax = 1;  // max h (mantissa)
  double mass = 0;  // sum_s g(s) (mantissa), computed: Zb of the closing proposal is margin * mass
  double mean = 0, var = 0;  // of g normalised (window heuristics only)

  double rho() const { return pow->rho(); }
  std::int64_t hi() const { return lo + static_cast<std::int64_t>(n) - 1; }
  double h(std::int64_t s) const {
    if (s < support) return 0;
    if (leaf) return 1;
    return s >= lo && s <= hi() ? values[s - lo] : kappa;
  }
  double g(std::int64_t s) const { return pow->at(s < 0 ? -s : s) * h(s); }
};

// A leaf's message, its mass, mean and variance (closed forms).
ChildMessage leaf_message(const RatePowers& pow, std::int64_t count);
// Fills mass, mean, var and hmax of a subtree's message from its window.
void describe_subtree_message(ChildMessage& g);

// (g * F)(r) = sum_s g(s) F(r - s) for r in [lo, hi], times `inflate`, as a
// WindowFn on that window (outside and support left for the caller), its
// mantissas normalised so that the largest is about 1. Every term is
// included: the window parts directly or by geometric recursions, the
// constant parts in closed form.
WindowFn convolve(const ChildMessage& g, const WindowFn& F, std::int64_t lo, std::int64_t hi, double inflate,
                  const Interrupts& interrupts);

}  // namespace invariant_dp::hierarchy
