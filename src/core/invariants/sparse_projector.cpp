// The general projector onto null(A) (null_projectors.hpp):
// for independent 0/1 rows A_r, H = A_r A_r^T is sparse SPD (H(p, q) counts
// the cells that groups p and q share) and
//   Pi_N e = e - A_r^T H^{-1} A_r e,
// with H factored once by a fill-reducing (AMD) sparse LDL^T; the ordering is
// applied here so the size of the factor can be counted before it is built. The exact
// diagonal 1 - a_i^T H^{-1} a_i needs H^{-1} only where two groups share a
// cell, i.e. on the pattern of H, which the selected inverse provides.
//
// Limits (TooLarge beyond them): the factor is held to kMaxFactorEntries and
// kMaxFactorWork (sparse_ldlt.hpp), and the diagonal to
// kMaxSelectedInverseWork multiply-adds (seconds).
#include <algorithm>
#include <memory>
#include <stdexcept>

#include "../errors.hpp"
#include "null_projectors.hpp"
#include "selected_inverse.hpp"
#include "sparse_ldlt.hpp"

namespace invariant_dp {
namespace detail {
namespace {

constexpr double kMaxSelectedInverseWork = 3e9;
// A pivot this small relative to H's largest diagonal entry means the rows
// were not independent after all (a rank decision went wrong upstream).
constexpr double kMinRelativePivot = 1e-10;

TooLarge too_complex(const std::string& what) {
  return TooLarge("the declared margins are too entangled to " + what,
                  "The invariant rows do not factor within the configured limits.",
                  "Declare fewer or coarser margins, or release smaller tables.");
}

class SparseProjector final : public NullProjector {
 public:
  SparseProjector(RowSparse rows, const Interrupts& interrupts) : rows_(std::move(rows)) {
    const ColSparse gram = gram_matrix(rows_, interrupts);
    ColSparse permuted;
    order_for_factoring(gram, order_, permuted);
    interrupts.poll();
    if (!factor_fits(permuted, kMaxFactorEntries, kMaxFactorWork)) throw too_complex("apply them");
    factor_ = factor_leaving_on_cancel(permuted, interrupts);
    interrupts.poll();
    check_pivots(permuted);
  }

  const char* structure() const override { return "general"; }
  std::size_t rank() const override { return static_cast<std::size_t>(rows_.rows()); }

  void project(double* e, const Interrupts& interrupts) const override {
    Eigen::VectorXd row_sums(rows_.rows());
    for (Eigen::Index r = 0; r < rows_.rows(); ++r) {
      interrupts.poll_every(static_cast<std::uint64_t>(r));
      double sum = 0;
      for (RowSparse::InnerIterator it(rows_, r); it; ++it) sum += it.value() * e[it.index()];
      row_sums[r] = sum;
    }
    const Eigen::VectorXd weights = order_.transpose() * factor_->solve(order_ * row_sums);
    for (Eigen::Index r = 0; r < rows_.rows(); ++r) {
      interrupts.poll_every(static_cast<std::uint64_t>(r));
      for (RowSparse::InnerIterator it(rows_, r); it; ++it) e[it.index()] -= it.value() * weights[r];
    }
  }

  std::vector<double> diagonal(const Interrupts& interrupts) const override;

  RowSparse independent_rows(const Interrupts&) const override { return rows_; }

 private:
  RowSparse rows_;
  Permutation order_;  // row r of A_r is row order_.indices()[r] of the factor
  std::shared_ptr<const LdltFactor> factor_;  // of order_ (A_r A_r^T) order_^T (AMD-ordered here)

  const ColSparse& lower() const { return factor_->matrixL().nestedExpression(); }

  void check_pivots(const ColSparse& gram) const {
    if (factor_->info() != Eigen::Success) throw std::logic_error("invariant rows are dependent");
    const double scale = gram.diagonal().maxCoeff();
    if (factor_->vectorD().minCoeff() <= kMinRelativePivot * scale) {
      throw std::logic_error("invariant rows are numerically dependent");
    }
  }
};

// diag_i = 1 - sum_{p, q in groups(i)} H^{-1}(p, q), the sum over the
// independent rows that contain cell i.
std::vector<double> SparseProjector::diagonal(const Interrupts& interrupts) const {
  if (SelectedInverse::work(lower()) > kMaxSelectedInverseWork) {
    throw too_complex("compute exact noise variances");
  }
  const SelectedInverse inverse(lower(), factor_->vectorD(), interrupts);
  const auto& position = order_.indices();  // row of A_r -> row of the factor
  const ColSparse columns = rows_;                            // the a_i, one per cell
  std::vector<double> diag(static_cast<std::size_t>(columns.cols()));
  std::vector<Eigen::Index> support;
  for (Eigen::Index i = 0; i < columns.cols(); ++i) {
    interrupts.poll_every(static_cast<std::uint64_t>(i));
    support.clear();
    for (ColSparse::InnerIterator it(columns, i); it; ++it) support.push_back(position[it.index()]);
    double quadratic = 0;
    for (std::size_t a = 0; a < support.size(); ++a) {
      quadratic += inverse(support[a], support[a]);
      for (std::size_t b = a + 1; b < support.size(); ++b) quadratic += 2 * inverse(support[a], support[b]);
    }
    diag[static_cast<std::size_t>(i)] = std::max(0.0, 1.0 - quadratic);
  }
  return diag;
}

}  // namespace

std::unique_ptr<NullProjector> make_sparse_projector(RowSparse independent_rows,
                                                     const Interrupts& interrupts) {
  return std::make_unique<SparseProjector>(std::move(independent_rows), interrupts);
}

}  // namespace detail
}  // namespace invariant_dp
