#include "subspace_release.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "../errors.hpp"
#include "../samplers/continuous.hpp"

namespace invariant_dp {
namespace {

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

}  // namespace

double release_subspace(const ReleaseDraw& draw) {
  const std::int64_t* counts = draw.counts;
  const NoiseLaw& law = draw.law;
  const InvariantModel& model = draw.model;
  RandomSource& rng = draw.rng;
  const Interrupts& interrupts = draw.interrupts;
  ReleaseResult& result = draw.result;
  const std::size_t n = model.n_cells();
  const std::string structure = model.structure();
  if (structure == "partition" || structure == "none") {
    release_reals_on_partition(counts, law, model, rng, interrupts, draw.real_destination(), n);
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
  if (!draw.request.with_stddev) return law.unit_variance * double(model.null_dimension());
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


}  // namespace invariant_dp
