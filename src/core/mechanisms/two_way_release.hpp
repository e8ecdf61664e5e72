// integer_gaussian where the kept invariants are the row and column totals
// of complete two-way tables (structure "two_way": one table, or many
// blocks as in the WiFi cube): each block's noise is the exact lattice
// Gaussian on its lattice (samplers/kronecker_gaussian.hpp), blocks
// independent. y = x + z is integer, keeps both margins exactly, and
// E[y] = x (the law is symmetric). O(cells) time and memory.
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/invariant_model.hpp"
#include "../random_source.hpp"
#include "lattice_release.hpp"
#include "noise_calibration.hpp"
#include "release_request.hpp"

namespace invariant_dp {

// The law for this structure: sigma^2 calibrated on a 2 x 2 swap
// (|v|_1 = 4, |v|_2^2 = 4: every nonzero integer table with zero row and
// column sums has at least two nonzero rows of two nonzero cells each, so
// this is the lattice minimum).
NoiseLaw two_way_gaussian_law(const ReleaseRequest& request);

// Whether the exact sampler runs at this law's sigma^2 on every block
// (table_lattice_gaussian_applies); otherwise the caller uses the chain.
bool two_way_gaussian_applies(const NoiseLaw& law, const std::vector<TwoWayBlock>& blocks);

// Writes noisy = counts + z and the per-cell sd sigma sqrt((1 - 1/r)(1 - 1/c))
// (the continuous value; the lattice changes it negligibly for sigma^2 >= 1,
// as for one margin); fills report.
void release_two_way_gaussian(const std::int64_t* counts, const NoiseLaw& law, const std::vector<TwoWayBlock>& blocks,
                              std::size_t n_cells, RandomSource& rng, const Interrupts& interrupts,
                              std::vector<std::int64_t>& noisy, std::vector<double>& noise_sd, SamplerReport& report);

}  // namespace invariant_dp
