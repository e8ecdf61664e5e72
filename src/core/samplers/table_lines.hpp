// The lines of a two-way table (LatticeTable, row-major positions) as the
// exact table samplers see them: a table with both margins kept is a set of
// lines (its rows, or its columns) of equal length whose sums vanish, and
// whose position-wise sums vanish too. Shared by two_line_table.hpp and
// three_line_table.hpp, with the checks both make on the tables they are
// given.
#pragma once

#include <cstddef>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/lattice_table.hpp"
#include "zero_sum_groups.hpp"

namespace invariant_dp {

class TableLines {
 public:
  // The rows of a two-way table as lines (rows = true), or its columns.
  TableLines(const LatticeTable& table, bool rows)
      : cells_(&table.cells), rows_(rows), r_(table.shape[0]), c_(table.shape[1]) {}

  std::size_t count() const { return rows_ ? r_ : c_; }
  std::size_t length() const { return rows_ ? c_ : r_; }
  // The cell at position t of line i.
  std::size_t cell(std::size_t i, std::size_t t) const { return (*cells_)[rows_ ? i * c_ + t : t * c_ + i]; }

 private:
  const std::vector<std::size_t>* cells_;
  bool rows_;
  std::size_t r_, c_;
};

// A line of one level pins every cell of a table with both margins (its
// lattice is {0}).
bool pinned_table(const LatticeTable& table);

// InvalidArgument unless every table is two-way with its cells listed
// (shape[0] * shape[1] of them), every cell is below n_cells and in one
// table at most, and z has somewhere to write. n_cells bits of memory.
void check_table_cells(const std::vector<LatticeTable>& tables, std::size_t n_cells, const NoiseOutput& z,
                       const Interrupts& interrupts);

// Writes zero noise to every cell of the table (a pinned table).
void write_zero_noise(const LatticeTable& table, const NoiseOutput& z, const Interrupts& interrupts);

}  // namespace invariant_dp
