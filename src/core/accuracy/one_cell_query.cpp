// Queries that are one cell given the invariants (one_cell_query.hpp).
#include "one_cell_query.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "../polled_sort.hpp"

namespace invariant_dp::accuracy {
namespace {

// What one block of a query is given its margins.
struct BlockReading {
  enum class Kind { constant, one_cell, other } kind = Kind::other;
  std::size_t position = 0;  // one_cell: the cell's place in the block
  double weight = 0;
};

// The block's weights (entries: place, weight) through the mixed difference.
BlockReading read_block(const std::vector<std::size_t>& shape,
                        const std::vector<std::pair<std::size_t, double>>& entries, const Interrupts& interrupts) {
  std::size_t cells = 1;
  for (const std::size_t n : shape) {
    if (cells > kMaxOneCellBlock / n) return {};
    cells *= n;
  }
  std::vector<double> v(cells, 0.0);
  for (std::size_t k = 0; k < entries.size(); ++k) {
    interrupts.poll_every(k);
    v[entries[k].first] += entries[k].second;
  }
  // (I - S_m) along each axis in turn, row-major strides.
  const std::size_t K = shape.size();
  std::vector<std::size_t> stride(K, 1);
  for (std::size_t m = K - 1; m-- > 0;) stride[m] = stride[m + 1] * shape[m + 1];
  for (std::size_t m = 0; m < K; ++m) {
    const std::size_t span = stride[m] * shape[m];
    for (std::size_t outer = 0; outer < cells; outer += span) {
      interrupts.poll();
      for (std::size_t inner = 0; inner < stride[m]; ++inner) {
        const std::size_t base = outer + inner;
        const double first = v[base];
        if (first == 0) continue;
        for (std::size_t l = 1; l < shape[m]; ++l) v[base + l * stride[m]] -= first;
        v[base] = 0;
      }
    }
  }
  // The box the differences live on: an axis whose non-zero entries share
  // one level is c_m's (never 0: D w vanishes where a coordinate is 0);
  // else c_m = 0 and the box takes the levels 1 to n_m - 1.
  std::size_t first = cells;
  for (std::size_t x = 0; x < cells && first == cells; ++x) {
    interrupts.poll_every(x);
    if (v[x] != 0) first = x;
  }
  if (first == cells) return {BlockReading::Kind::constant};
  auto coordinate = [&](std::size_t x, std::size_t m) { return x / stride[m] % shape[m]; };
  std::vector<std::size_t> level(K);
  std::vector<bool> single(K, true);
  for (std::size_t m = 0; m < K; ++m) level[m] = coordinate(first, m);
  for (std::size_t x = first; x < cells; ++x) {
    interrupts.poll_every(x);
    if (v[x] == 0) continue;
    for (std::size_t m = 0; m < K; ++m) single[m] = single[m] && coordinate(x, m) == level[m];
  }
  BlockReading out{BlockReading::Kind::one_cell};
  double sign = 1;
  for (std::size_t m = 0; m < K; ++m) {
    if (!single[m]) sign = -sign;
    out.position += (single[m] ? level[m] : 0) * stride[m];
  }
  out.weight = v[first] * sign;
  for (std::size_t x = 0; x < cells; ++x) {
    interrupts.poll_every(x);
    bool in_box = true;
    for (std::size_t m = 0; m < K && in_box; ++m)
      in_box = single[m] ? coordinate(x, m) == level[m] : coordinate(x, m) != 0;
    if (v[x] != (in_box ? v[first] : 0.0)) return {};
  }
  return out;
}

}  // namespace

std::optional<CellQuery> as_one_cell(const ProjectorForm& form, const CellQuery& query, const Interrupts& interrupts) {
  const std::string structure = form.structure();
  if (query.size() < 2 || (structure != "partition" && structure != "tables")) return std::nullopt;
  std::vector<std::pair<std::uint32_t, std::size_t>> order;  // (block, entry), weights not 0
  for (std::size_t k = 0; k < query.size(); ++k) {
    interrupts.poll_every(k);
    if (query.weights[k] != 0) order.emplace_back(form.block_of(query.cells[k]), k);
  }
  polled_sort(order.begin(), order.end(), interrupts);
  std::optional<std::pair<std::uint32_t, BlockReading>> found;
  for (std::size_t i = 0, j = 0; i < order.size(); i = j) {
    const std::uint32_t block = order[i].first;
    // Ends: j walks the entries of one block.
    for (j = i; j < order.size() && order[j].first == block; ++j) interrupts.poll_every(j);
    const std::vector<std::size_t> shape = form.block_shape(block);
    if (shape_pinned(shape)) continue;  // every cell fixed: a constant
    BlockReading reading;
    if (j - i == 1) {
      const std::size_t k = order[i].second;
      reading = {BlockReading::Kind::one_cell, form.position_in_block(query.cells[k]), query.weights[k]};
    } else if (j - i + 1 < *std::min_element(shape.begin(), shape.end())) {
      // A non-zero sum of line functions has a line's cells or more, so one
      // with a cell removed has at least a line's cells less one.
      return std::nullopt;
    } else {
      std::vector<std::pair<std::size_t, double>> entries;
      for (std::size_t k = i; k < j; ++k)
        entries.emplace_back(form.position_in_block(query.cells[order[k].second]), query.weights[order[k].second]);
      reading = read_block(shape, entries, interrupts);
    }
    if (reading.kind == BlockReading::Kind::other) return std::nullopt;
    if (reading.kind == BlockReading::Kind::constant) continue;
    if (found) return std::nullopt;  // two blocks' cells
    found = std::pair{block, reading};
  }
  if (!found) return std::nullopt;
  CellQuery out;
  out.cells.push_back(form.cell_at(found->first, found->second.position, interrupts));
  out.weights.push_back(found->second.weight);
  return out;
}

}  // namespace invariant_dp::accuracy
