// The variance of any linear query over the released cells of a release
// whose invariants are margins (no margin, a partition, complete two-way and
// K-way tables, general margins): Cov(z) = sum_b c_b Pi_b
// (projector_form.hpp), so Var(w^T z) = sum_b c_b w_b^T Pi_b w_b. A family
// gives the scalars c_b from its published law (DERIVATIONS.md, sections 1
// to 3):
//
// | family (mechanism)                              | c_b                                  | kind      |
// |-------------------------------------------------|--------------------------------------|-----------|
// | discrete_laplace, discrete_gaussian; no margin  | the law's exact variance             | exact     |
// | subspace_gaussian / subspace_laplace / project_l2 | sigma^2 / 2 b^2 / discrete Laplace variance (the projection of i.i.d. noise) | exact |
// | integer_laplace, partition                       | k/(k-1) conditioned_laplace_variance(b, k) per group of k | exact |
// | integer_laplace, 2 x n or n x 2 table            | 2 n/(n-1) conditioned_laplace_variance(b/2, n) | exact |
// | integer_laplace, larger tables (chain or the 3 x n sampler) | per-cell Monte Carlo variance / (Pi_N)_ii, pooled over the table | estimate |
// | integer_gaussian, partition or tables            | [(1 - B) sigma^2, sigma^2], B the deficit bound | certified |
// | integer_gaussian, general margins                | [(1 - B) sigma^2, sigma^2] with B given, else [0, sigma^2] | certified |
// | integer_laplace_l2, chains on general margins    | as the larger tables: estimate       | estimate  |
//
// A privacy unit changes only the calibrated scale, which these take as
// published. congenial and the non-negative projections have no
// data-independent covariance and no entry here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../samplers/rational.hpp"
#include "cell_query.hpp"
#include "projector_form.hpp"

namespace invariant_dp::accuracy {

// A family's scalar per block of its form, and how each is known.
struct BlockScalars {
  std::vector<double> lower, upper;
  std::vector<Exactness> kind;
};

class LinearAccuracy {
 public:
  // statement: the covariance in words, for the release metadata.
  LinearAccuracy(std::shared_ptr<const ProjectorForm> form, BlockScalars scalars, std::string statement);

  // Var(w^T z) of the query's noise, O(query); kind is the weakest of the
  // blocks it touches (an exact query on an exact block stays exact).
  VarianceFigure variance(const CellQuery& query, const Interrupts& interrupts) const;
  // One cell's: c_b (Pi_N)_ii.
  VarianceFigure cell_variance(std::uint32_t cell) const;
  // How many cells the query's noise is worth for the normal approximation:
  // its variance over the largest one cell's term can carry
  // (effective_cells.hpp), the same for the query and the query plus whole
  // margins; the query's cell count where that is not computed (a table of
  // three axes or more past kMaxDenseCountBlock cells).
  double effective_cells(const CellQuery& query, const Interrupts& interrupts) const;

  const ProjectorForm& form() const { return *form_; }
  std::shared_ptr<const ProjectorForm> shared_form() const { return form_; }
  const BlockScalars& scalars() const { return scalars_; }
  // The weakest kind over all blocks.
  Exactness kind() const;
  const std::string& statement() const { return statement_; }

 private:
  std::shared_ptr<const ProjectorForm> form_;
  BlockScalars scalars_;
  std::string statement_;
  mutable std::vector<BlockForm> blocks_;  // scratch
};

// Covariance unit_variance x Pi_N exactly: independent cells (identity
// form), and the projection of i.i.d. noise onto the null space.
LinearAccuracy projected_accuracy(std::shared_ptr<const ProjectorForm> form, double unit_variance);

// integer_laplace, the l1 law P(z) ~ exp(-||z||_1 / b) on the margins'
// lattice: exact on no margin, a partition and tables of two lines; other
// tables take `estimated_cell_variance` (one per cell: the release's
// Monte Carlo per-cell variance, squared sd), and InvalidArgument without
// it; general margins are always estimates (estimated_accuracy).
LinearAccuracy laplace_lattice_accuracy(std::shared_ptr<const ProjectorForm> form, Rational b,
                                        const std::vector<double>* estimated_cell_variance,
                                        const Interrupts& interrupts);

// integer_gaussian, the lattice Gaussian exp(-||z||^2 / (2 sigma^2)): exact
// on no margin, certified on a partition and on tables (B computed here),
// certified on general margins with the deficit bound the caller computed
// for its lattice (general_deficit_bound >= 1, the default, gives lower
// bound 0: only the upper bound sigma^2 Pi_N is known).
LinearAccuracy lattice_gaussian_accuracy(std::shared_ptr<const ProjectorForm> form, Rational sigma2,
                                         const Interrupts& interrupts, double general_deficit_bound = 1);

// A chain's law with no closed-form scalar (integer_laplace_l2, the l1 and
// Gaussian chains on general margins, the l1 law on tables of three lines
// or more): c_b = sum of the cells' Monte Carlo variances over the block /
// sum of (Pi_N)_ii over it. On a partition and on tables the covariance is
// c_b Pi_b exactly (symmetry) and only c_b is estimated; on general margins
// c Pi_N itself is the Gaussian analogue, an estimate of the shape too.
// diagonal: (Pi_N)_ii per cell if known (InvariantModel's), else computed.
LinearAccuracy estimated_accuracy(std::shared_ptr<const ProjectorForm> form,
                                  const std::vector<double>& cell_variance, const std::string& law_name,
                                  const std::vector<double>* diagonal, const Interrupts& interrupts);
// The same from scalars a release published (one per block: per table, per
// group, or one for general margins), so that its error bars need no
// per-cell variances.
LinearAccuracy estimated_accuracy(std::shared_ptr<const ProjectorForm> form, const std::vector<double>& block_scalar,
                                  const std::string& law_name);

}  // namespace invariant_dp::accuracy
