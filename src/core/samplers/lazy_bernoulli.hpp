// Exact Bernoulli(p) for an irrational p known only through certified
// enclosures lo <= p <= hi computed at a requested precision (outward-rounded
// Intervals, interval.hpp).
//
// Why exact: the draw is 1[U < p] for one uniform U on [0, 1) whose binary
// digits are read lazily, 64 at a time, from the RandomSource. After t digits
// U lies in [u, u + 2^-t). If u + 2^-t <= lo then U < p for sure; if u >= hi
// then U >= p for sure; either way the answer equals 1[U < p] with the real
// p, so P(true) = P(U < p) = p exactly. Otherwise more digits of U are read
// (when the interval of U is the wider one) or the enclosure is recomputed at
// twice the precision. The loop ends with probability 1: an irrational p has
// an enclosure of width -> 0, and P(U within w of p) <= 2w; a dyadic p (such
// as 0, 1/2 or 1) is eventually an endpoint of U's dyadic interval.
#pragma once

#include <mpfr.h>

#include <cstdint>
#include <functional>

#include "../random_source.hpp"
#include "interval.hpp"
#include "mpfr_scoped.hpp"

namespace invariant_dp {

// An Interval containing p, computed at about prec bits; its width must tend
// to 0 as prec grows (any composition of interval.hpp's operations does).
// LazyUniform rounds it (outward) to prec bits.
using ProbabilityBounds = std::function<Interval(mpfr_prec_t prec)>;

// A uniform U on [0, 1), of which only the digits needed are drawn. The first
// 64 digits are drawn at construction so that a caller may first try a
// cheap certified test on them (first_word()) before paying for MPFR; the
// later comparison uses the same U, so the combined decision is still 1[U < p].
class LazyUniform {
 public:
  explicit LazyUniform(RandomSource& rng);
  ~LazyUniform();
  LazyUniform(const LazyUniform&) = delete;
  LazyUniform& operator=(const LazyUniform&) = delete;

  // U lies in [first_word() / 2^64, (first_word() + 1) / 2^64).
  std::uint64_t first_word() const { return first_word_; }

  // 1[U < p], deciding with enclosures of p at precision initial_prec,
  // 2 * initial_prec, ... Throws Error if precision 2^24 bits does not
  // decide (that would need an enclosure bug; the probability is nil).
  bool less_than(const ProbabilityBounds& bounds, mpfr_prec_t initial_prec = 128);

 private:
  void draw_word();

  RandomSource& rng_;
  std::uint64_t first_word_;
  Mp u_;               // the digits drawn so far, exactly
  mpfr_prec_t bits_;   // how many digits: U in [u_, u_ + 2^-bits_)
};

// Bernoulli(p) for one fresh uniform: LazyUniform(rng).less_than(bounds).
bool sample_bernoulli_lazy(RandomSource& rng, const ProbabilityBounds& bounds,
                           mpfr_prec_t initial_prec = 128);

// Bernoulli(p) for one p drawn from many times: the words w with
// [w, w + 1) / 2^64 certainly below p or certainly not are found once, so
// a draw whose first 64 digits decide (all but about one in 2^50 when p's
// enclosure at 128 bits is that narrow) costs one word; the others compare
// the same U with the enclosures, so the law is 1[U < p] either way.
class FixedBernoulli {
 public:
  explicit FixedBernoulli(ProbabilityBounds bounds);
  bool sample(RandomSource& rng) const;

 private:
  ProbabilityBounds bounds_;
  std::uint64_t below_ = 0;  // U < p for certain when its first word is below this
  std::uint64_t above_ = 0;  // U >= p for certain when its first word is at least this (0: never)
};

}  // namespace invariant_dp
