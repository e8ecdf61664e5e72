// The general form (projector_form.hpp): x^T Pi_N x = x^T x - y^T H^-1 y,
// y = A x, H = A A^T for the independent 0/1 rows A of the margins.
//
// H is factored once as in invariants/sparse_projector.cpp (the same Gram
// matrix, fill-reducing order and size limits): order H order^T = L D L^T,
// L unit lower triangular. Then y^T H^-1 y = u^T D^-1 u with L u = order y.
// A query's y is sparse (the rows holding its cells), and so is u: its
// pattern is the union of the elimination-tree paths from the rows of y to
// the root (Gilbert and Peierls 1988; for a Cholesky factor the reach of a
// node is its path in the elimination tree), and processing those columns
// in increasing order is a topological order of the solve. So a query costs
// O(its cells' rows + the factor entries of the columns on those paths),
// not O(factor): one margin group's worth for a local query, up to the
// whole factor for a query spread over every row.
#include <algorithm>
#include <memory>
#include <stdexcept>

#include "../errors.hpp"
#include "../invariants/null_projectors.hpp"
#include "../invariants/sparse_ldlt.hpp"
#include "../lattice/lattice_basis_cache.hpp"
#include "../polled_sort.hpp"
#include "general_lattice_functional.hpp"
#include "projector_form.hpp"

namespace invariant_dp::accuracy {
namespace {

using detail::ColSparse;
using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;

// A pivot this small relative to H's largest diagonal entry means dependent
// rows (as sparse_projector.cpp).
constexpr double kMinRelativePivot = 1e-10;

class GeneralForm final : public ProjectorForm {
 public:
  GeneralForm(const RowSparse& rows, const Interrupts& interrupts) : columns_(rows) {
    if (rows.cols() > Eigen::Index(UINT32_MAX)) throw TooLarge("error bars over more than 2^32 cells are not supported");
    const ColSparse gram = detail::gram_matrix(rows, interrupts);
    detail::Permutation order;
    ColSparse permuted;
    detail::order_for_factoring(gram, order, permuted);
    interrupts.poll();
    if (!detail::factor_fits(permuted, detail::kMaxFactorEntries, detail::kMaxFactorWork))
      throw TooLarge("the declared margins are too entangled to give error bars",
                     "The invariant rows do not factor within the configured limits.",
                     "Declare fewer or coarser margins, or release smaller tables.");
    factor_ = detail::factor_leaving_on_cancel(permuted, interrupts);
    interrupts.poll();
    if (factor_->info() != Eigen::Success) throw std::logic_error("invariant rows are dependent");
    pivots_ = factor_->vectorD();
    if (pivots_.size() > 0 && pivots_.minCoeff() <= kMinRelativePivot * permuted.diagonal().maxCoeff())
      throw std::logic_error("invariant rows are numerically dependent");
    position_.assign(order.indices().data(), order.indices().data() + order.indices().size());
    const ColSparse& lower = factor_->matrixL().nestedExpression();
    parent_.assign(static_cast<std::size_t>(lower.cols()), -1);
    for (Eigen::Index j = 0; j < lower.cols(); ++j) {
      interrupts.poll_every(static_cast<std::uint64_t>(j));
      ColSparse::InnerIterator it(lower, j);
      if (it) parent_[static_cast<std::size_t>(j)] = static_cast<std::int64_t>(it.index());  // smallest row below j
    }
    u_.assign(parent_.size(), 0.0);
    on_path_.assign(parent_.size(), 0);
  }

  const char* structure() const override { return "general"; }
  std::size_t n_cells() const override { return static_cast<std::size_t>(columns_.cols()); }
  std::size_t n_blocks() const override { return 1; }
  std::uint32_t block_of(std::uint32_t) const override { return 0; }

  // Kept per cell once asked: a query read as one cell compares every
  // cell's (one_cell_query.hpp), as a release's intervals do.
  double diagonal(std::uint32_t cell) const override {
    if (diagonal_.empty()) diagonal_.assign(n_cells(), -1.0);
    if (diagonal_[cell] < 0) {
      CellQuery one;
      one.cells = {cell};
      one.weights = {1.0};
      diagonal_[cell] = std::max(0.0, 1 - solved_form(one, Interrupts()));
    }
    return diagonal_[cell];
  }

  // x - A^T H^-1 A x: L D L^T u = order A x over the whole factor, then
  // A^T back to the cells.
  std::vector<double> projection(const CellQuery& query, const Interrupts& interrupts) const override {
    const ColSparse& lower = factor_->matrixL().nestedExpression();
    std::vector<double> u(parent_.size(), 0.0), out(n_cells(), 0.0);
    for (std::size_t k = 0; k < query.size(); ++k) {
      interrupts.poll_every(k);
      out[query.cells[k]] += query.weights[k];
      for (ColSparse::InnerIterator it(columns_, query.cells[k]); it; ++it)
        u[static_cast<std::size_t>(position_[static_cast<std::size_t>(it.index())])] += query.weights[k] * it.value();
    }
    for (std::size_t j = 0; j < u.size(); ++j) {  // L w = y
      interrupts.poll_every(j);
      if (u[j] != 0)
        for (ColSparse::InnerIterator it(lower, Eigen::Index(j)); it; ++it)
          u[static_cast<std::size_t>(it.index())] -= it.value() * u[j];
    }
    for (std::size_t j = 0; j < u.size(); ++j) {
      interrupts.poll_every(j);
      u[j] /= pivots_[Eigen::Index(j)];
    }
    for (std::size_t j = u.size(); j-- > 0;) {  // L^T lambda = D^-1 w
      interrupts.poll_every(j);
      for (ColSparse::InnerIterator it(lower, Eigen::Index(j)); it; ++it)
        u[j] -= it.value() * u[static_cast<std::size_t>(it.index())];
    }
    for (Eigen::Index cell = 0; cell < columns_.cols(); ++cell) {
      interrupts.poll_every(static_cast<std::uint64_t>(cell));
      for (ColSparse::InnerIterator it(columns_, cell); it; ++it)
        out[static_cast<std::size_t>(cell)] -=
            it.value() * u[static_cast<std::size_t>(position_[static_cast<std::size_t>(it.index())])];
    }
    return out;
  }

  void block_forms(const CellQuery& query, std::vector<BlockForm>& out, const Interrupts& interrupts) const override {
    double squares = 0;
    for (std::size_t k = 0; k < query.size(); ++k) squares += query.weights[k] * query.weights[k];
    out.clear();
    if (query.size()) out.push_back({0, std::max(0.0, squares - solved_form(query, interrupts))});
  }

  const GeneralLatticeFunctionals* lattice_functionals(const Interrupts& interrupts) const override {
    if (!lattice_ && !lattice_too_large_) {
      try {
        const RowSparse rows = columns_;
        // The release's own limits, so that every backend gives a figure the
        // same error bar: one that drew the release keeps its basis, another
        // reduces it again (seconds at most, on a helper a cancel leaves).
        lattice_ = std::make_unique<GeneralLatticeFunctionals>(kept_invariant_lattice_basis(rows, interrupts),
                                                               interrupts);
      } catch (const TooLarge&) {
        lattice_too_large_ = true;  // the size decides it: the same next time
      }
    }
    return lattice_.get();
  }

 private:
  // y^T H^-1 y for y = A x. The scratch vectors u_ and on_path_ are zero
  // between calls; a call a cancel stopped leaves them dirty, and the next
  // clears them whole first (the form is kept for later statements).
  double solved_form(const CellQuery& query, const Interrupts& interrupts) const {
    if (dirty_) {
      std::fill(u_.begin(), u_.end(), 0.0);
      std::fill(on_path_.begin(), on_path_.end(), std::uint8_t(0));
    }
    dirty_ = true;
    reach_.clear();
    const ColSparse& lower = factor_->matrixL().nestedExpression();
    for (std::size_t k = 0; k < query.size(); ++k) {
      interrupts.poll_every(k);
      for (ColSparse::InnerIterator it(columns_, query.cells[k]); it; ++it) {
        const std::size_t p = static_cast<std::size_t>(position_[static_cast<std::size_t>(it.index())]);
        u_[p] += query.weights[k] * it.value();
        // Its elimination-tree path, up to the first node already on one.
        for (std::int64_t j = static_cast<std::int64_t>(p); j >= 0 && !on_path_[static_cast<std::size_t>(j)];
             j = parent_[static_cast<std::size_t>(j)]) {
          on_path_[static_cast<std::size_t>(j)] = 1;
          reach_.push_back(static_cast<std::uint32_t>(j));
        }
      }
    }
    polled_sort(reach_.begin(), reach_.end(), interrupts);
    double sum = 0;
    for (std::size_t r = 0; r < reach_.size(); ++r) {
      interrupts.poll_every(r);
      const std::uint32_t j = reach_[r];
      const double uj = u_[j];
      if (uj != 0)
        for (ColSparse::InnerIterator it(lower, j); it; ++it) u_[static_cast<std::size_t>(it.index())] -= it.value() * uj;
      sum += uj * uj / pivots_[j];
      u_[j] = 0;
      on_path_[j] = 0;
    }
    dirty_ = false;
    return sum;
  }

  ColSparse columns_;  // A by columns: the rows holding each cell
  std::shared_ptr<const detail::LdltFactor> factor_;
  Eigen::VectorXd pivots_;
  std::vector<int> position_;        // row of A -> row of the factor
  std::vector<std::int64_t> parent_;  // elimination tree of the factor
  mutable std::vector<double> u_;
  mutable std::vector<std::uint8_t> on_path_;
  mutable std::vector<std::uint32_t> reach_;
  mutable bool dirty_ = false;
  mutable std::vector<double> diagonal_;  // (Pi_N)_ii once asked, -1 before
  mutable std::unique_ptr<const GeneralLatticeFunctionals> lattice_;
  mutable bool lattice_too_large_ = false;
};

}  // namespace

std::unique_ptr<ProjectorForm> general_form(const RowSparse& independent_rows, const Interrupts& interrupts) {
  return std::make_unique<GeneralForm>(independent_rows, interrupts);
}

}  // namespace invariant_dp::accuracy
