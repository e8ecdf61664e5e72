// Outward-rounded interval arithmetic over MPFR: the one place where the
// core chooses a rounding direction, for the certified bounds of the exact
// samplers and of the accuracy figures alike (test/directed_roundings.pl
// fails if a directed rounding appears anywhere else in src/core).
//
// An Interval [lower, upper] stands for one real number that it contains.
// Every operation computes each end by one function of the end (End::lower
// or End::upper), rounded toward that end (MPFR_RNDD / MPFR_RNDU):
//   - an increasing f (exp, log, sqrt, +, * by c >= 0, ...) takes end e of
//     its argument to end e of the result; a decreasing one (negation,
//     c - x, cos on [0, pi]) takes the opposite end;
//   - * and / take the least (lower) or greatest (upper) of the four
//     products or quotients of the ends (picked by the signs of the ends
//     when one factor, or the divisor, has a known sign).
// Because each MPFR result is the exact value rounded toward the end it
// bounds, and the real function is monotone in each argument over the
// interval (or the extreme is taken over the corners), the result contains
// f(x) for every x in the arguments: the invariant that makes a LazyUniform
// decision (lazy_bernoulli.hpp) equal to the exact 1[U < p]. An operation
// whose precondition fails (a divisor interval containing 0, the log of an
// interval reaching 0, ...) or whose ends come out NaN throws Error rather
// than returning something that is not an enclosure.
//
// Directed rounding composes: rounding toward -inf at precision p and then
// at p' < p gives the same number as rounding once at p'. So an interval
// may be computed at a working precision and rounded() to a smaller one
// without losing anything but width.
//
// The result of a binary operation has the larger of the two precisions;
// ends of point intervals built from integers are exact when the precision
// holds the integer (64 bits for 64-bit, 128 for 128-bit integers) and are
// rounded outward otherwise. Tested in test/unit/samplers/test_interval.cpp against
// the same functions at four times the precision.
//
// The last section (bounds computed in double) is the same rule for figures
// that the core computes in double arithmetic: each is stepped one double
// outward here, and nowhere else.
#pragma once

#include <mpfr.h>

#include <cstdint>
#include <cstring>
#include <limits>

#include "wide_int.hpp"

namespace invariant_dp {

class BigInt;

enum class End { lower, upper };

constexpr End opposite(End e) { return e == End::lower ? End::upper : End::lower; }

class Interval {
 public:
  // [0, 0].
  explicit Interval(mpfr_prec_t prec);
  // The smallest interval of this precision containing [lower, upper]
  // (lower <= upper, not NaN).
  Interval(mpfr_prec_t prec, mpfr_srcptr lower, mpfr_srcptr upper);
  Interval(const Interval& other);
  Interval(Interval&& other) noexcept;
  Interval& operator=(const Interval& other);
  Interval& operator=(Interval&& other) noexcept;
  ~Interval();

  mpfr_prec_t precision() const { return mpfr_get_prec(ends_[0]); }
  mpfr_srcptr end(End e) const { return ends_[e == End::lower ? 0 : 1]; }
  mpfr_srcptr lower() const { return end(End::lower); }
  mpfr_srcptr upper() const { return end(End::upper); }

  // For the operations of interval.cpp: end e, to be set rounded toward e.
  mpfr_ptr end(End e) { return ends_[e == End::lower ? 0 : 1]; }

 private:
  mpfr_t ends_[2];
};

// Points and constants.
Interval exact(mpfr_prec_t prec, std::uint64_t x);
Interval exact(mpfr_prec_t prec, Uint128 x);
Interval exact_signed(mpfr_prec_t prec, std::int64_t x);
// An integer of any size (exact when prec holds it, else rounded outward).
Interval exact(mpfr_prec_t prec, const BigInt& x);
// A double, not NaN (exact when prec >= 53, else rounded outward).
Interval exact_double(mpfr_prec_t prec, double x);
Interval pi(mpfr_prec_t prec);
Interval ln2(mpfr_prec_t prec);
// ln Gamma(x) at the integer x >= 1.
Interval lngamma_at(mpfr_prec_t prec, std::uint64_t x);

// Arithmetic. div requires a divisor interval that excludes 0.
Interval add(const Interval& a, const Interval& b);
Interval sub(const Interval& a, const Interval& b);
Interval mul(const Interval& a, const Interval& b);
Interval div(const Interval& a, const Interval& b);
Interval neg(const Interval& a);
Interval add(const Interval& a, unsigned long c);
Interval sub(const Interval& a, unsigned long c);
Interval sub(unsigned long c, const Interval& a);  // c - a
Interval mul(const Interval& a, unsigned long c);
Interval div(const Interval& a, unsigned long c);  // c > 0
Interval scale_2exp(const Interval& a, long k);    // a * 2^k
// a^n for n >= 1 and a >= 0 (lower end not negative).
Interval pow(const Interval& a, unsigned long n);

// sum += term in place, at sum's precision: the ends of add(sum, term) when
// the precisions agree, without a new interval per term of a long sum.
void accumulate(Interval& sum, const Interval& term);
// l / (l + r) for l >= 0, r >= 0 (l + r > 0): increasing in l and
// decreasing in r, so end e is l.e / (l.e + r.(other end)), the sum rounded
// toward the other end at 8 bits more than the result (a share is then
// barely wider than its rounding). Tighter than div(l, add(l, r)), which
// lets l move independently in the numerator and the denominator.
Interval share(const Interval& l, const Interval& r);

// Elementary functions. log needs a > 0, log1p a > -1, sqrt a >= 0.
Interval exp(const Interval& a);
Interval expm1(const Interval& a);  // exp(a) - 1
Interval log(const Interval& a);
Interval log1p(const Interval& a);  // log(1 + a)
Interval sqrt(const Interval& a);
// The complementary error function, decreasing: end e from the other end.
Interval erfc(const Interval& a);
// cos of an angle known to lie in [0, pi] (cos is decreasing there); the
// ends are clamped to [-1, 1] where the enclosure of the angle leaves
// [0, pi]. Throws if the angle's upper end is below 0. The second form takes
// an enclosure of pi already computed (for loops).
Interval cos_on_0_pi(const Interval& angle);
Interval cos_on_0_pi(const Interval& angle, const Interval& pi_bounds);

// Set operations and knowledge from outside the computation.
Interval hull(const Interval& a, const Interval& b);  // [min lower, max upper]
// a with its upper end lowered to c when the true value is known to be <= c.
Interval at_most(const Interval& a, unsigned long c);
// The smallest interval of precision prec containing a.
Interval rounded(const Interval& a, mpfr_prec_t prec);
// [floor(lower), ceil(upper)]: the integers around a (exact at a's
// precision: a number of p bits at or above 2^p is already an integer, and
// the floor or ceiling of one below has at most p bits).
Interval integer_hull(const Interval& a);

// Certain answers about the true value.
bool certainly_positive(const Interval& a);      // lower > 0
bool certainly_negative(const Interval& a);      // upper < 0
bool certainly_not_positive(const Interval& a);  // upper <= 0
bool certainly_at_most(const Interval& a, const Interval& b);  // a.upper <= b.lower
bool certainly_below(const Interval& a, unsigned long c);      // upper < c
// upper - lower < 2^k, the width rounded up at a's precision: false when
// the interval may be as wide (or its width is not known to be smaller).
bool certainly_narrower(const Interval& a, long k);

// End e as a double, rounded toward e (so still a bound).
double to_double(const Interval& a, End e);

// ---- bounds computed in double --------------------------------------------
// A double computed with round-to-nearest arithmetic is within half an ulp
// of its value per operation; the figures below are stepped one double
// beyond it, away from what they bound, so that a certified figure is never
// on the wrong side by the rounding of its last operation.
// The next double toward +inf, as std::nextafter(x, +inf) (and -inf for
// next_down), inline: every cell of a release with intervals takes two.
inline double next_up(double x) {
  if (!(x < std::numeric_limits<double>::infinity())) return x;  // +inf and NaN stay
  if (x == 0) return std::numeric_limits<double>::denorm_min();  // from +0 and -0
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits = x > 0 ? bits + 1 : bits - 1;  // the magnitude up for x > 0, down for x < 0
  std::memcpy(&x, &bits, sizeof bits);
  return x;
}
inline double next_down(double x) { return -next_up(-x); }
// A lower bound of a quantity known to be >= 0 from its computed value
// x >= 0: the next double below x, and 0 at 0 (never a negative bound).
double next_down_to_zero(double x);

}  // namespace invariant_dp
