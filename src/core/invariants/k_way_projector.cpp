// A complete K-way table (K >= 3) with exactly its K (K-1)-way margins
// (the three two-way margins of a cube): null(A) is the tensor product of
// the sum-zero spaces of the axes, so Pi_N = (x)_k (I - J/n_k) -- centring
// along every axis in turn, O(K cells) -- with diagonal prod_k (1 - 1/n_k)
// and rank n_cells - prod_k (n_k - 1). Detected from the key codes; its
// independent rows come from the general selection, only when asked for.
#include <algorithm>

#include "null_projectors.hpp"

namespace invariant_dp {
namespace detail {
namespace {

class KWayProjector final : public NullProjector {
 public:
  KWayProjector(LatticeTable table, std::vector<SharedGrouping> margins)
      : table_(std::move(table)), margins_(std::move(margins)) {}

  const char* structure() const override { return "k_way"; }
  std::size_t rank() const override {
    std::size_t free = 1;
    for (std::size_t n : table_.shape) free *= n - 1;
    return table_.cells.size() - free;
  }

  void project(double* e, const Interrupts& interrupts) const override {
    const std::size_t cells = table_.cells.size();
    std::vector<double> v(cells);
    for (std::size_t p = 0; p < cells; ++p) v[p] = e[table_.cells[p]];
    std::size_t inner = cells;
    for (std::size_t n : table_.shape) {
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
    for (std::size_t p = 0; p < cells; ++p) e[table_.cells[p]] = v[p];
  }

  std::vector<double> diagonal(const Interrupts&) const override {
    double d = 1;
    for (std::size_t n : table_.shape) d *= 1 - 1.0 / double(n);
    return std::vector<double>(table_.cells.size(), d);
  }

  RowSparse independent_rows(const Interrupts& interrupts) const override {
    std::vector<const Grouping*> groupings;
    for (const SharedGrouping& g : margins_) groupings.push_back(g.get());
    const RowSparse all_rows = indicator_rows(groupings, table_.cells.size(), interrupts);
    return take_rows(all_rows, select_independent_rows(all_rows, interrupts));
  }

  std::vector<LatticeTable> lattice_tables(const Interrupts&) const override { return {table_}; }

 private:
  LatticeTable table_;
  std::vector<SharedGrouping> margins_;
};

}  // namespace

std::optional<LatticeTable> complete_k_way_table(const CellKeys& cells, const std::vector<Margin>& margins,
                                                 const Interrupts& interrupts) {
  const std::size_t K = cells.n_columns();
  if (K < 3 || margins.size() != K) return std::nullopt;
  std::vector<bool> left_out(K, false);
  for (const Margin& margin : margins) {
    if (margin.columns.size() != K - 1) return std::nullopt;
    std::vector<bool> in(K, false);
    for (std::size_t c : margin.columns) in[c] = true;
    const auto missing = static_cast<std::size_t>(std::find(in.begin(), in.end(), false) - in.begin());
    if (missing == K || left_out[missing]) return std::nullopt;
    left_out[missing] = true;
  }
  LatticeTable table;
  double size = 1;
  for (std::size_t k = 0; k < K; ++k) {
    table.shape.push_back(cells.n_levels(k));
    size *= double(cells.n_levels(k));
  }
  if (size != double(cells.n_cells())) return std::nullopt;  // not every combination of levels is a cell
  // Cells are distinct (CellKeys refuses duplicates), so the codes place
  // each one at its own position.
  table.cells.assign(cells.n_cells(), 0);
  for (std::size_t i = 0; i < cells.n_cells(); ++i) {
    interrupts.poll_every(i);
    std::size_t position = 0;
    for (std::size_t k = 0; k < K; ++k) position = position * table.shape[k] + cells.code(k, i);
    table.cells[position] = i;
  }
  return table;
}

std::unique_ptr<NullProjector> make_k_way_projector(LatticeTable table, std::vector<SharedGrouping> margins) {
  return std::make_unique<KWayProjector>(std::move(table), std::move(margins));
}

}  // namespace detail
}  // namespace invariant_dp
