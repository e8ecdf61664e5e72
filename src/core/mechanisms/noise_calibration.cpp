// Calibration per mechanism. Each branch states the guarantee it certifies.
#include "noise_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "../calibration/analytic_gaussian.hpp"
#include "../calibration/discrete_gaussian_privacy.hpp"
#include "../calibration/zcdp.hpp"
#include "../errors.hpp"
#include "../json_text.hpp"
#include "../samplers/discrete_gaussian.hpp"
#include "../samplers/discrete_laplace.hpp"

namespace invariant_dp {
namespace {

int moved_cells(Neighbours neighbours) { return neighbours == Neighbours::ReplaceOne ? 2 : 1; }

// Pure eps-DP: a change of l1 norm D moves the log-density by at most D/b.
NoiseLaw discrete_laplace_law(const ReleaseRequest& r, double l1) {
  NoiseLaw law;
  law.kind = NoiseKind::DiscreteLaplace;
  law.exact_parameter = rational_at_least(l1 / r.epsilon);
  law.scale = law.exact_parameter.to_double();
  law.unit_variance = discrete_laplace_variance(law.exact_parameter);
  law.law = "discrete Laplace, P(z) proportional to exp(-|z|/b), independent per cell";
  law.calibration = "b = l1_sensitivity / epsilon, rounded up to a rational";
  return law;
}

NoiseLaw discrete_gaussian_law(const ReleaseRequest& r) {
  NoiseLaw law;
  law.kind = NoiseKind::DiscreteGaussian;
  law.law = "discrete Gaussian, P(z) proportional to exp(-z^2/(2 sigma^2)), independent per cell";
  if (r.bounds.active()) {
    // One unit moves up to 2G cells by up to R each: the zCDP route, which
    // holds for any shift of that squared norm.
    const double l2 = r.l2_sensitivity();
    law.exact_parameter = lattice_gaussian_sigma2(r.epsilon, r.delta, l2 * l2);
    law.calibration = "smallest sigma^2 whose (l2_sensitivity^2 / (2 sigma^2))-zCDP converts to (epsilon, delta) "
                      "(Canonne, Kamath, Steinke 2020, Cor. 13)";
  } else {
    law.exact_parameter = discrete_gaussian_sigma2(r.epsilon, r.delta, moved_cells(r.neighbours));
    law.calibration = "smallest sigma^2 whose certified delta(epsilon) is at most delta "
                      "(Canonne, Kamath, Steinke 2020: exact privacy-loss sum or zCDP conversion)";
  }
  law.scale = std::sqrt(law.exact_parameter.to_double());
  law.unit_variance = discrete_gaussian_variance(law.exact_parameter);
  return law;
}

NoiseLaw gaussian_law(const ReleaseRequest& r, double l2) {
  NoiseLaw law;
  law.kind = NoiseKind::Gaussian;
  law.scale = analytic_gaussian_sigma(r.epsilon, r.delta, l2);
  law.unit_variance = law.scale * law.scale;
  law.law = "N(0, sigma^2) i.i.d. per cell, projected onto the null space of the invariants";
  law.calibration = "analytic Gaussian mechanism (Balle and Wang 2018): smallest sigma with exact delta(epsilon) <= delta";
  return law;
}

NoiseLaw laplace_law(const ReleaseRequest& r, double l1) {
  NoiseLaw law;
  law.kind = NoiseKind::Laplace;
  law.scale = l1 / r.epsilon;
  law.unit_variance = 2 * law.scale * law.scale;
  law.law = "Laplace(b) i.i.d. per cell, projected onto the null space of the invariants";
  law.calibration = "b = l1_sensitivity / epsilon (subspace_dp Cor 3.8)";
  return law;
}

// The l1 generalized Laplace q(z) ~ exp(-|z|_1 / b) on the invariant
// lattice (Dharangutte, Gao, Gong, Yu 2023, arXiv:2212.00936, Def. 9 with
// its epsilon = 1/b): i.i.d.
// discrete Laplace conditioned on A z = 0. A person's change within one
// margin group moves two cells by one: l1 distance 2, loss 2/b = epsilon.
NoiseLaw integer_laplace_law(const ReleaseRequest& r, double l1) {
  NoiseLaw law = discrete_laplace_law(r, l1);
  law.law = "discrete Laplace, P(z) proportional to exp(-|z|_1/b), conditioned on every declared margin "
            "(z sums to 0 over each margin group)";
  return law;
}

// The unconstrained noise of project_l2, project_nn_l2, project_nn_integer:
// eps-DP discrete Laplace, then a projection that reads only the public
// invariant totals (release_metadata.cpp states what that does and does not
// cover).
NoiseLaw projection_law(const ReleaseRequest& r, double l1) {
  NoiseLaw law = discrete_laplace_law(r, l1);
  law.law = "discrete Laplace, P(e) proportional to exp(-|e|/b), independent per cell, then the least-squares "
            "projection of x + e onto the invariants";
  if (r.mechanism->mechanism != Mechanism::ProjectL2) law.law += " with every cell non-negative";
  if (r.mechanism->mechanism == Mechanism::ProjectNnInteger)
    law.law += ", then controlled rounding to the nearest (l1) integer table that keeps the invariants";
  return law;
}

}  // namespace

// The lattice mechanisms protect the shortest move between tables with equal
// invariants; a privacy unit's change, up to l1 2GR and l2^2 2GR^2 (1 GR, G R^2
// for add_remove), is protected too when it is longer.
double protected_l1(const ReleaseRequest& r, double shortest_l1) {
  return std::max(shortest_l1, r.l1_sensitivity());
}

double protected_l2_squared(const ReleaseRequest& r, double shortest_l2_squared) {
  return std::max(shortest_l2_squared, r.l2_sensitivity() * r.l2_sensitivity());
}

NoiseLaw congenial_noise_law(const ReleaseRequest& r, double shortest_l1) {
  const double l1 = protected_l1(r, shortest_l1);
  ReleaseRequest base = r;
  base.epsilon = r.epsilon / 2;
  NoiseLaw law = discrete_laplace_law(base, l1);
  law.law = "discrete Laplace, P(y) proportional to exp(-|y - x|_1/b), conditioned on every declared margin and "
            "on y >= 0 in every cell";
  law.calibration = "b = l1_sensitivity / (epsilon / 2), rounded up to a rational: the base mechanism is "
                    "(epsilon/2)-DP and conditioning on data-dependent invariants costs at most a factor "
                    "1 + gamma <= 2 (Gong and Meng 2020, Thm 2.1)";
  law.l1_sensitivity = l1;
  law.l2_sensitivity = std::sqrt(l1);
  return law;
}

NoiseLaw lattice_noise_law(const ReleaseRequest& r, double shortest_l1, double shortest_l2_squared) {
  const double l1 = protected_l1(r, shortest_l1), l2_squared = protected_l2_squared(r, shortest_l2_squared);
  NoiseLaw law;
  switch (r.mechanism->mechanism) {
    case Mechanism::IntegerLaplaceL2:
      law.kind = NoiseKind::Laplace;
      law.scale = std::sqrt(l2_squared) / r.epsilon;
      law.law = "P(z) proportional to exp(-|z|_2/b) on the integer vectors that keep every declared margin";
      law.calibration = "b = l2 norm of the shortest protected move / epsilon";
      break;
    case Mechanism::IntegerGaussian:
      law.kind = NoiseKind::DiscreteGaussian;
      law.exact_parameter = lattice_gaussian_sigma2(r.epsilon, r.delta, l2_squared);
      law.scale = std::sqrt(law.exact_parameter.to_double());
      law.unit_variance = discrete_gaussian_variance(law.exact_parameter);
      law.law = "lattice Gaussian, P(z) proportional to exp(-|z|_2^2/(2 sigma^2)) on the integer vectors that "
                "keep every declared margin";
      law.calibration = "smallest sigma^2 whose (|v|_2^2 / (2 sigma^2))-zCDP converts to (epsilon, delta) "
                        "(Canonne, Kamath, Steinke 2020, Cor. 13); |v| the shortest protected move";
      break;
    default:
      law = integer_laplace_law(r, l1);
  }
  law.l1_sensitivity = l1;
  law.l2_sensitivity = std::sqrt(l2_squared);
  return law;
}

NoiseLaw calibrate_noise(const ReleaseRequest& request) {
  const double l1 = request.l1_sensitivity();
  const double l2 = request.l2_sensitivity();
  NoiseLaw law;
  switch (request.mechanism->mechanism) {
    case Mechanism::DiscreteLaplace: law = discrete_laplace_law(request, l1); break;
    case Mechanism::DiscreteGaussian: law = discrete_gaussian_law(request); break;
    case Mechanism::SubspaceGaussian: law = gaussian_law(request, l2); break;
    case Mechanism::SubspaceLaplace: law = laplace_law(request, l1); break;
    case Mechanism::IntegerLaplace: law = integer_laplace_law(request, l1); break;
    case Mechanism::IntegerLaplaceL2:
    case Mechanism::IntegerGaussian: return lattice_noise_law(request, l1, l2 * l2);
    case Mechanism::Congenial: return congenial_noise_law(request, l1);
    case Mechanism::ProjectL2:
    case Mechanism::ProjectNnL2:
    case Mechanism::ProjectNnInteger: law = projection_law(request, l1); break;
    case Mechanism::Cascade:  // calibrated on their tree: rollups/hierarchy_release.cpp
    case Mechanism::IntegerCascade:
      throw InvalidArgument(std::string("mechanism \"") + request.mechanism->name + "\" needs a hierarchy");
  }
  law.l1_sensitivity = l1;
  law.l2_sensitivity = l2;
  return law;
}

void check_float8_margins(double noise_sd, std::size_t cells) {
  const double limit = 0.5 / (40 * std::ldexp(1.0, -52) * double(std::max<std::size_t>(cells, 1)));
  if (!(noise_sd <= limit))
    throw OutOfRange("epsilon is too small to keep the margins exact in a real-valued release",
                     "Its noise (standard deviation " + format_double(noise_sd) + " over " + std::to_string(cells) +
                         " cells) is beyond what float8 can add and still sum to the exact totals; at most " +
                         json_number(limit) + " is kept exact.",
                     "Raise epsilon, or use an integer mechanism (integer_laplace, integer_gaussian), whose margins "
                     "are exact at any epsilon.");
}

}  // namespace invariant_dp
