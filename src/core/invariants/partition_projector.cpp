// The two simplest projectors onto null(A) (null_projectors.hpp):
//   - no invariant: Pi_N = I, diagonal 1;
//   - one partition of the cells (a single margin, a grand total, or the
//     finest level of nested margins): Pi_N e = e minus its group mean,
//     diagonal 1 - 1/k_g for a cell in a group of k_g cells.
#include "null_projectors.hpp"

namespace invariant_dp {
namespace detail {
namespace {

class IdentityProjector final : public NullProjector {
 public:
  explicit IdentityProjector(std::size_t n_cells) : n_cells_(n_cells) {}
  const char* structure() const override { return "none"; }
  std::size_t rank() const override { return 0; }
  void project(double*, const Interrupts&) const override {}
  std::vector<double> diagonal(const Interrupts&) const override {
    return std::vector<double>(n_cells_, 1.0);
  }
  RowSparse independent_rows(const Interrupts& interrupts) const override {
    (void)interrupts;
    return RowSparse(0, static_cast<Eigen::Index>(n_cells_));
  }

 private:
  std::size_t n_cells_;
};

class PartitionProjector final : public NullProjector {
 public:
  explicit PartitionProjector(SharedGrouping groups)
      : groups_(std::move(groups)), sizes_(group_sizes(*groups_)) {}
  const char* structure() const override { return "partition"; }
  std::size_t rank() const override { return groups_->n_groups; }

  void project(double* e, const Interrupts& interrupts) const override {
    const std::uint32_t* group_of_cell = groups_->group_of_cell;
    std::vector<double> mean(groups_->n_groups, 0.0);
    for (std::size_t i = 0; i < groups_->n_cells(); ++i) {
      interrupts.poll_every(i);
      mean[group_of_cell[i]] += e[i];
    }
    for (std::size_t g = 0; g < mean.size(); ++g) mean[g] /= sizes_[g];
    for (std::size_t i = 0; i < groups_->n_cells(); ++i) {
      interrupts.poll_every(i);
      e[i] -= mean[group_of_cell[i]];
    }
  }

  std::vector<double> diagonal(const Interrupts& interrupts) const override {
    std::vector<double> diag(groups_->n_cells());
    for (std::size_t i = 0; i < diag.size(); ++i) {
      interrupts.poll_every(i);
      diag[i] = 1.0 - 1.0 / sizes_[groups_->group_of_cell[i]];
    }
    return diag;
  }

  RowSparse independent_rows(const Interrupts& interrupts) const override {
    return indicator_rows({groups_.get()}, groups_->n_cells(), interrupts);
  }

  const Grouping* partition() const override { return groups_.get(); }

 private:
  SharedGrouping groups_;
  std::vector<std::uint32_t> sizes_;
};

}  // namespace

std::unique_ptr<NullProjector> make_identity_projector(std::size_t n_cells) {
  return std::make_unique<IdentityProjector>(n_cells);
}

std::unique_ptr<NullProjector> make_partition_projector(SharedGrouping groups) {
  return std::make_unique<PartitionProjector>(std::move(groups));
}

}  // namespace detail
}  // namespace invariant_dp
