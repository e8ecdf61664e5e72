// Log-densities of the three lattice targets (targets.hpp), up to the
// normalizing constant, which cancels in every Metropolis ratio.
#include "targets.hpp"

#include <cmath>
#include <cstdlib>

#include "../errors.hpp"

namespace invariant_dp::mcmc {

Target laplace_l1(double epsilon) { return Target{TargetKind::laplace_l1, epsilon, 0}; }
Target laplace_l2(double epsilon) { return Target{TargetKind::laplace_l2, epsilon, 0}; }
Target lattice_gaussian(double sigma2) { return Target{TargetKind::lattice_gaussian, 0, sigma2}; }

void validate(const Target& target) {
  const double p = target.kind == TargetKind::lattice_gaussian ? target.sigma2 : target.epsilon;
  if (!(std::isfinite(p) && p > 0))
    throw InvalidArgument(target.kind == TargetKind::lattice_gaussian ? "sigma^2 must be finite and positive"
                                                                       : "epsilon must be finite and positive");
}

Target widened(const Target& target, double factor) {
  if (!(factor > 0 && factor <= 1)) throw InvalidArgument("over-dispersion factor must be in (0, 1]");
  Target out = target;
  if (target.kind == TargetKind::lattice_gaussian)
    out.sigma2 = target.sigma2 / (factor * factor);
  else
    out.epsilon = target.epsilon * factor;
  return out;
}

double log_density(const Target& target, std::int64_t l1, std::int64_t l2_squared) {
  switch (target.kind) {
    case TargetKind::laplace_l1:
      return -target.epsilon * static_cast<double>(l1);
    case TargetKind::laplace_l2:
      return -target.epsilon * std::sqrt(static_cast<double>(l2_squared));
    case TargetKind::lattice_gaussian:
      return -static_cast<double>(l2_squared) / (2 * target.sigma2);
  }
  return 0;
}

double log_density(const Target& target, const std::int64_t* z, std::size_t d) {
  std::int64_t l1 = 0, l2 = 0;
  for (std::size_t i = 0; i < d; ++i) {
    l1 += std::llabs(z[i]);
    l2 += z[i] * z[i];
  }
  return log_density(target, l1, l2);
}

}  // namespace invariant_dp::mcmc
