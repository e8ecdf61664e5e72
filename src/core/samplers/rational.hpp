// Non-negative rationals for the exact samplers. Scales and variances reach
// the samplers as num/den so that no floating-point rounding enters the noise
// law (Canonne, Kamath, Steinke 2020, section 5).
#pragma once

#include <cstdint>

namespace invariant_dp {

struct Rational {
  std::uint64_t num = 0;
  std::uint64_t den = 1;  // > 0

  double to_double() const { return static_cast<double>(num) / static_cast<double>(den); }
};

// The smallest rational with denominator <= max_den that is >= x (x > 0,
// finite), compared exactly, in lowest terms; so x <= r < x + 1/max_den.
// Used to round a noise scale *up*, so the privacy guarantee of the
// requested scale still holds. Throws OutOfRange if x is not positive and
// finite, if x >= 2^64 (too large to fit), or if max_den is 0.
Rational rational_at_least(double x, std::uint64_t max_den = (1ull << 20));

}  // namespace invariant_dp
