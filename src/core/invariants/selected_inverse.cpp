// Takahashi's recurrence for the selected inverse Z = H^{-1} of H = L D L^T
// (see selected_inverse.hpp). From Z L = L^{-T} D^{-1} (upper triangular with
// diagonal 1/D):
//   Z(i, j) = - sum_{k > j} Z(i, k) L(k, j)                for i > j,
//   Z(j, j) = 1/D(j) - sum_{k > j} Z(j, k) L(k, j),
// where the sums run over the pattern S_j of column j of L. S_j is a clique
// of the filled graph, so every Z(i, k) with i, k in S_j was computed in an
// earlier (larger-index) column. Columns are done from last to first.
#include "selected_inverse.hpp"

#include <algorithm>
#include <stdexcept>

namespace invariant_dp {
namespace detail {

double SelectedInverse::work(const Eigen::SparseMatrix<double>& lower) {
  const auto* outer = lower.outerIndexPtr();
  const auto* inner = lower.innerIndexPtr();
  double total = 0;
  for (Eigen::Index j = 0; j < lower.cols(); ++j) {
    for (auto p = outer[j]; p < outer[j + 1]; ++p) total += 1.0 + (outer[inner[p] + 1] - outer[inner[p]]);
  }
  return total;
}

SelectedInverse::SelectedInverse(const Eigen::SparseMatrix<double>& lower,
                                 const Eigen::VectorXd& pivots, const Interrupts& interrupts)
    : lower_(lower), off_diagonal_(static_cast<std::size_t>(lower.nonZeros())),
      diagonal_(static_cast<std::size_t>(lower.cols())) {
  const Eigen::Index n = lower.cols();
  std::vector<double> l_value(static_cast<std::size_t>(n), 0.0), sum(static_cast<std::size_t>(n), 0.0);
  std::vector<Eigen::Index> in_column(static_cast<std::size_t>(n), -1);
  for (Eigen::Index j = n - 1; j >= 0; --j) {
    interrupts.poll_every(static_cast<std::uint64_t>(j));
    compute_column(j, pivots, l_value, in_column, sum);
  }
}

void SelectedInverse::compute_column(Eigen::Index j, const Eigen::VectorXd& pivots,
                                     std::vector<double>& l_value,
                                     std::vector<Eigen::Index>& in_column,
                                     std::vector<double>& sum) {
  const auto* outer = lower_.outerIndexPtr();
  const auto* inner = lower_.innerIndexPtr();
  const double* value = lower_.valuePtr();
  for (auto p = outer[j]; p < outer[j + 1]; ++p) {
    in_column[inner[p]] = j;
    l_value[inner[p]] = value[p];
    sum[inner[p]] = 0.0;
  }
  // sum(i) = sum_{k in S_j} Z(i, k) L(k, j), visiting each stored Z(r, k),
  // r > k, of the clique S_j x S_j once and using it for both (r, k) and (k, r).
  for (auto p = outer[j]; p < outer[j + 1]; ++p) {
    const auto k = inner[p];
    sum[k] += diagonal_[k] * l_value[k];
    for (auto q = outer[k]; q < outer[k + 1]; ++q) {
      const auto r = inner[q];
      if (in_column[r] != j) continue;
      sum[r] += off_diagonal_[q] * l_value[k];
      sum[k] += off_diagonal_[q] * l_value[r];
    }
  }
  double diagonal = 1.0 / pivots[j];
  for (auto p = outer[j]; p < outer[j + 1]; ++p) {
    off_diagonal_[p] = -sum[inner[p]];
    diagonal -= off_diagonal_[p] * value[p];
  }
  diagonal_[j] = diagonal;
}

double SelectedInverse::operator()(Eigen::Index p, Eigen::Index q) const {
  if (p == q) return diagonal_[p];
  const Eigen::Index row = std::max(p, q), column = std::min(p, q);
  const auto* begin = lower_.innerIndexPtr() + lower_.outerIndexPtr()[column];
  const auto* end = lower_.innerIndexPtr() + lower_.outerIndexPtr()[column + 1];
  const auto* at = std::lower_bound(begin, end, static_cast<int>(row));
  if (at == end || *at != row) throw std::logic_error("selected inverse entry outside the factor pattern");
  return off_diagonal_[static_cast<std::size_t>(at - lower_.innerIndexPtr())];
}

}  // namespace detail
}  // namespace invariant_dp
