// Grouping cells by code tuples (see cell_grouping.hpp): mixed-radix packing
// into 64-bit keys, then dense ids by first appearance. When the product of
// the level counts would overflow 64 bits the partial key is densified first,
// which bounds it by the number of cells again.
#include "cell_grouping.hpp"

#include <limits>

namespace invariant_dp {
namespace detail {
namespace {

constexpr std::uint32_t kUnassigned = std::numeric_limits<std::uint32_t>::max();

// Direct lookup table when the key range is at most a few times the cell count.
bool use_direct_table(std::uint64_t key_bound, std::size_t n_keys) {
  return key_bound <= 4 * static_cast<std::uint64_t>(n_keys) + 65536;
}

Grouping densify_direct(const std::vector<std::uint64_t>& keys, std::uint64_t key_bound,
                        const Interrupts& interrupts) {
  std::vector<std::uint32_t> id_of_key(static_cast<std::size_t>(key_bound), kUnassigned);
  std::vector<std::uint32_t> group_of_cell(keys.size());
  std::uint32_t n_groups = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    interrupts.poll_every(i);
    std::uint32_t& id = id_of_key[static_cast<std::size_t>(keys[i])];
    if (id == kUnassigned) id = n_groups++;
    group_of_cell[i] = id;
  }
  return Grouping(std::move(group_of_cell), n_groups);
}

std::uint64_t mix_hash(std::uint64_t key) {
  // splitmix64 finaliser: good spread for structured (mixed-radix) keys.
  key ^= key >> 30;
  key *= 0xbf58476d1ce4e5b9ULL;
  key ^= key >> 27;
  key *= 0x94d049bb133111ebULL;
  key ^= key >> 31;
  return key;
}

Grouping densify_hashed(const std::vector<std::uint64_t>& keys, const Interrupts& interrupts) {
  std::size_t capacity = 16;
  // Ends: doubles up to twice the keys, at most 64 times.
  while (capacity < 2 * keys.size()) capacity *= 2;
  const std::size_t mask = capacity - 1;
  std::vector<std::uint64_t> slot_key(capacity);
  std::vector<std::uint32_t> slot_id(capacity, kUnassigned);
  std::vector<std::uint32_t> group_of_cell(keys.size());
  std::uint32_t n_groups = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    interrupts.poll_every(i);
    std::size_t slot = static_cast<std::size_t>(mix_hash(keys[i])) & mask;
    // Ends: open addressing at most half full: an empty slot is met.
    while (slot_id[slot] != kUnassigned && slot_key[slot] != keys[i]) slot = (slot + 1) & mask;
    if (slot_id[slot] == kUnassigned) {
      slot_key[slot] = keys[i];
      slot_id[slot] = n_groups++;
    }
    group_of_cell[i] = slot_id[slot];
  }
  return Grouping(std::move(group_of_cell), n_groups);
}

// One column: its codes renumbered by first appearance, through a table
// indexed by code (no packed keys).
Grouping group_by_column(std::size_t n_cells, const CodeColumn& column, const Interrupts& interrupts) {
  std::vector<std::uint32_t> id_of_code(column.n_levels, kUnassigned);
  std::vector<std::uint32_t> group_of_cell(n_cells);
  std::uint32_t n_groups = 0;
  for (std::size_t i = 0; i < n_cells; ++i) {
    interrupts.poll_every(i);
    std::uint32_t& id = id_of_code[column.codes[i]];
    if (id == kUnassigned) id = n_groups++;
    group_of_cell[i] = id;
  }
  return Grouping(std::move(group_of_cell), n_groups);
}

}  // namespace

Grouping densify_keys(const std::vector<std::uint64_t>& keys, std::uint64_t key_bound,
                      const Interrupts& interrupts) {
  if (use_direct_table(key_bound, keys.size())) return densify_direct(keys, key_bound, interrupts);
  return densify_hashed(keys, interrupts);
}

bool numbered_by_first_appearance(const std::uint32_t* codes, std::size_t n, std::size_t n_levels,
                                  const Interrupts& interrupts) {
  std::size_t next_new = 0;
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    if (codes[i] > next_new) return false;
    next_new += codes[i] == next_new;
  }
  return next_new == n_levels;
}

Grouping group_by_codes(std::size_t n_cells, const std::vector<CodeColumn>& columns,
                        const Interrupts& interrupts) {
  if (columns.size() == 1) return group_by_column(n_cells, columns[0], interrupts);
  std::vector<std::uint64_t> keys(n_cells, 0);
  std::uint64_t key_bound = 1;
  for (const CodeColumn& column : columns) {
    const std::uint64_t levels = column.n_levels == 0 ? 1 : column.n_levels;
    if (key_bound > std::numeric_limits<std::uint64_t>::max() / levels) {
      Grouping partial = densify_keys(keys, key_bound, interrupts);
      for (std::size_t i = 0; i < n_cells; ++i) keys[i] = partial.group_of_cell[i];
      key_bound = partial.n_groups;
    }
    for (std::size_t i = 0; i < n_cells; ++i) {
      interrupts.poll_every(i);
      keys[i] = keys[i] * levels + column.codes[i];
    }
    key_bound *= levels;
  }
  return densify_keys(keys, key_bound, interrupts);
}

std::vector<std::uint32_t> group_sizes(const Grouping& grouping) {
  std::vector<std::uint32_t> sizes(grouping.n_groups, 0);
  for (std::size_t i = 0; i < grouping.n_cells(); ++i) ++sizes[grouping.group_of_cell[i]];
  return sizes;
}

}  // namespace detail
}  // namespace invariant_dp
