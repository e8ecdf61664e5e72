// The discrete Laplace's CDF enclosures and the words of its table (the
// closed form is in discrete_laplace_table.hpp; the sampling is cdf_table.cpp's).
// Every rounding is an Interval's (interval.hpp).
#include "discrete_laplace_table.hpp"

#include <cmath>
#include <vector>

#include "../errors.hpp"

namespace invariant_dp {
namespace {

constexpr mpfr_prec_t kLaplaceTablePrecision = 128;
constexpr double kTailScales = 35;  // a^35scale = e^-35 < 2^-50

// exp(-k den / num), the exponent an exact rational (k den < 2^128).
Interval power_of_a(mpfr_prec_t prec, Rational scale, std::uint64_t k) {
  return exp(neg(div(exact(prec, static_cast<Uint128>(k) * scale.den), scale.num)));
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

Interval DiscreteLaplaceTable::cdf(mpfr_prec_t prec, std::int64_t x) const {
  const Interval one_plus_a = add(power_of_a(prec, scale_, 1), 1ul);
  const std::uint64_t k = x < 0 ? static_cast<std::uint64_t>(-(x + 1)) + 1 : static_cast<std::uint64_t>(x) + 1;
  const Interval quotient = div(power_of_a(prec, scale_, k), one_plus_a);
  // e_{-x} / (1 + e_1) for x < 0, else 1 - e_{x+1} / (1 + e_1).
  return x < 0 ? quotient : sub(1ul, quotient);
}

DiscreteLaplaceTable::DiscreteLaplaceTable(Rational scale, const Interrupts& interrupts) : scale_(scale) {
  if (scale.num == 0 || scale.den == 0) throw InvalidArgument("discrete laplace scale must be positive");
  const std::size_t n = entries_for(scale);
  if (n > max_entries())
    throw OutOfRange("discrete laplace scale is too large for a table",
                     "It would need more than " + std::to_string(max_entries()) + " entries.");
  const std::int64_t x0 = -half_width(scale) - 1;
  std::vector<std::uint64_t> lower(n), upper_minus_one(n);
  for (std::size_t k = 0; k < n; ++k) {
    interrupts.poll_every(k);
    CdfTable::words(cdf(kLaplaceTablePrecision, x0 + static_cast<std::int64_t>(k)), lower[k], upper_minus_one[k]);
  }
  table_ = CdfTable(x0, std::move(lower), std::move(upper_minus_one));
}

}  // namespace invariant_dp
