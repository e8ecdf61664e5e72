// Test helper: builds the cells of a release from key values, the way the
// shim hands them to the core (row-major text, nullptr for NULL).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "interrupts.hpp"
#include "invariants/cell_keys.hpp"

namespace invariant_dp::test_tables {

struct TestTable {
  std::vector<std::string> columns;
  std::vector<std::string> text;  // row-major
  std::vector<std::int64_t> counts;

  std::vector<const char*> pointers() const {
    std::vector<const char*> out;
    for (const auto& t : text) out.push_back(t.c_str());
    return out;
  }
  CellKeys keys() const {
    const auto p = pointers();
    return CellKeys(counts.size(), columns, p.data(), Interrupts());
  }
};

// A full grid: every combination of levels[0] x levels[1] x ..., with the
// given counts in row-major order (last column fastest).
inline TestTable grid(const std::vector<std::string>& columns, const std::vector<int>& levels,
                      const std::vector<std::int64_t>& counts) {
  TestTable table{columns, {}, counts};
  std::vector<int> index(levels.size(), 0);
  for (std::size_t cell = 0; cell < counts.size(); ++cell) {
    for (std::size_t c = 0; c < levels.size(); ++c) table.text.push_back(columns[c] + std::to_string(index[c]));
    for (int c = static_cast<int>(levels.size()) - 1; c >= 0; --c) {
      if (++index[c] < levels[c]) break;
      index[c] = 0;
    }
  }
  return table;
}

// The 4x4 delinquent-children table (Dharangutte, Gao, Gong, Yu 2023,
// arXiv:2212.00936, Table 2, from FCSM 2005; Gamma's row total is misprinted
// there as 35, its cells sum to 25).
inline TestTable delinquents() {
  return grid({"county", "edu"}, {4, 4}, {15, 1, 3, 1, 20, 10, 10, 15, 3, 10, 10, 2, 12, 14, 7, 2});
}

}  // namespace invariant_dp::test_tables
