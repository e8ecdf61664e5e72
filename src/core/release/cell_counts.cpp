#include "cell_counts.hpp"

#include "../errors.hpp"

namespace invariant_dp {

void check_cell_counts(std::size_t n, const std::int64_t* counts, const Interrupts& interrupts) {
  if (n == 0)
    throw InvalidData("source returned no rows", "There is no cell to release.",
                      "Pass a domain query listing every public cell, so empty cells are released too.");
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    if (counts[i] < 0) throw InvalidData("count must not be negative");
  }
}

}  // namespace invariant_dp
