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
constexpr std::uint32_t kExactTerms = 64;  // as coordinate_sum_bound

// Exact for precisions of at least 128 bits; rounded in the given direction otherwise.
void mpfr_set_u128(mpfr_ptr out, u128 x, mpfr_rnd_t rnd) {
  Mp t(128);
  mpfr_set_ui(t.v, static_cast<unsigned long>(x >> 64), MPFR_RNDN);
  mpfr_mul_2ui(t.v, t.v, 64, MPFR_RNDN);
  mpfr_add_ui(t.v, t.v, static_cast<unsigned long>(x), MPFR_RNDN);
  mpfr_set(out, t.v, rnd);
}

// B(eta) in double, for choosing eta only.
double deficit_bound_double(const IntegerSplits& splits, double eta) {
  const double sum = coordinate_sum_bound(
      splits,
      [eta](double s2) {
        const double q = std::exp(-kTwoPiSquared * (1 - eta) * s2);
        return q < 1 ? 2 * q / (1 - q) : INFINITY;
      },
      true);
  return 2 / (eta * std::exp(1.0)) * std::expm1(sum);
}

// Upper bound of 2 q/(1 - q), q = exp(-2 pi^2 (1 - eta) num/den), added to total.
void add_term(mpfr_ptr total, u128 num, u128 den, double eta, std::uint64_t count, mpfr_srcptr pi2_lo) {
  const mpfr_prec_t p = kPrecision;
  Mp a(p), b(p), q(p), t(p);
  mpfr_set_u128(a.v, num, MPFR_RNDD);
  mpfr_set_u128(b.v, den, MPFR_RNDU);
  mpfr_div(a.v, a.v, b.v, MPFR_RNDD);           // s^2, low
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
  mpfr_mul_ui(t.v, t.v, static_cast<unsigned long>(count), MPFR_RNDU);
  mpfr_add(total, total, t.v, MPFR_RNDU);
}

VarianceBounds bounds_of(double closed_form, double deficit_bound) {
  VarianceBounds b;
  b.upper = closed_form;
  b.lower = deficit_bound >= 1 ? 0.0 : std::nextafter(closed_form * (1 - deficit_bound), 0.0);
  return b;
}

}  // namespace

double integer_cascade_variance_deficit_bound(const IntegerSplits& splits) {
  // eta = 2^-k minimising the double estimate (every eta gives a valid bound).
  double eta = 0.5, best = INFINITY;
  for (int k = 1; k <= 24; ++k) {
    const double e = std::ldexp(1.0, -k), b = deficit_bound_double(splits, e);
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
  if (splits.root_free()) add_term(total.v, splits.root_num(), splits.root_den(), eta, 1, pi2.v);
  for (const SplitClass& c : splits.classes()) {
    const std::uint32_t exact_end = c.fanout < kExactTerms ? c.fanout : kExactTerms;
    for (std::uint32_t i = 1; i < exact_end; ++i)
      add_term(total.v, c.tau2_num * i, c.tau2_den * (i + 1), eta, c.n_nodes, pi2.v);
    if (c.fanout > kExactTerms)
      add_term(total.v, c.tau2_num * kExactTerms, c.tau2_den * (kExactTerms + 1), eta,
               c.n_nodes * (c.fanout - kExactTerms), pi2.v);
  }
  // (2 / (eta e)) expm1(total), rounded up.
  mpfr_expm1(total.v, total.v, MPFR_RNDU);
  mpfr_set_ui(t.v, 1, MPFR_RNDN);
  mpfr_exp(t.v, t.v, MPFR_RNDD);                  // e, low
  mpfr_mul_d(t.v, t.v, eta, MPFR_RNDD);           // exact scaling by 2^-k
  mpfr_div(total.v, total.v, t.v, MPFR_RNDU);
  mpfr_mul_2ui(total.v, total.v, 1, MPFR_RNDU);
  return mpfr_get_d(total.v, MPFR_RNDU);
}

VarianceBounds integer_node_variance(const HierarchyTree& tree, const CascadeLaw& law, double deficit_bound,
                                     std::uint32_t node) {
  return bounds_of(node_variance(tree, law, node), deficit_bound);
}

VarianceBounds integer_range_variance(const HierarchyTree& tree, const CascadeLaw& law, double deficit_bound,
                                      std::uint32_t lo, std::uint32_t hi) {
  return bounds_of(range_variance(tree, law, lo, hi), deficit_bound);
}

VarianceBounds integer_leaf_covariance(const HierarchyTree& tree, const CascadeLaw& law, double deficit_bound,
                                       std::uint32_t i, std::uint32_t j) {
  const double c = leaf_covariance(tree, law, i, j);
  const double spread =
      deficit_bound * std::sqrt(leaf_covariance(tree, law, i, i) * leaf_covariance(tree, law, j, j));
  return VarianceBounds{std::nextafter(c - spread, -INFINITY), std::nextafter(c + spread, INFINITY)};
}

}  // namespace invariant_dp::hierarchy
