// Constants the core's numerics share, written once.
#pragma once

namespace invariant_dp {

constexpr double kPi = 3.14159265358979323846;
// 2 pi^2, the factor of the discrete Gaussian's theta-function terms
// exp(-2 pi^2 s2 k^2).
constexpr double kTwoPiSquared = 2 * 9.8696044010893586;

}  // namespace invariant_dp
