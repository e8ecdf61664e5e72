#include "projection_release.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "../errors.hpp"
#include "../json_text.hpp"
#include "../projection/clp_problem.hpp"
#include "../projection/controlled_rounding.hpp"
#include "../projection/linear_invariants.hpp"
#include "../projection/nonneg_projection.hpp"
#include "../samplers/independent_integer_noise.hpp"
#include "../samplers/wide_int.hpp"

namespace invariant_dp {
namespace {

// The unconstrained noise, eps-DP discrete Laplace, and the projection the
// law states. The projection reads only the public invariant totals
// (accounting_json states what that does and does not cover).
NoiseLaw projection_law(const ReleaseRequest& request, ProjectionOnto onto) {
  NoiseLaw law = discrete_laplace_law(request, request.l1_sensitivity());
  law.law = "discrete Laplace, P(e) proportional to exp(-|e|/b), independent per cell, then the least-squares "
            "projection of x + e onto the invariants";
  if (onto != ProjectionOnto::Invariants) law.law += " with every cell non-negative";
  if (onto == ProjectionOnto::NonNegativeIntegers)
    law.law += ", then controlled rounding to the nearest (l1) integer table that keeps the invariants";
  return at_request_sensitivities(law, request);
}

void release_projected(const std::int64_t* counts, const ReleaseRequest& request, ProjectionOnto onto,
                       const NoiseLaw& law, const InvariantModel& model, RandomSource& rng,
                       const Interrupts& interrupts, ReleaseResult& result) {
  const std::size_t n = model.n_cells();
  for (std::size_t i = 0; i < n; ++i)
    if (counts[i] > kMaxExactRealCount)
      throw OutOfRange("count too large for a real-valued release", "Counts above 2^53 are not exact in float8.");
  const bool solver = onto != ProjectionOnto::Invariants && !request.margins.empty();
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
    if (onto == ProjectionOnto::NonNegativeIntegers) result.integer_values = round_keeping_invariants(invariants, y, interrupts);
  } else if (onto != ProjectionOnto::Invariants) {
    // No margin: the projection onto y >= 0 is the clamp.
    for (double& v : y) v = std::max(0.0, v);
    if (onto == ProjectionOnto::NonNegativeIntegers) {
      result.integer_values.resize(n);
      // x + e reaches past 2^63 when the noise is as large as the count.
      for (std::size_t i = 0; i < n; ++i) result.integer_values[i] = checked_int64(std::nearbyint(y[i]));
    }
  }
  result.integer_output = onto == ProjectionOnto::NonNegativeIntegers;
  if (!result.integer_output) result.values = std::move(y);
  result.noise_sd = model.null_projector_diagonal();
  for (double& sd : result.noise_sd) sd = std::sqrt(law.unit_variance * std::max(0.0, sd));
}

}  // namespace

std::string ProjectionMechanism::accounting_json(const ReleaseRequest& request) const {
  std::ostringstream out;
  out << "{\"epsilon\": " << json_number(request.epsilon)
      << ", \"base_epsilon\": " << json_number(request.epsilon) << ", \"rule\": "
      << json_quoted("the noisy table is base_epsilon-DP; the projection uses only the disclosed margin totals, so "
                     "the guarantee holds between databases with equal totals (not by the post-processing theorem: "
                     "the target set is data-derived, Gong and Meng 2020 section 4)")
      << "}";
  return out.str();
}

NoiseLaw ProjectionMechanism::calibrate(const ReleaseRequest& request) const {
  return projection_law(request, onto_);
}

double ProjectionMechanism::release(const ReleaseDraw& draw) const {
  release_projected(draw.counts, draw.request, onto_, draw.law, draw.model, draw.rng, draw.interrupts, draw.result);
  return kErrorFromCellSds;
}

}  // namespace invariant_dp
