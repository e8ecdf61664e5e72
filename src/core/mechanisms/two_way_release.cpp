#include "two_way_release.hpp"

#include <cmath>

#include "../errors.hpp"
#include "../samplers/kronecker_gaussian.hpp"

namespace invariant_dp {

NoiseLaw two_way_gaussian_law(const ReleaseRequest& request) { return lattice_noise_law(request, 4, 4); }

bool two_way_gaussian_applies(const NoiseLaw& law, const std::vector<TwoWayBlock>& blocks) {
  for (const TwoWayBlock& block : blocks)
    if (block.rows >= 2 && block.cols >= 2 && !table_lattice_gaussian_applies(law.exact_parameter, {block.rows, block.cols}))
      return false;
  return true;
}

void release_two_way_gaussian(const std::int64_t* counts, const NoiseLaw& law, const std::vector<TwoWayBlock>& blocks,
                              std::size_t n_cells, RandomSource& rng, const Interrupts& interrupts,
                              std::vector<std::int64_t>& noisy, std::vector<double>& noise_sd, SamplerReport& report) {
  noisy.assign(counts, counts + n_cells);
  noise_sd.assign(n_cells, 0.0);
  const double sigma2 = law.exact_parameter.to_double();
  std::vector<std::int64_t> z;
  for (const TwoWayBlock& block : blocks) {
    interrupts.poll();
    if (block.rows < 2 || block.cols < 2) continue;  // both margins pin every cell of the block
    z.resize(block.cells.size());
    sample_table_lattice_gaussian(rng, law.exact_parameter, {block.rows, block.cols}, z.data(), interrupts);
    const double sd = std::sqrt(sigma2 * (1 - 1.0 / double(block.rows)) * (1 - 1.0 / double(block.cols)));
    for (std::size_t k = 0; k < block.cells.size(); ++k) {
      const std::size_t cell = block.cells[k];
      if (__builtin_add_overflow(counts[cell], z[k], &noisy[cell]))
        throw OutOfRange("noisy count out of range for bigint");
      noise_sd[cell] = sd;
    }
  }
  report.sampler = "exact: Klein's sequential sampler on the adjacent 2x2 swaps of each two-way table (their "
                   "Gram-Schmidt data are the Kronecker product of two bidiagonal Cholesky factors), with the "
                   "rejection step of Brakerski, Langlois, Peikert, Regev, Stehle 2013 that makes it exact";
  report.iterations = 0;
  report.sd_estimated = false;
  report.stddev = "sigma sqrt((1 - 1/r)(1 - 1/c)), the continuous Gaussian's; the lattice changes it negligibly for "
                  "sigma^2 >= 1";
}

}  // namespace invariant_dp
