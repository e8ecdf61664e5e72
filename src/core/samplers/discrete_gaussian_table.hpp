// Exact D_{Z, s, f} by inversion against a certified table of its CDF:
//
//   P(X = x) = rho_s(x - f) / rho_s(Z - f),  rho_s(t) = exp(-t^2 / (2 s^2)),
//   s^2 = s2_num / s2_den > 0,  f = F/Q in [0, 1),  x in Z.
//
// For samplers that draw the same (s^2, f) many times (the integer cascade,
// integer_cascade_sampler.hpp): a table built once (a few microseconds per
// entry) makes each draw one 64-bit word and a short scan, against about a
// microsecond for the rejection sampler of conditioned_gaussian.hpp.
//
// Why exact. X = min{x : U < CDF(x)} for one uniform U on [0, 1) has
// P(X = x) = P(CDF(x - 1) <= U < CDF(x)) = P(x): inversion, with nothing
// rounded as long as every comparison U < CDF(x) is decided exactly. U is
// read lazily: its first 64 bits w give U in [w, w + 1) / 2^64.
//  1. The table holds, for x in [x0, x1] (x0 = -T - 1, x1 = T + 1,
//     T = ceil(10 s) + 1), 64-bit words a_x <= 2^64 CDF(x) <= b_x, from MPFR
//     enclosures (128 bits, directed rounding, the infinite tails bounded
//     below). If w < a_x then U < (w + 1)/2^64 <= CDF(x); if w >= b_x then
//     U >= CDF(x). When the first x with w < a_x has w >= b_{x-1}, that x is
//     X for sure, whatever the other digits of U are.
//  2. Otherwise (w within an enclosure, about one word value per entry, or
//     beyond the table's tails, mass about exp(-50)), the same U is compared
//     exactly: U = (w + V)/2^64 with V a lazily read uniform
//     (lazy_bernoulli.hpp), and U < CDF(x) iff V < 2^64 CDF(x) - w, decided
//     against MPFR enclosures of CDF(x) at growing precision. X is then
//     found by stepping x from the table's guess (CDF is increasing). The
//     enclosure widths tend to 0 with the precision, as LazyUniform needs.
// CDF enclosures: with L(x) = sum_{y <= x} rho_s(y - f) and R(x) =
// sum_{y > x} rho_s(y - f), CDF(x) = L/(L + R) lies in [L_lo/(L_lo + R_hi),
// L_hi/(L_hi + R_lo)]. Each term is exp of the exact rational exponent
// (yQ - F)^2 s2_den / (2 s2_num Q^2) (GMP) with outward rounding; a one-sided
// sum on the decreasing side of the centre, from distance d on, is summed
// until a term is negligible at the precision, and its remainder after a term
// t at distance d_T is at most t / (1 - r), r = exp(-(2 d_T + 1)/(2 s^2)),
// the ratio of consecutive terms beyond d_T (a geometric bound).
// Cost: (2T + 3) entries of 16 bytes and a guide table of at most 2^16
// words; building takes two MPFR exponentials per entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "bernoulli_exp.hpp"

namespace invariant_dp {

class DiscreteGaussianTable {
 public:
  // s^2 = s2_num / s2_den > 0 (s^2 <= 2^40), 0 <= F < Q. InvalidArgument
  // otherwise; Interrupted on cancel while building.
  DiscreteGaussianTable(Uint128 s2_num, Uint128 s2_den, std::uint64_t F, std::uint64_t Q,
                        const Interrupts& interrupts);

  // One exact draw of D_{Z, s, F/Q}.
  std::int64_t sample(RandomSource& rng) const {
    const std::uint64_t w = rng.next_u64();
    std::size_t k = guide_[w >> guide_shift_];
    const std::size_t n = lower_.size();
    while (k < n && lower_[k] <= w) ++k;
    // Certain when x0 + k is inside, the word clears both enclosures.
    if (k == 0 || k == n || w <= upper_minus_one_[k - 1]) return sample_exactly(rng, w, k);
    return x0_ + static_cast<std::int64_t>(k);
  }

  // Number of entries a table for this s^2 would have (for choosing it).
  static std::size_t entries_for(double s2);
  std::size_t entries() const { return lower_.size(); }
  std::size_t memory_bytes() const;

  // Exposed for tests: the table's first x and a_x of entry k.
  std::int64_t first_x() const { return x0_; }
  std::uint64_t lower_word(std::size_t k) const { return lower_[k]; }

 private:
  // Step 2: the same U = (w + V)/2^64 compared exactly; k is the table's guess.
  std::int64_t sample_exactly(RandomSource& rng, std::uint64_t w, std::size_t k) const;

  Uint128 s2_num_, s2_den_;
  std::uint64_t F_, Q_;
  std::int64_t x0_ = 0;
  std::vector<std::uint64_t> lower_;            // a_x, floor of 2^64 CDF_lo
  std::vector<std::uint64_t> upper_minus_one_;  // b_x - 1, b_x = ceil of 2^64 CDF_hi
  std::vector<std::uint32_t> guide_;            // first entry whose a_x exceeds the bucket's start
  unsigned guide_shift_ = 63;
};

}  // namespace invariant_dp
