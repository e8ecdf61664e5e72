#include "conditioned_release.hpp"

#include <cmath>
#include <unordered_map>

#include "../errors.hpp"
#include "../samplers/conditioned_gaussian.hpp"
#include "../samplers/conditioned_laplace.hpp"
#include "../samplers/conditioned_laplace_variance.hpp"
#include "independent_release.hpp"

namespace invariant_dp {

double release_conditioned(const std::int64_t* counts, const NoiseLaw& law, const InvariantModel& model,
                           bool with_stddev, RandomSource& rng, const Interrupts& interrupts, std::int64_t* noisy,
                           std::vector<double>& noise_sd) {
  if (model.structure() != "partition")
    throw InvalidArgument("integer_laplace cannot keep crossing margins in this version",
                          "The declared margins cross (projector structure \"" + model.structure() +
                              "\"); their integer noise needs the lattice sampler, which this version does not include.",
                          "Declare one margin or nested margins, or use subspace_laplace for real-valued noise that "
                          "keeps crossing margins.");
  const std::size_t n = model.n_cells();
  const std::size_t n_groups = model.rank();
  const std::uint32_t* group = model.partition_groups();
  // Each cell's noise is added to its count as its group is drawn.
  const bool gaussian = law.kind == NoiseKind::DiscreteGaussian;
  if (gaussian)
    sample_gaussian_with_zero_group_sums(rng, law.exact_parameter, {group, n, n_groups}, {noisy, counts},
                                         interrupts);
  else
    sample_laplace_with_zero_group_sums(rng, law.exact_parameter, {group, n, n_groups}, {noisy, counts},
                                        interrupts);

  // A cell's sd depends on its group's size only: computed once per size.
  std::vector<std::size_t> group_size(n_groups, 0);
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    ++group_size[group[i]];
  }
  std::unordered_map<std::size_t, double> sd_of_size;
  std::vector<double> sd_of_group(n_groups);
  double total_variance = 0;
  for (std::size_t g = 0; g < n_groups; ++g) {
    interrupts.poll_every(g);
    const std::size_t k = group_size[g];
    auto found = sd_of_size.find(k);
    if (found == sd_of_size.end()) {
      const double variance = gaussian ? law.exact_parameter.to_double() * (1 - 1.0 / double(k))
                                       : conditioned_laplace_variance(law.exact_parameter, k);
      found = sd_of_size.emplace(k, std::sqrt(variance)).first;
    }
    sd_of_group[g] = found->second;
    total_variance += double(k) * found->second * found->second;
  }
  if (!with_stddev) return total_variance;
  noise_sd.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    noise_sd[i] = sd_of_group[group[i]];
  }
  return total_variance;
}

double release_on_margins(const ReleaseDraw& draw, const LatticeNoise& noise) {
  if (draw.request.margins.empty()) {
    release_independent_integers(draw);
    return kErrorFromCellSds;
  }
  if (draw.model.structure() == "partition")
    return release_conditioned(draw.counts, draw.law, draw.model, draw.request.with_stddev, draw.rng,
                               draw.interrupts, draw.integer_destination(), draw.result.noise_sd);
  release_on_lattice(draw.counts, draw.request, noise, draw.model, draw.rng, draw.interrupts,
                     draw.result.integer_values, draw.result.noise_sd, draw.law, draw.report);
  return kErrorFromCellSds;
}

}  // namespace invariant_dp
