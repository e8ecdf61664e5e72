// Calibration of the integer cascade (integer_cascade_calibration.hpp).
#include "integer_cascade_calibration.hpp"

#include <cmath>

#include "../calibration/zcdp.hpp"
#include "../errors.hpp"
#include "../json_text.hpp"
#include "../samplers/interval.hpp"
#include "cascade_privacy.hpp"
#include "integer_cascade_accuracy.hpp"
#include "integer_cascade_sampler.hpp"
#include "integer_cascade_splits.hpp"

namespace invariant_dp::hierarchy {
namespace {

// Floating-point slack: a calibrated scale is raised by this factor, far
// above the rounding of m / s2 against the scaled law's own sensitivity.
constexpr double kSlack = 1 + 1e-12;

// Everything but the budget fields, for the law that will be sampled, whose
// largest dx^T Sigma^+ dx is sensitivity_squared.
IntegerCascadeCalibration describe_integer_cascade(const HierarchyTree& tree, const CascadeLaw& law,
                                                   double sensitivity_squared, Neighbours neighbours,
                                                   const char* derived_from, const Interrupts& interrupts) {
  IntegerCascadeCalibration c;
  c.privacy.derived_from = derived_from;
  c.privacy.neighbours = neighbours;
  c.privacy.level_variance = law.level_variances();
  for (unsigned d = 0; d <= tree.height(); ++d) c.privacy.level_names.push_back(tree.level_name(d));
  c.privacy.n_fixed_nodes = law.n_fixed_nodes();
  c.privacy.sensitivity_squared = sensitivity_squared;
  c.privacy.rho = sensitivity_squared / 2;
  const IntegerSplits splits(tree, law, interrupts);
  require_integer_cascade_exact(splits);
  c.acceptance_bound = integer_cascade_acceptance_bound(splits);
  c.variance_deficit_bound = integer_cascade_variance_deficit_bound(splits);
  for (double v : c.privacy.level_variance)
    c.level_variance_lower.push_back(integer_variance_bounds(v, c.variance_deficit_bound).lower);
  return c;
}

}  // namespace

double integer_cascade_scale_epsilon_delta(double m, double epsilon, double delta) {
  // The scale whose rho = m / (2 s2) meets (epsilon, delta) by CKS Cor. 13,
  // rounded up, and raised by kSlack so that the law's own sensitivity (m/s2
  // up to rounding; the scaled law is the shape times s2 level by level)
  // stays within it.
  return next_up(lattice_gaussian_sigma2(epsilon, delta, m).to_double()) * kSlack;
}

double integer_cascade_scale_rho(double m, double rho) { return m / (2 * rho) * kSlack; }

CalibratedIntegerLaw calibrate_integer_cascade_epsilon_delta(const HierarchyTree& tree, const CascadeLaw& shape,
                                                             double epsilon, double delta, const Protected& protect,
                                                             const Interrupts& interrupts) {
  if (!(epsilon > 0) || !std::isfinite(epsilon)) throw InvalidArgument("epsilon must be finite and positive");
  if (!(delta > 0 && delta < 1)) throw InvalidArgument("delta must be in (0, 1)");
  const Neighbours neighbours = protect.neighbours;
  const double m = shape_sensitivity(tree, shape, protect, interrupts);
  const double s2 = integer_cascade_scale_epsilon_delta(m, epsilon, delta);
  const CascadeLaw law = shape.scaled(s2);
  CalibratedIntegerLaw out{law, describe_integer_cascade(tree, law, m / s2, neighbours, "epsilon_delta", interrupts)};
  if (zcdp_delta(epsilon, out.calibration.privacy.rho) > delta)
    throw Error("integer cascade calibration missed its delta");
  out.calibration.privacy.epsilon = epsilon;
  out.calibration.privacy.delta = delta;
  return out;
}

CalibratedIntegerLaw calibrate_integer_cascade_rho(const HierarchyTree& tree, const CascadeLaw& shape, double rho,
                                                   const Protected& protect, const Interrupts& interrupts) {
  if (!std::isfinite(rho) || rho <= 0) throw InvalidArgument("rho must be finite and positive");
  const Neighbours neighbours = protect.neighbours;
  const double m = shape_sensitivity(tree, shape, protect, interrupts);
  const double s2 = integer_cascade_scale_rho(m, rho);
  const CascadeLaw law = shape.scaled(s2);
  return CalibratedIntegerLaw{law, describe_integer_cascade(tree, law, m / s2, neighbours, "rho", interrupts)};
}

CalibratedIntegerLaw integer_cascade_cost_of_targets(const HierarchyTree& tree, const CascadeLaw& law, double delta,
                                                     const Protected& protect, const Interrupts& interrupts) {
  if (!(delta > 0 && delta < 1)) throw InvalidArgument("delta must be in (0, 1)");
  CalibratedIntegerLaw out{
      law, describe_integer_cascade(tree, law, protected_sensitivity_squared(tree, law, protect, interrupts),
                                    protect.neighbours, "variance_targets", interrupts)};
  CascadeCalibration& c = out.calibration.privacy;
  c.delta = delta;
  if (c.rho == 0) return out;
  // zcdp_delta decreases in epsilon: bracket, bisect, report the upper end.
  double lo = 0, hi = 1;
  // Ends: hi doubles up to 1e6, then refuses: at most 20 passes.
  while (zcdp_delta(hi, c.rho) > delta) {
    hi *= 2;
    if (hi > 1e6) throw OutOfRange("the variance targets are too small for any useful epsilon");
  }
  for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (zcdp_delta(mid, c.rho) > delta ? lo : hi) = mid;
  }
  c.epsilon = hi;
  return out;
}

std::string IntegerCascadeCalibration::to_json() const {
  const CascadeCalibration& p = privacy;
  std::string out = "{\"mechanism\": \"integer_cascade\", \"derived_from\": " + json_quoted(p.derived_from) +
                    ", \"neighbours\": " + json_quoted(neighbours_name(p.neighbours));
  if (p.epsilon > 0) out += ", \"epsilon\": " + json_number(p.epsilon);
  if (p.delta > 0) out += ", \"delta\": " + json_number(p.delta);
  out += ", \"rho\": " + json_number(p.rho) + ", \"sensitivity_squared\": " + json_number(p.sensitivity_squared) +
         ", \"epsilon_delta_conversion\": \"zCDP, Canonne-Kamath-Steinke 2020 Cor. 13\"" +
         ", \"fixed_nodes\": " + std::to_string(p.n_fixed_nodes) + ", \"levels\": [";
  for (std::size_t d = 0; d < p.level_variance.size(); ++d) {
    out += (d ? ", " : "") + std::string("{\"depth\": ") + std::to_string(d) + ", \"name\": " +
           json_quoted(p.level_names[d]) + ", \"variance\": " + json_number(p.level_variance[d]) +
           ", \"variance_lower_bound\": " + json_number(level_variance_lower[d]) + "}";
  }
  return out + "], \"variance_deficit_bound\": " + json_number(published_deficit_bound(variance_deficit_bound)) +
         ", \"sampler\": {\"exact\": true, \"acceptance_lower_bound\": " + json_number(acceptance_bound) +
         "}, \"noise_law\": \"lattice Gaussian on the integer leaves, P(z) proportional to exp(-z' Sigma^-1 z / 2), "
         "Sigma the cascade covariance (conditioned on the exact totals); every node an integer and the sum of its "
         "children; mean 0; each node's variance lies in [variance_lower_bound, variance] of its level (the "
         "closed form of the cascade times (1 - variance_deficit_bound) and 1, for any linear query)\"}";
}

}  // namespace invariant_dp::hierarchy
