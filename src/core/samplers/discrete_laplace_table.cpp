// The discrete Laplace's CDF enclosures and the words of its table (the
// closed form is in discrete_laplace_table.hpp; the sampling is cdf_table.cpp's).
#include "discrete_laplace_table.hpp"

#include <gmp.h>
#include <mpfr.h>

#include <cmath>
#include <vector>

#include "../errors.hpp"
#include "mpfr_scoped.hpp"

namespace invariant_dp {
namespace {

constexpr mpfr_prec_t kTablePrecision = 128;
constexpr double kTailScales = 35;  // a^35scale = e^-35 < 2^-50

// lo <= exp(-k den / num) <= hi, the exponent an exact rational.
void power_of_a(mpfr_prec_t prec, Rational scale, std::uint64_t k, mpfr_ptr lo, mpfr_ptr hi) {
  mpz_t numerator;
  mpz_init(numerator);
  mpz_set_ui(numerator, k);
  mpz_mul_ui(numerator, numerator, scale.den);  // k den, exact
  Mp a(prec), e(prec);
  mpfr_set_z(a.v, numerator, MPFR_RNDU);
  mpfr_div_ui(e.v, a.v, scale.num, MPFR_RNDU);  // exponent, high
  mpfr_neg(e.v, e.v, MPFR_RNDN);
  mpfr_exp(lo, e.v, MPFR_RNDD);
  mpfr_set_z(a.v, numerator, MPFR_RNDD);
  mpfr_div_ui(e.v, a.v, scale.num, MPFR_RNDD);  // exponent, low
  mpfr_neg(e.v, e.v, MPFR_RNDN);
  mpfr_exp(hi, e.v, MPFR_RNDU);
  mpz_clear(numerator);
}

std::int64_t half_width(Rational scale) {
  return static_cast<std::int64_t>(std::ceil(kTailScales * scale.to_double())) + 1;
}

}  // namespace

std::size_t DiscreteLaplaceTable::entries_for(Rational scale) {
  const double T = std::ceil(kTailScales * scale.to_double()) + 1;
  return T > double(max_entries()) ? max_entries() + 1 : static_cast<std::size_t>(2 * T + 3);
}

// Building costs about 6 us an entry (four 128-bit exponentials), Algorithm
// 2 about 80 ns a draw and the table 3: the table when its build is at most
// about a third of what Algorithm 2 would spend.
bool DiscreteLaplaceTable::worth_it(Rational scale, std::size_t draws) {
  const std::size_t entries = entries_for(scale);
  return entries <= max_entries() && entries * 256 <= draws;
}

void DiscreteLaplaceTable::cdf(mpfr_prec_t prec, std::int64_t x, mpfr_ptr lo, mpfr_ptr hi) const {
  Mp one_lo(prec), one_hi(prec), k_lo(prec), k_hi(prec), denominator(prec);
  power_of_a(prec, scale_, 1, one_lo.v, one_hi.v);
  const std::uint64_t k = x < 0 ? static_cast<std::uint64_t>(-(x + 1)) + 1 : static_cast<std::uint64_t>(x) + 1;
  power_of_a(prec, scale_, k, k_lo.v, k_hi.v);
  if (x < 0) {  // e_{-x} / (1 + e_1)
    mpfr_add_ui(denominator.v, one_hi.v, 1, MPFR_RNDU);
    mpfr_div(lo, k_lo.v, denominator.v, MPFR_RNDD);
    mpfr_add_ui(denominator.v, one_lo.v, 1, MPFR_RNDD);
    mpfr_div(hi, k_hi.v, denominator.v, MPFR_RNDU);
    return;
  }
  // 1 - e_{x+1} / (1 + e_1): the quotient's upper end gives the lower end.
  Mp quotient(prec);
  mpfr_add_ui(denominator.v, one_lo.v, 1, MPFR_RNDD);
  mpfr_div(quotient.v, k_hi.v, denominator.v, MPFR_RNDU);
  mpfr_ui_sub(lo, 1, quotient.v, MPFR_RNDD);
  mpfr_add_ui(denominator.v, one_hi.v, 1, MPFR_RNDU);
  mpfr_div(quotient.v, k_lo.v, denominator.v, MPFR_RNDD);
  mpfr_ui_sub(hi, 1, quotient.v, MPFR_RNDU);
}

DiscreteLaplaceTable::DiscreteLaplaceTable(Rational scale, const Interrupts& interrupts) : scale_(scale) {
  if (scale.num == 0 || scale.den == 0) throw InvalidArgument("discrete laplace scale must be positive");
  const std::size_t n = entries_for(scale);
  if (n > max_entries())
    throw OutOfRange("discrete laplace scale is too large for a table",
                     "It would need more than " + std::to_string(max_entries()) + " entries.");
  const std::int64_t x0 = -half_width(scale) - 1;
  std::vector<std::uint64_t> lower(n), upper_minus_one(n);
  Mp lo(kTablePrecision), hi(kTablePrecision);
  for (std::size_t k = 0; k < n; ++k) {
    interrupts.poll_every(k);
    cdf(kTablePrecision, x0 + static_cast<std::int64_t>(k), lo.v, hi.v);
    lower[k] = CdfTable::floor_word(lo.v);
    upper_minus_one[k] = CdfTable::ceil_word_minus_one(hi.v);
  }
  table_ = CdfTable(x0, std::move(lower), std::move(upper_minus_one));
}

}  // namespace invariant_dp
