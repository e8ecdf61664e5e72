// Certified variance bounds of the integer cascade (integer_cascade_accuracy.hpp).
#include "integer_cascade_accuracy.hpp"

#include <cmath>

#include "../math_constants.hpp"
#include "../samplers/interval.hpp"
#include "cascade_covariance.hpp"
#include "theta_sums.hpp"

namespace invariant_dp::hierarchy {
namespace {

// B(eta) in double, for choosing eta only.
double deficit_bound_double(const std::vector<std::vector<CoordinateGroup>>& factors, double eta) {
  double sum = 0;
  for_each_product(factors, [&](const std::vector<const CoordinateGroup*>& groups) {
    double s2 = 1, count = 1;
    for (const CoordinateGroup* g : groups) {
      s2 *= g->s2();
      count *= double(g->count);
    }
    const double q = std::exp(-kTwoPiSquared * (1 - eta) * s2);
    sum += q < 1 ? count * 2 * q / (1 - q) : INFINITY;
    return true;
  });
  return 2 / (eta * std::exp(1.0)) * std::expm1(sum);
}

}  // namespace

double product_variance_deficit_bound(const std::vector<std::vector<CoordinateGroup>>& factors, CoordinateTerms* kept) {
  // eta = 2^-k minimising the double estimate (every eta gives a valid bound).
  double eta = 0.5, best = INFINITY;
  for (int k = 1; k <= 24; ++k) {
    const double e = std::ldexp(1.0, -k), b = deficit_bound_double(factors, e);
    if (b < best) {
      best = b;
      eta = e;
    }
  }
  // The sum over coordinates of count * 2 q/(1 - q), q at (1 - eta) s^2
  // (eta = 2^-k: 1 - eta is exact).
  const mpfr_prec_t p = kThetaPrecision;
  Interval total(p);
  bool says_nothing = false;
  for_each_product(factors, [&](const std::vector<const CoordinateGroup*>& groups) {
    const std::optional<Interval> t = coordinate_term(groups, CoordinateTerm::twice_q_ratio, 1 - eta, kept);
    if (!t) {
      says_nothing = true;
      return false;
    }
    accumulate(total, *t);
    return true;
  });
  if (says_nothing) return INFINITY;
  // (2 / (eta e)) expm1(total).
  const Interval eta_e = mul(exp(exact(p, std::uint64_t{1})), exact_double(p, eta));
  return to_double(scale_2exp(div(expm1(total), eta_e), 1), End::upper);
}

VarianceBounds integer_variance_bounds(double closed_form, double deficit_bound) {
  VarianceBounds b;
  b.upper = closed_form;
  b.lower = deficit_bound >= 1 ? 0.0 : next_down_to_zero(closed_form * (1 - deficit_bound));
  return b;
}

double integer_cascade_variance_deficit_bound(const IntegerSplits& splits) {
  return product_variance_deficit_bound({coordinate_groups(splits)});
}

VarianceBounds integer_node_variance(const HierarchyTree& tree, const CascadeLaw& law, double deficit_bound,
                                     std::uint32_t node) {
  return integer_variance_bounds(node_variance(tree, law, node), deficit_bound);
}

VarianceBounds integer_range_variance(const HierarchyTree& tree, const CascadeLaw& law, double deficit_bound,
                                      std::uint32_t lo, std::uint32_t hi) {
  return integer_variance_bounds(range_variance(tree, law, lo, hi), deficit_bound);
}

VarianceBounds integer_leaf_covariance(const HierarchyTree& tree, const CascadeLaw& law, double deficit_bound,
                                       std::uint32_t i, std::uint32_t j) {
  const double c = leaf_covariance(tree, law, i, j);
  const double spread =
      deficit_bound * std::sqrt(leaf_covariance(tree, law, i, i) * leaf_covariance(tree, law, j, j));
  return VarianceBounds{next_down(c - spread), next_up(c + spread)};
}

}  // namespace invariant_dp::hierarchy
