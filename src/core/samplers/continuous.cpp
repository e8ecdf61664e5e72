// Real-valued noise: N(0, sigma^2) and Laplace(0, b) from uniform_open01().
//
// Gaussian: Box and Muller (1958). For independent U1, U2 uniform on (0, 1),
// sqrt(-2 ln U1) cos(2 pi U2) and sqrt(-2 ln U1) sin(2 pi U2) are two
// independent N(0, 1) in real arithmetic. Laplace:
// inversion of the CDF F(x) = 1/2 exp(x/b) (x < 0), 1 - 1/2 exp(-x/b) (x >= 0).
// Output law: those laws up to double rounding and the 2^-53 grid of the
// uniforms, which truncates the tails at about 8.6 sigma (Gaussian, mass
// ~1e-17 beyond) and 36.0 b (Laplace, mass 2^-53 beyond). Not exact, and
// floating-point noise is not bit-exact DP (Mironov 2012): these serve the
// real-valued subspace mechanisms only; the integer mechanisms use the exact
// samplers. Results depend on the platform's libm, unlike the exact samplers.
#include "continuous.hpp"

#include <cmath>

#include "../errors.hpp"

namespace invariant_dp {
namespace {

constexpr double kTwoPi = 6.28318530717958647692;

void check_continuous_scale(double scale, const char* message) {
  if (!std::isfinite(scale) || scale < 0.0) throw InvalidArgument(message);
}

}  // namespace

double sample_gaussian(RandomSource& rng, double sigma) {
  check_continuous_scale(sigma, "gaussian noise standard deviation must be finite and non-negative");
  // One of the pair only: a cached second value would tie two releases'
  // noise to one draw and make the sampler stateful.
  const double u1 = rng.uniform_open01();
  const double u2 = rng.uniform_open01();
  return sigma * std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
}

void sample_gaussians(RandomSource& rng, double sigma, double* out, std::size_t n, const Interrupts& interrupts) {
  check_continuous_scale(sigma, "gaussian noise standard deviation must be finite and non-negative");
  for (std::size_t i = 0; i < n; i += 2) {
    interrupts.poll_every(i);
    const double radius = sigma * std::sqrt(-2.0 * std::log(rng.uniform_open01()));
    const double angle = kTwoPi * rng.uniform_open01();
    out[i] = radius * std::cos(angle);
    if (i + 1 < n) out[i + 1] = radius * std::sin(angle);
  }
}

double sample_laplace(RandomSource& rng, double b) {
  check_continuous_scale(b, "laplace noise scale must be finite and non-negative");
  // u, 2u and 1 - u are exact on the 2^-53 grid, so both branches are
  // evaluated without cancellation and the law is symmetric.
  const double u = rng.uniform_open01();
  return u < 0.5 ? b * std::log(2.0 * u) : -b * std::log(2.0 * (1.0 - u));
}

}  // namespace invariant_dp
