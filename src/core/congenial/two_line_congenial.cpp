// Exact congenial draws on 2 x n and n x 2 tables with both margins: the
// reduction of two_line_congenial.hpp to one bounded group per table.
#include "two_line_congenial.hpp"

#include "../errors.hpp"
#include "../samplers/table_lines.hpp"
#include "../samplers/two_line_table.hpp"
#include "group_rejection.hpp"

namespace invariant_dp {

std::vector<std::size_t> sample_congenial_on_two_line_tables(const std::int64_t* counts,
                                                             const std::vector<LatticeTable>& tables,
                                                             std::size_t n_cells, Rational scale,
                                                             std::uint64_t min_budget, RandomSource& rng,
                                                             const Interrupts& interrupts, std::int64_t* y,
                                                             std::uint64_t& proposals) {
  if (scale.num == 0 || scale.den == 0) throw InvalidArgument("laplace scale must be positive");
  if (n_cells > 0 && counts == nullptr) throw InvalidArgument("counts must not be null");
  check_table_cells(tables, n_cells, NoiseOutput(y), interrupts);
  for (const LatticeTable& table : tables)
    if (!is_two_line_table(table)) throw InvalidArgument("an exact two-line table sampler needs 2 x n or n x 2 tables");
  for (const LatticeTable& table : tables)
    for (std::size_t cell : table.cells)
      if (counts[cell] < 0) throw InvalidData("count must not be negative");
  const Rational half = half_of(scale);
  std::vector<std::size_t> failed;
  std::vector<std::int64_t> lower, upper, t;
  for (std::size_t k = 0; k < tables.size(); ++k) {
    interrupts.poll();
    const LatticeTable& table = tables[k];
    if (pinned_table(table)) {
      for (std::size_t cell : table.cells) y[cell] = counts[cell];
      continue;
    }
    // Line 0 gets t, line 1 gets -t: t_j in [-x_0j, x_1j].
    const TableLines lines(table, table.shape[0] == 2);
    const std::size_t n = lines.length();
    lower.resize(n);
    upper.resize(n);
    for (std::size_t j = 0; j < n; ++j) {
      lower[j] = counts[lines.cell(0, j)];
      upper[j] = counts[lines.cell(1, j)];
    }
    if (!sample_bounded_group(lower, upper, half, min_budget, rng, interrupts, t, proposals)) {
      failed.push_back(k);
      continue;
    }
    // x_0j + t_j >= 0 and x_1j - t_j >= 0 by the bounds; either can exceed
    // bigint only with a column total that does.
    for (std::size_t j = 0; j < n; ++j)
      if (__builtin_add_overflow(lower[j], t[j], &y[lines.cell(0, j)]) ||
          __builtin_sub_overflow(upper[j], t[j], &y[lines.cell(1, j)]))
        throw OutOfRange("noisy count out of range for bigint");
  }
  return failed;
}

}  // namespace invariant_dp
