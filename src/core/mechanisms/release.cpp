// Orchestrates a release: calibrate, compile invariants, draw, add.
#include "release.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "../errors.hpp"
#include "../invariants/invariant_model.hpp"
#include "../request/cell_counts.hpp"
#include "../samplers/continuous.hpp"
#include "../samplers/independent_integer_noise.hpp"
#include "../samplers/wide_int.hpp"
#include "conditioned_release.hpp"
#include "congenial_release.hpp"
#include "lattice_release.hpp"
#include "noise_calibration.hpp"
#include "projection_release.hpp"
#include "release_metadata.hpp"
#include "table_release.hpp"

namespace invariant_dp {
namespace {

// Where an integer release that may write in place writes: the writable
// counts, or an array of the result's own.
std::int64_t* integer_destination(ReleaseResult& result, std::int64_t* writable_counts, std::size_t n) {
  if (writable_counts != nullptr) return result.integer_values_in_place = writable_counts;
  result.integer_values.resize(n);
  return result.integer_values.data();
}

// Where a real release on a partition writes: the writable counts' 8 bytes
// a cell, as float8, or an array of the result's own.
double* real_destination(ReleaseResult& result, std::int64_t* writable_counts, std::size_t n) {
  if (writable_counts != nullptr) return result.values_in_place = reinterpret_cast<double*>(writable_counts);
  result.values.resize(n);
  return result.values.data();
}

void check_real_count(std::int64_t count) {
  if (count > kMaxExactRealCount)
    throw OutOfRange("count too large for a real-valued release", "Counts above 2^53 are not exact in float8.");
}

// y = x + Pi_N e where the invariant is one partition of the cells (groups
// of partition_groups; none: Pi_N = I), without an array of noise: e is
// drawn a block at a time, pass 1 writes x + e and sums e per group, pass 2
// subtracts each group's mean (Pi_N e = e minus its group mean). So out may
// be the counts' own memory: a cell's count is read (bytewise, as int64)
// just before its value is written there (as float8).
void release_reals_on_partition(const std::int64_t* counts, const NoiseLaw& law, const InvariantModel& model,
                                RandomSource& rng, const Interrupts& interrupts, double* out, std::size_t n) {
  const std::uint32_t* group = model.partition_groups();
  const std::size_t n_groups = group != nullptr ? model.rank() : 0;
  std::vector<double> noise_sum(n_groups, 0.0);
  std::vector<std::uint32_t> group_size(n_groups, 0);
  constexpr std::size_t kBlock = 4096;  // even: Gaussian pairs fall as in one call
  double e[kBlock];
  const auto* count_bytes = reinterpret_cast<const unsigned char*>(counts);
  auto* out_bytes = reinterpret_cast<unsigned char*>(out);
  for (std::size_t begin = 0; begin < n; begin += kBlock) {
    interrupts.poll();
    const std::size_t m = std::min(kBlock, n - begin);
    if (law.kind == NoiseKind::Gaussian)
      sample_gaussians(rng, law.scale, e, m, interrupts);
    else
      for (std::size_t j = 0; j < m; ++j) e[j] = sample_laplace(rng, law.scale);
    for (std::size_t j = 0; j < m; ++j) {
      const std::size_t i = begin + j;
      std::int64_t count;
      std::memcpy(&count, count_bytes + i * sizeof count, sizeof count);
      check_real_count(count);
      if (group != nullptr) {
        noise_sum[group[i]] += e[j];
        ++group_size[group[i]];
      }
      const double value = static_cast<double>(count) + e[j];
      std::memcpy(out_bytes + i * sizeof value, &value, sizeof value);
    }
  }
  if (group == nullptr) return;
  for (std::size_t g = 0; g < n_groups; ++g) noise_sum[g] /= group_size[g];  // the group's mean
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    out[i] -= noise_sum[group[i]];
  }
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
    out[i] = checked_add(counts[i], noise.draw(rng), kNoisyCountOutOfRange);
  }
}

// Returns the expected total squared error: the trace of unit_variance *
// Pi_N, the null space's dimension times the unit variance (a projector's
// trace is its rank), or with the per-cell sds their squares' sum.
double release_reals(const std::int64_t* counts, const NoiseLaw& law, const InvariantModel& model, bool with_stddev,
                     RandomSource& rng, const Interrupts& interrupts, ReleaseResult& result,
                     std::int64_t* writable_counts, std::size_t n) {
  const std::string structure = model.structure();
  if (structure == "partition" || structure == "none") {
    release_reals_on_partition(counts, law, model, rng, interrupts, real_destination(result, writable_counts, n), n);
  } else {
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
      check_real_count(counts[i]);
      result.values[i] += static_cast<double>(counts[i]);
    }
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
                          RandomSource& rng, const Interrupts& interrupts, std::int64_t* writable_counts) {
  const std::size_t n = cells.n_cells();
  if (n == 0 && request.selection.method != SelectionMethod::None) {
    // Partition selection showed no cell: an empty release, not an error
    // (which cells are shown is part of the private output).
    ReleaseResult result;
    result.integer_output = request.mechanism->integer_output;
    result.metadata_json = release_metadata_json(request, calibrate_noise(request), nullptr, cells, 0, SamplerReport{});
    return result;
  }
  check_cell_counts(n, counts, interrupts);
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
                                         integer_destination(result, writable_counts, n), result.noise_sd);
  else if ((mechanism == Mechanism::IntegerLaplace && margins) || mechanism == Mechanism::IntegerLaplaceL2 ||
           (mechanism == Mechanism::IntegerGaussian && margins))
    release_on_lattice(counts, request, model, rng, interrupts, result.integer_values, result.noise_sd, law, report);
  else if (request.mechanism->integer_output)
    release_integers(counts, law, request.with_stddev, rng, interrupts, result,
                     integer_destination(result, writable_counts, n), n);
  else
    total_variance =
        release_reals(counts, law, model, request.with_stddev, rng, interrupts, result, writable_counts, n);
  if (total_variance < 0) {
    // Without per-cell sds (independent noise, not asked for) every cell has the unit variance.
    total_variance = result.noise_sd.empty() ? double(n) * law.unit_variance : 0.0;
    for (double sd : result.noise_sd) total_variance += sd * sd;
  }
  result.metadata_json = release_metadata_json(request, law, &model, cells, total_variance, report);
  return result;
}

}  // namespace invariant_dp
