// Exact truncated tilted discrete Laplace; see tilted_laplace.hpp for the law
// and the argument.
#include "tilted_laplace.hpp"

#include <cmath>
#include <limits>
#include <numeric>

#include "../errors.hpp"
#include "../samplers/bernoulli_exp.hpp"
#include "../samplers/discrete_laplace.hpp"

namespace invariant_dp {
namespace {

constexpr unsigned kTiltBits = 16;

Rational reduced(Uint128 num, Uint128 den) {
  const Uint128 a = gcd(num, den);
  num /= a;
  den /= a;
  if (num == 0 || num > std::numeric_limits<std::uint64_t>::max() || den > std::numeric_limits<std::uint64_t>::max())
    throw OutOfRange("the congenial noise scale is too large for the exact group sampler");
  return Rational{static_cast<std::uint64_t>(num), static_cast<std::uint64_t>(den)};
}

unsigned bit_length(std::uint64_t v) { return v == 0 ? 0 : 64 - static_cast<unsigned>(__builtin_clzll(v)); }

// Bits of the tilt grid such that num * 2^bits stays below 2^63.
unsigned tilt_bits(Rational scale) {
  const unsigned used = bit_length(scale.num);
  return used >= 62 ? 0 : std::min(kTiltBits, 62 - used);
}

// G with P(G = g) proportional to exp(-g * rate), i.e. scale den/num.
std::int64_t sample_geometric(RandomSource& rng, Rational rate) {
  const Uint128 g = sample_discrete_geometric(rng, Rational{rate.den, rate.num});
  if (g > static_cast<Uint128>(std::numeric_limits<std::int64_t>::max() / 2))
    throw OutOfRange("a congenial noise draw does not fit in a bigint");
  return static_cast<std::int64_t>(g);
}

// Sums over one side: S0 = sum_{k>=1} r^k, S1 = sum k r^k, S2 = sum k^2 r^k,
// with om = 1 - r computed without cancellation.
struct SideSums {
  double s0, s1, s2;
};
SideSums side_sums(double rate) {
  const double r = std::exp(-rate), om = -std::expm1(-rate);
  return {r / om, r / (om * om), r * (1 + r) / (om * om * om)};
}

double rate_of(Rational q) { return static_cast<double>(q.num) / static_cast<double>(q.den); }

// The sums of one side up to `limit`, k = 1 .. limit: the infinite sums
// minus the tail beyond it, sum_{k>x} k^p r^k = r^x sum_{j>=1} (j + x)^p r^j.
SideSums side_sums_to(double rate, std::int64_t limit) {
  const SideSums all = side_sums(rate);
  if (limit == kNoUpperBound) return all;
  const double x = static_cast<double>(limit);
  const double tail = std::exp(-rate * x);
  return {all.s0 * (1 - tail), all.s1 - tail * (all.s1 + x * all.s0),
          all.s2 - tail * (all.s2 + 2 * x * all.s1 + x * x * all.s0)};
}

// Whether every side the interval [-count, upper] reaches has
// (values) * rate <= 2: then its weights relative to the mode are all at
// least e^-2 and a uniform proposal is cheap.
bool few_values(const TiltedRates& rates, std::int64_t count, std::int64_t upper) {
  const Uint128 values = static_cast<Uint128>(count) + static_cast<Uint128>(upper) + 1;
  const auto cheap = [values](Rational rate) { return values * rate.num <= static_cast<Uint128>(2) * rate.den; };
  return (upper == 0 || cheap(rates.up)) && (count == 0 || cheap(rates.down));
}

}  // namespace

TiltedRates tilted_rates(Rational scale, std::int64_t steps, unsigned bits) {
  const Uint128 one = static_cast<Uint128>(1) << bits;
  const Uint128 mag = static_cast<Uint128>(steps < 0 ? -steps : steps);
  if (mag >= one) throw InvalidArgument("a tilt must stay below the discrete laplace rate");
  const Uint128 den = static_cast<Uint128>(scale.num) << bits;
  const Uint128 plus = steps < 0 ? one + mag : one - mag, minus = steps < 0 ? one - mag : one + mag;
  TiltedRates rates;
  rates.up = reduced(static_cast<Uint128>(scale.den) * plus, den);
  rates.down = reduced(static_cast<Uint128>(scale.den) * minus, den);
  rates.theta_times_b = static_cast<double>(steps) / static_cast<double>(one);
  return rates;
}

TiltedRates untilted_rates(Rational scale) { return tilted_rates(scale, 0, 0); }

CellMoments truncated_moments(const TiltedRates& rates, std::int64_t count, std::int64_t upper) {
  // Positive side z = 1 .. u: S0, first moment S1, second S2 (u = infinity
  // without an upper bound); z = 0 weighs 1.
  const SideSums up = side_sums_to(rate_of(rates.up), upper);
  // Negative side z = -1 .. -x.
  const SideSums dn = side_sums_to(rate_of(rates.down), count);
  const double weight = 1 + up.s0 + dn.s0;
  CellMoments m;
  m.mean = (up.s1 - dn.s1) / weight;
  m.variance = std::max(0.0, (up.s2 + dn.s2) / weight - m.mean * m.mean);
  m.mass_at_zero = 1 / weight;
  return m;
}

TiltedRates balancing_tilt(Rational scale, const std::vector<std::int64_t>& counts,
                           const std::vector<std::int64_t>& uppers) {
  const unsigned bits = tilt_bits(scale);
  const std::int64_t limit = static_cast<std::int64_t>((std::uint64_t{9} << bits) / 10);
  auto mean_sum = [&](std::int64_t steps) {
    const TiltedRates r = tilted_rates(scale, steps, bits);
    double s = 0;
    for (std::size_t i = 0; i < counts.size(); ++i)
      s += truncated_moments(r, counts[i], uppers.empty() ? kNoUpperBound : uppers[i]).mean;
    return s;
  };
  std::int64_t lo = -limit, hi = limit;
  if (mean_sum(lo) >= 0) return tilted_rates(scale, lo, bits);
  if (mean_sum(hi) <= 0) return tilted_rates(scale, hi, bits);
  // Ends: bisection of tilt steps below 2^bits <= 2^40: at most 41 passes.
  while (hi - lo > 1) {  // invariant: sum(lo) < 0 < sum(hi)
    const std::int64_t mid = lo + (hi - lo) / 2;
    (mean_sum(mid) < 0 ? lo : hi) = mid;
  }
  return tilted_rates(scale, std::fabs(mean_sum(lo)) < std::fabs(mean_sum(hi)) ? lo : hi, bits);
}

std::int64_t sample_truncated_tilted(RandomSource& rng, const TiltedRates& rates, std::int64_t count,
                                     std::int64_t upper) {
  if (upper == kNoUpperBound) {
    // On z >= 0 the law is exactly Geometric(alpha_+): no rejection needed.
    if (count == 0) return sample_geometric(rng, rates.up);
    // Ends: a pass keeps z >= 0 with probability alpha_- / (alpha_+ + alpha_-) or more, at least 1/20 for
    // |theta b| <= 0.9.
    for (;;) {
      const std::int64_t z = sample_geometric(rng, rates.up) - sample_geometric(rng, rates.down);
      if (z >= -count) return z;
    }
  }
  if (count == 0 && upper == 0) return 0;
  if (few_values(rates, count, upper)) {
    // Uniform on [-count, upper], kept with probability p(z)/p(0) >= e^-2.
    const std::uint64_t values = static_cast<std::uint64_t>(count) + static_cast<std::uint64_t>(upper) + 1;
    // Ends: a pass keeps its value with probability at least e^-2 (few_values).
    for (;;) {
      const std::int64_t z = static_cast<std::int64_t>(rng.uniform_below(values)) - count;
      if (accept_against_mode(rng, rates, z, count, upper)) return z;
    }
  }
  // Ends: without few_values a side the interval reaches holds 2 / alpha values, which keep at least (1 - e^-2)
  // / 20 of the mass for |theta b| <= 0.9.
  for (;;) {
    std::int64_t z = sample_geometric(rng, rates.up);
    if (count > 0) z -= sample_geometric(rng, rates.down);
    if (z >= -count && z <= upper) return z;
  }
}

bool accept_against_mode(RandomSource& rng, const TiltedRates& rates, std::int64_t z, std::int64_t count,
                         std::int64_t upper) {
  if (z < -count || z > upper) return false;
  if (z == 0) return true;
  const Rational rate = z > 0 ? rates.up : rates.down;
  const Uint128 magnitude = static_cast<Uint128>(z > 0 ? z : -z);
  return sample_bernoulli_exp_neg_wide(rng, magnitude * rate.num, rate.den);
}

}  // namespace invariant_dp
