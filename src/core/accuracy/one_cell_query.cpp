// Queries that are one cell given the invariants (one_cell_query.hpp).
#include "one_cell_query.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace invariant_dp::accuracy {
namespace {

// What one block of a query is given its margins.
struct BlockReading {
  enum class Kind { constant, one_cell, other } kind = Kind::other;
  std::size_t position = 0;  // one_cell: the cell's place in the block
  double weight = 0;
};

// The relative rounding a block's share of the variance may carry (the
// forms sum in extended precision and divide once).
constexpr double kSquareTolerance = 1e-9;

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
  std::uint64_t lines = 0;
  for (std::size_t m = 0; m < K; ++m) {
    const std::size_t span = stride[m] * shape[m];
    for (std::size_t outer = 0; outer < cells; outer += span) {
      for (std::size_t inner = 0; inner < stride[m]; ++inner) {
        interrupts.poll_scaled(++lines, shape[m]);
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

// General margins: v = Pi_N x, and the cell c with the largest
// v_c^2 / (Pi_N)_cc, which is at most |v|^2 (Cauchy and Schwarz), with
// equality exactly when v = a Pi_N e_c. The projector is computed in
// floating point, so equality is read within kGeneralTolerance. Such a c
// has v_c^2 = (Pi_N)_cc |v|^2: only cells with v_j^2 at least
// kGeneralLeast |v|^2 are compared (at most 1 / kGeneralLeast of them, each
// diagonal computed once per form), which leaves out cells whose variance
// is below that share of a free cell's.
constexpr double kGeneralTolerance = 1e-9, kGeneralLeast = 1e-3;
std::optional<CellQuery> general_one_cell(const ProjectorForm& form, const CellQuery& query,
                                          const Interrupts& interrupts) {
  // A constant (the variance says 0), or rounding's residue of one.
  double squares = 0;
  for (std::size_t k = 0; k < query.size(); ++k) {
    interrupts.poll_every(k);
    squares += query.weights[k] * query.weights[k];
  }
  if (!(form.form(query, interrupts) > kGeneralTolerance * squares)) return std::nullopt;
  const std::vector<double> v = form.projection(query, interrupts);
  double norm = 0, best = 0;
  std::uint32_t at = 0;
  for (std::uint32_t j = 0; j < v.size(); ++j) {
    interrupts.poll_every(j);
    norm += v[j] * v[j];
  }
  for (std::uint32_t j = 0; j < v.size(); ++j) {
    interrupts.poll_every(j);
    if (!(v[j] * v[j] >= kGeneralLeast * norm)) continue;
    const double d = form.diagonal(j);
    if (!(d > kGeneralTolerance)) continue;  // a cell its margins fix
    const double score = v[j] * v[j] / d;
    if (score > best) best = score, at = j;
  }
  if (!(norm > 0) || best < norm * (1 - kGeneralTolerance)) return std::nullopt;
  double a = v[at] / form.diagonal(at);
  if (std::fabs(a - std::round(a)) <= kGeneralTolerance * std::fabs(a)) a = std::round(a);
  CellQuery out;
  out.cells.push_back(at);
  out.weights.push_back(a);
  return out;
}

}  // namespace

std::optional<CellQuery> as_one_cell(const ProjectorForm& form, const CellQuery& query, const Interrupts& interrupts) {
  const std::string structure = form.structure();
  if (query.size() < 2 || structure == "none") return std::nullopt;
  if (structure == "general") return general_one_cell(form, query, interrupts);
  // A block whose share of the variance is 0 is a constant (the forms sum
  // integer weights exactly); the query is one cell only if one block has
  // a share, and that block is one cell.
  std::vector<BlockForm> shares;
  form.block_forms(query, shares, interrupts);
  std::optional<std::uint32_t> block;
  double block_share = 0;
  for (const BlockForm& share : shares)
    if (share.form != 0) {
      if (block) return std::nullopt;  // two blocks' cells
      block = share.block;
      block_share = share.form;
    }
  if (!block) return std::nullopt;                      // a constant: its variance says 0
  // The block's entries: how many, whether their weights are integers.
  std::size_t count = 0;
  std::uint32_t last_cell = 0;
  double last_weight = 0;
  bool integer = true;
  const auto in_block = [&](std::size_t k) { return query.weights[k] != 0 && form.block_of(query.cells[k]) == *block; };
  for (std::size_t k = 0; k < query.size(); ++k) {
    interrupts.poll_every(k);
    if (!in_block(k)) continue;
    ++count;
    last_cell = query.cells[k];
    last_weight = query.weights[k];
    const double w = query.weights[k];
    integer = integer && std::fabs(w) < 0x1p40 && w == std::round(w);
  }
  CellQuery out;
  if (count == 1) {
    out.cells.push_back(last_cell);
    out.weights.push_back(last_weight);
    return out;
  }
  // A non-zero sum of line functions has at least a line's cells, so a
  // block that is one cell with such a sum added holds a line's cells less
  // one or more: with fewer it is no cell, and the pass is skipped.
  const std::vector<std::size_t> shape = form.block_shape(*block);
  if (count + 1 < *std::min_element(shape.begin(), shape.end())) return std::nullopt;
  // With integer weights a is an integer (a difference of sums of them), so
  // the block's share a^2 (Pi_N)_cc is the cell's diagonal times a square:
  // a share that is not (a sum of most of a large table) skips the pass.
  if (integer) {
    const double squared = block_share / shape_diagonal(shape), root = std::round(std::sqrt(squared));
    if (!(root >= 1 && std::fabs(squared - root * root) <= kSquareTolerance * squared)) return std::nullopt;
  }
  std::vector<std::pair<std::size_t, double>> entries;  // (place, weight) in the block
  entries.reserve(count);
  for (std::size_t k = 0; k < query.size(); ++k) {
    interrupts.poll_every(k);
    if (in_block(k)) entries.emplace_back(form.position_in_block(query.cells[k]), query.weights[k]);
  }
  const BlockReading reading = read_block(shape, entries, interrupts);
  if (reading.kind != BlockReading::Kind::one_cell) return std::nullopt;
  out.cells.push_back(form.cell_at(*block, reading.position, interrupts));
  out.weights.push_back(reading.weight);
  return out;
}

}  // namespace invariant_dp::accuracy
