#include "table_release.hpp"

#include <algorithm>
#include <cmath>

#include "../errors.hpp"
#include "../samplers/kronecker_gaussian.hpp"
#include "../samplers/wide_int.hpp"

namespace invariant_dp {
namespace {

bool pinned(const LatticeTable& table) {
  return std::any_of(table.shape.begin(), table.shape.end(), [](std::size_t n) { return n < 2; });
}

}  // namespace

NoiseLaw table_gaussian_law(const ReleaseRequest& request, LatticeLaw gaussian,
                            const std::vector<LatticeTable>& tables) {
  const double minimum = std::ldexp(1.0, static_cast<int>(tables.front().shape.size()));
  return lattice_noise_law(request, gaussian, minimum, minimum);
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
      noisy[cell] = checked_add(counts[cell], z[k], kNoisyCountOutOfRange);
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
