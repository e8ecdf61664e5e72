// The exact correction step of Klein's sequential lattice sampler
// (Klein 2000, "Finding the closest lattice vector when it's unusually
// close", SODA; made exact by the rejection step of Brakerski, Langlois,
// Peikert, Regev, Stehle 2013, arXiv:1306.0281, Lemma 2.3), shared by the
// samplers that run it (conditioned_gaussian.hpp, kronecker_gaussian.hpp):
// a draw whose coordinate y was taken from D_{Z, s, c} is kept with
// probability
//   R = rho_s(Z - c) / rho_s(Z) = theta(f) / theta(0),  f = c mod 1,
//   theta(f) = 1 + 2 sum_{m>=1} q^(m^2) cos(2 pi m f),  q = exp(-2 pi^2 s^2)
// (Poisson summation: rho_s(Z + f) = s sqrt(2 pi) theta(f)), so R <= 1,
// R = 1 when f = 0 (no coin), and R >= (1 - 2S)/(1 + 2S) >= 1 - 4 q/(1 - q)
// with S = sum_{m>=1} q^(m^2) <= q/(1 - q).
//
// The coin 1[U < R] uses U = (w + V)/2^64, w a uniform 64-bit word and V a
// lazily read uniform (lazy_bernoulli.hpp): if w + 1 <= 2^64 L for a
// certified lower bound L of every R the caller will ask for (L = 1 - 4
// q/(1 - q) at the smallest s^2, computed once), U < R for sure; otherwise
// 1[U < R] = 1[V < 2^64 R - w] is decided against enclosures of
// theta(f)/theta(0): the series truncated after M terms with tail bound
// |2 sum_{m>M} q^(m^2) cos(.)| <= 2 q^((M+1)^2)/(1 - q), cos(2 pi m f) taken
// on the exact reduced angle 2 pi ((m F) mod Q)/Q folded into [0, pi] where
// cos is monotone. Every bound is an outward-rounded Interval (interval.hpp),
// whose width tends to 0 with the precision, as LazyUniform needs. For
// s^2 >= 3, q < 2^-85: about one coin in 2^64 reaches MPFR.
#pragma once

#include <cstdint>

#include "../random_source.hpp"
#include "interval.hpp"
#include "rational.hpp"
#include "wide_int.hpp"

namespace invariant_dp {

// The Klein samplers keep partial sums of the noise in int64: a variance of
// at least this is refused (OutOfRange) by check_klein_variance.
constexpr std::uint64_t kMaxKleinVariance = std::uint64_t{1} << 40;
void check_klein_variance(Rational sigma2);

class KleinCorrection {
 public:
  // min_s2 = num/den > 0: no coin will be asked for a smaller s^2.
  KleinCorrection(Uint128 min_s2_num, Uint128 min_s2_den);

  // Bernoulli(rho_s(Z - F/Q) / rho_s(Z)) for s^2 = Sn/Sd >= min_s2 and
  // 0 < F < Q (F = 0 is certain acceptance: the caller skips the coin).
  bool coin(RandomSource& rng, Uint128 Sn, Uint128 Sd, std::uint64_t F, std::uint64_t Q) const;

  // 4 q/(1 - q) at min_s2, in double: a bound on each coin's probability of
  // failing, for choosing a method (never for deciding a coin).
  double failure_bound() const { return failure_bound_; }

 private:
  bool have_threshold_ = false;
  std::uint64_t threshold_ = 0;
  double failure_bound_ = 1;
};

// The correction for steps whose variances are at least sigma2 / 2^halvings.
KleinCorrection klein_correction_for(Rational sigma2, unsigned halvings);

// L = 1 - 4 q/(1 - q), q = exp(-2 pi^2 s^2) for s^2 = num/den: a lower
// bound of every correction ratio R at a variance of at least s^2. Exposed
// for tests.
Interval klein_acceptance_bound(mpfr_prec_t prec, Uint128 num, Uint128 den);

// rho_s(Z + F/Q) / rho_s(Z) for s^2 = s2_num / s2_den, 0 <= F < Q, enclosed
// at about prec bits. Exposed for tests.
Interval gaussian_shift_ratio_bounds(mpfr_prec_t prec, Uint128 s2_num, Uint128 s2_den, std::uint64_t F,
                                     std::uint64_t Q);

}  // namespace invariant_dp
