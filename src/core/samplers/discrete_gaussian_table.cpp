// The discrete Gaussian's CDF enclosures and the words of its table; the
// sampling is cdf_table.cpp's. Every rounding is an Interval's (interval.hpp).
#include "discrete_gaussian_table.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "../errors.hpp"
#include "big_int.hpp"

namespace invariant_dp {
namespace {

constexpr mpfr_prec_t kGaussianTablePrecision = 128;
constexpr double kTailStandardDeviations = 10;  // mass beyond: about exp(-50)
constexpr Uint128 kMaxS2 = Uint128{1} << 40;

// Enclosures of rho_s(y - F/Q) and of sums of them.
class GaussianMass {
 public:
  GaussianMass(Uint128 Sn, Uint128 Sd, std::uint64_t F, std::uint64_t Q)
      : F_(F), Q_(Q), sd_(Sd), two_sn_q_((BigInt(Sn) << 1) * Q), two_sn_q2_(two_sn_q_ * Q) {}

  // exp(-num/den) for the exact rational num/den >= 0.
  static Interval exp_neg(mpfr_prec_t prec, const BigInt& num, const BigInt& den) {
    return exp(neg(div(exact(prec, num), exact(prec, den))));
  }

  // yQ - F, exactly.
  BigInt offset(std::int64_t y) const {
    return BigInt(static_cast<Int128>(y) * static_cast<Int128>(Q_) - static_cast<Int128>(F_));
  }

  // rho_s(y - f) = exp(-(yQ - F)^2 Sd / (2 Sn Q^2)).
  Interval term(mpfr_prec_t prec, std::int64_t y) const {
    const BigInt d = offset(y);
    return exp_neg(prec, d * d * sd_, two_sn_q2_);
  }

  // The ratio of consecutive terms beyond y, on the decreasing side:
  // exp(-(2 |yQ - F| + Q) Sd / (2 Sn Q)).
  Interval ratio_beyond(mpfr_prec_t prec, std::int64_t y) const {
    return exp_neg(prec, ((abs(offset(y)) << 1) + Q_) * sd_, two_sn_q_);
  }

  // sum_{y = from}^{to} rho_s(y - f) (0 when from > to).
  Interval range(mpfr_prec_t prec, std::int64_t from, std::int64_t to) const {
    Interval sum(prec);
    for (std::int64_t y = from; y <= to; ++y) accumulate(sum, term(prec, y));
    return sum;
  }

  // sum_{t >= 0} rho_s(start + dir t - f) for start on the decreasing side
  // of the centre (dir (start - f) >= 0): terms until one is below
  // 2^-(prec + 16) of the sum, then the geometric bound of the remainder.
  Interval tail(mpfr_prec_t prec, std::int64_t start, int dir) const {
    Interval sum(prec);
    // Ends: the terms fall like a Gaussian's from the centre outward: about sqrt(2 s2 (prec + 16) ln 2) terms.
    for (std::int64_t y = start;; y += dir) {
      const Interval t = term(prec, y);
      // Negligible, or (beyond MPFR's exponent range) terms that underflow.
      const bool underflow = mpfr_zero_p(sum.lower()) && y != start && y - start != dir;
      if (y != start &&
          (certainly_at_most(t, scale_2exp(sum, -static_cast<long>(prec + 16))) || underflow)) {
        // Remainder from y on: between 0 and t / (1 - r).
        accumulate(sum, hull(Interval(prec), div(t, sub(1ul, ratio_beyond(prec, y)))));
        return sum;
      }
      accumulate(sum, t);
    }
  }

  // L(x) = sum_{y <= x} and R(x) = sum_{y > x}, using 0 <= f < 1.
  Interval left(mpfr_prec_t prec, std::int64_t x) const {
    if (x <= 0) return tail(prec, x, -1);
    const Interval inner = range(prec, 1, x);
    Interval sum = tail(prec, 0, -1);
    accumulate(sum, inner);
    return sum;
  }
  Interval right(mpfr_prec_t prec, std::int64_t x) const {
    const std::int64_t ceil_f = F_ == 0 ? 0 : 1;
    if (x + 1 >= ceil_f) return tail(prec, x + 1, +1);
    const Interval inner = range(prec, x + 1, ceil_f - 1);
    Interval sum = tail(prec, ceil_f, +1);
    accumulate(sum, inner);
    return sum;
  }

 private:
  std::uint64_t F_, Q_;
  BigInt sd_, two_sn_q_, two_sn_q2_;
};

}  // namespace

std::size_t DiscreteGaussianTable::entries_for(double s2) {
  const double T = std::ceil(kTailStandardDeviations * std::sqrt(s2)) + 1;
  return static_cast<std::size_t>(2 * T + 3);
}

DiscreteGaussianTable::DiscreteGaussianTable(Uint128 s2_num, Uint128 s2_den, std::uint64_t F, std::uint64_t Q,
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
  const mpfr_prec_t p = kGaussianTablePrecision;

  // Terms of y = x0 + 1 .. x1, and the tails beyond (step 1).
  std::vector<Interval> terms;  // term k is y = x0 + k + 1
  terms.reserve(n - 1);
  for (std::size_t k = 0; k + 1 < n; ++k) {
    interrupts.poll_every(k);
    terms.push_back(mass.term(p, x0 + static_cast<std::int64_t>(k) + 1));
  }
  Interval left = mass.tail(p, x0, -1);
  // R(x) for every x, by suffix sums from the right end: right[k] = R(x0 + k).
  std::vector<Interval> right(n, Interval(p));
  right[n - 1] = mass.tail(p, x1 + 1, +1);
  for (std::size_t k = n - 1; k-- > 0;) {
    interrupts.poll_every(k);
    right[k] = add(right[k + 1], terms[k]);
  }
  std::vector<std::uint64_t> lower(n), upper_minus_one(n);
  for (std::size_t k = 0; k < n; ++k) {
    interrupts.poll_every(k);
    if (k > 0) accumulate(left, terms[k - 1]);
    CdfTable::words(share(left, right[k]), lower[k], upper_minus_one[k]);
  }
  table_ = CdfTable(x0, std::move(lower), std::move(upper_minus_one));
}

// CDF = L/(L + R).
Interval DiscreteGaussianTable::cdf(mpfr_prec_t prec, std::int64_t x) const {
  const GaussianMass mass(s2_num_, s2_den_, F_, Q_);
  return share(mass.left(prec, x), mass.right(prec, x));
}

}  // namespace invariant_dp
