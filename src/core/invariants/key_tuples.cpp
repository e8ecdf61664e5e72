#include "key_tuples.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "../errors.hpp"
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

// The open-addressing table of dense_tuple_ids: a slot holds the row + 1
// of a tuple's first row (0: empty) in its low 32 bits and the high 32 bits
// of the tuple's hash above them. A tuple's home is the top log2(capacity)
// bits of its hash, which the slot keeps (capacity <= 2^32), so the table
// doubles without hashing any row again; it starts small and doubles when
// it would pass three quarters full, so its size follows the distinct
// tuples, not the rows (10^7 rows of 10^5 distinct tuples: 2 MB instead of
// the 134 MB of a table sized by the rows). Growing re-inserts the old
// slots in their order, which is the order of their new homes too.
constexpr std::uint64_t kTupleTagBits = 0xffffffff00000000ull;

struct TupleSlots {
  static constexpr unsigned kFirstBits = 8;
  static constexpr unsigned kMaxBits = 32;
  std::vector<std::uint64_t> slots = std::vector<std::uint64_t>(std::size_t(1) << kFirstBits, 0);
  unsigned bits = kFirstBits;

  std::size_t home(std::uint64_t hash) const { return static_cast<std::size_t>(hash >> (64 - bits)); }
  std::size_t next(std::size_t slot) const { return (slot + 1) & (slots.size() - 1); }
  void prefetch(std::uint64_t hash) const { __builtin_prefetch(&slots[home(hash)]); }

  // Room for one more tuple beside `held`, doubling while the table would
  // pass three quarters full.
  void make_room(std::uint64_t held, const Interrupts& interrupts) {
    if ((held + 1) * 4 <= std::uint64_t(slots.size()) * 3) return;
    if (bits == kMaxBits)
      throw TooLarge("the rows hold too many distinct key tuples to number",
                     "More than " + std::to_string(held) + " distinct tuples.",
                     "Group the source by fewer or coarser keys.");
    std::vector<std::uint64_t> grown = zeroed_large_buffer<std::uint64_t>(slots.size() * 2);
    ++bits;
    const std::size_t mask = grown.size() - 1;
    for (std::size_t old = 0; old < slots.size(); ++old) {
      interrupts.poll_every(old);
      const std::uint64_t entry = slots[old];
      if (entry == 0) continue;
      std::size_t slot = home(entry);
      // Ends: open addressing at most 3/4 full: an empty slot is met.
      while (grown[slot] != 0) slot = (slot + 1) & mask;
      grown[slot] = entry;
    }
    slots = std::move(grown);
  }
};

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
  TupleSlots table;
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
        table.prefetch(block_hash[r - i]);
      }
    }
    // Sources sorted by the keys repeat the previous row's tuple.
    if (i > 0 && same_codes(keys, columns, i, i - 1)) {
      out.id[i] = out.id[i - 1];
      continue;
    }
    table.make_room(out.n_ids, interrupts);
    const std::uint64_t hash = block_hash[i % kBlock];
    const std::uint64_t tag = hash & kTupleTagBits;
    // Ends: open addressing at most 3/4 full: a match or an empty slot is met.
    for (std::size_t slot = table.home(hash);; slot = table.next(slot)) {
      const std::uint64_t entry = table.slots[slot];
      if (entry == 0) {
        table.slots[slot] = tag | (std::uint64_t(i) + 1);
        out.id[i] = out.n_ids++;
        break;
      }
      if ((entry & kTupleTagBits) != tag) continue;
      const std::size_t other = static_cast<std::size_t>(entry & ~kTupleTagBits) - 1;
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
