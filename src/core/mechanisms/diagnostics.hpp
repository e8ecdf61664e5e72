// dp.diagnose: the health of the MCMC sampler a lattice release would use,
// as rows a BI tool can plot (the checks of Dharangutte, Gao, Gong, Yu 2023,
// arXiv:2212.00936, Section 4, Appendices D.2 and E.4). It
// runs only chains on the noise: no count of the data is read.
//   tv_upper_bound (iteration, bound): the L-lag coupling bound on the total
//     variation distance between the chain after `iteration` sweeps and the
//     target (Biswas, Jacob, Vanetti 2019, Thm 2.5), from independent
//     coupled pairs;
//   iterations_to_tv_below_0.05: the first iteration where the bound is
//     below 0.05 (-1 if the pairs did not all meet);
//   release_iterations: the sweeps a release with these options runs, and
//     tv_upper_bound_at_release: the bound there;
//   acceptance_moves, acceptance_basis: Metropolis acceptance rates;
//   rhat_l1, rhat_z1: split R-hat over over-dispersed chains, on |z|_1
//     (|z|_2 for integer_laplace_l2 on complete tables) and on the first
//     cell.
// congenial: its own rows, on a public stand-in table (congenial_diagnostics.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/cell_keys.hpp"
#include "../invariants/invariant_model.hpp"
#include "../random_source.hpp"
#include "lattice_release.hpp"
#include "release_request.hpp"

namespace invariant_dp {

struct DiagnosticRecord {
  std::string metric;
  std::int64_t iteration = -1;  // -1: not per iteration (NULL in SQL)
  double value = 0;
};

struct DiagnosticsSettings {
  std::int64_t coupled_pairs = 100;  // options {"coupled_pairs": n}
  std::int64_t lag = 0;              // options {"lag": L}; 0: a tenth of the release's sweeps
  std::int64_t curve_points = 50;
  std::int64_t surrogate_count = 1;  // congenial: options {"surrogate_count": c}, the public stand-in's cells
};

// The request's mechanism's diagnosis (MechanismBehaviour::diagnose).
std::vector<DiagnosticRecord> run_diagnostics(const CellKeys& cells, const ReleaseRequest& request,
                                              const DiagnosticsSettings& settings, RandomSource& rng,
                                              const Interrupts& interrupts);

// The rows above for a lattice mechanism's chain on these invariants.
std::vector<DiagnosticRecord> lattice_diagnostics(const ReleaseRequest& request, const LatticeNoise& noise,
                                                  const InvariantModel& model, const DiagnosticsSettings& settings,
                                                  RandomSource& rng, const Interrupts& interrupts);

// A release with these arguments that draws its noise exactly runs no chain
// (the mechanism's release makes the same choice): InvalidArgument, nothing
// to diagnose.
[[noreturn]] void refuse_exact_diagnosis(const ReleaseRequest& request);

}  // namespace invariant_dp
