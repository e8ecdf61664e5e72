// Kept invariant lattice bases (lattice_basis_cache.hpp).
#include "lattice_basis_cache.hpp"

#include <algorithm>
#include <deque>
#include <mutex>
#include <vector>

namespace invariant_dp {
namespace {

using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;

// The rows whole: shape, row starts, columns and values.
struct Rows {
  Eigen::Index n_rows = 0, n_cols = 0;
  std::vector<Eigen::Index> starts;
  std::vector<Eigen::Index> columns;
  std::vector<double> values;

  static Rows of(const RowSparse& a, const Interrupts& interrupts) {
    Rows out;
    out.n_rows = a.rows();
    out.n_cols = a.cols();
    for (Eigen::Index r = 0; r < a.outerSize(); ++r) {
      interrupts.poll_every(std::uint64_t(r));
      out.starts.push_back(Eigen::Index(out.columns.size()));
      for (RowSparse::InnerIterator it(a, r); it; ++it) {
        out.columns.push_back(it.col());
        out.values.push_back(it.value());
      }
    }
    return out;
  }
  bool operator==(const Rows& o) const {
    return n_rows == o.n_rows && n_cols == o.n_cols && starts == o.starts && columns == o.columns &&
           values == o.values;
  }
};

struct Kept {
  Rows rows;
  std::shared_ptr<const LatticeBasis> basis;
  std::size_t entries = 0;
};

std::mutex kept_mutex;
std::deque<Kept> kept;  // newest first

std::size_t entries_of(const LatticeBasis& basis) {
  std::size_t n = 0;
  for (const LatticeVector& v : basis.columns) n += v.index.size();
  return n;
}

}  // namespace

std::shared_ptr<const LatticeBasis> kept_invariant_lattice_basis(const RowSparse& independent_rows,
                                                                 const Interrupts& interrupts) {
  Rows rows = Rows::of(independent_rows, interrupts);
  {
    const std::lock_guard<std::mutex> lock(kept_mutex);
    for (auto it = kept.begin(); it != kept.end(); ++it)
      if (it->rows == rows) {
        Kept found = std::move(*it);
        kept.erase(it);
        kept.push_front(std::move(found));
        return kept.front().basis;
      }
  }
  auto basis = std::make_shared<const LatticeBasis>(invariant_lattice_basis(independent_rows, interrupts));
  const std::size_t entries = entries_of(*basis) + rows.columns.size();
  if (entries > kMaxKeptBasisEntries) return basis;
  const std::lock_guard<std::mutex> lock(kept_mutex);
  kept.push_front({std::move(rows), basis, entries});
  std::size_t total = 0, keep = 0;
  // Ends: one pass over at most kKeptBases + 1 entries.
  while (keep < kept.size() && keep < kKeptBases && total + kept[keep].entries <= kMaxKeptBasisEntries)
    total += kept[keep++].entries;
  kept.resize(keep);
  return basis;
}

void forget_kept_lattice_bases() {
  const std::lock_guard<std::mutex> lock(kept_mutex);
  kept.clear();
}

}  // namespace invariant_dp
