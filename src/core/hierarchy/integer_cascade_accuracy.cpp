// Certified variance bounds of the integer cascade (integer_cascade_accuracy.hpp).
#include "integer_cascade_accuracy.hpp"

#include <mpfr.h>

#include <cmath>

#include "../samplers/mpfr_scoped.hpp"
#include "cascade_covariance.hpp"

namespace invariant_dp::hierarchy {
namespace {

using u128 = Uint128;

constexpr double kTwoPiSquared = 2 * 9.8696044010893586;
constexpr mpfr_prec_t kPrecision = 96;

// Exact for precisions of at least 128 bits; rounded in the given direction otherwise.
void mpfr_set_u128(mpfr_ptr out, u128 x, mpfr_rnd_t rnd) {
  Mp t(128);
  mpfr_set_ui(t.v, static_cast<unsigned long>(x >> 64), MPFR_RNDN);
  mpfr_mul_2ui(t.v, t.v, 64, MPFR_RNDN);
  mpfr_add_ui(t.v, t.v, static_cast<unsigned long>(x), MPFR_RNDN);
  mpfr_set(out, t.v, rnd);
}

// Calls f(s2, count, groups) for every coordinate group of the product.
template <class F>
void for_each_product(const std::vector<std::vector<CoordinateGroup>>& factors, F f) {
  for (const auto& g : factors)
    if (g.empty()) return;
  std::vector<std::size_t> at(factors.size(), 0);
  std::vector<const CoordinateGroup*> groups(factors.size());
  for (;;) {
    for (std::size_t k = 0; k < factors.size(); ++k) groups[k] = &factors[k][at[k]];
    f(groups);
    std::size_t k = 0;
    while (k < factors.size() && ++at[k] == factors[k].size()) at[k++] = 0;
    if (k == factors.size()) return;
  }
}

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
  });
  return 2 / (eta * std::exp(1.0)) * std::expm1(sum);
}

// Adds an upper bound of count * 2 q/(1 - q), q = exp(-2 pi^2 (1 - eta) s^2),
// s^2 the product of the groups' s^2, to total.
void add_term(mpfr_ptr total, const std::vector<const CoordinateGroup*>& groups, double eta, mpfr_srcptr pi2_lo) {
  const mpfr_prec_t p = kPrecision;
  Mp a(p), b(p), q(p), t(p), count(p);
  mpfr_set_ui(a.v, 1, MPFR_RNDN);
  mpfr_set_ui(count.v, 1, MPFR_RNDN);
  for (const CoordinateGroup* g : groups) {
    mpfr_set_u128(b.v, g->s2_num, MPFR_RNDD);
    mpfr_mul(a.v, a.v, b.v, MPFR_RNDD);
    mpfr_set_u128(b.v, g->s2_den, MPFR_RNDU);
    mpfr_div(a.v, a.v, b.v, MPFR_RNDD);           // s^2, low
    mpfr_mul_ui(count.v, count.v, static_cast<unsigned long>(g->count), MPFR_RNDU);
  }
  mpfr_mul(a.v, a.v, pi2_lo, MPFR_RNDD);
  mpfr_mul_2ui(a.v, a.v, 1, MPFR_RNDD);          // 2 pi^2 s^2, low
  mpfr_mul_d(a.v, a.v, 1 - eta, MPFR_RNDD);      // eta = 2^-k: 1 - eta exact
  mpfr_neg(a.v, a.v, MPFR_RNDN);
  mpfr_exp(q.v, a.v, MPFR_RNDU);                 // q, high
  mpfr_ui_sub(t.v, 1, q.v, MPFR_RNDD);
  if (mpfr_sgn(t.v) <= 0) {
    mpfr_set_inf(total, 1);
    return;
  }
  mpfr_div(t.v, q.v, t.v, MPFR_RNDU);
  mpfr_mul_2ui(t.v, t.v, 1, MPFR_RNDU);
  mpfr_mul(t.v, t.v, count.v, MPFR_RNDU);
  mpfr_add(total, total, t.v, MPFR_RNDU);
}

}  // namespace

double product_variance_deficit_bound(const std::vector<std::vector<CoordinateGroup>>& factors) {
  // eta = 2^-k minimising the double estimate (every eta gives a valid bound).
  double eta = 0.5, best = INFINITY;
  for (int k = 1; k <= 24; ++k) {
    const double e = std::ldexp(1.0, -k), b = deficit_bound_double(factors, e);
    if (b < best) {
      best = b;
      eta = e;
    }
  }
  const mpfr_prec_t p = kPrecision;
  Mp pi2(p), total(p), t(p);
  mpfr_const_pi(pi2.v, MPFR_RNDD);
  mpfr_sqr(pi2.v, pi2.v, MPFR_RNDD);
  mpfr_set_ui(total.v, 0, MPFR_RNDN);
  for_each_product(factors, [&](const std::vector<const CoordinateGroup*>& groups) {
    add_term(total.v, groups, eta, pi2.v);
  });
  // (2 / (eta e)) expm1(total), rounded up.
  mpfr_expm1(total.v, total.v, MPFR_RNDU);
  mpfr_set_ui(t.v, 1, MPFR_RNDN);
  mpfr_exp(t.v, t.v, MPFR_RNDD);                  // e, low
  mpfr_mul_d(t.v, t.v, eta, MPFR_RNDD);           // exact scaling by 2^-k
  mpfr_div(total.v, total.v, t.v, MPFR_RNDU);
  mpfr_mul_2ui(total.v, total.v, 1, MPFR_RNDU);
  return mpfr_get_d(total.v, MPFR_RNDU);
}

VarianceBounds integer_variance_bounds(double closed_form, double deficit_bound) {
  VarianceBounds b;
  b.upper = closed_form;
  b.lower = deficit_bound >= 1 ? 0.0 : std::nextafter(closed_form * (1 - deficit_bound), 0.0);
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
  return VarianceBounds{std::nextafter(c - spread, -INFINITY), std::nextafter(c + spread, INFINITY)};
}

}  // namespace invariant_dp::hierarchy
