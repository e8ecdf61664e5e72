// The equality invariants of a release as numbers: the independent 0/1 rows
// A_r of the declared margins (InvariantModel::independent_rows) and their
// totals a = A_r x. Shared by the projections and the congenial samplers,
// which need a itself, not only the null space.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/SparseCore>

#include "../invariants/invariant_model.hpp"

namespace invariant_dp {

// Totals are exact in a double up to 2^53; linear_invariants refuses larger
// ones (OutOfRange).
constexpr std::int64_t kMaxExactTotal = std::int64_t{1} << 53;

struct LinearInvariants {
  Eigen::SparseMatrix<double, Eigen::RowMajor> rows;  // rank x d, 0/1 entries
  std::vector<double> totals;                         // rank entries, exact integers below 2^53

  std::size_t n_cells() const { return static_cast<std::size_t>(rows.cols()); }
  std::size_t n_rows() const { return static_cast<std::size_t>(rows.rows()); }
};

// A_r and A_r x for the model's margins; counts has model.n_cells() entries.
// OutOfRange when a total leaves bigint or exceeds kMaxExactTotal.
LinearInvariants linear_invariants(const InvariantModel& model, const std::int64_t* counts);

// max over rows of |A_r y - a|.
double invariant_residual(const LinearInvariants& invariants, const double* y);

}  // namespace invariant_dp
