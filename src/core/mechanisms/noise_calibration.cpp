// The calibration steps the mechanisms share; each mechanism's own law is
// in its file (mechanisms/<name>.cpp) and states the guarantee it certifies.
#include "noise_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "../errors.hpp"
#include "../json_text.hpp"
#include "../samplers/discrete_laplace.hpp"
#include "mechanism_behaviour.hpp"

namespace invariant_dp {
namespace {

double protected_l2_squared(const ReleaseRequest& r, double shortest_l2_squared) {
  return std::max(shortest_l2_squared, r.l2_sensitivity() * r.l2_sensitivity());
}

}  // namespace

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

NoiseLaw at_request_sensitivities(NoiseLaw law, const ReleaseRequest& request) {
  law.l1_sensitivity = request.l1_sensitivity();
  law.l2_sensitivity = request.l2_sensitivity();
  return law;
}

double protected_l1(const ReleaseRequest& r, double shortest_l1) {
  return std::max(shortest_l1, r.l1_sensitivity());
}

NoiseLaw lattice_noise_law(const ReleaseRequest& r, LatticeLaw lattice_law, double shortest_l1,
                           double shortest_l2_squared) {
  const double l1 = protected_l1(r, shortest_l1), l2_squared = protected_l2_squared(r, shortest_l2_squared);
  NoiseLaw law = lattice_law(r, l1, l2_squared);
  law.l1_sensitivity = l1;
  law.l2_sensitivity = std::sqrt(l2_squared);
  return law;
}

double covariance_scale_of_table(const std::vector<std::size_t>& shape, double cell_variance) {
  double diagonal = 1;
  for (const std::size_t n : shape) diagonal *= double(n - 1) / double(n);
  return diagonal > 0 ? cell_variance / diagonal : 0;
}

NoiseLaw calibrate_noise(const ReleaseRequest& request) { return request.mechanism->behaviour().calibrate(request); }

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
