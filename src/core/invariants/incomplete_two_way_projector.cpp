// Two margins that do not cross completely (an incomplete table, or several
// cells per pair of groups). With F the margin with more groups and S the
// other, keeping all F rows and all S rows but one per connected block gives
// independent rows (two_way_projector.cpp), and since the groups of one
// margin are disjoint,
//   H = A_r A_r^T = [ D_F  B ; B^T  D_S ],  D_F, D_S diagonal group sizes,
// B(f, s) = cells shared by groups f and s. Eliminating F exactly leaves the
// Schur complement S = D_S - B^T D_F^{-1} B, small and usually dense, which
// a dense (blocked) Cholesky handles far faster than a sparse factorisation
// filling in to the same density. With W = D_F^{-1} B:
//   H z = y:  z_S = S^{-1} (y_S - W^T y_F),  z_F = D_F^{-1} y_F - W z_S;
//   H^{-1} = [ D_F^{-1} + W S^{-1} W^T   -W S^{-1} ; -S^{-1} W^T   S^{-1} ],
// so diag(Pi_N) at a cell of groups (f, s) is
//   1 - (1/D_f + (W S^{-1} W^T)_ff - 2 (W S^{-1})_fs + (S^{-1})_ss).
// Used only while the dense matrices stay small (kMaxDenseEntries each) and
// cheap (kMaxDenseWork); larger cases go to the sparse general projector.
// The dense products, the factorisation and the diagonal's solves are single
// Eigen calls that cannot poll: they run on a helper a cancel leaves
// (../leave_on_cancel.hpp), owning copies of what they read.
#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <memory>
#include <stdexcept>

#include "../leave_on_cancel.hpp"
#include "null_projectors.hpp"

namespace invariant_dp {
namespace detail {
namespace {

constexpr double kMaxDenseEntries = 1.6e7;  // 128 MB of doubles
// g_F * n_kept^2 multiply-adds for the Schur complement and for the
// diagonal's solves: a few seconds of dense algebra.
constexpr double kMaxDenseWork = 4e9;
constexpr std::uint32_t kDropped = UINT32_MAX;

// Index of each S group among the kept ones, or kDropped for the first S
// group of every block.
std::vector<std::uint32_t> keep_all_but_one_per_block(const std::vector<std::uint32_t>& block_of_group,
                                                      std::uint32_t n_blocks, std::uint32_t& n_kept) {
  std::vector<bool> block_has_dropped(n_blocks, false);
  std::vector<std::uint32_t> kept_index(block_of_group.size(), kDropped);
  n_kept = 0;
  for (std::size_t s = 0; s < block_of_group.size(); ++s) {
    if (block_has_dropped[block_of_group[s]]) {
      kept_index[s] = n_kept++;
    } else {
      block_has_dropped[block_of_group[s]] = true;
    }
  }
  return kept_index;
}

class IncompleteTwoWayProjector final : public NullProjector {
 public:
  IncompleteTwoWayProjector(SharedGrouping f_groups, SharedGrouping s_groups,
                            const std::vector<std::uint32_t>& s_block, std::uint32_t n_blocks,
                            const Interrupts& interrupts)
      : f_(std::move(f_groups)), s_(std::move(s_groups)) {
    s_kept_ = keep_all_but_one_per_block(s_block, n_blocks, n_kept_);
    f_size_ = to_double(group_sizes(*f_));
    s_size_ = Eigen::VectorXd::Zero(n_kept_);
    for (std::size_t i = 0; i < s_->n_cells(); ++i) {
      const std::uint32_t s = s_->group_of_cell[i];
      if (s_kept_[s] != kDropped) s_size_[s_kept_[s]] += 1.0;
    }
    build_shared_counts(interrupts);
    factor_schur_complement(interrupts);
  }

  const char* structure() const override { return "general"; }
  std::size_t rank() const override { return std::size_t(f_->n_groups) + n_kept_; }
  void project(double* e, const Interrupts& interrupts) const override;
  std::vector<double> diagonal(const Interrupts& interrupts) const override;
  RowSparse independent_rows(const Interrupts& interrupts) const override;

 private:
  SharedGrouping f_, s_;
  std::vector<std::uint32_t> s_kept_;
  std::uint32_t n_kept_ = 0;
  Eigen::VectorXd f_size_, s_size_;
  RowSparse shared_;  // B: F groups x kept S groups
  std::shared_ptr<const Eigen::LLT<Eigen::MatrixXd>> schur_;  // shared with the helpers that solve with it

  static Eigen::VectorXd to_double(const std::vector<std::uint32_t>& sizes) {
    Eigen::VectorXd out(sizes.size());
    for (std::size_t g = 0; g < sizes.size(); ++g) out[g] = sizes[g];
    return out;
  }
  void build_shared_counts(const Interrupts& interrupts);
  void factor_schur_complement(const Interrupts& interrupts);
  Eigen::MatrixXd dense_weights() const;  // W = D_F^{-1} B
};

void IncompleteTwoWayProjector::build_shared_counts(const Interrupts& interrupts) {
  std::vector<Eigen::Triplet<double, RowSparse::StorageIndex>> entries;
  entries.reserve(f_->n_cells());
  for (std::size_t i = 0; i < f_->n_cells(); ++i) {
    interrupts.poll_every(i);
    const std::uint32_t k = s_kept_[s_->group_of_cell[i]];
    if (k != kDropped) entries.emplace_back(f_->group_of_cell[i], k, 1.0);
  }
  shared_.resize(f_->n_groups, n_kept_);
  shared_.setFromTriplets(entries.begin(), entries.end());  // sums repeated pairs
}

// S = D_S - C^T C with C = D_F^{-1/2} B, one dense g_F x n_kept buffer.
void IncompleteTwoWayProjector::factor_schur_complement(const Interrupts& interrupts) {
  auto shared = std::make_shared<const RowSparse>(shared_);
  auto f_size = std::make_shared<const Eigen::VectorXd>(f_size_);
  auto s_size = std::make_shared<const Eigen::VectorXd>(s_size_);
  auto factor = std::make_shared<Eigen::LLT<Eigen::MatrixXd>>();
  run_leaving_on_cancel(
      [shared, f_size, s_size, factor] {
        Eigen::MatrixXd scaled = Eigen::MatrixXd(*shared);
        scaled.array().colwise() /= f_size->array().sqrt();
        Eigen::MatrixXd schur = Eigen::MatrixXd(s_size->asDiagonal());
        schur.selfadjointView<Eigen::Lower>().rankUpdate(scaled.transpose(), -1.0);
        factor->compute(schur);
      },
      interrupts);
  if (factor->info() != Eigen::Success) throw std::logic_error("two-margin Schur complement is not definite");
  schur_ = factor;
}

Eigen::MatrixXd IncompleteTwoWayProjector::dense_weights() const {
  Eigen::MatrixXd weights = Eigen::MatrixXd(shared_);
  weights.array().colwise() /= f_size_.array();
  return weights;
}

void IncompleteTwoWayProjector::project(double* e, const Interrupts& interrupts) const {
  Eigen::VectorXd y_f = Eigen::VectorXd::Zero(f_->n_groups), y_s = Eigen::VectorXd::Zero(n_kept_);
  for (std::size_t i = 0; i < f_->n_cells(); ++i) {
    interrupts.poll_every(i);
    y_f[f_->group_of_cell[i]] += e[i];
    const std::uint32_t k = s_kept_[s_->group_of_cell[i]];
    if (k != kDropped) y_s[k] += e[i];
  }
  const Eigen::VectorXd f_mean = y_f.cwiseQuotient(f_size_);  // D_F^{-1} y_F
  const Eigen::VectorXd z_s = schur_->solve(y_s - shared_.transpose() * f_mean);
  const Eigen::VectorXd z_f = f_mean - (shared_ * z_s).cwiseQuotient(f_size_);
  for (std::size_t i = 0; i < f_->n_cells(); ++i) {
    interrupts.poll_every(i);
    const std::uint32_t k = s_kept_[s_->group_of_cell[i]];
    e[i] -= z_f[f_->group_of_cell[i]] + (k != kDropped ? z_s[k] : 0.0);
  }
}

std::vector<double> IncompleteTwoWayProjector::diagonal(const Interrupts& interrupts) const {
  struct Solves {
    Eigen::MatrixXd solved;                  // S^{-1} W^T, n_kept x g_F
    Eigen::VectorXd schur_inverse_diagonal;  // diag(S^{-1})
  };
  auto weights = std::make_shared<const Eigen::MatrixXd>(dense_weights());
  auto solves = std::make_shared<Solves>();
  interrupts.poll();
  run_leaving_on_cancel(
      [weights, schur = schur_, solves, n = n_kept_] {
        solves->solved = schur->solve(weights->transpose());
        solves->schur_inverse_diagonal = schur->solve(Eigen::MatrixXd::Identity(n, n)).diagonal();
      },
      interrupts);
  const Eigen::MatrixXd& solved = solves->solved;
  const Eigen::VectorXd& schur_inverse_diagonal = solves->schur_inverse_diagonal;
  // (W S^{-1} W^T)_ff, from the stored nonzeros of row f of W only.
  Eigen::VectorXd f_quadratic = Eigen::VectorXd::Zero(f_->n_groups);
  for (Eigen::Index f = 0; f < shared_.outerSize(); ++f) {
    for (RowSparse::InnerIterator it(shared_, f); it; ++it) {
      f_quadratic[f] += solved(it.index(), f) * it.value() / f_size_[f];
    }
  }
  std::vector<double> diag(f_->n_cells());
  for (std::size_t i = 0; i < diag.size(); ++i) {
    interrupts.poll_every(i);
    const std::uint32_t f = f_->group_of_cell[i], k = s_kept_[s_->group_of_cell[i]];
    double quadratic = 1.0 / f_size_[f] + f_quadratic[f];
    if (k != kDropped) quadratic += schur_inverse_diagonal[k] - 2.0 * solved(k, f);
    diag[i] = std::max(0.0, 1.0 - quadratic);
  }
  return diag;
}

RowSparse IncompleteTwoWayProjector::independent_rows(const Interrupts& interrupts) const {
  const RowSparse all_rows = indicator_rows({f_.get(), s_.get()}, f_->n_cells(), interrupts);
  std::vector<std::size_t> keep;
  for (std::size_t f = 0; f < f_->n_groups; ++f) keep.push_back(f);
  for (std::size_t s = 0; s < s_kept_.size(); ++s) {
    if (s_kept_[s] != kDropped) keep.push_back(f_->n_groups + s);
  }
  return take_rows(all_rows, keep);
}

}  // namespace

std::unique_ptr<NullProjector> make_incomplete_two_way_projector(SharedGrouping first, SharedGrouping second,
                                                                 const BipartiteComponents& components,
                                                                 const Interrupts& interrupts) {
  const bool first_is_larger = first->n_groups >= second->n_groups;
  const SharedGrouping& f = first_is_larger ? first : second;
  const SharedGrouping& s = first_is_larger ? second : first;
  const auto& s_block = first_is_larger ? components.component_of_second : components.component_of_first;
  const double n_kept = double(s->n_groups) - components.n_components;
  const double n_f = f->n_groups;
  if (n_kept * n_kept > kMaxDenseEntries || n_f * n_kept > kMaxDenseEntries ||
      (n_f + n_kept) * n_kept * n_kept > kMaxDenseWork) {
    return nullptr;
  }
  return std::make_unique<IncompleteTwoWayProjector>(f, s, s_block, components.n_components, interrupts);
}

}  // namespace detail
}  // namespace invariant_dp
