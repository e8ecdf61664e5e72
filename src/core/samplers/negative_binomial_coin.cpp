// Exact Bernoulli(nb(m) / nb(mode)) for the negative binomial; the law and
// the argument for exactness are in negative_binomial_coin.hpp.
#include "negative_binomial_coin.hpp"

#include <cmath>
#include <string>

#include "../errors.hpp"
#include "lazy_bernoulli.hpp"

namespace invariant_dp {
namespace {

static_assert(sizeof(unsigned long) == 8 && sizeof(long) == 8, "LP64 is assumed by the MPFR calls");

constexpr mpfr_prec_t kCoinPrecision = 128;  // makes (m - M) * num exact
constexpr std::uint64_t kMaxCoinMode = std::uint64_t{1} << 50;
constexpr std::uint64_t kMaxArgument = std::uint64_t{1} << 63;

// rho = exp(-num/den).
Interval rho_bounds(mpfr_prec_t prec, Rational rate) { return exp(neg(div(exact(prec, rate.num), rate.den))); }

// Sign of rho (m + k) - (m + 1), never 0, from enclosures at doubling
// precision.
bool coin_ratio_above_one(Rational rate, std::uint64_t m, std::uint64_t k) {
  // Ends: the precision doubles up to 2^20 bits, then refuses: at most 14 passes.
  for (mpfr_prec_t prec = kCoinPrecision;; prec *= 2) {
    const Interval d = sub(mul(rho_bounds(prec, rate), m + k), m + 1);
    if (certainly_positive(d)) return true;
    if (certainly_negative(d)) return false;
    if (prec > (mpfr_prec_t{1} << 20)) throw Error("could not locate the mode of a negative binomial law");
  }
}

}  // namespace

NegativeBinomialCoin::NegativeBinomialCoin(Rational rate, std::uint64_t k) : rate_(rate), k_(k) {
  if (rate.num == 0 || rate.den == 0) throw InvalidArgument("a negative binomial rate must be positive");
  if (k == 0) throw InvalidArgument("a negative binomial law needs at least one geometric term");
  // The mode estimated in long double, (k rho - 1) / (1 - rho), then moved
  // to the exact one.
  const long double r = static_cast<long double>(rate.num) / rate.den;
  const long double estimate = (k * std::exp(-r) - 1) / -std::expm1(-r);
  if (!(estimate <= static_cast<long double>(kMaxCoinMode)))
    throw OutOfRange("the noise scale is too large for a table of " + std::to_string(k) + " columns",
                     "The expected sum of the geometric terms, about k exp(-rate) / (1 - exp(-rate)), must stay "
                     "below 2^50.");
  std::uint64_t m = estimate <= 0 ? 0 : static_cast<std::uint64_t>(std::ceil(estimate));
  // Ends: the double estimate of the mode is within a few units of it.
  while (m > 0 && !coin_ratio_above_one(rate, m - 1, k)) --m;
  while (coin_ratio_above_one(rate, m, k)) ++m;
  mode_ = m;
  first_ = mode_ > kKept / 2 ? mode_ - kKept / 2 : 0;
}

Interval NegativeBinomialCoin::log_ratio_bounds(mpfr_prec_t prec, std::uint64_t m) const {
  if (prec < kCoinPrecision) prec = kCoinPrecision;
  if (m >= kMaxArgument - k_) throw OutOfRange("a negative binomial total does not fit in a bigint");
  const Interval at_m = sub(lngamma_at(prec, m + k_), lngamma_at(prec, m + 1));
  const Interval at_mode = sub(lngamma_at(prec, mode_ + k_), lngamma_at(prec, mode_ + 1));
  // (m - M) num is exact at 128 bits: |m - M| < 2^63, num < 2^64.
  const long diff = m >= mode_ ? static_cast<long>(m - mode_) : -static_cast<long>(mode_ - m);
  const Interval powers = div(mul(exact_signed(prec, diff), rate_.num), rate_.den);
  return sub(sub(at_m, at_mode), powers);
}

bool NegativeBinomialCoin::decide_from_first_word(std::uint64_t m, std::uint64_t word, bool& accept) {
  if (m < first_ || m - first_ >= kKept) return false;
  if (lo_.empty()) {
    lo_.assign(kKept, 1);
    hi_.assign(kKept, 0);
  }
  const std::uint64_t i = m - first_;
  if (lo_[i] > hi_[i]) {
    const Interval p = exp(log_ratio_bounds(kCoinPrecision, m));
    lo_[i] = to_double(p, End::lower);
    hi_[i] = to_double(p, End::upper);
  }
  // U in [word, word + 1) / 2^64; lo * 2^64 and hi * 2^64 are exact doubles.
  const double low = std::ldexp(lo_[i], 64), high = std::ldexp(hi_[i], 64);
  if (low >= 0x1p64 || word < static_cast<std::uint64_t>(std::floor(low))) {  // U < lo <= p
    accept = true;
    return true;
  }
  if (high < 0x1p64 && word >= static_cast<std::uint64_t>(std::ceil(high))) {  // U >= hi >= p
    accept = false;
    return true;
  }
  return false;
}

bool NegativeBinomialCoin::accept(RandomSource& rng, std::uint64_t m) {
  if (m == mode_) return true;
  LazyUniform u(rng);
  bool decided = false;
  if (decide_from_first_word(m, u.first_word(), decided)) return decided;
  const ProbabilityBounds p = [this, m](mpfr_prec_t prec) { return exp(log_ratio_bounds(prec, m)); };
  return u.less_than(p, kCoinPrecision);
}

}  // namespace invariant_dp
