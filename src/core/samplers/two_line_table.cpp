// Exact noise on 2 x n and n x 2 tables with both margins: the reduction of
// two_line_table.hpp to one zero-sum group per table.
#include "two_line_table.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <string>

#include "../errors.hpp"
#include "conditioned_gaussian.hpp"
#include "conditioned_laplace.hpp"
#include "table_lines.hpp"

namespace invariant_dp {
namespace {

// The two lines of a 2 x n table are its rows, of an n x 2 table its
// columns; line 0 is the free one (y), line 1 its negative.
TableLines two_lines(const LatticeTable& table) { return TableLines(table, table.shape[0] == 2); }

void check_two_line_tables(const std::vector<LatticeTable>& tables, std::size_t n_cells, const NoiseOutput& z,
                           const Interrupts& interrupts) {
  check_table_cells(tables, n_cells, z, interrupts);
  for (const LatticeTable& table : tables)
    if (!is_two_line_table(table)) throw InvalidArgument("an exact two-line table sampler needs 2 x n or n x 2 tables");
}

}  // namespace

bool is_two_line_table(const LatticeTable& table) {
  return table.shape.size() == 2 && (table.shape[0] <= 2 || table.shape[1] <= 2) &&
         table.cells.size() == table.shape[0] * table.shape[1];
}

Rational half_of(Rational x) {
  if (x.num % 2 == 0) return Rational{x.num / 2, x.den};
  if (x.den >> 63) throw OutOfRange("the noise parameter's denominator is too large to halve exactly");
  return Rational{x.num, 2 * x.den};
}

void sample_laplace_on_two_line_tables(RandomSource& rng, Rational scale, const std::vector<LatticeTable>& tables,
                                       std::size_t n_cells, NoiseOutput z, const Interrupts& interrupts) {
  if (scale.num == 0 || scale.den == 0) throw InvalidArgument("laplace scale must be positive");
  check_two_line_tables(tables, n_cells, z, interrupts);
  const Rational half = half_of(scale);
  // One group sampler per line length, a length shared by many tables with
  // the squeeze (as the partition sampler does); all built before any draw,
  // so a length past the limits is refused before a cell is written.
  std::map<std::size_t, std::size_t> tables_of_length;
  for (const LatticeTable& table : tables)
    if (!pinned_table(table)) ++tables_of_length[two_lines(table).length()];
  std::map<std::size_t, std::unique_ptr<ZeroSumGroupSampler>> samplers;
  for (const auto& [length, sharing] : tables_of_length) {
    interrupts.poll();
    const unsigned squeeze = sharing < 8 ? 0 : static_cast<unsigned>(std::min<std::size_t>(1024, sharing));
    samplers[length] = std::make_unique<ZeroSumGroupSampler>(half, length, squeeze);
  }
  for (const LatticeTable& table : tables) {
    interrupts.poll();
    if (pinned_table(table)) {
      write_zero_noise(table, z, interrupts);
      continue;
    }
    const TableLines lines = two_lines(table);
    // |y_t| <= the group total < 2^62, so -y_t is a bigint.
    samplers[lines.length()]->sample(rng, interrupts, [&](std::uint64_t t, std::int64_t y) {
      z.write(lines.cell(0, t), y);
      z.write(lines.cell(1, t), -y);
    });
  }
}

void sample_gaussian_on_two_line_tables(RandomSource& rng, Rational sigma2, const std::vector<LatticeTable>& tables,
                                        std::size_t n_cells, NoiseOutput z, const Interrupts& interrupts) {
  if (sigma2.num == 0 || sigma2.den == 0) throw InvalidArgument("gaussian variance must be positive");
  check_two_line_tables(tables, n_cells, z, interrupts);
  // The free lines of all tables as one partition, one group per table.
  std::vector<std::uint32_t> group_of_line_cell;
  std::uint32_t groups = 0;
  for (const LatticeTable& table : tables) {
    if (pinned_table(table)) continue;
    group_of_line_cell.insert(group_of_line_cell.end(), two_lines(table).length(), groups++);
  }
  std::vector<std::int64_t> y(group_of_line_cell.size());
  sample_gaussian_with_zero_group_sums(
      rng, half_of(sigma2), ZeroSumPartition{group_of_line_cell.data(), y.size(), groups}, y.data(), interrupts);
  std::size_t next = 0;
  for (const LatticeTable& table : tables) {
    interrupts.poll();
    if (pinned_table(table)) {
      write_zero_noise(table, z, interrupts);
      continue;
    }
    const TableLines lines = two_lines(table);
    for (std::size_t t = 0; t < lines.length(); ++t, ++next) {
      interrupts.poll_every(t);
      z.write(lines.cell(0, t), y[next]);
      z.write(lines.cell(1, t), -y[next]);
    }
  }
}

}  // namespace invariant_dp
