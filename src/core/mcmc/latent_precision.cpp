// The latent precision of the l2 scale mixture; see latent_precision.hpp.
#include "latent_precision.hpp"

#include <cmath>

#include "../errors.hpp"
#include "../samplers/continuous.hpp"

namespace invariant_dp::mcmc {

LatentPrecision::LatentPrecision(double lambda) : lambda_(lambda) {
  if (!(std::isfinite(lambda) && lambda > 0)) throw InvalidArgument("the l2 rate must be finite and positive");
}

double LatentPrecision::log_density(double t, double r) const {
  if (!(t > 0)) return -INFINITY;
  const double l = lambda_;
  return std::log(l) - 0.5 * std::log(2 * M_PI) - 1.5 * std::log(t) - l * l / (2 * t) - t * r * r / 2 + l * r;
}

double LatentPrecision::sample(double r, RandomSource& rng) const {
  const double shape = lambda_ * lambda_;
  const double nu = sample_gaussian(rng, 1.0);
  const double y = nu * nu;
  if (r == 0) return shape / y;  // Levy
  const double mu = lambda_ / r;
  // The two roots of x^2 - (2 mu + mu^2 y / shape) x + mu^2 have product
  // mu^2; the larger has no cancellation.
  const double larger = mu + mu * mu * y / (2 * shape) + (mu / (2 * shape)) * std::sqrt(4 * mu * shape * y + mu * mu * y * y);
  const double smaller = mu * mu / larger;
  return rng.uniform_open01() <= mu / (mu + smaller) ? smaller : larger;
}

std::pair<double, double> LatentPrecision::coupled(double r_x, double r_y, RandomSource& rng,
                                                   const Interrupts& interrupts) const {
  const double x = sample(r_x, rng);
  if (r_x == r_y) return {x, x};
  if (std::log(rng.uniform_open01()) + log_density(x, r_x) <= log_density(x, r_y)) return {x, x};
  // The second stage of a maximal coupling (double_geometric.hpp): it polls.
  for (std::uint64_t pass = 1;; ++pass) {
    interrupts.poll_every(pass);
    const double y = sample(r_y, rng);
    if (std::log(rng.uniform_open01()) + log_density(y, r_y) > log_density(y, r_x)) return {x, y};
  }
}

}  // namespace invariant_dp::mcmc
