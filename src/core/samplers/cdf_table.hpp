// Exact sampling of a law on Z by inversion against a certified table of its
// CDF, with an exact fallback: the machinery shared by the table samplers
// (discrete_gaussian_table.hpp, discrete_laplace_table.hpp), which differ
// only in how they enclose their CDF.
//
// Why exact. X = min{x : U < CDF(x)} for one uniform U on [0, 1) has
// P(X = x) = P(CDF(x - 1) <= U < CDF(x)) = P(x): inversion, with nothing
// rounded as long as every comparison U < CDF(x) is decided exactly. U is
// read lazily: its first 64 bits w give U in [w, w + 1) / 2^64.
//  1. The table holds, for x in [x0, x0 + n - 1], 64-bit words
//     a_x <= 2^64 CDF(x) <= b_x from certified enclosures. If w < a_x then
//     U < (w + 1)/2^64 <= CDF(x); if w >= b_x then U >= CDF(x). When the
//     first x with w < a_x has w >= b_{x-1}, that x is X for sure, whatever
//     the other digits of U are.
//  2. Otherwise (w within an enclosure, about one word value per entry, or
//     beyond the table's ends, whose mass the table makes negligible), the
//     same U is compared exactly: U = (w + V)/2^64 with V a lazily read
//     uniform (lazy_bernoulli.hpp), and U < CDF(x) iff V < 2^64 CDF(x) - w,
//     decided against enclosures of CDF(x) at growing precision. X is then
//     found by stepping x from the table's guess (CDF is increasing). The
//     enclosure widths must tend to 0 with the precision, as LazyUniform
//     needs.
// A guide table of at most 2^16 words indexed by w's top bits starts the
// scan near its end, so a draw costs one 64-bit word and a few comparisons.
#pragma once

#include <mpfr.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../random_source.hpp"
#include "interval.hpp"

namespace invariant_dp {

// Certified enclosures of a law's CDF at about prec bits.
class CdfEnclosure {
 public:
  virtual ~CdfEnclosure() = default;
  virtual Interval cdf(mpfr_prec_t prec, std::int64_t x) const = 0;
};

class CdfTable {
 public:
  CdfTable() = default;
  // The words of x = x0, x0 + 1, ...: lower[k] = floor(2^64 lo(x)) and
  // upper_minus_one[k] = ceil(2^64 hi(x)) - 1 (words() of the enclosure).
  CdfTable(std::int64_t x0, std::vector<std::uint64_t> lower, std::vector<std::uint64_t> upper_minus_one);

  // One exact draw of the law whose CDF cdf encloses (and the words came from).
  std::int64_t sample(RandomSource& rng, const CdfEnclosure& cdf) const {
    const std::uint64_t w = rng.next_u64();
    std::size_t k = guide_[w >> guide_shift_];
    const std::size_t n = lower_.size();
    // Ends: the guide starts k within its bucket: a few passes, at most n.
    while (k < n && lower_[k] <= w) ++k;
    // Certain when x0 + k is inside, the word clears both enclosures.
    if (k == 0 || k == n || w <= upper_minus_one_[k - 1]) return sample_exactly(rng, cdf, w, k);
    return x0_ + static_cast<std::int64_t>(k);
  }

  std::size_t entries() const { return lower_.size(); }
  std::size_t memory_bytes() const;
  std::int64_t first_x() const { return x0_; }
  std::uint64_t lower_word(std::size_t k) const { return lower_[k]; }

  // The words of an enclosure [lo, hi] of CDF(x): lower = floor(2^64 lo)
  // (0 below 0, 2^64 - 1 from 1 on) and upper_minus_one = ceil(2^64 hi) - 1
  // (0 at or below 0, 2^64 - 1 from 1 on).
  static void words(const Interval& cdf, std::uint64_t& lower, std::uint64_t& upper_minus_one);

 private:
  // Step 2: the same U = (w + V)/2^64 compared exactly; k is the table's guess.
  std::int64_t sample_exactly(RandomSource& rng, const CdfEnclosure& cdf, std::uint64_t w, std::size_t k) const;

  std::int64_t x0_ = 0;
  std::vector<std::uint64_t> lower_;            // a_x, floor of 2^64 CDF_lo
  std::vector<std::uint64_t> upper_minus_one_;  // b_x - 1, b_x = ceil of 2^64 CDF_hi
  std::vector<std::uint32_t> guide_;            // first entry whose a_x exceeds the bucket's start
  unsigned guide_shift_ = 63;
};

}  // namespace invariant_dp
