// Kept results scoped to one role (src/core/release/kept_results.hpp): a
// lattice basis and a table cell's quantile kept for one role are used
// again by it, and dropped when another role is named.
#include <gtest/gtest.h>

#include <vector>

#include "accuracy/laplace_table_cell.hpp"
#include "lattice/lattice_basis_cache.hpp"
#include "release/kept_results.hpp"

namespace invariant_dp {
namespace {

// A 3 x 3 table without its corner cell: general margins.
Eigen::SparseMatrix<double, Eigen::RowMajor> corner_missing() {
  std::vector<Eigen::Triplet<double>> t;
  int n = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      if (i == 2 && j == 2) continue;
      t.emplace_back(i, n, 1.0);
      if (j < 2) t.emplace_back(3 + j, n, 1.0);
      ++n;
    }
  Eigen::SparseMatrix<double, Eigen::RowMajor> a(5, n);
  a.setFromTriplets(t.begin(), t.end());
  return a;
}

TEST(KeptResults, AnotherRoleStartsFromNothing) {
  const auto rows = corner_missing();
  keep_results_for(10);
  const auto basis = kept_invariant_lattice_basis(rows, Interrupts());
  accuracy::laplace_table_cell_quantile({9, 4}, 3, 4, 0.9, Interrupts());
  keep_results_for(10);  // the same role: both kept
  EXPECT_EQ(kept_invariant_lattice_basis(rows, Interrupts()), basis);
  EXPECT_EQ(accuracy::laplace_table_cell_quantile({9, 4}, 3, 4, 0.9, Interrupts()).work, 0);
  keep_results_for(11);  // another: both computed again
  EXPECT_NE(kept_invariant_lattice_basis(rows, Interrupts()), basis);
  EXPECT_GT(accuracy::laplace_table_cell_quantile({9, 4}, 3, 4, 0.9, Interrupts()).work, 0);
}

}  // namespace
}  // namespace invariant_dp
