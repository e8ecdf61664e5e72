// KleinCorrection (klein_correction.hpp): certified bounds and lazy coins.
#include "klein_correction.hpp"

#include <algorithm>
#include <cmath>

#include "../errors.hpp"
#include "lazy_bernoulli.hpp"
#include "mpfr_scoped.hpp"

namespace invariant_dp {
namespace {

using u128 = Uint128;

// Exact for precisions of at least 128 bits.
void mpfr_set_u128(mpfr_t out, u128 x) {
  mpfr_set_ui(out, static_cast<unsigned long>(x >> 64), MPFR_RNDN);
  mpfr_mul_2ui(out, out, 64, MPFR_RNDN);
  mpfr_add_ui(out, out, static_cast<unsigned long>(x), MPFR_RNDN);
}

// Outward enclosure of pi.
void pi_bounds(mpfr_t lo, mpfr_t hi) {
  mpfr_const_pi(lo, MPFR_RNDD);
  mpfr_const_pi(hi, MPFR_RNDU);
}

// Enclosure of R = theta(F/Q) / theta(0) for s^2 = Sn/Sd (step 4).
void theta_ratio_bounds(mpfr_prec_t prec, u128 Sn, u128 Sd, std::uint64_t F_mod_Q, std::uint64_t Q,
                        mpfr_ptr lo, mpfr_ptr hi) {
  const mpfr_prec_t wp = prec + 32;
  Mp pl(wp), ph(wp), al(wp), ah(wp), sn(wp), sd(wp), ql(wp), qh(wp), tmp(wp);
  pi_bounds(pl.v, ph.v);
  mpfr_set_u128(sn.v, Sn);
  mpfr_set_u128(sd.v, Sd);
  // a = 2 pi^2 s^2, outward.
  mpfr_sqr(al.v, pl.v, MPFR_RNDD);
  mpfr_mul(al.v, al.v, sn.v, MPFR_RNDD);
  mpfr_div(al.v, al.v, sd.v, MPFR_RNDD);
  mpfr_mul_2ui(al.v, al.v, 1, MPFR_RNDD);
  mpfr_sqr(ah.v, ph.v, MPFR_RNDU);
  mpfr_mul(ah.v, ah.v, sn.v, MPFR_RNDU);
  mpfr_div(ah.v, ah.v, sd.v, MPFR_RNDU);
  mpfr_mul_2ui(ah.v, ah.v, 1, MPFR_RNDU);
  // q = exp(-a): q_lo = exp(-a_hi), q_hi = exp(-a_lo).
  mpfr_neg(tmp.v, ah.v, MPFR_RNDN);
  mpfr_exp(ql.v, tmp.v, MPFR_RNDD);
  mpfr_neg(tmp.v, al.v, MPFR_RNDN);
  mpfr_exp(qh.v, tmp.v, MPFR_RNDU);
  // Terms up to M: q^((M+1)^2) ~ 2^-(prec + 32). Only convergence depends on M.
  const double a = 2 * 9.8696044010893586 * (static_cast<double>(Sn) / static_cast<double>(Sd));
  const double need = static_cast<double>(wp) * 0.6931471805599453 / a;
  const long M = std::max(1L, static_cast<long>(std::ceil(std::sqrt(need))));
  // Tail T = 2 q_hi^((M+1)^2) / (1 - q_hi), rounded up.
  Mp T(wp), one_minus(wp);
  mpfr_pow_ui(T.v, qh.v, static_cast<unsigned long>((M + 1) * (M + 1)), MPFR_RNDU);
  mpfr_mul_2ui(T.v, T.v, 1, MPFR_RNDU);
  mpfr_ui_sub(one_minus.v, 1, qh.v, MPFR_RNDD);
  mpfr_div(T.v, T.v, one_minus.v, MPFR_RNDU);
  // Sums: theta(f) in [fl, fh], theta(0) in [zl, zh] (before doubling and +1).
  Mp fl(wp), fh(wp), zl(wp), zh(wp), cl(wp), ch(wp), ang(wp), pqlo(wp), pqhi(wp);
  mpfr_set_ui(fl.v, 0, MPFR_RNDN);
  mpfr_set_ui(fh.v, 0, MPFR_RNDN);
  mpfr_set_ui(zl.v, 0, MPFR_RNDN);
  mpfr_set_ui(zh.v, 0, MPFR_RNDN);
  for (long m = 1; m <= M; ++m) {
    const auto m2 = static_cast<unsigned long>(m * m);
    mpfr_pow_ui(pqlo.v, ql.v, m2, MPFR_RNDD);
    mpfr_pow_ui(pqhi.v, qh.v, m2, MPFR_RNDU);
    mpfr_add(zl.v, zl.v, pqlo.v, MPFR_RNDD);
    mpfr_add(zh.v, zh.v, pqhi.v, MPFR_RNDU);
    // cos(2 pi m F / Q) on the folded exact angle 2 pi r' / Q, r' in [0, Q/2].
    const std::uint64_t r = static_cast<std::uint64_t>((static_cast<u128>(m) * F_mod_Q) % Q);
    const std::uint64_t rf = std::min(r, Q - r);
    if (rf == 0) {
      mpfr_set_ui(cl.v, 1, MPFR_RNDN);
      mpfr_set_ui(ch.v, 1, MPFR_RNDN);
    } else if (2 * static_cast<u128>(rf) == Q) {
      mpfr_set_si(cl.v, -1, MPFR_RNDN);
      mpfr_set_si(ch.v, -1, MPFR_RNDN);
    } else {
      // angle in (0, pi): cos is decreasing there.
      mpfr_mul_ui(ang.v, pl.v, 2 * rf, MPFR_RNDD);
      mpfr_div_ui(ang.v, ang.v, Q, MPFR_RNDD);  // <= true angle, >= 0
      mpfr_cos(ch.v, ang.v, MPFR_RNDU);
      mpfr_mul_ui(ang.v, ph.v, 2 * rf, MPFR_RNDU);
      mpfr_div_ui(ang.v, ang.v, Q, MPFR_RNDU);  // >= true angle
      if (mpfr_lessequal_p(ang.v, pl.v))
        mpfr_cos(cl.v, ang.v, MPFR_RNDD);
      else
        mpfr_set_si(cl.v, -1, MPFR_RNDN);
    }
    // term = q^(m^2) cos: lower and upper bounds by the signs of the cos bounds.
    mpfr_mul(tmp.v, mpfr_sgn(cl.v) >= 0 ? pqlo.v : pqhi.v, cl.v, MPFR_RNDD);
    mpfr_add(fl.v, fl.v, tmp.v, MPFR_RNDD);
    mpfr_mul(tmp.v, mpfr_sgn(ch.v) >= 0 ? pqhi.v : pqlo.v, ch.v, MPFR_RNDU);
    mpfr_add(fh.v, fh.v, tmp.v, MPFR_RNDU);
  }
  // theta = 1 + 2 sum +/- T.
  auto finish = [&](mpfr_t s, bool upper) {
    const mpfr_rnd_t rnd = upper ? MPFR_RNDU : MPFR_RNDD;
    mpfr_mul_2ui(s, s, 1, rnd);
    mpfr_add_ui(s, s, 1, rnd);
    if (upper)
      mpfr_add(s, s, T.v, MPFR_RNDU);
    else
      mpfr_sub(s, s, T.v, MPFR_RNDD);
  };
  finish(fl.v, false);
  finish(fh.v, true);
  finish(zh.v, true);
  // theta(0) >= 1 + 2 sum q_lo^(m^2) (every term positive; no tail needed).
  mpfr_mul_2ui(zl.v, zl.v, 1, MPFR_RNDD);
  mpfr_add_ui(zl.v, zl.v, 1, MPFR_RNDD);
  mpfr_div(lo, fl.v, zh.v, MPFR_RNDD);
  mpfr_div(hi, fh.v, zl.v, MPFR_RNDU);
  if (mpfr_cmp_ui(hi, 1) > 0) mpfr_set_ui(hi, 1, MPFR_RNDN);  // R <= 1
}

// threshold = floor(2^64 L) - 1 for L = 1 - 4 q/(1 - q), q = exp(-2 pi^2
// min_s2); false if 2^64 L < 1. A first word w <= threshold accepts for
// sure: U < (w + 1)/2^64 <= L <= R.
bool certified_accept_threshold(u128 num, u128 den, std::uint64_t& threshold) {
  const mpfr_prec_t p = 256;
  Mp pl(p), a(p), q(p), t(p), n(p), d(p);
  mpfr_set_u128(n.v, num);
  mpfr_set_u128(d.v, den);
  mpfr_const_pi(pl.v, MPFR_RNDD);
  mpfr_sqr(a.v, pl.v, MPFR_RNDD);
  mpfr_mul(a.v, a.v, n.v, MPFR_RNDD);
  mpfr_div(a.v, a.v, d.v, MPFR_RNDD);
  mpfr_mul_2ui(a.v, a.v, 1, MPFR_RNDD);        // 2 pi^2 min_s2, low
  mpfr_neg(a.v, a.v, MPFR_RNDN);
  mpfr_exp(q.v, a.v, MPFR_RNDU);               // q_hi
  mpfr_ui_sub(t.v, 1, q.v, MPFR_RNDD);         // 1 - q, low
  mpfr_div(t.v, q.v, t.v, MPFR_RNDU);          // q/(1-q), high
  mpfr_mul_ui(t.v, t.v, 4, MPFR_RNDU);
  mpfr_ui_sub(t.v, 1, t.v, MPFR_RNDD);         // L, low
  mpfr_mul_2ui(t.v, t.v, 64, MPFR_RNDD);       // 2^64 L
  mpfr_floor(t.v, t.v);
  if (mpfr_cmp_ui(t.v, 1) < 0) return false;
  mpfr_sub_ui(t.v, t.v, 1, MPFR_RNDN);         // exact integer < 2^64
  threshold = mpfr_get_ui(t.v, MPFR_RNDN);
  return true;
}

}  // namespace

KleinCorrection::KleinCorrection(u128 min_s2_num, u128 min_s2_den) {
  if (min_s2_num == 0 || min_s2_den == 0) throw InvalidArgument("gaussian variance must be positive");
  have_threshold_ = certified_accept_threshold(min_s2_num, min_s2_den, threshold_);
  const double q = std::exp(-2 * 9.8696044010893586 * (double(min_s2_num) / double(min_s2_den)));
  failure_bound_ = q < 1 ? 4 * q / (1 - q) : INFINITY;
}

bool KleinCorrection::coin(RandomSource& rng, u128 Sn, u128 Sd, std::uint64_t F, std::uint64_t Q) const {
  const std::uint64_t w = rng.next_u64();
  if (have_threshold_ && w <= threshold_) return true;
  // U = (w + V)/2^64: U < R iff V < 2^64 R - w.
  LazyUniform v(rng);
  return v.less_than([&](mpfr_prec_t prec, mpfr_ptr lo, mpfr_ptr hi) {
    const mpfr_prec_t wp = prec + 80;
    Mp rl(wp), rh(wp);
    theta_ratio_bounds(wp, Sn, Sd, F, Q, rl.v, rh.v);
    mpfr_mul_2ui(rl.v, rl.v, 64, MPFR_RNDD);
    mpfr_sub_ui(rl.v, rl.v, w, MPFR_RNDD);
    mpfr_mul_2ui(rh.v, rh.v, 64, MPFR_RNDU);
    mpfr_sub_ui(rh.v, rh.v, w, MPFR_RNDU);
    mpfr_set(lo, rl.v, MPFR_RNDD);
    mpfr_set(hi, rh.v, MPFR_RNDU);
  });
}

void gaussian_shift_ratio_bounds(mpfr_prec_t prec, u128 s2_num, u128 s2_den, std::uint64_t F, std::uint64_t Q,
                                 mpfr_ptr lo, mpfr_ptr hi) {
  if (s2_num == 0 || s2_den == 0 || Q == 0 || F >= Q) throw InvalidArgument("bad shift ratio arguments");
  theta_ratio_bounds(prec, s2_num, s2_den, F, Q, lo, hi);
}

}  // namespace invariant_dp
