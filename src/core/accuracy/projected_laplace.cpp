// Linear functionals of projected Laplace noise (projected_laplace.hpp;
// DERIVATIONS.md, section 18).
#include "projected_laplace.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <map>
#include <numeric>
#include <string>
#include <unordered_map>
#include <utility>

#include "../errors.hpp"
#include "../polled_sort.hpp"
#include "independent_sum_quantiles.hpp"
#include "table_functional.hpp"

namespace invariant_dp::accuracy {
namespace {

constexpr double kMaxWeight = 0x1p40;
constexpr double kMaxNumerator = 0x1p62;
constexpr std::uint64_t kMaxLatticeScan = std::uint64_t(1) << 22;
// Tables of three axes or more are made dense, each sum; a sum touching
// more of their cells keeps the tail bound.
constexpr std::size_t kMaxDenseBlock = std::size_t(1) << 20;
// Sizes of a general form's projection below this share of the largest
// are its rounding of a 0.
constexpr double kSolveRounding = 1e-12;

// Sorted sizes, equal ones merged into one term.
template <class T>
std::vector<std::pair<T, std::uint64_t>> merged(std::vector<T> sizes, const Interrupts& interrupts) {
  polled_sort(sizes.begin(), sizes.end(), interrupts);
  std::vector<std::pair<T, std::uint64_t>> out;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    interrupts.poll_every(k);
    if (sizes[k] == 0) continue;
    if (!out.empty() && out.back().first == sizes[k])
      ++out.back().second;
    else
      out.emplace_back(sizes[k], 1);
  }
  return out;
}

// A block's part of the query: (place in the block, integer weight).
using BlockEntries = std::vector<std::pair<std::size_t, std::int64_t>>;

// A block's numerators of Pi_b w over its cell count: (value, cells).
struct BlockNumerators {
  std::vector<std::pair<std::int64_t, std::uint64_t>> values;
  std::uint64_t denominator = 1;
};

// Whether |a| + |b| + ... stays inside the numerators' range.
bool within(std::initializer_list<double> magnitudes) {
  double sum = 0;
  for (const double m : magnitudes) sum += std::fabs(m);
  return sum < kMaxNumerator;
}

// A margin group of k cells: k v = k w - S on its listed cells, -S on the
// others. O(listed).
std::optional<BlockNumerators> group_numerators(std::size_t k, const BlockEntries& cells,
                                                const Interrupts& interrupts) {
  BlockNumerators out;
  out.denominator = k;
  double S = 0;
  for (std::size_t e = 0; e < cells.size(); ++e) {
    interrupts.poll_every(e);
    S += double(cells[e].second);
  }
  for (std::size_t e = 0; e < cells.size(); ++e) {
    interrupts.poll_every(e);
    if (!within({double(k) * double(cells[e].second), S})) return std::nullopt;
    out.values.emplace_back(std::int64_t(k) * cells[e].second - std::int64_t(S), 1);
  }
  out.values.emplace_back(-std::int64_t(S), k - cells.size());
  return out;
}

// A complete r x c table: rc v_ij = rc w_ij - r R_i - c C_j + T (R, C, T
// the query's row, column and whole sums). Off the query a cell's value is
// a_i + b_j + T with a_i = -r R_i, b_j = -c C_j (the lines the query misses
// at 0): the rows and columns grouped by those values, each pair of groups
// holds their product less the query's cells in it. O(query log query +
// row groups x column groups); nothing past 2^20 pairs of groups.
std::optional<BlockNumerators> two_way_numerators(const std::vector<std::size_t>& shape, const BlockEntries& cells,
                                                  const Interrupts& interrupts) {
  const std::int64_t r = std::int64_t(shape[0]), c = std::int64_t(shape[1]);
  std::unordered_map<std::size_t, std::int64_t> row_sum, col_sum;
  std::int64_t T = 0;
  double mass = 0;
  for (std::size_t e = 0; e < cells.size(); ++e) {
    interrupts.poll_every(e);
    const auto [position, w] = cells[e];
    row_sum[position / std::size_t(c)] += w;
    col_sum[position % std::size_t(c)] += w;
    T += w;
    mass += std::fabs(double(w));
  }
  if (!within({double(r) * double(c) * mass, double(r) * mass, double(c) * mass, mass})) return std::nullopt;
  BlockNumerators out;
  out.denominator = std::uint64_t(r * c);
  // The rows' and columns' values, with how many lines take each.
  std::map<std::int64_t, std::uint64_t> rows_at{{0, std::uint64_t(r) - row_sum.size()}},
      cols_at{{0, std::uint64_t(c) - col_sum.size()}};
  for (const auto& [i, R] : row_sum) ++rows_at[-r * R];
  for (const auto& [j, C] : col_sum) ++cols_at[-c * C];
  if (double(rows_at.size()) * double(cols_at.size()) > 0x1p20) return std::nullopt;
  // The query's cells per pair of values, keyed by the pair's place in
  // the groups' order.
  std::unordered_map<std::int64_t, std::size_t> row_group, col_group;
  for (const auto& [a, rows] : rows_at) row_group.emplace(a, row_group.size());
  for (const auto& [b, cols] : cols_at) col_group.emplace(b, col_group.size());
  std::unordered_map<std::uint64_t, std::uint64_t> in_query;
  for (std::size_t e = 0; e < cells.size(); ++e) {
    interrupts.poll_every(e);
    const auto [position, w] = cells[e];
    const std::int64_t a = -r * row_sum[position / std::size_t(c)], b = -c * col_sum[position % std::size_t(c)];
    ++in_query[std::uint64_t(row_group.at(a)) * cols_at.size() + col_group.at(b)];
    out.values.emplace_back(r * c * w + a + b + T, 1);
  }
  std::uint64_t pairs = 0;
  for (const auto& [a, rows] : rows_at)
    for (const auto& [b, cols] : cols_at) {
      interrupts.poll_every(++pairs);
      const auto found = in_query.find(std::uint64_t(row_group.at(a)) * cols_at.size() + col_group.at(b));
      const std::uint64_t taken = found == in_query.end() ? 0 : found->second;
      out.values.emplace_back(a + b + T, rows * cols - taken);
    }
  return out;
}

// A table of three axes or more, made dense: prod n_k Pi_b w, exactly
// (centred_numerators); nothing when an integer could pass 2^62 (|V| grows
// at most 2n times an axis). O(cells x axes).
std::optional<BlockNumerators> dense_numerators(const std::vector<std::size_t>& shape, const BlockEntries& cells,
                                                const Interrupts& interrupts) {
  double n_cells = 1;
  for (const std::size_t n : shape) n_cells *= double(n);
  std::vector<std::int64_t> v(static_cast<std::size_t>(n_cells), 0);
  std::int64_t largest = 0;
  for (const auto& [position, w] : cells) {
    v[position] += w;
    largest = std::max(largest, std::int64_t(std::llabs(v[position])));
  }
  double bits = std::log2(double(std::max<std::int64_t>(largest, 1)));
  for (const std::size_t n : shape) bits += std::log2(2 * double(n));
  if (!(bits < 62)) return std::nullopt;
  centred_numerators(shape, v, interrupts);
  BlockNumerators out;
  out.denominator = static_cast<std::uint64_t>(n_cells);
  for (std::size_t i = 0; i < v.size(); ++i) {
    interrupts.poll_every(i);
    if (v[i] != 0) out.values.emplace_back(v[i], 1);
  }
  return out;
}

std::vector<LaplaceTerm> as_terms(const ScaledWeights& w) {
  std::vector<LaplaceTerm> out;
  for (const WeightedCells& c : w.numerators)
    out.push_back({double(c.weight) / double(w.denominator), double(c.cells)});
  return out;
}

}  // namespace

std::optional<ScaledWeights> projected_numerators(const ProjectorForm& form, const CellQuery& query,
                                                  const Interrupts& interrupts) {
  const std::string structure = form.structure();
  if (structure == "general") return std::nullopt;
  // Each block's numerators (value, cells) over its own denominator, then
  // over their lcm.
  std::vector<BlockNumerators> parts;
  std::map<std::uint32_t, BlockEntries> by_block;
  for (std::size_t k = 0; k < query.size(); ++k) {
    interrupts.poll_every(k);
    const double w = query.weights[k];
    if (!(std::fabs(w) <= kMaxWeight) || w != std::floor(w)) return std::nullopt;
    if (structure == "none")
      by_block[0].emplace_back(0, static_cast<std::int64_t>(w));
    else
      by_block[form.block_of(query.cells[k])].emplace_back(form.position_in_block(query.cells[k]),
                                                           static_cast<std::int64_t>(w));
  }
  if (structure == "none") {
    BlockNumerators part;
    for (const auto& [position, w] : by_block[0]) part.values.emplace_back(w, 1);
    parts.push_back(std::move(part));
  } else {
    // Tables of three axes or more are held dense: at most kMaxDenseBlock
    // cells in all, counted before any is allocated.
    double dense_cells = 0;
    for (const auto& entry : by_block) {
      const std::vector<std::size_t> shape = form.block_shape(entry.first);
      if (shape.size() < 3) continue;
      double n_cells = 1;
      for (const std::size_t n : shape) n_cells *= double(n);
      dense_cells += n_cells;
    }
    if (dense_cells > double(kMaxDenseBlock)) return std::nullopt;
    for (const auto& [block, cells] : by_block) {
      const std::vector<std::size_t> shape = form.block_shape(block);
      if (shape_pinned(shape)) continue;  // Pi_b = 0: every cell fixed
      std::optional<BlockNumerators> part = shape.size() == 1   ? group_numerators(shape[0], cells, interrupts)
                                            : shape.size() == 2 ? two_way_numerators(shape, cells, interrupts)
                                                                : dense_numerators(shape, cells, interrupts);
      if (!part) return std::nullopt;
      parts.push_back(std::move(*part));
    }
  }
  ScaledWeights out;
  for (const BlockNumerators& part : parts) {
    const std::uint64_t g = std::gcd(out.denominator, part.denominator);
    if (double(out.denominator / g) * double(part.denominator) > kMaxNumerator) return std::nullopt;
    out.denominator = out.denominator / g * part.denominator;
  }
  // Equal sizes merged first (a sum's cells take few values), then sorted.
  std::unordered_map<std::uint64_t, std::uint64_t> cells_of_size;
  for (const BlockNumerators& part : parts) {
    const std::uint64_t factor = out.denominator / part.denominator;
    for (std::size_t i = 0; i < part.values.size(); ++i) {
      interrupts.poll_every(i);
      const auto [value, cells] = part.values[i];
      if (value == 0 || cells == 0) continue;
      const std::uint64_t size = std::uint64_t(std::llabs(value));
      if (double(size) * double(factor) > kMaxNumerator) return std::nullopt;
      cells_of_size[size * factor] += cells;
    }
  }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> sizes(cells_of_size.begin(), cells_of_size.end());
  polled_sort(sizes.begin(), sizes.end(), interrupts);
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    interrupts.poll_every(k);
    if (!out.numerators.empty() && out.numerators.back().weight == sizes[k].first)
      out.numerators.back().cells += sizes[k].second;
    else
      out.numerators.push_back({sizes[k].first, sizes[k].second});
  }
  return out;
}

std::optional<std::vector<LaplaceTerm>> projected_weights(const ProjectorForm& form, const CellQuery& query,
                                                          const Interrupts& interrupts) {
  if (std::string(form.structure()) != "general") {
    const std::optional<ScaledWeights> w = projected_numerators(form, query, interrupts);
    if (!w) return std::nullopt;
    return as_terms(*w);
  }
  const std::vector<double> v = form.projection(query, interrupts);
  double largest = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    interrupts.poll_every(i);
    largest = std::max(largest, std::fabs(v[i]));
  }
  std::vector<double> sizes;
  for (std::size_t i = 0; i < v.size(); ++i) {
    interrupts.poll_every(i);
    if (std::fabs(v[i]) > kSolveRounding * largest) sizes.push_back(std::fabs(v[i]));
  }
  // Sizes within the solve's rounding of each other are one size (the
  // largest of them): a cell's row of Pi_N takes few values, each computed
  // with its own rounding.
  std::vector<LaplaceTerm> out;
  double run_start = 0;
  for (const auto& [size, cells] : merged(std::move(sizes), interrupts)) {
    if (!out.empty() && size <= run_start * (1 + kSolveRounding)) {
      out.back().weight = size;
      out.back().count += double(cells);
    } else {
      out.push_back({size, double(cells)});
      run_start = size;
    }
  }
  return out;
}

ScaledWeights cell_projected_numerators(const std::vector<std::size_t>& shape) {
  // The other cell shares the cell's level on the axes of a subset S:
  // prod_{k in S} (n_k - 1) over prod n_k, carried by prod_{k not in S}
  // (n_k - 1) cells.
  if (shape.size() > 20) throw TooLarge("a table of more than 20 axes has no cell weights here");
  ScaledWeights out;
  double denominator = 1;
  for (const std::size_t n : shape) denominator *= double(n);
  if (denominator > kMaxNumerator) throw TooLarge("the table is too large for its cells' weights as integers");
  for (const std::size_t n : shape) out.denominator *= n;
  std::map<std::uint64_t, std::uint64_t> by_size;
  for (std::uint32_t subset = 0; subset < (1u << shape.size()); ++subset) {
    std::uint64_t size = 1, cells = 1;
    for (std::size_t k = 0; k < shape.size(); ++k) (subset & (1u << k) ? size : cells) *= shape[k] - 1;
    if (size > 0 && cells > 0) by_size[size] += cells;
  }
  for (const auto& [size, cells] : by_size) out.numerators.push_back({size, cells});
  return out;
}

std::vector<LaplaceTerm> cell_projected_weights(const std::vector<std::size_t>& shape) {
  return as_terms(cell_projected_numerators(shape));
}

MarginOfError discrete_combination_margin(Rational b, const ScaledWeights& weights, double level,
                                          const Interrupts& interrupts) {
  // Without a weight equal to the weights' gcd the inversion has no
  // decreasing majorant and scans its period's nodes, some 50 b times the
  // largest weight over the gcd (independent_sum_quantiles.hpp): refused
  // past kMaxLatticeScan (about 0.2 s), before any of it.
  std::uint64_t g = 0;
  for (const WeightedCells& c : weights.numerators) g = std::gcd(g, c.weight);
  bool unit = false;
  for (const WeightedCells& c : weights.numerators) unit = unit || c.weight == g;
  if (g > 0 && !unit &&
      double(weights.numerators.back().weight / g) * (b.to_double() + 1) * 64 > double(kMaxLatticeScan))
    throw TooLarge("the projected noise's lattice law is too wide to scan");
  const Quantile q =
      independent_sum_quantile(IntegerNoise{IntegerNoise::Kind::laplace, b}, weights.numerators, level, interrupts);
  return lattice_combination_margin(q, weights.denominator, "Fourier inversion");
}

MarginOfError lattice_combination_margin(const Quantile& q, std::uint64_t denominator, const char* how) {
  MarginOfError out;
  out.tail = SumTail::law_quantile;
  out.half_width = (double(q.half_width) + 0.5) / double(denominator);
  out.kind = q.exact ? Exactness::exact : Exactness::certified;
  out.method = std::string(q.exact ? "exact: the quantile" : "certified: a covering quantile") +
               " of its law (discrete Laplace variables weighted by the projection, on the projection's lattice, by " +
               how + ")";
  return out;
}

std::optional<MarginOfError> projected_laplace_margin(const ProjectorForm& form, double b, const CellQuery& query,
                                                      double level, const Interrupts& interrupts) {
  try {
    const std::optional<std::vector<LaplaceTerm>> terms = projected_weights(form, query, interrupts);
    if (!terms || terms->empty()) return std::nullopt;
    const RealQuantile q = laplace_combination_quantile(b, *terms, level, interrupts);
    MarginOfError out;
    out.tail = SumTail::law_quantile;
    out.half_width = q.half_width;
    out.kind = q.exact ? Exactness::exact : Exactness::certified;
    out.method = std::string(q.exact ? "exact: the quantile" : "certified: a covering quantile") +
                 " of the sum's law (a combination of independent Laplace variables, " + laplace_law_method(q) + ")";
    return out;
  } catch (const TooLarge&) {
    return std::nullopt;  // past the law's work limit: the variance's tail bound
  }
}

std::optional<MarginOfError> projected_discrete_laplace_margin(const ProjectorForm& form, Rational b,
                                                               const CellQuery& query, double level,
                                                               const Interrupts& interrupts) {
  try {
    const std::optional<ScaledWeights> w = projected_numerators(form, query, interrupts);
    if (!w || w->numerators.empty()) return std::nullopt;
    return discrete_combination_margin(b, *w, level, interrupts);
  } catch (const TooLarge&) {
    return std::nullopt;  // past the inversion's limits: the variance's tail bound
  }
}

}  // namespace invariant_dp::accuracy
