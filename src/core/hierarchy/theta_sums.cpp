// Theta sums over product coordinates (theta_sums.hpp).
#include "theta_sums.hpp"

namespace invariant_dp::hierarchy {

void for_each_product(const std::vector<std::vector<CoordinateGroup>>& factors,
                      const std::function<bool(const std::vector<const CoordinateGroup*>&)>& f) {
  for (const auto& g : factors)
    if (g.empty()) return;
  std::vector<std::size_t> at(factors.size(), 0);
  std::vector<const CoordinateGroup*> groups(factors.size());
  // Ends: an odometer over the factors' groups: one pass per tuple, their product.
  for (;;) {
    for (std::size_t k = 0; k < factors.size(); ++k) groups[k] = &factors[k][at[k]];
    if (!f(groups)) return;
    std::size_t k = 0;
    // Ends: at most one pass per factor.
    while (k < factors.size() && ++at[k] == factors[k].size()) at[k++] = 0;
    if (k == factors.size()) return;
  }
}

// s^2 as (s^2 num) / den factor by factor, each step rounded outward.
ProductCoordinate product_coordinate(const std::vector<const CoordinateGroup*>& groups) {
  const mpfr_prec_t p = kThetaPrecision;
  ProductCoordinate c{exact(p, std::uint64_t{1}), exact(p, std::uint64_t{1})};
  for (const CoordinateGroup* g : groups) {
    c.s2 = div(mul(c.s2, exact(p, g->s2_num)), exact(p, g->s2_den));
    c.count = mul(c.count, static_cast<unsigned long>(g->count));
  }
  return c;
}

// The exponent in one fixed order, pi^2 s2, then 2, then the factor (the
// doubling is exact), so that both users of the sum round it alike.
std::optional<Interval> twice_q_ratio(const Interval& s2, double factor) {
  const mpfr_prec_t p = s2.precision();
  const Interval pi_bounds = pi(p);
  const Interval exponent = mul(scale_2exp(mul(s2, mul(pi_bounds, pi_bounds)), 1), exact_double(p, factor));
  const Interval q = exp(neg(exponent));
  const Interval one_minus_q = sub(1ul, q);
  if (!certainly_positive(one_minus_q)) return std::nullopt;
  return scale_2exp(div(q, one_minus_q), 1);
}

namespace {

std::vector<Uint128> coordinate_key(const std::vector<const CoordinateGroup*>& groups) {
  std::vector<Uint128> key;
  key.reserve(3 * groups.size());
  for (const CoordinateGroup* g : groups) key.push_back(g->s2_num), key.push_back(g->s2_den), key.push_back(g->count);
  return key;
}

std::optional<Interval> fresh_term(const std::vector<const CoordinateGroup*>& groups, CoordinateTerm what,
                                   double factor) {
  const ProductCoordinate c = product_coordinate(groups);
  const std::optional<Interval> t = twice_q_ratio(c.s2, factor);
  if (!t) return t;
  return mul(what == CoordinateTerm::twice_q_ratio ? *t : log1p(*t), c.count);
}

}  // namespace

std::optional<Interval> CoordinateTerms::term(const std::vector<const CoordinateGroup*>& groups, CoordinateTerm what,
                                              double factor) {
  auto key = std::make_tuple(what, factor, coordinate_key(groups));
  const auto found = kept_.find(key);
  if (found != kept_.end()) return found->second;
  return kept_.emplace(std::move(key), fresh_term(groups, what, factor)).first->second;
}

std::optional<Interval> coordinate_term(const std::vector<const CoordinateGroup*>& groups, CoordinateTerm what,
                                        double factor, CoordinateTerms* kept) {
  return kept ? kept->term(groups, what, factor) : fresh_term(groups, what, factor);
}

}  // namespace invariant_dp::hierarchy
