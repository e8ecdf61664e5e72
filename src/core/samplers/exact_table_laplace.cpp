// Routes each table to its exact sampler (exact_table_laplace.hpp).
#include "exact_table_laplace.hpp"

#include "../errors.hpp"
#include "table_lines.hpp"
#include "three_line_table.hpp"
#include "two_line_table.hpp"

namespace invariant_dp {

bool exact_table_laplace_applies(const std::vector<LatticeTable>& tables) {
  for (const LatticeTable& table : tables)
    if (!is_two_line_table(table) && !is_three_line_table(table)) return false;
  return true;
}

void sample_exact_table_laplace(RandomSource& rng, Rational scale, const std::vector<LatticeTable>& tables,
                                std::size_t n_cells, NoiseOutput z, const Interrupts& interrupts) {
  if (!exact_table_laplace_applies(tables))
    throw InvalidArgument("an exact table sampler needs tables with a line of at most three levels");
  bool any_two = false, any_three = false;
  for (const LatticeTable& table : tables) (is_two_line_table(table) ? any_two : any_three) = true;
  if (!any_three) return sample_laplace_on_two_line_tables(rng, scale, tables, n_cells, z, interrupts);
  if (!any_two) return sample_laplace_on_three_line_tables(rng, scale, tables, n_cells, z, interrupts);
  // Both kinds: the whole list checked once (no cell in two tables of
  // either kind), then each kind drawn from a copy of its tables. Each
  // sampler refuses its sizes before drawing, the second after the first
  // has written its tables (a release that fails is not published).
  check_table_cells(tables, n_cells, z, interrupts);
  std::vector<LatticeTable> two, three;
  for (const LatticeTable& table : tables) (is_two_line_table(table) ? two : three).push_back(table);
  sample_laplace_on_two_line_tables(rng, scale, two, n_cells, z, interrupts);
  sample_laplace_on_three_line_tables(rng, scale, three, n_cells, z, interrupts);
}

}  // namespace invariant_dp
