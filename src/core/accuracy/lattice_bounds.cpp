// Certified constants of the Klein-structured lattice Gaussians
// (lattice_bounds.hpp). Rounding: every step is an Interval's (interval.hpp),
// and the figure returned is the upper end.
#include "lattice_bounds.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "../errors.hpp"
#include "../hierarchy/integer_cascade_accuracy.hpp"
#include "../hierarchy/theta_sums.hpp"
#include "../samplers/interval.hpp"

namespace invariant_dp::accuracy {
namespace {

using hierarchy::CoordinateGroup;

// count * (log1p(2 S) - log1p(-2 S)), S = q/(1 - q), q = exp(-2 pi^2 s2),
// for count coordinates whose s^2 lies in s2; nothing when the bound says
// nothing (2 S may reach 1, i.e. q >= 1/3).
std::optional<Interval> log_ratio_term(const Interval& s2, const Interval& count) {
  const std::optional<Interval> two_s = hierarchy::twice_q_ratio(s2, 1.0);
  if (!two_s || !certainly_below(*two_s, 1)) return std::nullopt;
  return mul(sub(log1p(*two_s), log1p(neg(*two_s))), count);
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
    groups.reserve(shape[k]);
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

double table_deficit_bound(Rational sigma2, const std::vector<std::size_t>& shape, hierarchy::CoordinateTerms* kept) {
  return hierarchy::product_variance_deficit_bound(table_coordinates(sigma2, shape), kept);
}

double log_theta_ratio(const std::vector<std::vector<CoordinateGroup>>& factors) {
  Interval total(hierarchy::kThetaPrecision);
  bool says_nothing = false;
  hierarchy::for_each_product(factors, [&](const std::vector<const CoordinateGroup*>& groups) {
    const hierarchy::ProductCoordinate c = hierarchy::product_coordinate(groups);
    const std::optional<Interval> term = log_ratio_term(c.s2, c.count);
    if (!term) {
      says_nothing = true;
      return false;
    }
    accumulate(total, *term);
    return true;
  });
  return says_nothing ? INFINITY : to_double(total, End::upper);
}

double log_theta_ratio_at_least(double s2, double count) {
  if (!(s2 > 0) || !(count >= 0)) return INFINITY;
  if (count == 0) return 0;
  const mpfr_prec_t p = hierarchy::kThetaPrecision;
  const std::optional<Interval> term = log_ratio_term(exact_double(p, s2), exact_double(p, count));
  return term ? to_double(*term, End::upper) : INFINITY;
}

}  // namespace invariant_dp::accuracy
