// The checks and helpers shared by the exact table samplers
// (table_lines.hpp).
#include "table_lines.hpp"

#include <algorithm>
#include <string>

#include "../errors.hpp"
#include "wide_int.hpp"

namespace invariant_dp {

bool pinned_table(const LatticeTable& table) {
  return std::any_of(table.shape.begin(), table.shape.end(), [](std::size_t n) { return n < 2; });
}

void check_table_cells(const std::vector<LatticeTable>& tables, std::size_t n_cells, const NoiseOutput& z,
                       const Interrupts& interrupts) {
  std::vector<bool> seen(n_cells, false);
  for (const LatticeTable& table : tables) {
    interrupts.poll();
    if (table.shape.size() != 2)
      throw InvalidArgument("an exact table sampler needs two-way tables",
                            "A table has " + std::to_string(table.shape.size()) + " dimensions.");
    const Uint128 positions = static_cast<Uint128>(table.shape[0]) * table.shape[1];
    if (positions != table.cells.size())
      throw InvalidArgument("a table's cells do not match its shape",
                            "It lists " + std::to_string(table.cells.size()) + " cells for " +
                                std::to_string(table.shape[0]) + " x " + std::to_string(table.shape[1]) + ".");
    if (!table.cells.empty() && z.out == nullptr) throw InvalidArgument("noise output must not be null");
    for (std::size_t k = 0; k < table.cells.size(); ++k) {
      interrupts.poll_every(k);
      const std::size_t cell = table.cells[k];
      if (cell >= n_cells || seen[cell])
        throw InvalidArgument("table cell " + std::to_string(cell) + " is out of range or in two tables",
                              "There are " + std::to_string(n_cells) + " cells.");
      seen[cell] = true;
    }
  }
}

void write_zero_noise(const LatticeTable& table, const NoiseOutput& z, const Interrupts& interrupts) {
  for (std::size_t k = 0; k < table.cells.size(); ++k) {
    interrupts.poll_every(k);
    z.write(table.cells[k], 0);
  }
}

}  // namespace invariant_dp
