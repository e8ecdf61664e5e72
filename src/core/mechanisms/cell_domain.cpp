#include "cell_domain.hpp"

#include <limits>

#include "../errors.hpp"
#include "../invariants/key_tuples.hpp"

namespace invariant_dp {
namespace {

constexpr std::uint32_t kEmpty = std::numeric_limits<std::uint32_t>::max();

// The domain's rows in an open-addressing table sized from their number.
class DomainIndex {
 public:
  DomainIndex(const KeyRows& domain, const Interrupts& interrupts) : domain_(domain) {
    std::size_t capacity = 16;
    // Ends: doubles up to twice the rows, at most 64 times.
    while (capacity < 2 * domain.n_rows) capacity *= 2;
    slot_row_.assign(capacity, kEmpty);
    for (std::size_t i = 0; i < domain.n_rows; ++i) {
      interrupts.poll_every(i);
      std::uint32_t& slot = find_slot(domain, i);
      if (slot != kEmpty) {
        InvalidData duplicate("duplicate cell in domain", "Key {key0} appears more than once.",
                              "The domain query must list every cell exactly once, e.g. with SELECT DISTINCT.");
        duplicate.name_key(0, KeyRef{domain.table, i});
        throw duplicate;
      }
      slot = static_cast<std::uint32_t>(i);
    }
  }

  // The domain row with the key tuple of rows.row, or kEmpty.
  std::uint32_t find(const KeyRows& rows, std::size_t row) { return find_slot(rows, row); }

 private:
  std::uint32_t& find_slot(const KeyRows& rows, std::size_t row) {
    const std::size_t mask = slot_row_.size() - 1;
    std::size_t slot = tuple_hash(rows, row) & mask;
    // Ends: open addressing at most half full: a match or an empty slot is met.
    while (slot_row_[slot] != kEmpty && !same_tuple(domain_, slot_row_[slot], rows, row)) slot = (slot + 1) & mask;
    return slot_row_[slot];
  }

  const KeyRows& domain_;
  std::vector<std::uint32_t> slot_row_;
};

}  // namespace

std::vector<std::int64_t> counts_on_domain(const KeyRows& domain, const KeyRows& source,
                                           const std::int64_t* source_counts, OutsideDomain outside_domain,
                                           const Interrupts& interrupts) {
  DomainIndex index(domain, interrupts);
  std::vector<std::int64_t> counts(domain.n_rows, 0);
  std::vector<bool> seen(domain.n_rows, false);
  for (std::size_t r = 0; r < source.n_rows; ++r) {
    interrupts.poll_every(r);
    const std::uint32_t found = index.find(source, r);
    if (found == kEmpty && outside_domain == OutsideDomain::Drop) continue;
    if (found == kEmpty) {
      InvalidData outside("source cell is not in the domain", "Key {key0} is not a domain row.",
                          "The domain must list every cell the source can return.");
      outside.name_key(0, KeyRef{source.table, source.table_row(r)});
      throw outside;
    }
    if (seen[found]) {
      InvalidData duplicate("duplicate cell in source", "Key {key0} appears more than once.",
                            "Make the source return one row per cell, e.g. with GROUP BY over every key column.");
      duplicate.name_key(0, KeyRef{source.table, source.table_row(r)});
      throw duplicate;
    }
    seen[found] = true;
    counts[found] = source_counts[r];
  }
  return counts;
}

}  // namespace invariant_dp
