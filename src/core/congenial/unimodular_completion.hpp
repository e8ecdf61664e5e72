// The parametrisation of the invariant set in Algorithm 1 of Gong, Meng 2020
// (arXiv:2008.10202), Section 2.3, Step 1: a set I^c of rank(A_r) cells
// whose columns B = A_r[:, I^c] are
// invertible, so every table with the declared totals is determined by its
// cells in I: y_{I^c} = B^{-1} (a - A_r[:, I] y_I). Integer proposals on I
// complete to integers iff B is unimodular (|det B| = 1); that holds for
// every basis of a totally unimodular A_r (one margin, nested margins, the
// two margins of a two-way table), and is checked exactly here.
#pragma once

#include <cstdint>
#include <vector>

#include "../projection/linear_invariants.hpp"

namespace invariant_dp {

class UnimodularCompletion {
 public:
  // Throws InvalidArgument when the pivot columns are not unimodular, and
  // TooLarge when rank x cells exceeds kMaxDenseEntries (the pivot search
  // factors A_r densely: 4e6 doubles, 32 MB).
  explicit UnimodularCompletion(const LinearInvariants& invariants);

  const std::vector<std::uint32_t>& free_cells() const { return free_; }       // I
  const std::vector<std::uint32_t>& pivot_cells() const { return pivots_; }   // I^c
  // Overwrites y's pivot cells from its free cells.
  void complete(std::vector<std::int64_t>& y) const;

  static constexpr std::size_t kMaxDenseEntries = 4000000;

 private:
  Eigen::SparseMatrix<double, Eigen::RowMajor> rows_;  // a copy: setups holding this are moved
  std::vector<std::uint32_t> free_, pivots_;
  std::vector<std::int64_t> inverse_;  // B^{-1}, rank x rank, row-major, integer
  std::vector<std::int64_t> totals_;
};

}  // namespace invariant_dp
