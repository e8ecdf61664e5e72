// Margins of error of sums from the law of the sum (sum_quantile.hpp;
// DERIVATIONS.md, section 14).
#include "sum_quantile.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../errors.hpp"
#include "../polled_sort.hpp"
#include "general_lattice_functional.hpp"
#include "independent_sum_quantiles.hpp"
#include "laplace_table_sum.hpp"
#include "lattice_gaussian_quantiles.hpp"
#include "table_functional.hpp"
#include "tail_quantiles.hpp"
#include "zero_sum_quantiles.hpp"

namespace invariant_dp::accuracy {
namespace {

// Weights of the inversions are integers well inside a double's exact range.
constexpr double kMaxSumWeight = 0x1p40;

bool integer_weight(double w, std::int64_t& out) {
  if (!(std::fabs(w) <= kMaxSumWeight) || w != std::floor(w)) return false;
  out = static_cast<std::int64_t>(w);
  return true;
}

// The query's cells grouped by block, in block order (the query's order
// within a block).
struct BlockCells {
  std::uint32_t block = 0;
  std::vector<std::pair<std::uint32_t, std::int64_t>> cells;  // (cell, integer weight)
};

bool by_block(const ProjectorForm& form, const CellQuery& query, std::vector<BlockCells>& out,
              const Interrupts& interrupts) {
  std::vector<std::pair<std::uint32_t, std::size_t>> order(query.size());
  bool one_block = true;
  for (std::size_t k = 0; k < query.size(); ++k) {
    interrupts.poll_every(k);
    order[k] = {form.block_of(query.cells[k]), k};
    one_block = one_block && order[k].first == order[0].first;
  }
  if (!one_block) polled_sort(order.begin(), order.end(), interrupts);  // one block (a single table): already in query order
  for (std::size_t k = 0; k < order.size(); ++k) {
    interrupts.poll_every(k);
    std::int64_t w = 0;
    if (!integer_weight(query.weights[order[k].second], w)) return false;
    if (out.empty() || out.back().block != order[k].first) out.push_back({order[k].first, {}});
    out.back().cells.emplace_back(query.cells[order[k].second], w);
  }
  return true;
}

// A zero-sum group's weights, value -> number of cells (every cell of the
// group, the unlisted ones at 0). The group adds sum_i w_i z_i, unchanged
// by a constant shift of its weights (sum z = 0): with two values u < v it
// is (v - u) times the sum of the v cells; with three, c - d < c < c + d,
// d times (the c + d cells minus the c - d cells).
struct GroupPattern {
  std::int64_t step = 0;  // v - u, or d
  bool three = false;
  std::uint64_t high = 0, middle = 0, low = 0;  // cells at v (c + d), at c (three only), at u (c - d)
};

// A group's distinct weights with their numbers of cells: at most three
// matter (a fourth value has no pattern), so a few entries, no map.
class WeightValues {
 public:
  void add(std::int64_t w, std::uint64_t cells = 1) {
    for (std::size_t k = 0; k < std::min(n_, value_.size()); ++k)
      if (value_[k].first == w) {
        value_[k].second += cells;
        return;
      }
    if (n_ < value_.size()) value_[n_] = {w, cells};
    ++n_;  // past three values: too_many()
  }
  bool too_many() const { return n_ > 3; }
  std::size_t size() const { return n_; }
  // The values in increasing order (size() <= 3).
  std::vector<std::pair<std::int64_t, std::uint64_t>> sorted() const {
    std::vector<std::pair<std::int64_t, std::uint64_t>> out(value_.begin(), value_.begin() + std::ptrdiff_t(n_));
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  std::array<std::pair<std::int64_t, std::uint64_t>, 3> value_{};
  std::size_t n_ = 0;
};

bool group_pattern(const WeightValues& counts, GroupPattern& out) {
  if (counts.size() < 2 || counts.too_many()) return counts.size() == 1;  // one value: the group adds 0
  const auto values = counts.sorted();
  const auto& first = values.front();
  const auto& last = values.back();
  if (values.size() == 2) {
    out = {last.first - first.first, false, last.second, 0, first.second};
    return true;
  }
  const auto& mid = values[1];
  if (last.first - mid.first != mid.first - first.first) return false;
  out = {mid.first - first.first, true, last.second, mid.second, first.second};
  return true;
}

// The groups as terms of one step d shared by all (X = d * sum of the
// groups' signed sums; each group's sign is free: its law is symmetric).
bool group_terms(const std::vector<GroupPattern>& patterns, std::vector<GroupTerm>& terms, std::int64_t& d) {
  d = 0;
  for (const GroupPattern& p : patterns)
    if (p.three) d = d == 0 ? p.step : d;
  if (d == 0)
    for (const GroupPattern& p : patterns) d = d == 0 ? p.step : std::min(d, p.step);
  std::map<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>, std::uint64_t> merged;
  for (const GroupPattern& p : patterns) {
    SignedCounts c;
    if (p.three && p.step == d) {
      c = {p.high, p.low, p.middle};
    } else if (!p.three && p.step == d) {
      c = {p.high, 0, p.low};
    } else if (!p.three && p.step == 2 * d) {
      c = {p.high, p.low, 0};  // u, v = c - d, c + d with c their midpoint
    } else {
      return false;
    }
    ++merged[{c.plus, c.minus, c.zero}];
  }
  for (const auto& [c, groups] : merged) terms.push_back({{std::get<0>(c), std::get<1>(c), std::get<2>(c)}, groups});
  return true;
}

// A table's line of two levels: the axis of length 2 (0 or 1), or -1.
int two_line_axis(const std::vector<std::size_t>& shape) {
  if (shape.size() != 2) return -1;
  return shape[0] == 2 ? 0 : shape[1] == 2 ? 1 : -1;
}

MarginOfError from_quantile(const Quantile& q, std::int64_t step, const std::string& law) {
  MarginOfError out;
  out.tail = SumTail::law_quantile;
  out.half_width = double(q.half_width) * double(step);
  out.kind = q.exact ? Exactness::exact : Exactness::certified;
  out.method = (q.exact ? "exact: the quantile of the sum's law (" : "certified: a covering quantile of the sum's law (") +
               law + ")";
  return out;
}

// Whether a table's part of a sum is whole lines (0 on the lattice); no
// past kMaxFunctionalCells.
bool zero_up_to_lines(const ProjectorForm& form, const BlockCells& b, const std::vector<std::size_t>& shape,
                      const Interrupts& interrupts);

// Partitions and 2 x n tables: zero-sum groups.
std::optional<MarginOfError> group_margin(const ProjectorForm& form, IntegerNoise noise,
                                          const std::vector<BlockCells>& blocks, double level,
                                          const Interrupts& interrupts) {
  const bool tables = std::string(form.structure()) == "tables";
  std::vector<GroupPattern> patterns;
  for (const BlockCells& b : blocks) {
    interrupts.poll();
    const std::vector<std::size_t> shape = form.block_shape(b.block);
    if (shape_pinned(shape)) continue;
    WeightValues values;
    std::uint64_t group_size = 0;
    if (!tables) {
      group_size = shape[0];
      for (std::size_t k = 0; k < b.cells.size(); ++k) {
        interrupts.poll_every(k);
        values.add(b.cells[k].second);
      }
    } else {
      // The line y of the table (y, -y): column j's weight on y is the
      // difference of its two cells' weights.
      const int axis = two_line_axis(shape);
      // A table of no line of two levels: whole lines, 0 on the lattice
      // (lattice_sum_margin sends no other here).
      if (axis < 0) continue;
      group_size = shape[1 - axis];
      std::vector<std::pair<std::size_t, std::int64_t>> line;  // (column, weight on y), sorted then merged
      line.reserve(b.cells.size());
      for (std::size_t k = 0; k < b.cells.size(); ++k) {
        interrupts.poll_every(k);
        const auto& [cell, w] = b.cells[k];
        const std::size_t p = form.position_in_block(cell);
        const std::size_t two = axis == 0 ? p / shape[1] : p % 2, j = axis == 0 ? p % shape[1] : p / 2;
        line.emplace_back(j, two == 0 ? w : -w);
      }
      polled_sort(line.begin(), line.end(), interrupts);
      std::size_t columns = 0;
      for (std::size_t k = 0; k < line.size();) {
        interrupts.poll_every(k);
        std::int64_t w = 0;
        std::size_t next = k;
        // Ends: next walks the entries of one column.
        for (; next < line.size() && line[next].first == line[k].first; ++next) w += line[next].second;
        values.add(w);
        ++columns;
        k = next;
      }
      if (columns < group_size) values.add(0, group_size - columns);
    }
    if (!tables) {
      const std::uint64_t listed = b.cells.size();
      if (listed < group_size) values.add(0, group_size - listed);
    }
    GroupPattern p;
    if (!group_pattern(values, p)) return std::nullopt;
    if (p.step != 0) patterns.push_back(p);
  }
  std::vector<GroupTerm> terms;
  std::int64_t d = 0;
  if (patterns.empty() || !group_terms(patterns, terms, d)) return std::nullopt;
  const IntegerNoise group_noise = tables ? halved(noise) : noise;
  try {
    return from_quantile(zero_sum_quantile(group_noise, terms, level, interrupts), d,
                         tables ? "the first lines of 2 x n tables, zero-sum groups at half the parameter, by Fourier "
                                  "inversion"
                                : "independent zero-sum groups, by Fourier inversion");
  } catch (const TooLarge&) {
    return std::nullopt;  // past the inversion's work limit: the variance's tail bound
  }
}

// A table's part of the sum as a box: one weight on a product of level
// sets (its unit functional, and the weight's size as the step); nothing
// when the cells are no box, or a box with a whole axis (a sum of whole
// lines: constant, step 0).
std::optional<StepFunctional> box_functional(const ProjectorForm& form, Rational sigma2, const BlockCells& b,
                                             const std::vector<std::size_t>& shape, const Interrupts& interrupts) {
  const std::int64_t w = b.cells[0].second;
  std::vector<std::vector<char>> in(shape.size());
  for (std::size_t k = 0; k < shape.size(); ++k) in[k].assign(shape[k], 0);
  std::vector<std::size_t> selected(shape.size(), 0);
  for (std::size_t k = 0; k < b.cells.size(); ++k) {
    interrupts.poll_every(k);
    const auto& [cell, weight] = b.cells[k];
    if (weight != w) return std::nullopt;
    std::size_t rest = form.position_in_block(cell);
    for (std::size_t axis = shape.size(); axis-- > 0;) {
      const std::size_t level_k = rest % shape[axis];
      rest /= shape[axis];
      if (!in[axis][level_k]) {
        in[axis][level_k] = 1;
        ++selected[axis];
      }
    }
  }
  double cells = 1;
  bool whole_axis = false;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    cells *= double(selected[k]);
    whole_axis = whole_axis || selected[k] == shape[k];
  }
  if (cells != double(b.cells.size())) return std::nullopt;  // no product of level sets
  StepFunctional out;
  if (whole_axis) return out;
  out.unit = {box_variance(sigma2, shape, selected), box_log_excess(sigma2, shape, selected)};
  out.step = static_cast<std::uint64_t>(std::llabs(w));
  return out;
}

// A table's weights, one per cell in row-major order (TooLarge past
// kMaxFunctionalCells, before anything is allocated).
std::vector<std::int64_t> dense_weights(const ProjectorForm& form, const BlockCells& b,
                                        const std::vector<std::size_t>& shape, const Interrupts& interrupts) {
  double cells = 1;
  for (const std::size_t n : shape) cells *= double(n);
  if (cells > double(kMaxFunctionalCells))
    throw TooLarge("the table is too large for the law of a sum of its cells");
  std::vector<std::int64_t> weights(static_cast<std::size_t>(cells), 0);
  for (std::size_t k = 0; k < b.cells.size(); ++k) {
    interrupts.poll_every(k);
    weights[form.position_in_block(b.cells[k].first)] += b.cells[k].second;
  }
  return weights;
}

bool zero_up_to_lines(const ProjectorForm& form, const BlockCells& b, const std::vector<std::size_t>& shape,
                      const Interrupts& interrupts) {
  double cells = 1;
  for (const std::size_t n : shape) cells *= double(n);
  if (cells > double(kMaxFunctionalCells)) return false;
  const std::vector<std::int64_t> d = up_to_lines(shape, dense_weights(form, b, shape, interrupts), interrupts);
  for (std::size_t i = 0; i < d.size(); ++i) {
    interrupts.poll_every(i);
    if (d[i] != 0) return false;
  }
  return true;
}

// A table's dense weights as a box up to whole lines: on the lattice a
// sum is unchanged by adding any multiple of a line (a line's sum is a
// fixed margin), so the pair asked alone and the pair with its row added
// are one sum, and must take one route. The weights differenced against
// level 0 along every axis, D_i = sum over subsets S of axes of
// (-1)^|S| w(i with the axes of S at 0), are exactly what lines leave
// alone; a box of weight d on level sets S_k is, up to lines, the box with
// S_k not holding level 0 (a box on S_k and on its complement differ by
// lines and a sign, and box_log_excess reads s and n - s alike), and its D
// is +-d on the product of those sets, 0 elsewhere. Nothing when D has
// another pattern; a step-0 functional when D is 0 (a sum of lines).
std::optional<StepFunctional> box_up_to_lines(Rational sigma2, const std::vector<std::size_t>& shape,
                                              std::vector<std::int64_t> d, const Interrupts& interrupts) {
  // |D| <= 2^K max|w|, inside an int64 for the weights' 2^40 and K <= 20.
  if (shape.size() > 20) return std::nullopt;
  d = up_to_lines(shape, std::move(d), interrupts);
  std::size_t pivot = 0;
  while (pivot < d.size() && d[pivot] == 0) interrupts.poll_every(pivot++);
  StepFunctional out;
  if (pivot == d.size()) return out;
  const std::int64_t v = d[pivot];
  // Each axis's set: the levels l where D at the pivot with axis k at l is v.
  std::vector<std::vector<char>> in(shape.size());
  std::vector<std::size_t> selected(shape.size(), 0);
  std::size_t stride = d.size();
  for (std::size_t k = 0; k < shape.size(); ++k) {
    stride /= shape[k];
    const std::size_t base = pivot - ((pivot / stride) % shape[k]) * stride;
    in[k].assign(shape[k], 0);
    for (std::size_t l = 0; l < shape[k]; ++l) {
      const std::int64_t x = d[base + l * stride];
      if (x != 0 && x != v) return std::nullopt;
      in[k][l] = x == v;
      selected[k] += x == v;
    }
  }
  for (std::size_t i = 0; i < d.size(); ++i) {
    interrupts.poll_every(i);
    bool inside = true;
    std::size_t rest = i;
    for (std::size_t k = shape.size(); k-- > 0 && inside;) {
      inside = in[k][rest % shape[k]] != 0;
      rest /= shape[k];
    }
    if (d[i] != (inside ? v : 0)) return std::nullopt;
  }
  out.unit = {box_variance(sigma2, shape, selected), box_log_excess(sigma2, shape, selected)};
  out.step = static_cast<std::uint64_t>(std::llabs(v));
  return out;
}

// Complete tables of the lattice Gaussian (and the zero-sum groups of one
// margin, tables of one axis): per table a box of one weight (its Klein
// order) or any integer weights (short vectors of its kernel). Parts of one
// step d: the sum is d times independent unit functionals, merged; parts
// of different steps: every part through its kernel, joined by one vector
// per table (independent_tables).
std::optional<MarginOfError> table_margin(const ProjectorForm& form, IntegerNoise noise,
                                          const std::vector<BlockCells>& blocks, double level,
                                          const Interrupts& interrupts) {
  struct Part {
    const BlockCells* cells;
    std::vector<std::size_t> shape;
    StepFunctional functional;
    std::optional<TableFunctional> kernel;  // when it is no box
  };
  std::vector<Part> parts;
  std::uint64_t d = 0;
  bool boxes_only = true, one_step = true;
  try {
    for (const BlockCells& b : blocks) {
      interrupts.poll();
      std::vector<std::size_t> shape = form.block_shape(b.block);
      if (shape_pinned(shape)) continue;
      Part part{&b, shape, {}, std::nullopt};
      if (std::optional<StepFunctional> box = box_functional(form, noise.parameter, b, shape, interrupts)) {
        part.functional = *box;
      } else {
        std::vector<std::int64_t> weights = dense_weights(form, b, shape, interrupts);
        if (std::optional<StepFunctional> lined = box_up_to_lines(noise.parameter, shape, weights, interrupts)) {
          part.functional = *lined;
        } else {
          part.kernel = table_functional(noise.parameter, shape, std::move(weights), interrupts);
          part.functional = part.kernel->functional;
          boxes_only = false;
        }
      }
      if (part.functional.step == 0) continue;  // constant on the lattice
      if (d == 0) d = part.functional.step;
      one_step = one_step && part.functional.step == d;
      parts.push_back(std::move(part));
    }
    if (parts.empty()) return std::nullopt;
    if (one_step) {
      std::vector<TiltedFunctional> functionals;
      for (const Part& p : parts) functionals.push_back(p.functional.unit);
      const TiltedFunctional sum = independent_blocks(functionals, interrupts);
      return from_quantile(tilted_gaussian_quantile(sum.variance, 1, sum.log_excess, level, interrupts),
                           static_cast<std::int64_t>(d),
                           boxes_only ? "boxes of complete tables: the discrete Gaussian at the continuous variance, "
                                        "tilted within the theta excess of the other Gram-Schmidt coordinates"
                                      : "complete tables: the discrete Gaussian at the continuous variance, tilted "
                                        "within the theta excess of short vectors of the lattice where the sum is 0");
    }
    std::vector<TableFunctional> kernels;
    for (const Part& p : parts)
      kernels.push_back(p.kernel ? *p.kernel
                                 : table_functional(noise.parameter, p.shape,
                                                    dense_weights(form, *p.cells, p.shape, interrupts), interrupts));
    const StepFunctional sum = independent_tables(kernels, interrupts);
    return from_quantile(tilted_gaussian_quantile(sum.unit.variance, 1, sum.unit.log_excess, level, interrupts),
                         static_cast<std::int64_t>(sum.step),
                         "complete tables whose parts have different steps: the discrete Gaussian at the continuous "
                         "variance, tilted within the theta excess of short vectors of the lattice where the sum is 0");
  } catch (const OutOfRange&) {
    return std::nullopt;  // a lattice too coarse for the bound: the sub-Gaussian tail
  } catch (const TooLarge&) {
    return std::nullopt;
  }
}

// Complete two-way tables of the l1 law whose lines across the short side
// have three or four cells (laplace_table_sum.hpp); nothing when a table
// touched has another shape, or past the inversion's work limit.
std::optional<MarginOfError> laplace_table_margin(const ProjectorForm& form, IntegerNoise noise,
                                                  const std::vector<BlockCells>& blocks, double level,
                                                  const Interrupts& interrupts) {
  std::vector<LaplaceTablePart> parts;
  try {
    for (const BlockCells& b : blocks) {
      interrupts.poll();
      const std::vector<std::size_t> shape = form.block_shape(b.block);
      // Whole lines of any table add nothing (one route however the sum is
      // written).
      if (shape_pinned(shape) || zero_up_to_lines(form, b, shape, interrupts)) continue;
      if (shape.size() != 2 || std::min(shape[0], shape[1]) < 3 || std::min(shape[0], shape[1]) > 4)
        return std::nullopt;
      parts.push_back({shape[0], shape[1], dense_weights(form, b, shape, interrupts)});
    }
    if (parts.empty()) return std::nullopt;
    const TableSumQuantile q = laplace_table_sum_quantile(noise.parameter, parts, level, interrupts);
    if (q.step == 0) return std::nullopt;  // constant: the variance's bound says 0 too
    const char* how =
        q.method == TableSumMethod::inversion
            ? "complete tables of the l1 law: the sum's transform by Fourier integrals over the tables' lines, inverted"
            : "complete tables of the l1 law, one cell of each line: its law by one Fourier integral over the lines";
    return from_quantile(q.quantile, q.step, how);
  } catch (const TooLarge&) {
    return std::nullopt;  // past the inversion's work limit: the variance's tail bound
  } catch (const OutOfRange&) {
    return std::nullopt;
  }
}

}  // namespace

std::optional<MarginOfError> lattice_sum_margin(const ProjectorForm& form, IntegerNoise noise, const CellQuery& query,
                                                double level, const Interrupts& interrupts) {
  check_level(level);
  const std::string structure = form.structure();
  if (query.size() == 0) return std::nullopt;
  if (structure == "general")
    return noise.kind == IntegerNoise::Kind::gaussian
               ? general_lattice_margin(form, noise.parameter, query, level, interrupts)
               : std::nullopt;
  if (structure == "none") {
    std::map<std::uint64_t, std::uint64_t> by_weight;
    for (std::size_t k = 0; k < query.size(); ++k) {
      interrupts.poll_every(k);
      std::int64_t w = 0;
      if (!integer_weight(query.weights[k], w)) return std::nullopt;
      if (w != 0) ++by_weight[std::uint64_t(std::llabs(w))];
    }
    std::vector<WeightedCells> terms;
    for (const auto& [w, m] : by_weight) terms.push_back({w, m});
    try {
      return from_quantile(independent_sum_quantile(noise, std::move(terms), level, interrupts), 1,
                           "independent cells, by Fourier inversion");
    } catch (const TooLarge&) {
      return std::nullopt;
    }
  }
  std::vector<BlockCells> blocks;
  if (!by_block(form, query, blocks, interrupts)) return std::nullopt;
  // Zero-sum groups when every block touched is a group or a 2 x n table,
  // or whole lines of another table (w plus a row of a 3 x 4 table is w:
  // one route however the sum is written).
  bool all_groups = true;
  for (std::size_t k = 0; k < blocks.size() && all_groups; ++k) {
    const std::vector<std::size_t> shape = form.block_shape(blocks[k].block);
    all_groups = structure == "partition" || shape_pinned(shape) || two_line_axis(shape) >= 0 ||
                 zero_up_to_lines(form, blocks[k], shape, interrupts);
  }
  if (all_groups)
    if (std::optional<MarginOfError> m = group_margin(form, noise, blocks, level, interrupts)) return m;
  if ((structure == "tables" || structure == "partition") && noise.kind == IntegerNoise::Kind::gaussian)
    return table_margin(form, noise, blocks, level, interrupts);
  if (structure == "tables" && noise.kind == IntegerNoise::Kind::laplace)
    return laplace_table_margin(form, noise, blocks, level, interrupts);
  return std::nullopt;
}

namespace {

// The functional of general margins' lattice Gaussian a query is (nothing
// where the weights are no integers or the basis is past its limits), with
// its continuous variance.
std::optional<StepFunctional> general_functional(const ProjectorForm& form, Rational sigma2, const CellQuery& query,
                                                 const Interrupts& interrupts) {
  std::vector<std::pair<std::uint32_t, std::int64_t>> cells(query.size());
  for (std::size_t k = 0; k < query.size(); ++k) {
    interrupts.poll_every(k);
    cells[k].first = query.cells[k];
    if (!integer_weight(query.weights[k], cells[k].second)) return std::nullopt;
  }
  const GeneralLatticeFunctionals* lattice = form.lattice_functionals(interrupts);
  if (lattice == nullptr) return std::nullopt;
  const double variance = sigma2.to_double() * form.form(query, interrupts);
  return lattice->functional(sigma2, cells, variance, interrupts);
}

}  // namespace

std::optional<MarginOfError> general_lattice_margin(const ProjectorForm& form, Rational sigma2, const CellQuery& query,
                                                    double level, const Interrupts& interrupts) {
  try {
    const std::optional<StepFunctional> x = general_functional(form, sigma2, query, interrupts);
    if (!x) return std::nullopt;
    if (x->step == 0) {  // constant on the lattice
      MarginOfError exact_zero;
      exact_zero.tail = SumTail::law_quantile;
      exact_zero.kind = Exactness::exact;
      exact_zero.method = "exact: a function of the margins, which the release keeps exact";
      return exact_zero;
    }
    if (!(x->unit.variance > 0)) return std::nullopt;
    return from_quantile(tilted_gaussian_quantile(x->unit.variance, 1, x->unit.log_excess, level, interrupts),
                         static_cast<std::int64_t>(x->step),
                         "general margins: the discrete Gaussian at the continuous variance, tilted within the theta "
                         "excess of short vectors of the lattice where it is 0");
  } catch (const OutOfRange&) {
    return std::nullopt;  // a lattice too coarse for the bound: the sub-Gaussian tail
  } catch (const TooLarge&) {
    return std::nullopt;
  }
}

double general_lattice_variance_lower(const ProjectorForm& form, Rational sigma2, const CellQuery& query,
                                      const Interrupts& interrupts) {
  try {
    const std::optional<StepFunctional> x = general_functional(form, sigma2, query, interrupts);
    if (!x || x->step == 0) return 0;
    return tilted_gaussian_variance_lower(x->unit.variance * double(x->step) * double(x->step), x->step,
                                          x->unit.log_excess);
  } catch (const TooLarge&) {
    return 0;
  }
}

}  // namespace invariant_dp::accuracy
