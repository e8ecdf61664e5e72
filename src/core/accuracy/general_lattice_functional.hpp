// Any integer functional of the lattice Gaussian on general margins
// (integer_gaussian where the margins form no complete tables: an
// incomplete table, crossing margins that are not a table's): the step and
// the log excess of the tilted discrete Gaussian
// (lattice_gaussian_quantiles.hpp), from a basis of the invariant lattice
// (lattice/lattice_basis.hpp) instead of a table's moves (DERIVATIONS.md,
// section 13, "Any functional on general margins").
//
// The law is D_{L, sigma2 I} on L = {z integer : A z = 0}, so a vector's
// squared length in the law's metric is |b|^2 / sigma2. For X = w^T z and
// the basis b_1 .. b_m of L, a_j = w^T b_j: X takes the values g Z, g =
// gcd_j a_j, and a full-rank set of the kernel {z in L : X(z) = 0} is
// every b_j with a_j = 0 and, for every other, (a_P b_j - a_j P) /
// gcd(a_P, a_j), P a basis vector of smallest nonzero |a| (triangular over
// the basis, so of full rank). The vectors with a_j = 0 are counted as the
// whole basis once (an upper bound for the ones a query replaces); a query
// adds its replacements, whose inner products with P are sparse.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "../interrupts.hpp"
#include "../lattice/lattice_basis.hpp"
#include "../samplers/rational.hpp"
#include "lattice_gaussian_quantiles.hpp"

namespace invariant_dp::accuracy {

class GeneralLatticeFunctionals {
 public:
  // O(basis entries) to index the basis by cell.
  GeneralLatticeFunctionals(std::shared_ptr<const LatticeBasis> basis, const Interrupts& interrupts);

  // X = sum_k cells[k].second * z_(cells[k].first) under D_{L, sigma2 I}
  // (cells distinct, below the basis's dimension; weights of size at most
  // 2^40), whose continuous variance is `variance` (sigma2 w^T Pi_N w):
  // the step (0 when X is constant on L) and X / step's variance and log
  // excess. TooLarge when X's values on the basis pass 2^62, or the query
  // touches more than 2^22 basis entries (checked before it holds them).
  // Not for two queries at once (the whole basis's excess is kept for the
  // last sigma2).
  StepFunctional functional(Rational sigma2, const std::vector<std::pair<std::uint32_t, std::int64_t>>& cells,
                            double variance, const Interrupts& interrupts) const;

  std::size_t dimension() const { return basis_->dimension; }

 private:
  double basis_log_excess(Rational sigma2, const Interrupts& interrupts) const;

  std::shared_ptr<const LatticeBasis> basis_;
  const std::vector<LatticeVector>& vectors_;
  std::vector<double> length2_;                          // |b_j|^2
  std::vector<std::size_t> first_of_cell_;               // cell c's entries: [first_of_cell_[c], first_of_cell_[c + 1])
  std::vector<std::pair<std::uint32_t, std::int64_t>> entries_;  // (vector j, b_j at the cell), by cell
  std::map<int, double> length_classes_;                 // |b|^2 pooled upward to 2^(k/16): k -> vectors
  std::uint64_t largest_entry_ = 0;                      // max |b_j(c)|
  mutable Rational excess_sigma2_{0, 0};
  mutable double excess_ = 0;
};

}  // namespace invariant_dp::accuracy
