// The theta sums that bound the Klein-structured lattice Gaussians, shared
// by the integer cascade's deficit bound B (integer_cascade_accuracy.hpp)
// and the theta ratio R of accuracy/lattice_bounds.hpp: both sum, over the
// coordinates of a product of lattices (each coordinate one group of each
// factor, its s^2 the product of theirs), a function of
// q = exp(-2 pi^2 s^2) bounded through q / (1 - q), the geometric bound of
// sum_{m >= 1} q^(m^2). Evaluated with MPFR at kThetaPrecision bits, every
// rounding outward (samplers/interval.hpp).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "../samplers/interval.hpp"
#include "integer_cascade_splits.hpp"

namespace invariant_dp::hierarchy {

constexpr mpfr_prec_t kThetaPrecision = 96;

// Calls f(groups) for every coordinate group of the product of the factors
// (one group of each factor), until f returns false.
void for_each_product(const std::vector<std::vector<CoordinateGroup>>& factors,
                      const std::function<bool(const std::vector<const CoordinateGroup*>&)>& f);

// A coordinate group's s^2 (the product of the groups' s2_num / s2_den) and
// count (the product of theirs), enclosed at kThetaPrecision bits.
struct ProductCoordinate {
  Interval s2, count;
};
ProductCoordinate product_coordinate(const std::vector<const CoordinateGroup*>& groups);

// 2 q / (1 - q), q = exp(-2 pi^2 factor s2), enclosed, for s2 >= 0 and a
// factor > 0 that a double holds exactly; nothing when q may reach 1 (the
// geometric bound then says nothing).
std::optional<Interval> twice_q_ratio(const Interval& s2, double factor);

// The terms of a coordinate group that the sums take, times its count:
// 2 q / (1 - q) at a factor (the deficit bound), or log1p of it at factor
// 1 (the excess).
enum class CoordinateTerm { twice_q_ratio, log1p_twice_q_ratio };

// One computation's terms over many shapes, kept: a margin whose groups
// take hundreds of sizes asks mostly the same coordinates for each size.
// Keyed by the groups' exact s^2 and counts, the term and its factor, it returns the
// enclosure computed the first time, so no figure differs from a fresh
// computation; it lives as long as the computation that owns it.
class CoordinateTerms {
 public:
  std::optional<Interval> term(const std::vector<const CoordinateGroup*>& groups, CoordinateTerm what, double factor);

 private:
  std::map<std::tuple<CoordinateTerm, double, std::vector<Uint128>>, std::optional<Interval>> kept_;
};

// The term at the groups' product coordinate, from `kept` where given.
std::optional<Interval> coordinate_term(const std::vector<const CoordinateGroup*>& groups, CoordinateTerm what,
                                        double factor, CoordinateTerms* kept);

}  // namespace invariant_dp::hierarchy
