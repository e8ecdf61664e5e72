// The core's entries for the per-group SQL functions: dp.noisy_count (an
// aggregate's final function: one group's count plus independent integer
// noise, no invariant) and dp.total_preserving_count (a window function:
// one partition's counts plus integer_laplace noise conditioned on the
// partition's total, which stays exact). The request is checked here, and
// the calibration kept for the next group of the same request.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../interrupts.hpp"
#include "../request/release_request.hpp"
#include "../random_source.hpp"

namespace invariant_dp {

// InvalidArgument for a mechanism that is not one of independent integer
// noise; OutOfRange when the noisy count leaves bigint.
std::int64_t noisy_count(std::int64_t count, const RawRequest& raw, RandomSource& rng);

// noisy has n entries; their sum equals the counts'.
void total_preserving_counts(const std::int64_t* counts, std::size_t n, double epsilon, RandomSource& rng,
                             const Interrupts& interrupts, std::int64_t* noisy);

}  // namespace invariant_dp
