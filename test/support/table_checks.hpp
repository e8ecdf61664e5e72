// Checks shared by the unit tests of the exact table samplers
// (samplers/two_line_table.hpp, three_line_table.hpp,
// row_rejection_table.hpp): tables laid out among a release's cells, and
// the margins every draw must keep.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "invariants/lattice_table.hpp"

namespace invariant_dp::table_checks {

// rows x columns, cells numbered from `first` in row-major order.
inline LatticeTable table(std::size_t rows, std::size_t columns, std::size_t first = 0) {
  LatticeTable t{{rows, columns}, std::vector<std::size_t>(rows * columns)};
  std::iota(t.cells.begin(), t.cells.end(), first);
  return t;
}

inline std::size_t total_cells(const std::vector<LatticeTable>& tables) {
  std::size_t n = 0;
  for (const auto& t : tables) n += t.cells.size();
  return n;
}

// Every row and column of every table sums to 0; returns the largest |z|.
inline std::int64_t expect_zero_margins(const std::vector<LatticeTable>& tables, const std::vector<std::int64_t>& z) {
  std::int64_t largest = 0;
  for (const LatticeTable& t : tables) {
    const std::size_t r = t.shape[0], c = t.shape[1];
    for (std::size_t i = 0; i < r; ++i) {
      std::int64_t s = 0;
      for (std::size_t j = 0; j < c; ++j) s += z[t.cells[i * c + j]];
      EXPECT_EQ(s, 0) << "row " << i << " of a " << r << " x " << c << " table";
    }
    for (std::size_t j = 0; j < c; ++j) {
      std::int64_t s = 0;
      for (std::size_t i = 0; i < r; ++i) s += z[t.cells[i * c + j]];
      EXPECT_EQ(s, 0) << "column " << j << " of a " << r << " x " << c << " table";
    }
    for (std::size_t cell : t.cells) largest = std::max<std::int64_t>(largest, std::llabs(z[cell]));
  }
  return largest;
}

// Interrupt callbacks: always pending, or pending after `*context` polls.
inline bool always(void*) { return true; }
inline bool after_count(void* context) { return --*static_cast<int*>(context) < 0; }

}  // namespace invariant_dp::table_checks
