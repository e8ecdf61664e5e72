// The partition helpers of the zero-sum samplers (zero_sum_groups.hpp).
#include "zero_sum_groups.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "../errors.hpp"
#include "../polled_sort.hpp"

namespace invariant_dp {

void check_zero_sum_groups(const ZeroSumPartition& groups, const std::int64_t* z, const Interrupts& interrupts) {
  if (groups.n_cells > 0 && (groups.group_of_cell == nullptr || z == nullptr))
    throw InvalidArgument("cells of a zero-sum release must not be null");
  if (groups.n_cells > std::numeric_limits<std::uint32_t>::max())
    throw TooLarge("too many cells for a zero-sum release",
                   "There are " + std::to_string(groups.n_cells) + " cells.",
                   "Release fewer than 4294967296 cells at a time.");
  for (std::size_t i = 0; i < groups.n_cells; ++i) {
    interrupts.poll_every(i);
    if (groups.group_of_cell[i] >= groups.n_groups)
      throw InvalidArgument("group number " + std::to_string(groups.group_of_cell[i]) + " is out of range",
                            "There are " + std::to_string(groups.n_groups) + " groups.");
  }
}

namespace {

bool never_decreasing(const std::uint32_t* group_of_cell, std::size_t n_cells, const Interrupts& interrupts) {
  for (std::size_t i = 1; i < n_cells; ++i) {
    interrupts.poll_every(i);
    if (group_of_cell[i] < group_of_cell[i - 1]) return false;
  }
  return true;
}

std::vector<std::uint32_t> sorted_by_group(const ZeroSumPartition& groups, const Interrupts& interrupts) {
  const std::uint32_t* group_of_cell = groups.group_of_cell;
  const std::size_t n_cells = groups.n_cells, n_groups = groups.n_groups;
  std::vector<std::uint32_t> cells(n_cells);
  if (n_groups > 2 * n_cells + 1024) {
    for (std::size_t i = 0; i < n_cells; ++i) cells[i] = static_cast<std::uint32_t>(i);
    polled_sort(
        cells.begin(), cells.end(),
        [group_of_cell](std::uint32_t x, std::uint32_t y) { return group_of_cell[x] < group_of_cell[y]; }, interrupts);
    return cells;
  }
  std::vector<std::size_t> next(n_groups + 1, 0);
  for (std::size_t i = 0; i < n_cells; ++i) {
    interrupts.poll_every(i);
    ++next[group_of_cell[i] + 1];
  }
  for (std::size_t g = 0; g < n_groups; ++g) next[g + 1] += next[g];
  for (std::size_t i = 0; i < n_cells; ++i) {
    interrupts.poll_every(i);
    cells[next[group_of_cell[i]]++] = static_cast<std::uint32_t>(i);
  }
  return cells;
}

}  // namespace

GroupRuns::GroupRuns(const ZeroSumPartition& groups, const Interrupts& interrupts)
    : in_cell_order_(never_decreasing(groups.group_of_cell, groups.n_cells, interrupts)) {
  if (!in_cell_order_) cells_ = sorted_by_group(groups, interrupts);
  const std::uint32_t* group_of_cell = groups.group_of_cell;
  for (std::size_t p = 0; p < groups.n_cells; ++p) {
    interrupts.poll_every(p);
    if (p == 0 || group_of_cell[cell(p)] != group_of_cell[cell(p - 1)]) starts_.push_back(p);
  }
  starts_.push_back(groups.n_cells);
}

}  // namespace invariant_dp
