// Certified constants of the lattice Gaussians drawn by Klein's sampler in
// triangular coordinates (Klein 2000; Gentry, Peikert, Vaikuntanathan 2008,
// Section 4): a margin group (samplers/conditioned_gaussian.hpp, step 1), a
// complete table with its (K-1)-way margins (samplers/kronecker_gaussian.hpp,
// step 2) and a hierarchy (hierarchy/integer_cascade_sampler.hpp, step 2).
// In those coordinates P(y) is proportional to prod_j rho_{s_j}(y_j - c_j),
// each centre c_j a function of the coordinates drawn before y_j. Two
// constants follow from the Gram-Schmidt variances s_j^2 alone
// (DERIVATIONS.md, sections 3 and 4):
//   - the deficit bound B of hierarchy/integer_cascade_accuracy.hpp: every
//     linear query's exact variance lies in [(1 - B) V, V], V the continuous
//     Gaussian's (here product_variance_deficit_bound on the coordinates);
//   - the theta ratio R = prod_j (1 + 2 S_j) / (1 - 2 S_j), S_j = sum_{m>=1}
//     q_j^(m^2) <= q_j / (1 - q_j), q_j = exp(-2 pi^2 s_j^2): the first
//     coordinate drawn (it has no centre) has the pmf rho_{s}(t) F(t) / Z
//     with max F / min F <= R over the other coordinates, so its tails are
//     at most R times those of the discrete Gaussian of parameter s^2.
// For a group of k cells and for a table, that coordinate is one cell
// (z_k up to sign; the corner cell of the table, by the vanishing line
// sums), of parameter sigma^2 (Pi_N)_{ii}, and the cells are exchangeable:
// every cell's marginal is that discrete Gaussian within the factor R.
#pragma once

#include <cstddef>
#include <vector>

#include "../hierarchy/integer_cascade_splits.hpp"
#include "../hierarchy/theta_sums.hpp"
#include "../samplers/rational.hpp"

namespace invariant_dp::accuracy {

// The Gram-Schmidt variances of the lattice of a complete table of this
// shape (one axis: a margin group of shape[0] cells) at parameter sigma2,
// as factors whose products are the coordinates' s^2: factor k holds
// i/(i+1), i = 1 .. n_k - 1, factor 0 times sigma2 (kronecker_gaussian.hpp,
// step 2). Each factor pooled to at most `pool` groups at their smallest s^2
// (so sums of decreasing functions of s^2 over them are upper bounds); by
// default (0) so that the product has at most about 4096 groups whatever the
// number of axes (48 per axis for one or two axes, 4 for six).
std::vector<std::vector<hierarchy::CoordinateGroup>> table_coordinates(Rational sigma2,
                                                                       const std::vector<std::size_t>& shape,
                                                                       std::size_t pool = 0);

// B for those coordinates (rounded up; >= 1 says nothing); `kept` shares
// the coordinates' terms across the shapes of one computation.
double table_deficit_bound(Rational sigma2, const std::vector<std::size_t>& shape,
                           hierarchy::CoordinateTerms* kept = nullptr);

// log R over the product coordinates of the factors (rounded up; infinity
// when some q_j >= 1/3, where the bound says nothing). Every coordinate is
// counted, the first drawn too, so this bounds the ratio of any subset.
double log_theta_ratio(const std::vector<std::vector<hierarchy::CoordinateGroup>>& factors);

// The same for `count` coordinates whose s^2 is at least s2 (a double).
double log_theta_ratio_at_least(double s2, double count);

}  // namespace invariant_dp::accuracy
