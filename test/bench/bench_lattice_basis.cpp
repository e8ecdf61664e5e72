// Benchmark: the integer basis of the invariant lattice (src/core/lattice),
// built from the independent rows of the invariant model as a release does.
// Two-way tables with both margins take the structured path; cubes with
// their three two-way margins take the general FLINT path (row reduction or
// HNF, then LLL). Prints seconds and the sparse basis size.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "errors.hpp"
#include "invariants/invariant_model.hpp"
#include "lattice/lattice_basis.hpp"
#include "table_builder.hpp"

using namespace invariant_dp;

namespace {

void bench(const char* label, const std::vector<std::string>& columns, const std::vector<int>& levels,
           std::vector<Margin> margins) {
  std::size_t cells = 1;
  for (int l : levels) cells *= std::size_t(l);
  const auto table = test_tables::grid(columns, levels, std::vector<std::int64_t>(cells, 1));
  const auto keys = table.keys();
  const InvariantModel model(keys, std::move(margins), Interrupts());
  const auto start = std::chrono::steady_clock::now();
  try {
    const LatticeBasis basis = invariant_lattice_basis(model.independent_rows(), Interrupts());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::size_t entries = 0;
    for (const LatticeVector& v : basis.columns) entries += v.index.size();
    std::printf("%-40s cells=%7zu  basis vectors=%7zu  %.3f s  basis=%.1f MB\n", label, cells, basis.rank(),
                seconds, entries * 12.0 / 1048576.0);
  } catch (const TooLarge& e) {
    std::printf("%-40s cells=%7zu  refused: %s\n", label, cells, e.what());
  }
}

}  // namespace

int main() {
  bench("4x4 table, both margins", {"r", "c"}, {4, 4}, {Margin{{0}}, Margin{{1}}});
  bench("40x40 table, both margins", {"r", "c"}, {40, 40}, {Margin{{0}}, Margin{{1}}});
  bench("100x100 table, both margins", {"r", "c"}, {100, 100}, {Margin{{0}}, Margin{{1}}});
  for (int n : {6, 8, 10, 12}) {
    const std::string label = std::to_string(n) + "^3 cube, three two-way margins";
    bench(label.c_str(), {"x", "y", "w"}, {n, n, n}, {Margin{{0, 1}}, Margin{{0, 2}}, Margin{{1, 2}}});
  }
  return 0;
}
