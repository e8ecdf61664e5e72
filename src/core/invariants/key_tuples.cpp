#include "key_tuples.hpp"

#include <algorithm>
#include <numeric>

#include "../large_buffer.hpp"
#include "cell_grouping.hpp"

namespace invariant_dp {
namespace {

constexpr std::uint32_t kNoId = 0xffffffffu;

// A hash of a row's codes on some columns (not of the keys' bytes: codes
// are equal exactly when keys are, within one table's dictionaries).
std::uint64_t code_hash(const KeyRows& keys, const std::vector<std::size_t>& columns, std::size_t row) {
  std::uint64_t h = 0x2545f4914f6cdd1dull;
  for (std::size_t c : columns) {
    h = (h ^ keys.code(row, c)) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
  }
  return h ^ (h >> 29);
}

bool same_codes(const KeyRows& keys, const std::vector<std::size_t>& columns, std::size_t a, std::size_t b) {
  for (std::size_t c : columns)
    if (keys.code(a, c) != keys.code(b, c)) return false;
  return true;
}

// One column: its codes renumbered in the rows' order of first appearance.
TupleIds column_ids(const KeyRows& keys, std::size_t column, const Interrupts& interrupts) {
  if (keys.row_numbered(column))
    return TupleIds{row_numbers(keys.n_rows, interrupts), static_cast<std::uint32_t>(keys.n_rows)};
  const auto n_levels = static_cast<std::uint32_t>(keys.dictionaries[column].n_levels);
  detail::Grouping grouping = detail::group_by_codes(keys.n_rows, {{keys.columns[column], n_levels}}, interrupts);
  const std::uint32_t n_groups = grouping.n_groups;
  return TupleIds{std::move(grouping).take_ids(), n_groups};
}

}  // namespace

std::vector<std::uint32_t> row_numbers(std::size_t n, const Interrupts& interrupts) {
  std::vector<std::uint32_t> out = zeroed_large_buffer<std::uint32_t>(n);
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    out[i] = static_cast<std::uint32_t>(i);
  }
  return out;
}

TupleIds dense_tuple_ids(const KeyRows& keys, const std::vector<std::size_t>& columns, const Interrupts& interrupts) {
  if (columns.size() == 1) return column_ids(keys, columns[0], interrupts);
  TupleIds out;
  out.id = zeroed_large_buffer<std::uint32_t>(keys.n_rows);
  std::size_t capacity = 16;
  // Ends: doubles past 4/3 of the rows, at most 64 times.
  while (capacity < keys.n_rows + keys.n_rows / 3 + 1) capacity *= 2;
  // Slot: the row + 1 (0: empty) in the low 32 bits, the hash's high 32 bits above.
  std::vector<std::uint64_t> slots = zeroed_large_buffer<std::uint64_t>(capacity);
  const std::size_t mask = capacity - 1;
  constexpr std::uint64_t kTagBits = 0xffffffff00000000ull;
  // Rows are hashed a block ahead and their slots prefetched, so that the
  // cache misses of a table of millions of slots overlap instead of
  // queueing one after another.
  constexpr std::size_t kBlock = 32;
  std::uint64_t block_hash[kBlock];
  for (std::size_t i = 0; i < keys.n_rows; ++i) {
    interrupts.poll_every(i);
    if (i % kBlock == 0) {
      const std::size_t end = std::min(keys.n_rows, i + kBlock);
      for (std::size_t r = i; r < end; ++r) {
        block_hash[r - i] = code_hash(keys, columns, r);
        __builtin_prefetch(&slots[static_cast<std::size_t>(block_hash[r - i]) & mask]);
      }
    }
    // Sources sorted by the keys repeat the previous row's tuple.
    if (i > 0 && same_codes(keys, columns, i, i - 1)) {
      out.id[i] = out.id[i - 1];
      continue;
    }
    const std::uint64_t hash = block_hash[i % kBlock];
    // Ends: open addressing at most 3/4 full: a match or an empty slot is met.
    for (std::size_t slot = static_cast<std::size_t>(hash) & mask;; slot = (slot + 1) & mask) {
      const std::uint64_t entry = slots[slot];
      if (entry == 0) {
        slots[slot] = (hash & kTagBits) | (std::uint64_t(i) + 1);
        out.id[i] = out.n_ids++;
        break;
      }
      if ((entry & kTagBits) != (hash & kTagBits)) continue;
      const std::size_t other = static_cast<std::size_t>(entry & ~kTagBits) - 1;
      if (same_codes(keys, columns, i, other)) {
        out.id[i] = out.id[other];
        break;
      }
    }
  }
  return out;
}

std::uint64_t tuple_hash(const KeyRows& keys, std::size_t row) {
  std::uint64_t h = 0x2545f4914f6cdd1dull;
  for (std::size_t c = 0; c < keys.n_columns; ++c) {
    std::uint64_t scratch;
    h = (h ^ (keys.is_null(row, c) ? 0x6a09e667f3bcc909ull : hash_key_bytes(keys.key(row, c, scratch), c))) *
        0x9e3779b97f4a7c15ull;
  }
  return h ^ (h >> 29);
}

bool same_tuple(const KeyRows& a, std::size_t row_a, const KeyRows& b, std::size_t row_b) {
  for (std::size_t c = 0; c < a.n_columns; ++c) {
    if (a.is_null(row_a, c) != b.is_null(row_b, c)) return false;
    std::uint64_t scratch_a, scratch_b;
    if (!a.is_null(row_a, c) && a.key(row_a, c, scratch_a) != b.key(row_b, c, scratch_b)) return false;
  }
  return true;
}

TupleIds dense_tuple_ids(const KeyRows& keys, const Interrupts& interrupts) {
  std::vector<std::size_t> all(keys.n_columns);
  std::iota(all.begin(), all.end(), 0);
  return dense_tuple_ids(keys, all, interrupts);
}

}  // namespace invariant_dp
