#include "conditioned_release.hpp"

#include <cmath>
#include <unordered_map>

#include "../errors.hpp"
#include "../samplers/conditioned_gaussian.hpp"
#include "../samplers/conditioned_laplace.hpp"
#include "../samplers/conditioned_laplace_variance.hpp"

namespace invariant_dp {
namespace {

// The group of each cell under a partition invariant: each independent row
// is one group, and every cell lies in exactly one.
std::vector<std::uint32_t> groups_of_partition(const InvariantModel& model, std::size_t& n_groups) {
  const auto rows = model.independent_rows();
  std::vector<std::uint32_t> group(model.n_cells(), 0);
  for (int r = 0; r < rows.outerSize(); ++r)
    for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(rows, r); it; ++it)
      group[it.col()] = static_cast<std::uint32_t>(r);
  n_groups = static_cast<std::size_t>(rows.rows());
  return group;
}

}  // namespace

void release_conditioned(const std::int64_t* counts, const NoiseLaw& law, const InvariantModel& model,
                                 RandomSource& rng, const Interrupts& interrupts, std::vector<std::int64_t>& noisy,
                                 std::vector<double>& noise_sd) {
  if (model.structure() != "partition")
    throw InvalidArgument("integer_laplace cannot keep crossing margins in this version",
                          "The declared margins cross (projector structure \"" + model.structure() +
                              "\"); their integer noise needs the lattice sampler, which this version does not include.",
                          "Declare one margin or nested margins, or use subspace_laplace for real-valued noise that "
                          "keeps crossing margins.");
  const std::size_t n = model.n_cells();
  std::size_t n_groups = 0;
  const auto group = groups_of_partition(model, n_groups);
  std::vector<std::int64_t> z(n);
  const bool gaussian = law.kind == NoiseKind::DiscreteGaussian;
  if (gaussian)
    sample_gaussian_with_zero_group_sums(rng, law.exact_parameter, {group.data(), n, n_groups}, z.data(), interrupts);
  else
    sample_laplace_with_zero_group_sums(rng, law.exact_parameter, {group.data(), n, n_groups}, z.data(), interrupts);

  std::vector<std::size_t> group_size(n_groups, 0);
  for (std::uint32_t g : group) ++group_size[g];
  std::unordered_map<std::size_t, double> sd_of_size;
  noisy.resize(n);
  noise_sd.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (__builtin_add_overflow(counts[i], z[i], &noisy[i])) throw OutOfRange("noisy count out of range for bigint");
    const std::size_t k = group_size[group[i]];
    auto found = sd_of_size.find(k);
    if (found == sd_of_size.end()) {
      const double variance = gaussian ? law.exact_parameter.to_double() * (1 - 1.0 / double(k))
                                       : conditioned_laplace_variance(law.exact_parameter, k);
      found = sd_of_size.emplace(k, std::sqrt(variance)).first;
    }
    noise_sd[i] = found->second;
  }
}

}  // namespace invariant_dp
