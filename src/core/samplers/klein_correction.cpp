// KleinCorrection (klein_correction.hpp): certified bounds and lazy coins.
// Every bound is an Interval (interval.hpp); nothing here picks a rounding
// direction.
#include "klein_correction.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "../errors.hpp"
#include "../math_constants.hpp"
#include "lazy_bernoulli.hpp"

namespace invariant_dp {
namespace {

// q = exp(-2 pi^2 s^2) for s^2 = Sn/Sd.
Interval theta_q(mpfr_prec_t prec, Uint128 Sn, Uint128 Sd) {
  const Interval p = pi(prec);
  return exp(neg(scale_2exp(div(mul(mul(p, p), exact(prec, Sn)), exact(prec, Sd)), 1)));
}

// cos(2 pi r / Q) for 0 <= r <= Q/2, on the exact folded angle (p: pi).
Interval cos_of_turn(const Interval& p, std::uint64_t r, std::uint64_t Q) {
  if (r == 0) return exact(p.precision(), std::uint64_t{1});
  if (2 * static_cast<Uint128>(r) == Q) return exact_signed(p.precision(), -1);
  return cos_on_0_pi(div(mul(p, 2 * r), Q), p);  // angle in (0, pi)
}

// Enclosure of R = theta(F/Q) / theta(0) for s^2 = Sn/Sd, rounded to prec.
Interval theta_ratio_bounds(mpfr_prec_t prec, Uint128 Sn, Uint128 Sd, std::uint64_t F_mod_Q, std::uint64_t Q) {
  const mpfr_prec_t wp = prec + 32;
  const Interval q = theta_q(wp, Sn, Sd);
  // Terms up to M: q^((M+1)^2) ~ 2^-(prec + 32). Only convergence depends on M.
  const double a = kTwoPiSquared * (static_cast<double>(Sn) / static_cast<double>(Sd));
  const double need = static_cast<double>(wp) * 0.6931471805599453 / a;
  const long M = std::max(1L, static_cast<long>(std::ceil(std::sqrt(need))));
  // T = 2 q^((M+1)^2) / (1 - q) bounds the tail of 2 sum q^(m^2) cos(.).
  const Interval T = div(scale_2exp(pow(q, static_cast<unsigned long>((M + 1) * (M + 1))), 1), sub(1, q));
  const Interval zero(wp);
  const Interval T_hi(wp, T.upper(), T.upper());
  // Partial sums of q^(m^2) cos(2 pi m f) (theta(f)) and q^(m^2) (theta(0)).
  const Interval p = pi(wp);
  Interval shifted(wp), centred(wp);
  for (long m = 1; m <= M; ++m) {
    const Interval qm = pow(q, static_cast<unsigned long>(m * m));
    centred = add(centred, qm);
    const auto r = static_cast<std::uint64_t>((static_cast<Uint128>(m) * F_mod_Q) % Q);
    shifted = add(shifted, mul(qm, cos_of_turn(p, std::min(r, Q - r), Q)));
  }
  // theta = 1 + 2 (partial sum) + tail: the tail is in [-T, T] for theta(f)
  // and in [0, T] for theta(0) (every term of theta(0) is positive).
  const Interval theta_f = add(add(scale_2exp(shifted, 1), 1), hull(neg(T_hi), T_hi));
  const Interval theta_0 = add(add(scale_2exp(centred, 1), 1), hull(zero, T_hi));
  return at_most(rounded(div(theta_f, theta_0), prec), 1);  // R <= 1
}

// threshold = floor(2^64 L) - 1 for L = klein_acceptance_bound at min_s2;
// false if 2^64 L < 1. A first word w <= threshold accepts for sure:
// U < (w + 1)/2^64 <= L <= R.
bool certified_accept_threshold(Uint128 num, Uint128 den, std::uint64_t& threshold) {
  const mpfr_prec_t p = 256;
  if (!certainly_positive(sub(1, theta_q(p, num, den)))) return false;
  // Its lower end is floor(2^64 L), an integer below 2^64 (L < 1).
  const Interval words = integer_hull(scale_2exp(klein_acceptance_bound(p, num, den), 64));
  if (mpfr_cmp_ui(words.lower(), 1) < 0) return false;
  threshold = mpfr_get_ui(words.lower(), MPFR_RNDN) - 1;
  return true;
}

}  // namespace

Interval klein_acceptance_bound(mpfr_prec_t prec, Uint128 num, Uint128 den) {
  const Interval q = theta_q(prec, num, den);
  return sub(1, mul(div(q, sub(1, q)), 4));
}

void check_klein_variance(Rational sigma2) {
  if (sigma2.num / sigma2.den >= kMaxKleinVariance)
    throw OutOfRange("gaussian variance is too large for a zero-sum release",
                     "The variance is " + std::to_string(sigma2.num) + "/" + std::to_string(sigma2.den) +
                         "; it must be below 2^40.");
}

KleinCorrection::KleinCorrection(Uint128 min_s2_num, Uint128 min_s2_den) {
  if (min_s2_num == 0 || min_s2_den == 0) throw InvalidArgument("gaussian variance must be positive");
  have_threshold_ = certified_accept_threshold(min_s2_num, min_s2_den, threshold_);
  const double q = std::exp(-kTwoPiSquared * (double(min_s2_num) / double(min_s2_den)));
  failure_bound_ = q < 1 ? 4 * q / (1 - q) : INFINITY;
}

KleinCorrection klein_correction_for(Rational sigma2, unsigned halvings) {
  // Callers ask for the same variance draw after draw (every table of a
  // release, every step of a chain), and the certified threshold costs MPFR
  // work comparable to a small table's whole draw: the last one is kept, per
  // thread (a pure function of its arguments).
  thread_local Uint128 last_num = 0, last_den = 0;
  thread_local std::optional<KleinCorrection> last;
  const auto num = static_cast<Uint128>(sigma2.num), den = static_cast<Uint128>(sigma2.den) << halvings;
  if (!last || last_num != num || last_den != den) {
    last.reset();
    last.emplace(num, den);
    last_num = num;
    last_den = den;
  }
  return *last;
}

bool KleinCorrection::coin(RandomSource& rng, Uint128 Sn, Uint128 Sd, std::uint64_t F, std::uint64_t Q) const {
  const std::uint64_t w = rng.next_u64();
  if (have_threshold_ && w <= threshold_) return true;
  // U = (w + V)/2^64: U < R iff V < 2^64 R - w.
  LazyUniform v(rng);
  return v.less_than([&](mpfr_prec_t prec) {
    const mpfr_prec_t wp = prec + 80;
    return sub(scale_2exp(theta_ratio_bounds(wp, Sn, Sd, F, Q), 64), w);
  });
}

Interval gaussian_shift_ratio_bounds(mpfr_prec_t prec, Uint128 s2_num, Uint128 s2_den, std::uint64_t F,
                                     std::uint64_t Q) {
  if (s2_num == 0 || s2_den == 0 || Q == 0 || F >= Q) throw InvalidArgument("bad shift ratio arguments");
  return theta_ratio_bounds(prec, s2_num, s2_den, F, Q);
}

}  // namespace invariant_dp
