// Calibration of cascade noise (cascade_calibration.hpp).
#include "cascade_calibration.hpp"

#include <cmath>
#include <cstdio>

#include "../calibration/analytic_gaussian.hpp"
#include "../errors.hpp"
#include "../json_text.hpp"
#include "cascade_privacy.hpp"

namespace invariant_dp::hierarchy {
namespace {

// The smallest epsilon at which the Gaussian mechanism with this
// dx^T Sigma^+ dx (its sensitivity in units of its sd, squared) is
// (epsilon, delta)-DP (Balle and Wang 2018's exact condition,
// analytic_gaussian.hpp). delta(eps) decreases in eps: bracket, bisect,
// report the upper end (a claim that holds).
double epsilon_at_delta(double sensitivity_squared, double delta) {
  const double sensitivity = std::sqrt(sensitivity_squared);
  double lo = 0, hi = 1;
  // Ends: hi doubles up to 1e6, then refuses: at most 20 passes.
  while (gaussian_mechanism_delta(hi, 1.0, sensitivity) > delta) {
    hi *= 2;
    if (hi > 1e6) throw OutOfRange("the noise is too small for any useful epsilon");
  }
  for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (gaussian_mechanism_delta(mid, 1.0, sensitivity) > delta ? lo : hi) = mid;
  }
  return hi;
}

CascadeCalibration describe_cascade(const HierarchyTree& tree, const CascadeLaw& law, Neighbours neighbours,
                                    const char* derived_from) {
  CascadeCalibration c;
  c.derived_from = derived_from;
  c.neighbours = neighbours;
  c.level_variance = law.level_variances();
  for (unsigned d = 0; d <= tree.height(); ++d) c.level_names.push_back(tree.level_name(d));
  c.n_fixed_nodes = law.n_fixed_nodes();
  return c;
}

}  // namespace

double shape_sensitivity(const HierarchyTree& tree, const CascadeLaw& shape, const Protected& protect,
                         const Interrupts& interrupts) {
  const double m = protected_sensitivity_squared(tree, shape, protect, interrupts);
  if (!(m > 0)) {
    throw InconsistentInvariants(
        "the release leaves no change of one person to protect",
        "Under replace_one neighbours a person can only move between cells whose totals are not exact; here "
        "there is a single cell, or every such move would change an exact total.",
        "Keep fewer totals exact, or use add_remove neighbours when no total is exact.");
  }
  return m;
}

CalibratedLaw calibrate_epsilon_delta(const HierarchyTree& tree, const CascadeLaw& shape, double epsilon, double delta,
                                      const Protected& protect, const Interrupts& interrupts) {
  const Neighbours neighbours = protect.neighbours;
  const double m = shape_sensitivity(tree, shape, protect, interrupts);
  const double s = analytic_gaussian_sigma(epsilon, delta, std::sqrt(m));
  CalibratedLaw out{shape.scaled(s * s), {}};
  out.calibration = describe_cascade(tree, out.law, neighbours, "epsilon_delta");
  out.calibration.epsilon = epsilon;
  out.calibration.delta = delta;
  out.calibration.sensitivity_squared = m / (s * s);
  out.calibration.rho = out.calibration.sensitivity_squared / 2;
  return out;
}

CalibratedLaw calibrate_rho(const HierarchyTree& tree, const CascadeLaw& shape, double rho, double delta,
                            const Protected& protect, const Interrupts& interrupts) {
  if (!std::isfinite(rho) || rho <= 0) throw InvalidArgument("rho must be finite and positive");
  const Neighbours neighbours = protect.neighbours;
  const double m = shape_sensitivity(tree, shape, protect, interrupts);
  const double s2 = m / (2 * rho);
  CalibratedLaw out{shape.scaled(s2), {}};
  out.calibration = describe_cascade(tree, out.law, neighbours, "rho");
  out.calibration.rho = rho;
  out.calibration.sensitivity_squared = m / s2;
  if (delta > 0) {
    out.calibration.delta = delta;
    out.calibration.epsilon = epsilon_at_delta(out.calibration.sensitivity_squared, delta);
  }
  return out;
}

CascadeCalibration cost_of_targets(const HierarchyTree& tree, const CascadeLaw& law, double delta,
                                   const Protected& protect, const Interrupts& interrupts) {
  if (!(delta > 0 && delta < 1)) throw InvalidArgument("delta must be in (0, 1)");
  CascadeCalibration c = describe_cascade(tree, law, protect.neighbours, "variance_targets");
  c.delta = delta;
  c.sensitivity_squared = protected_sensitivity_squared(tree, law, protect, interrupts);
  c.rho = c.sensitivity_squared / 2;
  if (c.sensitivity_squared == 0) return c;
  c.epsilon = epsilon_at_delta(c.sensitivity_squared, delta);
  return c;
}

std::string CascadeCalibration::to_json() const {
  std::string out = "{\"mechanism\": \"cascade\", \"derived_from\": " + json_quoted(derived_from) +
                    ", \"neighbours\": " + json_quoted(neighbours_name(neighbours));
  if (epsilon > 0) out += ", \"epsilon\": " + json_number(epsilon);
  if (delta > 0) out += ", \"delta\": " + json_number(delta);
  out += ", \"rho\": " + json_number(rho) + ", \"sensitivity_squared\": " + json_number(sensitivity_squared) +
         ", \"fixed_nodes\": " + std::to_string(n_fixed_nodes) + ", \"levels\": [";
  for (std::size_t d = 0; d < level_variance.size(); ++d) {
    out += (d ? ", " : "") + std::string("{\"depth\": ") + std::to_string(d) + ", \"name\": " +
           json_quoted(level_names[d]) + ", \"variance\": " + json_number(level_variance[d]) + "}";
  }
  return out +
         "], \"noise_law\": \"N(0, Sigma): cascade sampling; each node of a level N(0, variance), children sum to "
         "their parent (the only child of a node has its parent's variance), closed-form covariance\"}";
}

}  // namespace invariant_dp::hierarchy
