#include "unimodular_completion.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/Dense>

#include "../errors.hpp"
#include "../samplers/wide_int.hpp"

namespace invariant_dp {

UnimodularCompletion::UnimodularCompletion(const LinearInvariants& invariants) : rows_(invariants.rows) {
  const std::size_t d = invariants.n_cells(), m = invariants.n_rows();
  if (d * std::max<std::size_t>(m, 1) > kMaxDenseEntries)
    throw TooLarge("too many cells and margin groups for the independence sampler",
                   "Cells times independent margin rows must stay below " + std::to_string(kMaxDenseEntries) + ".",
                   "Use options {\"sampler\": \"lattice\"}.");
  const Eigen::MatrixXd a = Eigen::MatrixXd(invariants.rows);
  const Eigen::FullPivLU<Eigen::MatrixXd> lu(a);
  std::vector<bool> is_pivot(d, false);
  for (std::size_t k = 0; k < m; ++k) {
    const auto cell = static_cast<std::uint32_t>(lu.permutationQ().indices()[k]);
    pivots_.push_back(cell);
    is_pivot[cell] = true;
  }
  for (std::uint32_t i = 0; i < d; ++i)
    if (!is_pivot[i]) free_.push_back(i);
  Eigen::MatrixXd b(m, m);
  for (std::size_t k = 0; k < m; ++k) b.col(k) = a.col(pivots_[k]);
  const double det = b.determinant();
  const Eigen::MatrixXd inverse = b.inverse();
  inverse_.resize(m * m);
  bool integral = std::fabs(std::fabs(det) - 1) < 1e-9;
  for (std::size_t r = 0; r < m && integral; ++r)
    for (std::size_t c = 0; c < m; ++c) {
      const double v = inverse(r, c), rounded = std::nearbyint(v);
      integral = integral && std::fabs(v - rounded) < 1e-9;
      inverse_[r * m + c] = static_cast<std::int64_t>(rounded);
    }
  if (!integral)
    throw InvalidArgument("the independence sampler needs unimodular margins",
                          "The margins' pivot block has determinant " + std::to_string(det) +
                              ", so integer proposals do not complete to integer tables.",
                          "Use options {\"sampler\": \"lattice\"}.");
  for (double t : invariants.totals) totals_.push_back(static_cast<std::int64_t>(t));
}

void UnimodularCompletion::complete(std::vector<std::int64_t>& y) const {
  const std::size_t m = pivots_.size();
  std::vector<std::int64_t> rest(totals_);
  const auto& rows = rows_;
  std::vector<bool> skip(y.size(), false);
  for (auto p : pivots_) skip[p] = true;
  for (int r = 0; r < rows.outerSize(); ++r)
    for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(rows, r); it; ++it)
      if (!skip[it.col()]) rest[r] = checked_sub(rest[r], y[it.col()], kNoisyCountOutOfRange);
  // Proposals far out on the double-geometric's tail can leave bigint here.
  for (std::size_t k = 0; k < m; ++k) {
    std::int64_t v = 0;
    for (std::size_t c = 0; c < m; ++c)
      add_to(v, checked_mul(inverse_[k * m + c], rest[c], kNoisyCountOutOfRange), kNoisyCountOutOfRange);
    y[pivots_[k]] = v;
  }
}

}  // namespace invariant_dp
