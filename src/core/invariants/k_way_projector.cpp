// Complete K-way tables (K >= 3) with exactly their K (K-1)-way margins
// (the three two-way margins of a cube), one table or a family of them:
// the group columns G lie in every margin, each margin is G and all but
// one of the K other columns (the axes), and within each group of G every
// combination of the axes' levels present in the group is a cell (the
// county x age x sex x race tables of every state). Tables are
// independent, and in each null(A) is the tensor product of the sum-zero
// spaces of the axes, so Pi_N = (x)_k (I - J/n_k) -- centring along every
// axis in turn, O(K cells) -- with diagonal prod_k (1 - 1/n_k) and rank
// cells - prod_k (n_k - 1) per table. Detected from the key codes; the
// independent rows come from the general selection, only when asked for.
#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "../polled_sort.hpp"
#include "null_projectors.hpp"

namespace invariant_dp {
namespace detail {
namespace {

class KWayProjector final : public NullProjector {
 public:
  KWayProjector(std::vector<LatticeTable> tables, std::vector<SharedGrouping> margins)
      : tables_(std::move(tables)), margins_(std::move(margins)) {
    for (const LatticeTable& t : tables_) n_cells_ += t.cells.size();
  }

  const char* structure() const override { return "k_way"; }
  std::size_t rank() const override {
    std::size_t rank = 0;
    for (const LatticeTable& t : tables_) {
      std::size_t free = 1;
      for (std::size_t n : t.shape) free *= n - 1;
      rank += t.cells.size() - free;
    }
    return rank;
  }

  void project(double* e, const Interrupts& interrupts) const override {
    std::vector<double> v;
    for (const LatticeTable& table : tables_) {
      interrupts.poll();
      const std::size_t cells = table.cells.size();
      v.resize(cells);
      for (std::size_t p = 0; p < cells; ++p) v[p] = e[table.cells[p]];
      std::size_t inner = cells;
      for (std::size_t n : table.shape) {
        // axis of length n: positions outer * n * inner' + k * inner' + rest
        inner /= n;
        const std::size_t outer = cells / (n * inner);
        for (std::size_t o = 0; o < outer; ++o) {
          interrupts.poll_every(o);
          for (std::size_t r = 0; r < inner; ++r) {
            double mean = 0;
            const std::size_t base = o * n * inner + r;
            for (std::size_t k = 0; k < n; ++k) mean += v[base + k * inner];
            mean /= double(n);
            for (std::size_t k = 0; k < n; ++k) v[base + k * inner] -= mean;
          }
        }
      }
      for (std::size_t p = 0; p < cells; ++p) e[table.cells[p]] = v[p];
    }
  }

  std::vector<double> diagonal(const Interrupts& interrupts) const override {
    std::vector<double> diag(n_cells_);
    for (const LatticeTable& table : tables_) {
      interrupts.poll();
      double d = 1;
      for (std::size_t n : table.shape) d *= 1 - 1.0 / double(n);
      for (const std::size_t cell : table.cells) diag[cell] = d;
    }
    return diag;
  }

  RowSparse independent_rows(const Interrupts& interrupts) const override {
    std::vector<const Grouping*> groupings;
    for (const SharedGrouping& g : margins_) groupings.push_back(g.get());
    const RowSparse all_rows = indicator_rows(groupings, n_cells_, interrupts);
    return take_rows(all_rows, select_independent_rows(all_rows, interrupts));
  }

  std::vector<LatticeTable> lattice_tables(const Interrupts&) const override { return tables_; }

 private:
  std::vector<LatticeTable> tables_;
  std::vector<SharedGrouping> margins_;
  std::size_t n_cells_ = 0;
};

}  // namespace

std::optional<std::vector<LatticeTable>> complete_k_way_tables(const CellKeys& cells,
                                                               const std::vector<Margin>& margins,
                                                               const Interrupts& interrupts) {
  const std::size_t columns = cells.n_columns();
  if (margins.empty()) return std::nullopt;
  // The group columns: those of every margin; the axes: the others.
  std::vector<std::size_t> in_margins(columns, 0);
  for (const Margin& margin : margins)
    for (const std::size_t c : margin.columns) ++in_margins[c];
  std::vector<std::size_t> group_columns, axes;
  for (std::size_t c = 0; c < columns; ++c) (in_margins[c] == margins.size() ? group_columns : axes).push_back(c);
  const std::size_t K = axes.size();
  if (K < 3 || margins.size() != K) return std::nullopt;
  // Each margin leaves out exactly one axis, each axis once.
  std::vector<bool> left_out(columns, false);
  for (const Margin& margin : margins) {
    if (margin.columns.size() != group_columns.size() + K - 1) return std::nullopt;
    std::vector<bool> in(columns, false);
    for (const std::size_t c : margin.columns) in[c] = true;
    std::size_t missing = columns;
    for (const std::size_t a : axes)
      if (!in[a]) missing = a;
    if (missing == columns || left_out[missing]) return std::nullopt;
    left_out[missing] = true;
  }
  // The group of every cell, by its codes on the group columns (a mixed
  // radix; a family too fine for 64 bits is left to the general case).
  const std::size_t n_cells = cells.n_cells();
  std::vector<std::uint32_t> group_of(n_cells, 0);
  std::uint32_t n_groups = 1;
  if (!group_columns.empty()) {
    double radix = 1;
    for (const std::size_t c : group_columns) radix *= double(cells.n_levels(c));
    if (radix > 0x1p63) return std::nullopt;
    std::unordered_map<std::uint64_t, std::uint32_t> number;
    n_groups = 0;
    for (std::size_t i = 0; i < n_cells; ++i) {
      interrupts.poll_every(i);
      std::uint64_t key = 0;
      for (const std::size_t c : group_columns) key = key * cells.n_levels(c) + cells.code(c, i);
      const auto [it, added] = number.emplace(key, n_groups);
      if (added) ++n_groups;
      group_of[i] = it->second;
    }
  }
  // Per group and axis, the levels present, ranked in code order (the
  // table's coordinates): a dense array over (group, level) when it is
  // no larger than a few times the cells, else a hash map (groups that each
  // hold few of an axis's many levels: counties within states).
  std::vector<LatticeTable> tables(n_groups);
  std::vector<std::size_t> group_cells(n_groups, 0);
  for (std::size_t i = 0; i < n_cells; ++i) ++group_cells[group_of[i]];
  struct AxisRanks {
    std::size_t levels = 0;
    std::vector<std::uint32_t> dense;  // g * levels + code -> rank, or kNone
    std::unordered_map<std::uint64_t, std::uint32_t> sparse;
    std::uint32_t of(std::uint32_t g, std::uint32_t code) const {
      const std::uint64_t key = std::uint64_t(g) * levels + code;
      return dense.empty() ? sparse.at(key) : dense[key];
    }
  };
  constexpr std::uint32_t kNone = UINT32_MAX;
  std::vector<AxisRanks> ranks(K);
  for (std::size_t k = 0; k < K; ++k) {
    AxisRanks& r = ranks[k];
    r.levels = cells.n_levels(axes[k]);
    std::vector<std::uint64_t> present;  // (group, level) keys, sorted: ranks by position within the group
    if (double(r.levels) * double(n_groups) <= 4 * double(n_cells) + 1024) {
      r.dense.assign(std::size_t(n_groups) * r.levels, kNone);
      for (std::size_t i = 0; i < n_cells; ++i) {
        interrupts.poll_every(i);
        r.dense[std::size_t(group_of[i]) * r.levels + cells.code(axes[k], i)] = 0;
      }
      for (std::size_t key = 0; key < r.dense.size(); ++key) {
        interrupts.poll_every(key);
        if (r.dense[key] != kNone) present.push_back(key);
      }
    } else {
      for (std::size_t i = 0; i < n_cells; ++i) {
        interrupts.poll_every(i);
        present.push_back(std::uint64_t(group_of[i]) * r.levels + cells.code(axes[k], i));
      }
      polled_sort(present.begin(), present.end(), interrupts);
      present.erase(std::unique(present.begin(), present.end()), present.end());
    }
    // present is in (group, level) order: number each group's levels.
    std::uint32_t next = 0;
    for (std::size_t j = 0; j < present.size(); ++j) {
      interrupts.poll_every(j);
      const auto g = static_cast<std::uint32_t>(present[j] / r.levels);
      if (j > 0 && present[j - 1] / r.levels != g) next = 0;
      if (r.dense.empty()) r.sparse.emplace(present[j], next);
      else r.dense[present[j]] = next;
      ++next;
      if (j + 1 == present.size() || present[j + 1] / r.levels != g) tables[g].shape.push_back(next);
    }
  }
  for (std::uint32_t g = 0; g < n_groups; ++g) {
    double size = 1;
    for (const std::size_t n : tables[g].shape) size *= double(n);
    if (size != double(group_cells[g])) return std::nullopt;  // not every combination of levels is a cell
    tables[g].cells.assign(group_cells[g], 0);
  }
  // Cells are distinct (CellKeys refuses duplicates), so the ranks place
  // each one at its own position.
  for (std::size_t i = 0; i < n_cells; ++i) {
    interrupts.poll_every(i);
    LatticeTable& table = tables[group_of[i]];
    std::size_t position = 0;
    for (std::size_t k = 0; k < K; ++k)
      position = position * table.shape[k] + ranks[k].of(group_of[i], cells.code(axes[k], i));
    table.cells[position] = i;
  }
  return tables;
}

std::unique_ptr<NullProjector> make_k_way_projector(std::vector<LatticeTable> tables,
                                                    std::vector<SharedGrouping> margins) {
  return std::make_unique<KWayProjector>(std::move(tables), std::move(margins));
}

}  // namespace detail
}  // namespace invariant_dp
