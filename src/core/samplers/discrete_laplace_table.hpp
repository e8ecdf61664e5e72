// Exact discrete Laplace by inversion against a certified table of its CDF
// (cdf_table.hpp): P(X = x) = (1 - a)/(1 + a) a^|x|, a = exp(-1/scale), for
// scale = num/den > 0, the law of discrete_laplace.hpp.
//
// For releases that draw one law many times (a draw per cell): a table built
// once makes each draw one 64-bit word and a short scan, against about a
// hundred and fifty nanoseconds for Canonne, Kamath, Steinke's Algorithm 2
// (its Bernoulli(exp(-1)) trials and uniform integers).
//
// The CDF has a closed form: with e_k = exp(-k den/num) = a^k,
//   CDF(x) = e_{-x} / (1 + e_1)          for x < 0,
//   CDF(x) = 1 - e_{x+1} / (1 + e_1)     for x >= 0
// (sum the geometric series of the two sides). Each e_k is an MPFR
// exponential of the exact rational -k den/num with directed rounding, so
// the enclosures are certified at any precision and their widths tend to 0
// with it, as the exact fallback needs. The table covers x in [-T - 1, T + 1],
// T = ceil(35 scale) + 1: the mass beyond each end is below 2^-50.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "cdf_table.hpp"
#include "rational.hpp"

namespace invariant_dp {

class DiscreteLaplaceTable final : public CdfEnclosure {
 public:
  // scale = num/den > 0 with at most max_entries() entries (InvalidArgument,
  // OutOfRange otherwise); Interrupted on cancel while building.
  DiscreteLaplaceTable(Rational scale, const Interrupts& interrupts);

  // One exact draw.
  std::int64_t sample(RandomSource& rng) const { return table_.sample(rng, *this); }

  // Entries a table for this scale would have, and the most it may have (a
  // build costs two exponentials an entry).
  static std::size_t entries_for(Rational scale);
  static constexpr std::size_t max_entries() { return std::size_t(1) << 16; }
  // Whether a table pays for itself over `draws` draws (else Algorithm 2).
  static bool worth_it(Rational scale, std::size_t draws);

  std::size_t entries() const { return table_.entries(); }
  std::int64_t first_x() const { return table_.first_x(); }
  std::uint64_t lower_word(std::size_t k) const { return table_.lower_word(k); }

  Interval cdf(mpfr_prec_t prec, std::int64_t x) const override;

 private:
  Rational scale_;
  CdfTable table_;
};

}  // namespace invariant_dp
