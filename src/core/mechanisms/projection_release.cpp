#include "projection_release.hpp"

#include <algorithm>
#include <cmath>

#include "../errors.hpp"
#include "../projection/clp_problem.hpp"
#include "../projection/controlled_rounding.hpp"
#include "../projection/linear_invariants.hpp"
#include "../projection/nonneg_projection.hpp"
#include "../samplers/independent_integer_noise.hpp"
#include "../samplers/wide_int.hpp"

namespace invariant_dp {

void release_projected(const std::int64_t* counts, const ReleaseRequest& request, const NoiseLaw& law,
                       const InvariantModel& model, RandomSource& rng, const Interrupts& interrupts,
                       ReleaseResult& result) {
  const std::size_t n = model.n_cells();
  for (std::size_t i = 0; i < n; ++i)
    if (counts[i] > kMaxExactRealCount)
      throw OutOfRange("count too large for a real-valued release", "Counts above 2^53 are not exact in float8.");
  const Mechanism mechanism = request.mechanism->mechanism;
  const bool solver = mechanism != Mechanism::ProjectL2 && !request.margins.empty();
  if (solver) refuse_large_clp_problem(n, model.rank());
  // The equality projection x + Pi_N e: project the noise, not the noisy
  // table, so x enters exactly (no cancellation of large counts).
  std::vector<double> y(n);
  const IndependentIntegerNoise noise(IndependentIntegerNoise::Law::DiscreteLaplace, law.exact_parameter, n,
                                      interrupts);
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    y[i] = static_cast<double>(noise.draw(rng));
  }
  model.project_onto_null_space(y.data());
  for (std::size_t i = 0; i < n; ++i) y[i] += static_cast<double>(counts[i]);

  if (solver) {
    // The QP's optimum is the same whether it starts from x + e or from its
    // equality projection: they differ by a vector in the row space of A.
    const LinearInvariants invariants = linear_invariants(model, counts);
    y = project_nonnegative(invariants, y, interrupts).y;
    if (mechanism == Mechanism::ProjectNnInteger) result.integer_values = round_keeping_invariants(invariants, y, interrupts);
  } else if (mechanism != Mechanism::ProjectL2) {
    // No margin: the projection onto y >= 0 is the clamp.
    for (double& v : y) v = std::max(0.0, v);
    if (mechanism == Mechanism::ProjectNnInteger) {
      result.integer_values.resize(n);
      // x + e reaches past 2^63 when the noise is as large as the count.
      for (std::size_t i = 0; i < n; ++i) result.integer_values[i] = checked_int64(std::nearbyint(y[i]));
    }
  }
  result.integer_output = mechanism == Mechanism::ProjectNnInteger;
  if (!result.integer_output) result.values = std::move(y);
  result.noise_sd = model.null_projector_diagonal();
  for (double& sd : result.noise_sd) sd = std::sqrt(law.unit_variance * std::max(0.0, sd));
}

}  // namespace invariant_dp
