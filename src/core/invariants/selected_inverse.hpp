// Internal: entries of H^{-1} on the sparsity pattern of the LDL^T factor of
// a sparse SPD matrix H (Takahashi, Fagan and Chen 1973). The pattern of
// L + L^T contains the pattern of H, so every H^{-1}(p, q) with H(p, q) != 0
// is available, which is exactly what diag(Pi_N) = 1 - a_i^T H^{-1} a_i needs
// when H = A_r A_r^T and a_i is the column of cell i. Cost: for each column j
// of L, the lengths of the columns k in its pattern, summed; memory one
// double per entry of L.
#pragma once

#include <cstddef>
#include <vector>

#include <Eigen/SparseCore>

#include "../interrupts.hpp"

namespace invariant_dp {
namespace detail {

class SelectedInverse {
 public:
  // lower: strictly lower part of the unit lower factor L, column-major,
  // compressed, rows sorted in each column; pivots: D. Both in the factor's
  // (permuted) ordering.
  SelectedInverse(const Eigen::SparseMatrix<double>& lower, const Eigen::VectorXd& pivots,
                  const Interrupts& interrupts);

  // Multiply-adds the recurrence will take for this factor; used to refuse
  // factors that are too dense before spending the time.
  static double work(const Eigen::SparseMatrix<double>& lower);

  // H^{-1}(p, q) in the factor's ordering, for (p, q) in the pattern of
  // L + L^T or p == q; throws std::logic_error outside the pattern.
  double operator()(Eigen::Index p, Eigen::Index q) const;

 private:
  const Eigen::SparseMatrix<double>& lower_;
  std::vector<double> off_diagonal_;  // Z on the pattern of lower_, same layout
  std::vector<double> diagonal_;

  void compute_column(Eigen::Index j, const Eigen::VectorXd& pivots, std::vector<double>& l_value,
                      std::vector<Eigen::Index>& in_column, std::vector<double>& sum);
};

}  // namespace detail
}  // namespace invariant_dp
