#include "chain_starts.hpp"

#include <algorithm>
#include <cmath>

#include "../errors.hpp"
#include "../projection/controlled_rounding.hpp"
#include "../projection/nonneg_projection.hpp"
#include "../samplers/discrete_laplace.hpp"
#include "../samplers/wide_int.hpp"

namespace invariant_dp {

std::vector<std::int64_t> public_start(const LinearInvariants& invariants, const Interrupts& interrupts) {
  const std::size_t d = invariants.n_cells();
  if (invariants.n_rows() == 0) return std::vector<std::int64_t>(d, 0);
  const std::vector<double> zero(d, 0.0);
  try {
    const NonnegProjection spread = project_nonnegative(invariants, zero, interrupts);
    return round_keeping_invariants(invariants, spread.y, interrupts);
  } catch (const TooLarge& e) {  // say which step of congenial needed the solver
    throw TooLarge("the table is too large for congenial's starting table", e.detail(),
                   "The congenial mechanism starts its chain at the non-negative table nearest zero with the declared totals, "
                   "found by a solver of bounded size. Release a smaller table, or use integer_laplace or "
                   "integer_gaussian, which keep the margins without the solver.");
  }
}

std::vector<std::int64_t> noisy_start(const LinearInvariants& invariants, const std::int64_t* counts, Rational b,
                                      RandomSource& rng, const Interrupts& interrupts) {
  const std::size_t d = invariants.n_cells();
  std::vector<std::int64_t> noisy(d);
  for (std::size_t i = 0; i < d; ++i) {
    interrupts.poll_every(i);
    noisy[i] = checked_add(counts[i], sample_discrete_laplace(rng, b), kNoisyCountOutOfRange);
  }
  if (invariants.n_rows() == 0) {
    for (std::int64_t& y : noisy) y = std::max<std::int64_t>(0, y);
    return noisy;
  }
  // No non-negative table with these totals has a cell above the least
  // total of the rows it is in: the noisy target is kept within those
  // bounds (public), where the solver's arithmetic stays exact at any scale.
  std::vector<double> target(noisy.begin(), noisy.end());
  std::vector<double> cap(d, INFINITY);
  for (int r = 0; r < invariants.rows.outerSize(); ++r)
    for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(invariants.rows, r); it; ++it)
      cap[std::size_t(it.col())] = std::min(cap[std::size_t(it.col())], invariants.totals[std::size_t(r)]);
  for (std::size_t i = 0; i < d; ++i) target[i] = std::clamp(target[i], 0.0, std::isfinite(cap[i]) ? cap[i] : 0x1p53);
  try {
    const NonnegProjection nearest = project_nonnegative(invariants, target, interrupts);
    return round_keeping_invariants(invariants, nearest.y, interrupts);
  } catch (const TooLarge& e) {  // say which step of congenial needed the solver
    throw TooLarge("the table is too large for congenial's starting table", e.detail(),
                   "The congenial mechanism starts its chain at the non-negative table with the declared totals "
                   "nearest a noisy copy of the data, found by a solver of bounded size. Release a smaller table, "
                   "or use integer_laplace or integer_gaussian, which keep the margins without the solver.");
  }
}

std::vector<std::int64_t> proportional_table_start(const std::vector<LatticeTable>& tables, const std::int64_t* counts,
                                                   std::size_t n_cells, const Interrupts& interrupts) {
  std::vector<std::int64_t> y(n_cells, 0);
  for (const LatticeTable& table : tables) {
    if (table.shape.size() != 2) throw InvalidArgument("the proportional start needs two-way tables");
    const std::size_t rows = table.shape[0], cols = table.shape[1];
    // Row and column totals of non-negative counts, checked: the table's
    // total must itself be a bigint, and every share below divides by it.
    std::vector<std::int64_t> row_total(rows, 0), lacking(cols, 0);
    for (std::size_t p = 0; p < table.cells.size(); ++p) {
      interrupts.poll_every(p);
      const std::int64_t x = counts[table.cells[p]];
      if (x < 0) throw InvalidData("count must not be negative");
      add_to(row_total[p / cols], x);
      add_to(lacking[p % cols], x);
    }
    std::int64_t left = 0;  // sum of lacking = total of the rows not yet filled
    for (const std::int64_t l : lacking) add_to(left, l);
    std::vector<std::pair<std::uint64_t, std::size_t>> fraction(cols);  // (remainder of r l_j / L, column)
    for (std::size_t i = 0; i < rows; ++i) {
      interrupts.poll_every(i);
      const std::int64_t r = row_total[i];
      if (r == 0) continue;
      // left >= r > 0: the rows not yet filled include this one (counts are
      // non-negative), so the division below is by a positive total.
      if (left < r) throw Error("the proportional start lost track of the table's total");
      std::int64_t given = 0;
      for (std::size_t j = 0; j < cols; ++j) {
        // r, lacking[j] < 2^63: the product fits 128 bits, and the share
        // r l_j / L is at most l_j.
        const Uint128 share = Uint128(std::uint64_t(r)) * Uint128(std::uint64_t(lacking[j]));
        const auto whole = std::int64_t(share / Uint128(std::uint64_t(left)));
        fraction[j] = {std::uint64_t(share % Uint128(std::uint64_t(left))), j};
        y[table.cells[i * cols + j]] = whole;
        given += whole;  // at most r: the shares sum to r
      }
      const std::size_t extra = std::size_t(r - given);  // < number of nonzero fractions
      std::partial_sort(fraction.begin(), fraction.begin() + std::ptrdiff_t(extra), fraction.end(),
                        [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
      for (std::size_t k = 0; k < extra; ++k) ++y[table.cells[i * cols + fraction[k].second]];
      for (std::size_t j = 0; j < cols; ++j) lacking[j] -= y[table.cells[i * cols + j]];
      left -= r;
    }
  }
  return y;
}

}  // namespace invariant_dp
