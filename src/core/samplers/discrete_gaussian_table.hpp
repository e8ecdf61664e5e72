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
// Exact by inversion against the certified table and its exact fallback of
// cdf_table.hpp. The table covers x in [x0, x1] (x0 = -T - 1, x1 = T + 1,
// T = ceil(10 s) + 1), 128-bit MPFR enclosures with directed rounding; the
// mass beyond it is about exp(-50).
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
#include "cdf_table.hpp"

namespace invariant_dp {

class DiscreteGaussianTable final : public CdfEnclosure {
 public:
  // s^2 = s2_num / s2_den > 0 (s^2 <= 2^40), 0 <= F < Q. InvalidArgument
  // otherwise; Interrupted on cancel while building.
  DiscreteGaussianTable(Uint128 s2_num, Uint128 s2_den, std::uint64_t F, std::uint64_t Q,
                        const Interrupts& interrupts);

  // One exact draw of D_{Z, s, F/Q}.
  std::int64_t sample(RandomSource& rng) const { return table_.sample(rng, *this); }

  // Number of entries a table for this s^2 would have (for choosing it).
  static std::size_t entries_for(double s2);
  std::size_t entries() const { return table_.entries(); }
  std::size_t memory_bytes() const { return table_.memory_bytes(); }

  // Exposed for tests: the table's first x and a_x of entry k.
  std::int64_t first_x() const { return table_.first_x(); }
  std::uint64_t lower_word(std::size_t k) const { return table_.lower_word(k); }

  // The CDF's enclosures at any precision (the exact fallback's).
  Interval cdf(mpfr_prec_t prec, std::int64_t x) const override;

 private:
  Uint128 s2_num_, s2_den_;
  std::uint64_t F_, Q_;
  CdfTable table_;
};

}  // namespace invariant_dp
