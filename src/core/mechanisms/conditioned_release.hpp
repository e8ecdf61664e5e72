// integer_laplace with margins: i.i.d. discrete Laplace noise conditioned on
// every declared margin, so y = x + z is integer, keeps every margin exactly
// and E[y] = x (the law is symmetric). Sampled exactly where the kept
// invariant is one partition of the cells (one margin, or nested margins):
// conditioned_laplace.hpp. Crossing margins need the lattice sampler.
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/invariant_model.hpp"
#include "../random_source.hpp"
#include "noise_calibration.hpp"

namespace invariant_dp {

// Writes noisy[i] = counts[i] + z[i] and the exact per-cell noise sd.
void release_conditioned_laplace(const std::int64_t* counts, const NoiseLaw& law, const InvariantModel& model,
                                 RandomSource& rng, const Interrupts& interrupts, std::vector<std::int64_t>& noisy,
                                 std::vector<double>& noise_sd);

}  // namespace invariant_dp
