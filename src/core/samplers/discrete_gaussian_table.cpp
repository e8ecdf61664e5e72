// The discrete Gaussian's CDF enclosures and the words of its table; the
// sampling is cdf_table.cpp's.
#include "discrete_gaussian_table.hpp"

#include <gmp.h>
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "../errors.hpp"
#include "mpfr_scoped.hpp"

namespace invariant_dp {
namespace {

using u128 = Uint128;
__extension__ typedef __int128 i128;

constexpr mpfr_prec_t kTablePrecision = 128;
constexpr double kTailStandardDeviations = 10;  // mass beyond: about exp(-50)
constexpr u128 kMaxS2 = u128{1} << 40;

struct Mpz {
  Mpz() { mpz_init(v); }
  ~Mpz() { mpz_clear(v); }
  Mpz(const Mpz&) = delete;
  Mpz& operator=(const Mpz&) = delete;
  mpz_t v;
};

// n MPFR numbers of one precision, cleared on scope exit.
class MpVector {
 public:
  MpVector(std::size_t n, mpfr_prec_t prec) : v_(n) {
    for (auto& x : v_) mpfr_init2(&x, prec);
  }
  ~MpVector() {
    for (auto& x : v_) mpfr_clear(&x);
  }
  MpVector(const MpVector&) = delete;
  MpVector& operator=(const MpVector&) = delete;
  mpfr_ptr operator[](std::size_t k) { return &v_[k]; }

 private:
  std::vector<__mpfr_struct> v_;
};

void mpz_set_u128(mpz_t out, u128 x) {
  mpz_set_ui(out, static_cast<unsigned long>(x >> 64));
  mpz_mul_2exp(out, out, 64);
  mpz_add_ui(out, out, static_cast<unsigned long>(x));
}

void mpz_set_i128(mpz_t out, i128 x) {
  mpz_set_u128(out, x < 0 ? -static_cast<u128>(x) : static_cast<u128>(x));
  if (x < 0) mpz_neg(out, out);
}

// Enclosures of rho_s(y - F/Q) and of sums of them.
class GaussianMass {
 public:
  GaussianMass(u128 Sn, u128 Sd, std::uint64_t F, std::uint64_t Q) : F_(F), Q_(Q) {
    mpz_set_u128(sd_.v, Sd);
    mpz_set_u128(two_sn_q_.v, Sn);
    mpz_mul_2exp(two_sn_q_.v, two_sn_q_.v, 1);
    mpz_mul_ui(two_sn_q_.v, two_sn_q_.v, Q);  // 2 Sn Q
    mpz_mul_ui(two_sn_q2_.v, two_sn_q_.v, Q);  // 2 Sn Q^2
  }

  // lo <= exp(-num/den) <= hi for the exact rational num/den >= 0.
  static void exp_neg(mpfr_prec_t prec, const mpz_t num, const mpz_t den, mpfr_ptr lo, mpfr_ptr hi) {
    Mp a(prec), b(prec), e(prec);
    mpfr_set_z(a.v, num, MPFR_RNDU);
    mpfr_set_z(b.v, den, MPFR_RNDD);
    mpfr_div(e.v, a.v, b.v, MPFR_RNDU);  // exponent, high
    mpfr_neg(e.v, e.v, MPFR_RNDN);
    mpfr_exp(lo, e.v, MPFR_RNDD);
    mpfr_set_z(a.v, num, MPFR_RNDD);
    mpfr_set_z(b.v, den, MPFR_RNDU);
    mpfr_div(e.v, a.v, b.v, MPFR_RNDD);  // exponent, low
    mpfr_neg(e.v, e.v, MPFR_RNDN);
    mpfr_exp(hi, e.v, MPFR_RNDU);
  }

  // yQ - F, exactly.
  void offset(std::int64_t y, mpz_t out) const {
    mpz_set_i128(out, static_cast<i128>(y) * static_cast<i128>(Q_) - static_cast<i128>(F_));
  }

  // rho_s(y - f) = exp(-(yQ - F)^2 Sd / (2 Sn Q^2)).
  void term(mpfr_prec_t prec, std::int64_t y, mpfr_ptr lo, mpfr_ptr hi) const {
    Mpz num;
    offset(y, num.v);
    mpz_mul(num.v, num.v, num.v);
    mpz_mul(num.v, num.v, sd_.v);
    exp_neg(prec, num.v, two_sn_q2_.v, lo, hi);
  }

  // Upper bound of the ratio of consecutive terms beyond y, on the
  // decreasing side: exp(-(2 |yQ - F| + Q) Sd / (2 Sn Q)).
  void ratio_beyond(mpfr_prec_t prec, std::int64_t y, mpfr_ptr hi) const {
    Mpz num;
    offset(y, num.v);
    mpz_abs(num.v, num.v);
    mpz_mul_2exp(num.v, num.v, 1);
    mpz_add_ui(num.v, num.v, Q_);
    mpz_mul(num.v, num.v, sd_.v);
    Mp unused(prec);
    exp_neg(prec, num.v, two_sn_q_.v, unused.v, hi);
  }

  // sum_{y = from}^{to} rho_s(y - f) (0 when from > to).
  void range(mpfr_prec_t prec, std::int64_t from, std::int64_t to, mpfr_ptr lo, mpfr_ptr hi) const {
    mpfr_set_ui(lo, 0, MPFR_RNDN);
    mpfr_set_ui(hi, 0, MPFR_RNDN);
    Mp tl(prec), th(prec);
    for (std::int64_t y = from; y <= to; ++y) {
      term(prec, y, tl.v, th.v);
      mpfr_add(lo, lo, tl.v, MPFR_RNDD);
      mpfr_add(hi, hi, th.v, MPFR_RNDU);
    }
  }

  // sum_{t >= 0} rho_s(start + dir t - f) for start on the decreasing side
  // of the centre (dir (start - f) >= 0): terms until one is below
  // 2^-(prec + 16) of the sum, then the geometric bound of the remainder.
  void tail(mpfr_prec_t prec, std::int64_t start, int dir, mpfr_ptr lo, mpfr_ptr hi) const {
    mpfr_set_ui(lo, 0, MPFR_RNDN);
    mpfr_set_ui(hi, 0, MPFR_RNDN);
    Mp tl(prec), th(prec), bar(prec), r(prec);
    for (std::int64_t y = start;; y += dir) {
      term(prec, y, tl.v, th.v);
      mpfr_mul_2si(bar.v, lo, -static_cast<long>(prec + 16), MPFR_RNDD);
      // Negligible, or (beyond MPFR's exponent range) terms that underflow.
      const bool underflow = mpfr_zero_p(lo) && y != start && y - start != dir;
      if (y != start && (mpfr_lessequal_p(th.v, bar.v) || underflow)) {
        // Remainder from y on: at most th / (1 - r).
        ratio_beyond(prec, y, r.v);
        mpfr_ui_sub(r.v, 1, r.v, MPFR_RNDD);
        mpfr_div(th.v, th.v, r.v, MPFR_RNDU);
        mpfr_add(hi, hi, th.v, MPFR_RNDU);
        return;
      }
      mpfr_add(lo, lo, tl.v, MPFR_RNDD);
      mpfr_add(hi, hi, th.v, MPFR_RNDU);
    }
  }

  // L(x) = sum_{y <= x} and R(x) = sum_{y > x}, using 0 <= f < 1.
  void left(mpfr_prec_t prec, std::int64_t x, mpfr_ptr lo, mpfr_ptr hi) const {
    if (x <= 0) return tail(prec, x, -1, lo, hi);
    Mp al(prec), ah(prec);
    range(prec, 1, x, al.v, ah.v);
    tail(prec, 0, -1, lo, hi);
    mpfr_add(lo, lo, al.v, MPFR_RNDD);
    mpfr_add(hi, hi, ah.v, MPFR_RNDU);
  }
  void right(mpfr_prec_t prec, std::int64_t x, mpfr_ptr lo, mpfr_ptr hi) const {
    const std::int64_t ceil_f = F_ == 0 ? 0 : 1;
    if (x + 1 >= ceil_f) return tail(prec, x + 1, +1, lo, hi);
    Mp al(prec), ah(prec);
    range(prec, x + 1, ceil_f - 1, al.v, ah.v);
    tail(prec, ceil_f, +1, lo, hi);
    mpfr_add(lo, lo, al.v, MPFR_RNDD);
    mpfr_add(hi, hi, ah.v, MPFR_RNDU);
  }

 private:
  std::uint64_t F_, Q_;
  Mpz sd_, two_sn_q_, two_sn_q2_;
};

// CDF = L/(L + R) in [L_lo/(L_lo + R_hi), L_hi/(L_hi + R_lo)].
void cdf_from_sums(mpfr_srcptr l_lo, mpfr_srcptr l_hi, mpfr_srcptr r_lo, mpfr_srcptr r_hi, mpfr_ptr lo,
                   mpfr_ptr hi) {
  Mp d(mpfr_get_prec(lo) + 8);
  mpfr_add(d.v, l_lo, r_hi, MPFR_RNDU);
  mpfr_div(lo, l_lo, d.v, MPFR_RNDD);
  mpfr_add(d.v, l_hi, r_lo, MPFR_RNDD);
  mpfr_div(hi, l_hi, d.v, MPFR_RNDU);
}

}  // namespace

std::size_t DiscreteGaussianTable::entries_for(double s2) {
  const double T = std::ceil(kTailStandardDeviations * std::sqrt(s2)) + 1;
  return static_cast<std::size_t>(2 * T + 3);
}

DiscreteGaussianTable::DiscreteGaussianTable(u128 s2_num, u128 s2_den, std::uint64_t F, std::uint64_t Q,
                                             const Interrupts& interrupts)
    : s2_num_(s2_num), s2_den_(s2_den), F_(F), Q_(Q) {
  if (s2_num == 0 || s2_den == 0) throw InvalidArgument("discrete gaussian variance must be positive");
  if (s2_num / s2_den >= kMaxS2) throw OutOfRange("discrete gaussian variance is too large for a table");
  if (Q == 0 || F >= Q) throw InvalidArgument("the centre of a discrete gaussian table must be in [0, 1)");
  const double s2 = static_cast<double>(s2_num) / static_cast<double>(s2_den);
  const std::size_t n = entries_for(s2);
  const auto T = static_cast<std::int64_t>((n - 3) / 2);
  const std::int64_t x0 = -T - 1;
  const std::int64_t x1 = T + 1;
  const GaussianMass mass(s2_num, s2_den, F, Q);
  const mpfr_prec_t p = kTablePrecision;

  // Terms of y = x0 + 1 .. x1, and the tails beyond (step 1).
  MpVector term_lo(n - 1, p), term_hi(n - 1, p);  // term k is y = x0 + k + 1
  for (std::size_t k = 0; k + 1 < n; ++k) {
    interrupts.poll_every(k);
    mass.term(p, x0 + static_cast<std::int64_t>(k) + 1, term_lo[k], term_hi[k]);
  }
  Mp left_lo(p), left_hi(p), right_lo(p), right_hi(p);
  mass.tail(p, x0, -1, left_lo.v, left_hi.v);
  mass.tail(p, x1 + 1, +1, right_lo.v, right_hi.v);
  // R(x) for every x, by suffix sums from the right end.
  MpVector r_lo(n, p), r_hi(n, p);
  mpfr_set(r_lo[n - 1], right_lo.v, MPFR_RNDD);
  mpfr_set(r_hi[n - 1], right_hi.v, MPFR_RNDU);
  for (std::size_t k = n - 1; k-- > 0;) {
    interrupts.poll_every(k);
    mpfr_add(r_lo[k], r_lo[k + 1], term_lo[k], MPFR_RNDD);
    mpfr_add(r_hi[k], r_hi[k + 1], term_hi[k], MPFR_RNDU);
  }
  std::vector<std::uint64_t> lower(n), upper_minus_one(n);
  Mp lo(p), hi(p);
  for (std::size_t k = 0; k < n; ++k) {
    interrupts.poll_every(k);
    if (k > 0) {
      mpfr_add(left_lo.v, left_lo.v, term_lo[k - 1], MPFR_RNDD);
      mpfr_add(left_hi.v, left_hi.v, term_hi[k - 1], MPFR_RNDU);
    }
    cdf_from_sums(left_lo.v, left_hi.v, r_lo[k], r_hi[k], lo.v, hi.v);
    lower[k] = CdfTable::floor_word(lo.v);
    upper_minus_one[k] = CdfTable::ceil_word_minus_one(hi.v);
  }
  table_ = CdfTable(x0, std::move(lower), std::move(upper_minus_one));
}

void DiscreteGaussianTable::cdf(mpfr_prec_t prec, std::int64_t x, mpfr_ptr lo, mpfr_ptr hi) const {
  const GaussianMass mass(s2_num_, s2_den_, F_, Q_);
  Mp ll(prec), lh(prec), rl(prec), rh(prec);
  mass.left(prec, x, ll.v, lh.v);
  mass.right(prec, x, rl.v, rh.v);
  cdf_from_sums(ll.v, lh.v, rl.v, rh.v, lo, hi);
}

}  // namespace invariant_dp
