// integer_laplace and integer_gaussian where the kept invariant is one
// partition of the cells (one margin, or nested margins): i.i.d. discrete
// Laplace (conditioned_laplace.hpp) or discrete Gaussian
// (conditioned_gaussian.hpp) noise conditioned on zero sums over every
// group, sampled exactly; y = x + z is integer, keeps every margin exactly
// and E[y] = x (the laws are symmetric). Crossing margins use the lattice
// sampler (lattice_release.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/invariant_model.hpp"
#include "../random_source.hpp"
#include "lattice_release.hpp"
#include "mechanism_behaviour.hpp"
#include "noise_calibration.hpp"

namespace invariant_dp {

// Writes noisy[i] = counts[i] + z[i] (noisy may be counts itself: each
// count is read just before its cell is written) and, with_stddev, the
// per-cell noise sd: exact for the Laplace; sigma sqrt(1 - 1/k) for the Gaussian, the
// continuous value, which the lattice's discreteness changes by a
// negligible amount for sigma^2 >= 1 (Poisson summation; checked by
// enumeration in the tests). Returns the sum of the cells' variances.
double release_conditioned(const std::int64_t* counts, const NoiseLaw& law, const InvariantModel& model,
                           bool with_stddev, RandomSource& rng, const Interrupts& interrupts, std::int64_t* noisy,
                           std::vector<double>& noise_sd);

// integer_laplace and integer_gaussian once their own exact paths are
// ruled out: no margin, independent noise (independent_release.hpp); one
// partition, release_conditioned above; crossing margins, the lattice chain
// of `noise` (lattice_release.hpp). Returns what MechanismBehaviour::release
// returns.
double release_on_margins(const ReleaseDraw& draw, const LatticeNoise& noise);

}  // namespace invariant_dp
