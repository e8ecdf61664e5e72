// The partition shared by the exact samplers of noise with zero sums over
// the groups of a partition of the cells (conditioned_laplace,
// conditioned_gaussian): group_of_cell[i] < n_groups is the group of cell i,
// and the noise is written to z[0 .. n_cells) (NoiseOutput). Groups are
// independent under both laws, so both samplers visit the cells group by
// group.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "wide_int.hpp"

namespace invariant_dp {

struct ZeroSumPartition {
  const std::uint32_t* group_of_cell = nullptr;
  std::size_t n_cells = 0;
  std::size_t n_groups = 0;
};

// Where a zero-sum sampler writes cell i's noise z_i, once per cell after
// its group is drawn: out[i] = z_i, or with base, out[i] = base[i] + z_i.
// base may be out itself (a release's counts noised in place, without a
// second array of millions of cells): each cell is read just before it is
// written. OutOfRange when base[i] + z_i leaves bigint.
struct NoiseOutput {
  NoiseOutput(std::int64_t* out, const std::int64_t* base = nullptr) : out(out), base(base) {}
  std::int64_t* out;
  const std::int64_t* base;

  void write(std::size_t cell, std::int64_t z) const {
    if (base == nullptr)
      out[cell] = z;
    else
      out[cell] = checked_add(base[cell], z, kNoisyCountOutOfRange);
  }
};

// Throws InvalidArgument for null buffers with cells, a group number out of
// range, or 2^32 cells or more (cells are numbered in 32 bits, as a
// release's are).
void check_zero_sum_groups(const ZeroSumPartition& groups, const std::int64_t* z, const Interrupts& interrupts);

// The cells ordered by group, each group in cell order, cut into runs: run
// r (the r-th non-empty group by number) holds the cells at positions
// start(r) .. start(r + 1) of that order, cell(p) being the one at p. When
// the group numbers never decrease along the cells (a source read in group
// order, the usual way a wide table arrives) that order is the cells' own
// and no permutation is stored: 4 bytes a cell less, and no pass to sort.
// Otherwise a counting sort when the group numbers are dense, else a stable
// sort (so a huge n_groups with few cells costs no memory).
class GroupRuns {
 public:
  GroupRuns(const ZeroSumPartition& groups, const Interrupts& interrupts);

  std::size_t n_runs() const { return starts_.size() - 1; }
  std::size_t start(std::size_t run) const { return starts_[run]; }
  std::size_t size(std::size_t run) const { return starts_[run + 1] - starts_[run]; }
  std::uint32_t cell(std::size_t position) const {
    return in_cell_order_ ? static_cast<std::uint32_t>(position) : cells_[position];
  }

 private:
  bool in_cell_order_ = true;
  std::vector<std::uint32_t> cells_;  // empty when in_cell_order_
  std::vector<std::size_t> starts_;   // n_runs() + 1
};

}  // namespace invariant_dp
