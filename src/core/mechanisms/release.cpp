// Orchestrates a release: calibrate, compile invariants, draw, add.
#include "release.hpp"

#include <cmath>

#include "../errors.hpp"
#include "../invariants/invariant_model.hpp"
#include "../samplers/continuous.hpp"
#include "../samplers/independent_integer_noise.hpp"
#include "conditioned_release.hpp"
#include "congenial_release.hpp"
#include "lattice_release.hpp"
#include "noise_calibration.hpp"
#include "projection_release.hpp"
#include "table_release.hpp"
#include "release_metadata.hpp"

namespace invariant_dp {
namespace {

// Where an integer release that may write in place writes: integer_out, or
// an array of the result's own.
std::int64_t* integer_destination(ReleaseResult& result, std::int64_t* integer_out, std::size_t n) {
  if (integer_out != nullptr) return result.integer_values_in_place = integer_out;
  result.integer_values.resize(n);
  return result.integer_values.data();
}

void release_integers(const std::int64_t* counts, const NoiseLaw& law, bool with_stddev, RandomSource& rng,
                      const Interrupts& interrupts, ReleaseResult& result, std::int64_t* out, std::size_t n) {
  result.integer_output = true;
  // Every cell has the same sd: spelled out per cell only when asked for.
  if (with_stddev) result.noise_sd.assign(n, std::sqrt(law.unit_variance));
  const IndependentIntegerNoise noise(law.kind == NoiseKind::DiscreteLaplace
                                          ? IndependentIntegerNoise::Law::DiscreteLaplace
                                          : IndependentIntegerNoise::Law::DiscreteGaussian,
                                      law.exact_parameter, n, interrupts);
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    if (__builtin_add_overflow(counts[i], noise.draw(rng), &out[i]))
      throw OutOfRange("noisy count out of range for bigint");
  }
}

// Returns the expected total squared error: the trace of unit_variance *
// Pi_N, the null space's dimension times the unit variance (a projector's
// trace is its rank), or with the per-cell sds their squares' sum.
double release_reals(const std::int64_t* counts, const NoiseLaw& law, const InvariantModel& model, bool with_stddev,
                     RandomSource& rng, const Interrupts& interrupts, ReleaseResult& result, std::size_t n) {
  result.values.resize(n);
  if (law.kind == NoiseKind::Gaussian) {
    sample_gaussians(rng, law.scale, result.values.data(), n, interrupts);
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      interrupts.poll_every(i);
      result.values[i] = sample_laplace(rng, law.scale);
    }
  }
  model.project_onto_null_space(result.values.data());
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    if (counts[i] > kMaxExactRealCount)
      throw OutOfRange("count too large for a real-valued release", "Counts above 2^53 are not exact in float8.");
    result.values[i] += static_cast<double>(counts[i]);
  }
  if (!with_stddev) return law.unit_variance * double(model.null_dimension());
  result.noise_sd = model.null_projector_diagonal();
  const double unit_sd = std::sqrt(law.unit_variance);
  double total_variance = 0;
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    double& sd = result.noise_sd[i];
    sd = unit_sd * std::sqrt(std::max(0.0, sd));
    total_variance += sd * sd;
  }
  return total_variance;
}

}  // namespace

ReleaseResult run_release(const CellKeys& cells, const std::int64_t* counts, const ReleaseRequest& request,
                          RandomSource& rng, const Interrupts& interrupts, std::int64_t* integer_out) {
  const std::size_t n = cells.n_cells();
  if (n == 0 && request.selection.method != SelectionMethod::None) {
    // Partition selection showed no cell: an empty release, not an error
    // (which cells are shown is part of the private output).
    ReleaseResult result;
    result.integer_output = request.mechanism->integer_output;
    result.metadata_json = release_metadata_json(request, calibrate_noise(request), nullptr, cells, 0, SamplerReport{});
    return result;
  }
  if (n == 0)
    throw InvalidData("source returned no rows", "There is no cell to release.",
                      "Pass a domain query listing every public cell, so empty cells are released too.");
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    if (counts[i] < 0) throw InvalidData("count must not be negative");
  }
  NoiseLaw law = calibrate_noise(request);
  if (!request.mechanism->integer_output && !request.margins.empty())
    check_float8_margins(std::sqrt(law.unit_variance), n);
  // The cells outlive the model: a margin's groups may be their codes.
  const InvariantModel model(cells, margins_by_index(cells, request), interrupts, KeyCodes::borrowed);

  ReleaseResult result;
  result.integer_output = request.mechanism->integer_output;
  SamplerReport report;
  const Mechanism mechanism = request.mechanism->mechanism;
  const bool margins = !request.margins.empty();
  const bool exact_partition = (mechanism == Mechanism::IntegerLaplace || mechanism == Mechanism::IntegerGaussian) &&
                               margins && model.structure() == "partition";
  // integer_gaussian on complete tables with all (K-1)-way margins: exact
  // unless sigma^2 is too small for the rejection step at this size (then
  // the chain below).
  std::vector<LatticeTable> tables;
  if (mechanism == Mechanism::IntegerGaussian && margins) {
    tables = model.lattice_tables();
    if (!tables.empty()) {
      const NoiseLaw table_law = table_gaussian_law(request, tables);
      if (table_gaussian_applies(table_law, tables))
        law = table_law;
      else
        tables.clear();
    }
  }
  double total_variance = -1;  // set by the paths that know it without per-cell sds
  const bool projection = mechanism == Mechanism::ProjectL2 || mechanism == Mechanism::ProjectNnL2 ||
                          mechanism == Mechanism::ProjectNnInteger;
  if (projection)
    release_projected(counts, request, law, model, rng, interrupts, result);
  else if (mechanism == Mechanism::Congenial)
    release_congenial(counts, request, model, rng, interrupts, result, law, report);
  else if (!tables.empty())
    release_table_gaussian(counts, law, tables, n, rng, interrupts, result.integer_values, result.noise_sd, report);
  else if (exact_partition)
    total_variance = release_conditioned(counts, law, model, request.with_stddev, rng, interrupts,
                                         integer_destination(result, integer_out, n), result.noise_sd);
  else if ((mechanism == Mechanism::IntegerLaplace && margins) || mechanism == Mechanism::IntegerLaplaceL2 ||
           (mechanism == Mechanism::IntegerGaussian && margins))
    release_on_lattice(counts, request, model, rng, interrupts, result.integer_values, result.noise_sd, law, report);
  else if (request.mechanism->integer_output)
    release_integers(counts, law, request.with_stddev, rng, interrupts, result, integer_destination(result, integer_out, n),
                     n);
  else
    total_variance = release_reals(counts, law, model, request.with_stddev, rng, interrupts, result, n);
  if (total_variance < 0) {
    // Without per-cell sds (independent noise, not asked for) every cell has the unit variance.
    total_variance = result.noise_sd.empty() ? double(n) * law.unit_variance : 0.0;
    for (double sd : result.noise_sd) total_variance += sd * sd;
  }
  result.metadata_json = release_metadata_json(request, law, &model, cells, total_variance, report);
  return result;
}

}  // namespace invariant_dp
