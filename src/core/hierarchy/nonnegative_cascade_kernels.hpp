// The numeric pieces of the non-negative cascade's messages
// (NONNEGATIVE.md, section 3): log-concave functions on the integers kept
// as a window of doubles with geometric tails, and their convolutions, all
// sums of non-negative terms (no subtraction), so that every computed value
// is within a relative error proportional to the number of operations
// behind it, which the sampler's margins cover.
//
// Two kinds of function, each stored as mantissas times 2^exp2 (a subtree
// of many leaves has weights far outside the double range):
//   WindowFn  F(r): window values on [lo, lo + n); beyond it the geometric
//             continuations F(hi + j) = F(hi) right^j and F(lo - j) =
//             F(lo) left^j (a ratio 0: no tail); 0 below support. Stored
//             (dominating) ones are exactly log-concave: v_i^2 >=
//             v_{i-1} v_{i+1} as real numbers, and the tails continue the
//             edge ratios (right * v_{n-2} <= v_{n-1}, left * v_1 <= v_0).
//   ChildMessage g(s) = exp(-rho |s|) h(s): a leaf (h = 1 for s >= support,
//             support = -count) or a subtree (h a WindowFn-like window with
//             tails), rho the sum of the epsilons of the chain of nodes it
//             stands for. Both are log-concave.
// Values computed with the C library's exp and pow are trusted to within
// 2^8 ulp (the library's documented error is 1 or 2); every margin below
// covers far more.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "../interrupts.hpp"

namespace invariant_dp::hierarchy {

constexpr std::int64_t kNoSupport = std::numeric_limits<std::int64_t>::min() / 4;
constexpr std::int64_t kUnbounded = std::numeric_limits<std::int64_t>::max() / 4;
// A bound computed in double is raised by this factor (it covers the
// rounding of the few operations behind it, libm's included).
constexpr double kBoundSlack = 1 + 0x1p-40;

// A value m 2^e with its exponent kept apart (m in [0.5, 1), or 0 with e =
// 0): far from a function's largest value, powers of a rate and tails fall
// below every double while their ratios, which a draw's weights are, still
// matter.
struct Separated {
  double m = 0;
  int e = 0;
};
Separated separate(double x);
// a * b, renormalised (within half an ulp of the product of a and b).
Separated times(Separated a, Separated b);

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

  // exp(-rho j) apart from its exponent, far beyond the double range too:
  // the q-th power of the table's last normal entry (ratio_power_separated)
  // times an entry, j = q step + r. The entries are upper bounds within one
  // ulp, so the result exceeds exp(-rho j) by at most (q + 1) 2^-52, and
  // falls below it by no more than the power's and the product's rounding.
  Separated at_separated(std::int64_t j) const;

 private:
  double far(std::int64_t j) const;
  std::int64_t step_ = 1;  // the largest index whose power is a normal double
  double rho_;
  std::vector<double> pow_, cumulative_;  // cumulative_[n] = sum_{i<n} pow_[i]
  double series_ = 0;                     // >= 1 / (1 - exp(-rho))
};

// The entries a RatePowers of this rate keeps: up to exp(-760), below every
// double (at most 2^17).
std::size_t rate_table_length(double rate);

// x^j for a ratio 0 <= x <= 1 and j >= 0 (0^0 = 1).
double ratio_power(double x, std::int64_t j);
// An upper bound of x^j apart from its exponent, for 0 <= x <= 1 (through
// 80-bit logarithms: within 2^-51 + |j log2 x| 2^-61 of the exact power of
// the double x).
Separated ratio_power_separated(double x, std::int64_t j);

struct WindowFn {
  std::int64_t lo = 0;
  std::vector<double> v;  // on [lo, lo + v.size())
  double left = 0, right = 0;
  std::int64_t support = kNoSupport;
  int exp2 = 0;

  std::int64_t hi() const { return lo + static_cast<std::int64_t>(v.size()) - 1; }
  bool in_window(std::int64_t r) const { return r >= lo && r <= hi(); }
  // The mantissa of F(r) (times 2^exp2).
  double at(std::int64_t r) const {
    if (r < support) return 0;
    if (r > hi()) return right == 0 ? 0 : v.back() * ratio_power(right, r - hi());
    if (r < lo) return left == 0 ? 0 : v.front() * ratio_power(left, lo - r);
    return v[static_cast<std::size_t>(r - lo)];
  }
  double max() const;
  // at(r) apart from its exponent (its tails far out do not round to 0).
  Separated at_separated(std::int64_t r) const;
  // Where the largest window value is (the first, if several): a
  // log-concave F is largest there and decreases away from it.
  std::int64_t mode() const;
  // F's mantissas on [from, from + out.size()) (tails by repeated
  // multiplication: within a few ulp per step of the exact powers).
  void write(std::int64_t from, std::vector<double>& out) const;
};

struct ChildMessage {
  const RatePowers* pow = nullptr;
  bool leaf = true;
  std::int64_t support = 0;  // h = 0 below
  // Subtrees: h on the window [lo, lo + n), its tails beyond.
  std::int64_t lo = 0;
  const double* values = nullptr;
  std::uint32_t n = 0;
  double left = 0, right = 0;
  int exp2 = 0;
  double hmax = 1;            // max h (mantissa)
  double mean = 0, var = 0;   // of g normalised (window heuristics only)

  double rho() const { return pow->rho(); }
  std::int64_t hi() const { return lo + static_cast<std::int64_t>(n) - 1; }
  double h(std::int64_t s) const {
    if (s < support) return 0;
    if (leaf) return 1;
    if (s > hi()) return right == 0 ? 0 : values[n - 1] * ratio_power(right, s - hi());
    if (s < lo) return left == 0 ? 0 : values[0] * ratio_power(left, lo - s);
    return values[s - lo];
  }
  double g(std::int64_t s) const { return pow->at(s < 0 ? -s : s) * h(s); }
  // Whether h(s) is 0 exactly (below the support, or beyond a window
  // without a tail there), not only in double: far along a tail, h(s) is
  // positive but may round to 0.
  bool zero_at(std::int64_t s) const {
    return s < support || (!leaf && ((s > hi() && right == 0) || (s < lo && left == 0)));
  }
  // h(s) and g(s) apart from their exponents (far along a tail, or where
  // exp(-rho |s|) is below every double).
  Separated h_separated(std::int64_t s) const;
  Separated g_separated(std::int64_t s) const {
    return times(pow->at_separated(s < 0 ? -s : s), h_separated(s));
  }
  // g's mantissas on [from, from + out.size()), as write() above.
  void write(std::int64_t from, std::vector<double>& out) const;
  // Where g is largest (the first such point of its support, within its
  // kinks: beyond them g only decreases).
  std::int64_t mode() const;
  // Outside [kink_lo, kink_hi] g is geometric: per step away, these ratios.
  std::int64_t kink_lo() const { return leaf ? 0 : std::min<std::int64_t>(lo, 0); }
  std::int64_t kink_hi() const { return leaf ? 0 : std::max<std::int64_t>(hi(), 0); }
  double left_ratio() const { return pow->at(1) * (leaf ? 1.0 : left); }
  double right_ratio() const { return pow->at(1) * (leaf ? 1.0 : right); }
};

// A leaf's message, its mean and variance (closed forms).
ChildMessage leaf_message(const RatePowers& pow, std::int64_t count);
// Fills mean, var and hmax of a subtree's message from its window.
void describe_subtree_message(ChildMessage& g);

// The function a convolution reads: a stored window (with its tails) or a
// child's message, seen as one function F on the integers.
struct Suffix {
  const WindowFn* window = nullptr;
  const ChildMessage* child = nullptr;
  double at(std::int64_t r) const { return window != nullptr ? window->at(r) : child->g(r); }
  Separated at_separated(std::int64_t r) const {
    return window != nullptr ? window->at_separated(r) : child->g_separated(r);
  }
  void write(std::int64_t from, std::vector<double>& out) const {
    if (window != nullptr) {
      window->write(from, out);
    } else {
      child->write(from, out);
    }
  }
  std::int64_t support() const { return window != nullptr ? window->support : child->support; }
  int exp2() const { return window != nullptr ? window->exp2 : child->exp2; }
  // Every value of F is at most this (a log-concave F peaks in its window).
  double max() const { return window != nullptr ? window->max() : child->hmax; }
  // Where F is largest (F is log-concave: it decreases away from there).
  std::int64_t mode() const { return window != nullptr ? window->mode() : child->mode(); }
  // [kink_lo, kink_hi]: outside it F is geometric, by these ratios per step
  // away from it (0: no tail on that side).
  std::int64_t kink_lo() const { return window != nullptr ? window->lo : child->kink_lo(); }
  std::int64_t kink_hi() const { return window != nullptr ? window->hi() : child->kink_hi(); }
  double left_ratio() const { return window != nullptr ? window->left : child->left_ratio(); }
  double right_ratio() const { return window != nullptr ? window->right : child->right_ratio(); }
  // The number of factors exp(-rho) in each tail ratio (0 for a window).
  int rate_factors() const { return window != nullptr ? 0 : 1; }
};

// (g * F)(r) = sum_s g(s) F(r - s) for r in [lo, hi], times `inflate`, as a
// WindowFn on that window (tails and support left for the caller), its
// mantissas normalised so that the largest is about 1. F's values are read
// on a range that reaches `reach` nats into g's tails on either side. With
// `tight` non-null, *tight says whether what lies beyond (g's far tails
// against F's largest value, bounded in closed form) is at most 2^-40 of
// every result: then the result times (1 + 2^-40) is at least the whole
// sum; otherwise read further.
// `out` must not be F's window; its buffer is reused.
void convolve(const ChildMessage& g, const Suffix& F, std::int64_t lo, std::int64_t hi, double inflate, double reach,
              bool* tight, WindowFn& out, const Interrupts& interrupts);

// Replaces F's window values by the least of a family of exactly
// log-concave majorants of them, and sets F's tails: every ratio away from
// the largest value is raised (on the decreasing side) or lowered (on the
// increasing side) by the factor `tilt` before the ratios are made
// monotone, so that the tails' ratios exceed those of any log-concave
// function whose window values are within (tilt - 1) / 4 of F's
// (NONNEGATIVE.md, section 4). The window must hold its largest value away
// from its ends where a tail continues (Error otherwise).
void make_log_concave_majorant(WindowFn& F, double tilt);
// Whether F's window holds what make_log_concave_majorant(F, tilt) needs
// for tails that fall: its last step falls by more than the tilt (so its
// largest value lies before it), and so does its first (rising) unless the
// window starts at the support. A largest value that two neighbours share
// in double (a flat top at a window's end) is not enough.
bool majorant_tails_fall(const WindowFn& F, double tilt);

}  // namespace invariant_dp::hierarchy
