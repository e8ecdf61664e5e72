#include "table_release.hpp"

#include <algorithm>
#include <cmath>

#include "../errors.hpp"
#include "../samplers/kronecker_gaussian.hpp"

namespace invariant_dp {
namespace {

bool pinned(const LatticeTable& table) {
  return std::any_of(table.shape.begin(), table.shape.end(), [](std::size_t n) { return n < 2; });
}

// One complete K-way table, K >= 3, with exactly its K (K-1)-way margins.
std::vector<LatticeTable> complete_cube(const CellKeys& cells, const std::vector<Margin>& margins,
                                        const Interrupts& interrupts) {
  const std::size_t K = cells.n_columns();
  if (K < 3 || K > kMaxTableDimensions || margins.size() != K) return {};
  std::vector<bool> left_out(K, false);
  for (const Margin& margin : margins) {
    if (margin.columns.size() != K - 1) return {};
    std::vector<bool> in(K, false);
    for (std::size_t c : margin.columns) in[c] = true;
    const auto missing = std::find(in.begin(), in.end(), false) - in.begin();
    if (left_out[missing]) return {};  // the same margin twice
    left_out[missing] = true;
  }
  LatticeTable table;
  double size = 1;
  for (std::size_t k = 0; k < K; ++k) {
    table.shape.push_back(cells.n_levels(k));
    size *= double(cells.n_levels(k));
  }
  if (size != double(cells.n_cells())) return {};  // not every combination of levels is a cell
  // Cells are distinct (CellKeys refuses duplicates), so the codes place
  // each one at its own position.
  table.cells.assign(cells.n_cells(), 0);
  for (std::size_t i = 0; i < cells.n_cells(); ++i) {
    interrupts.poll_every(i);
    std::size_t position = 0;
    for (std::size_t k = 0; k < K; ++k) position = position * table.shape[k] + cells.code(k, i);
    table.cells[position] = i;
  }
  return {table};
}

}  // namespace

std::vector<LatticeTable> complete_tables(const CellKeys& cells, const std::vector<Margin>& margins,
                                          const InvariantModel& model, const Interrupts& interrupts) {
  if (model.structure() == "two_way") return model.two_way_blocks();
  return complete_cube(cells, margins, interrupts);
}

NoiseLaw table_gaussian_law(const ReleaseRequest& request, const std::vector<LatticeTable>& tables) {
  const double minimum = std::ldexp(1.0, static_cast<int>(tables.front().shape.size()));
  return lattice_noise_law(request, minimum, minimum);
}

bool table_gaussian_applies(const NoiseLaw& law, const std::vector<LatticeTable>& tables) {
  for (const LatticeTable& table : tables)
    if (!pinned(table) && !table_lattice_gaussian_applies(law.exact_parameter, table.shape)) return false;
  return true;
}

void release_table_gaussian(const std::int64_t* counts, const NoiseLaw& law, const std::vector<LatticeTable>& tables,
                            std::size_t n_cells, RandomSource& rng, const Interrupts& interrupts,
                            std::vector<std::int64_t>& noisy, std::vector<double>& noise_sd, SamplerReport& report) {
  noisy.assign(counts, counts + n_cells);
  noise_sd.assign(n_cells, 0.0);
  const double sigma2 = law.exact_parameter.to_double();
  std::vector<std::int64_t> z;
  for (const LatticeTable& table : tables) {
    interrupts.poll();
    if (pinned(table)) continue;  // the margins pin every cell of this table
    z.resize(table.cells.size());
    sample_table_lattice_gaussian(rng, law.exact_parameter, table.shape, z.data(), interrupts);
    double variance = sigma2;
    for (std::size_t n : table.shape) variance *= 1 - 1.0 / double(n);
    for (std::size_t k = 0; k < table.cells.size(); ++k) {
      const std::size_t cell = table.cells[k];
      if (__builtin_add_overflow(counts[cell], z[k], &noisy[cell]))
        throw OutOfRange("noisy count out of range for bigint");
      noise_sd[cell] = std::sqrt(variance);
    }
  }
  report.sampler = "exact: Klein's sequential sampler on the tensor products of adjacent differences (the 2x2 swaps "
                   "of a two-way table), whose Gram-Schmidt data are the Kronecker product of bidiagonal Cholesky "
                   "factors, with the rejection step of Brakerski, Langlois, Peikert, Regev, Stehle 2013 that makes "
                   "it exact";
  report.iterations = 0;
  report.sd_estimated = false;
  report.stddev = "sigma sqrt(prod_k (1 - 1/n_k)), the continuous Gaussian's; the lattice changes it negligibly for "
                  "sigma^2 >= 1";
}

}  // namespace invariant_dp
