// The largest cell's term of a query's noise (effective_cells.hpp).
#include "effective_cells.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <queue>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "../errors.hpp"
#include "table_functional.hpp"

namespace invariant_dp::accuracy {
namespace {

// A block's part of the query: (place in the block, weight).
using BlockEntries = std::vector<std::pair<std::size_t, double>>;

// A margin group of k cells: k v_i = k w_i - S on the query's cells and -S
// on the others (if the query leaves one out). Returns max v_i^2.
long double group_largest_square(std::size_t k, const BlockEntries& entries, const Interrupts& interrupts) {
  long double total = 0;
  for (std::size_t e = 0; e < entries.size(); ++e) {
    interrupts.poll_every(e);
    total += entries[e].second;
  }
  const long double n = (long double)(k);
  long double largest = entries.size() < k ? std::fabs(total) : 0;
  for (std::size_t e = 0; e < entries.size(); ++e) {
    interrupts.poll_every(e);
    largest = std::max(largest, std::fabs(n * entries[e].second - total));
  }
  return largest * largest / (n * n);
}

// The largest a_x + b_y over pairs of parts not in the query, walking the
// pairs best first (parts sorted by decreasing value): each pair skipped is
// one of the query's cells, so at most |query| + 1 pairs are taken.
// A part is (value, line), line kNoLine for the lines the query misses
// (they share the value 0 and never meet a query cell). Nothing when every
// pair is in the query.
constexpr std::size_t kNoLine = SIZE_MAX;
using LinePart = std::pair<long double, std::size_t>;
std::optional<long double> largest_pair_off_query(const std::vector<LinePart>& rows, const std::vector<LinePart>& cols,
                                                  std::size_t n_cols, const std::unordered_set<std::size_t>& query,
                                                  const Interrupts& interrupts) {
  using Pair = std::tuple<long double, std::size_t, std::size_t>;
  std::priority_queue<Pair> frontier;
  std::unordered_set<std::uint64_t> seen;
  auto push = [&](std::size_t x, std::size_t y) {
    if (x < rows.size() && y < cols.size() && seen.insert(std::uint64_t(x) * cols.size() + y).second)
      frontier.emplace(rows[x].first + cols[y].first, x, y);
  };
  push(0, 0);
  for (std::size_t step = 0; !frontier.empty(); ++step) {
    interrupts.poll_every(step);
    const auto [sum, x, y] = frontier.top();
    frontier.pop();
    const std::size_t i = rows[x].second, j = cols[y].second;
    if (i == kNoLine || j == kNoLine || !query.count(i * n_cols + j)) return sum;
    push(x + 1, y);
    push(x, y + 1);
  }
  return std::nullopt;
}

// A complete r x c table with both margins: rc v_ij = rc w_ij - r R_i -
// c C_j + T (R, C, T the query's row, column and whole sums), integers for
// integer weights. Off the query rc v_ij = a_i + b_j + T with a_i = -r R_i
// and b_j = -c C_j, so its largest |v| is at the largest or the smallest
// a_i + b_j off the query. Returns max v_ij^2.
long double two_way_largest_square(std::size_t r, std::size_t c, const BlockEntries& entries,
                                   const Interrupts& interrupts) {
  std::unordered_map<std::size_t, long double> row_sum, col_sum;
  std::unordered_set<std::size_t> places;
  long double total = 0;
  for (std::size_t e = 0; e < entries.size(); ++e) {
    interrupts.poll_every(e);
    const auto [place, w] = entries[e];
    row_sum[place / c] += w;
    col_sum[place % c] += w;
    total += w;
    places.insert(place);
  }
  const long double R = (long double)(r), C = (long double)(c);
  long double largest = 0;
  for (std::size_t e = 0; e < entries.size(); ++e) {
    interrupts.poll_every(e);
    const auto [place, w] = entries[e];
    largest = std::max(largest, std::fabs(R * C * w - R * row_sum[place / c] - C * col_sum[place % c] + total));
  }
  if (places.size() < r * c) {
    std::vector<LinePart> rows, cols;
    std::size_t k = 0;
    for (const auto& [i, sum] : row_sum) {
      interrupts.poll_every(k++);
      rows.emplace_back(-R * sum, i);
    }
    for (const auto& [j, sum] : col_sum) {
      interrupts.poll_every(k++);
      cols.emplace_back(-C * sum, j);
    }
    if (rows.size() < r) rows.emplace_back(0, kNoLine);
    if (cols.size() < c) cols.emplace_back(0, kNoLine);
    // Both ends: the largest sum, and the smallest as the largest of the
    // negated parts.
    for (const long double sign : {1.0L, -1.0L}) {
      std::vector<LinePart> signed_rows = rows, signed_cols = cols;
      for (LinePart& p : signed_rows) p.first *= sign;
      for (LinePart& p : signed_cols) p.first *= sign;
      auto decreasing = [](const LinePart& a, const LinePart& b) { return a.first > b.first; };
      std::sort(signed_rows.begin(), signed_rows.end(), decreasing);
      std::sort(signed_cols.begin(), signed_cols.end(), decreasing);
      const std::optional<long double> end = largest_pair_off_query(signed_rows, signed_cols, c, places, interrupts);
      if (end) largest = std::max(largest, std::fabs(sign * *end + total));
    }
  }
  return largest * largest / (R * R * C * C);
}

// Tables of three axes or more: the block made dense, each axis centred in
// turn as numerators (n_m x - the line's sum, so the result is prod n_m
// times Pi w, exact for integer weights of moderate size). Returns max v^2,
// nothing past kMaxDenseCountBlock cells.
std::optional<long double> dense_largest_square(const std::vector<std::size_t>& shape, const BlockEntries& entries,
                                                const Interrupts& interrupts) {
  std::size_t cells = 1;
  for (const std::size_t n : shape) {
    if (cells > kMaxDenseCountBlock / n) return std::nullopt;
    cells *= n;
  }
  std::vector<double> x(cells, 0.0);
  for (std::size_t e = 0; e < entries.size(); ++e) {
    interrupts.poll_every(e);
    x[entries[e].first] += entries[e].second;
  }
  long double scale = 1;
  for (const std::size_t n : shape) scale *= (long double)n;
  centred_numerators(shape, x, interrupts);
  double largest = 0;
  for (std::size_t p = 0; p < cells; ++p) {
    interrupts.poll_every(p);
    largest = std::max(largest, std::fabs(x[p]));
  }
  return (long double)(largest)*largest / (scale * scale);
}

}  // namespace

std::optional<double> largest_cell_term(const ProjectorForm& form, const std::vector<double>& block_scalar,
                                        const CellQuery& query, const Interrupts& interrupts) {
  if (block_scalar.size() != form.n_blocks()) throw InvalidArgument("one scalar per block of the form is needed");
  const std::string structure = form.structure();
  if (structure == "none" || structure == "general") {
    // One block: v = w, or v = Pi_N w from one projection.
    double largest = 0;
    if (structure == "none") {
      for (std::size_t k = 0; k < query.size(); ++k) {
        interrupts.poll_every(k);
        largest = std::max(largest, query.weights[k] * query.weights[k]);
      }
    } else if (query.size() > 0) {
      const std::vector<double> v = form.projection(query, interrupts);
      for (std::size_t j = 0; j < v.size(); ++j) {
        interrupts.poll_every(j);
        largest = std::max(largest, v[j] * v[j]);
      }
    }
    return block_scalar.empty() ? 0.0 : block_scalar[0] * largest;
  }
  std::unordered_map<std::uint32_t, BlockEntries> blocks;
  for (std::size_t k = 0; k < query.size(); ++k) {
    interrupts.poll_every(k);
    const std::uint32_t cell = query.cells[k];
    blocks[form.block_of(cell)].emplace_back(form.position_in_block(cell), query.weights[k]);
  }
  long double largest = 0;
  for (const auto& [block, entries] : blocks) {
    interrupts.poll();
    const std::vector<std::size_t> shape = form.block_shape(block);
    long double square = 0;
    if (shape.size() == 1) {
      square = group_largest_square(shape[0], entries, interrupts);
    } else if (shape.size() == 2) {
      square = two_way_largest_square(shape[0], shape[1], entries, interrupts);
    } else {
      const std::optional<long double> dense = dense_largest_square(shape, entries, interrupts);
      if (!dense) return std::nullopt;
      square = *dense;
    }
    largest = std::max(largest, (long double)(block_scalar[block]) * square);
  }
  return double(largest);
}

}  // namespace invariant_dp::accuracy
