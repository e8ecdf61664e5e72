// Standard normals for the cascade's inner loops: both values of each
// Box-Muller pair (cos and sin of the same angle are independent N(0,1)
// in real arithmetic), which halves the logarithms and square roots of
// samplers/continuous.cpp's one-per-pair sample_gaussian. The spare value
// lives only as long as one release's stream object, so no two releases
// share a draw. Same floating-point caveats as samplers/continuous.hpp
// (tails cut near 8.6 sd, not bit-exact DP).
#pragma once

#include <cmath>

#include "../random_source.hpp"

namespace invariant_dp::hierarchy {

class NormalStream {
 public:
  explicit NormalStream(RandomSource& rng) : rng_(rng) {}
  NormalStream(const NormalStream&) = delete;
  NormalStream& operator=(const NormalStream&) = delete;

  double next() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    constexpr double kTwoPi = 6.28318530717958647692;
    const double radius = std::sqrt(-2.0 * std::log(rng_.uniform_open01()));
    const double angle = kTwoPi * rng_.uniform_open01();
    spare_ = radius * std::sin(angle);
    has_spare_ = true;
    return radius * std::cos(angle);
  }

 private:
  RandomSource& rng_;
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace invariant_dp::hierarchy
