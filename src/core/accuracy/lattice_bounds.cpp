// Certified constants of the Klein-structured lattice Gaussians
// (lattice_bounds.hpp). Rounding: every MPFR step rounds toward the side
// that makes the final bound larger.
#include "lattice_bounds.hpp"

#include <mpfr.h>

#include <algorithm>
#include <cmath>

#include "../errors.hpp"
#include "../hierarchy/integer_cascade_accuracy.hpp"
#include "../samplers/mpfr_scoped.hpp"

namespace invariant_dp::accuracy {
namespace {

using hierarchy::CoordinateGroup;
constexpr mpfr_prec_t kPrecision = 96;

void set_u128(mpfr_ptr out, Uint128 x, mpfr_rnd_t rnd) {
  Mp t(128);
  mpfr_set_ui(t.v, static_cast<unsigned long>(x >> 64), MPFR_RNDN);
  mpfr_mul_2ui(t.v, t.v, 64, MPFR_RNDN);
  mpfr_add_ui(t.v, t.v, static_cast<unsigned long>(x), MPFR_RNDN);
  mpfr_set(out, t.v, rnd);
}

// total += count * (log1p(2 S) - log1p(-2 S)), S = q/(1 - q), q = exp(-2 pi^2 s2)
// for coordinates whose s^2 is at least s2_low; rounded up. Sets total to
// +inf when the bound says nothing (2 S >= 1, i.e. q >= 1/3).
void add_log_ratio(mpfr_ptr total, mpfr_srcptr s2_low, mpfr_srcptr count) {
  Mp a(kPrecision), q(kPrecision), s(kPrecision), up(kPrecision), down(kPrecision);
  mpfr_const_pi(a.v, MPFR_RNDD);
  mpfr_sqr(a.v, a.v, MPFR_RNDD);
  mpfr_mul_2ui(a.v, a.v, 1, MPFR_RNDD);
  mpfr_mul(a.v, a.v, s2_low, MPFR_RNDD);  // 2 pi^2 s2, low
  mpfr_neg(a.v, a.v, MPFR_RNDN);
  mpfr_exp(q.v, a.v, MPFR_RNDU);          // q, high
  mpfr_ui_sub(s.v, 1, q.v, MPFR_RNDD);
  if (mpfr_sgn(s.v) <= 0) {
    mpfr_set_inf(total, 1);
    return;
  }
  mpfr_div(s.v, q.v, s.v, MPFR_RNDU);     // S, high
  mpfr_mul_2ui(s.v, s.v, 1, MPFR_RNDU);   // 2 S, high
  if (mpfr_cmp_ui(s.v, 1) >= 0) {
    mpfr_set_inf(total, 1);
    return;
  }
  mpfr_log1p(up.v, s.v, MPFR_RNDU);
  mpfr_neg(s.v, s.v, MPFR_RNDN);
  mpfr_log1p(down.v, s.v, MPFR_RNDD);     // log1p(-2S), low (negative)
  mpfr_sub(up.v, up.v, down.v, MPFR_RNDU);
  mpfr_mul(up.v, up.v, count, MPFR_RNDU);
  mpfr_add(total, total, up.v, MPFR_RNDU);
}

}  // namespace

std::vector<std::vector<CoordinateGroup>> table_coordinates(Rational sigma2, const std::vector<std::size_t>& shape,
                                                            std::size_t pool) {
  if (sigma2.num == 0 || sigma2.den == 0) throw InvalidArgument("a lattice Gaussian needs a positive variance");
  if (pool == 0 && !shape.empty())
    pool = std::min<std::size_t>(
        48, std::max<std::size_t>(2, static_cast<std::size_t>(std::pow(4096.0, 1.0 / double(shape.size())))));
  std::vector<std::vector<CoordinateGroup>> factors;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    std::vector<CoordinateGroup> groups;
    for (std::size_t i = 1; i < shape[k]; ++i) {
      CoordinateGroup g;
      g.s2_num = Uint128(i) * (k == 0 ? sigma2.num : 1);
      g.s2_den = Uint128(i + 1) * (k == 0 ? sigma2.den : 1);
      g.count = 1;
      groups.push_back(g);
    }
    factors.push_back(hierarchy::pooled_groups(std::move(groups), pool));
  }
  return factors;
}

double table_deficit_bound(Rational sigma2, const std::vector<std::size_t>& shape) {
  return hierarchy::product_variance_deficit_bound(table_coordinates(sigma2, shape));
}

double log_theta_ratio(const std::vector<std::vector<CoordinateGroup>>& factors) {
  for (const auto& f : factors)
    if (f.empty()) return 0;  // no coordinate
  Mp total(kPrecision), s2(kPrecision), t(kPrecision), count(kPrecision);
  mpfr_set_ui(total.v, 0, MPFR_RNDN);
  std::vector<std::size_t> at(factors.size(), 0);
  for (;;) {
    mpfr_set_ui(s2.v, 1, MPFR_RNDN);
    mpfr_set_ui(count.v, 1, MPFR_RNDN);
    for (std::size_t k = 0; k < factors.size(); ++k) {
      const CoordinateGroup& g = factors[k][at[k]];
      set_u128(t.v, g.s2_num, MPFR_RNDD);
      mpfr_mul(s2.v, s2.v, t.v, MPFR_RNDD);
      set_u128(t.v, g.s2_den, MPFR_RNDU);
      mpfr_div(s2.v, s2.v, t.v, MPFR_RNDD);
      mpfr_mul_ui(count.v, count.v, static_cast<unsigned long>(g.count), MPFR_RNDU);
    }
    add_log_ratio(total.v, s2.v, count.v);
    if (mpfr_inf_p(total.v)) return INFINITY;
    std::size_t k = 0;
    while (k < factors.size() && ++at[k] == factors[k].size()) at[k++] = 0;
    if (k == factors.size()) break;
  }
  return mpfr_get_d(total.v, MPFR_RNDU);
}

double log_theta_ratio_at_least(double s2, double count) {
  if (!(s2 > 0) || !(count >= 0)) return INFINITY;
  if (count == 0) return 0;
  Mp total(kPrecision), low(kPrecision), n(kPrecision);
  mpfr_set_ui(total.v, 0, MPFR_RNDN);
  mpfr_set_d(low.v, s2, MPFR_RNDD);
  mpfr_set_d(n.v, count, MPFR_RNDU);
  add_log_ratio(total.v, low.v, n.v);
  return mpfr_get_d(total.v, MPFR_RNDU);
}

}  // namespace invariant_dp::accuracy
