// Scalar cascade sampling (cascade_sampler.hpp) on the shared kernel.
#include "cascade_sampler.hpp"

#include "cascade_kernel.hpp"
#include "normal_stream.hpp"
#include "rollup.hpp"

namespace invariant_dp::hierarchy {

std::vector<double> cascade_leaf_noise(const HierarchyTree& tree, const CascadeLaw& law, RandomSource& rng,
                                       const Interrupts& interrupts) {
  std::vector<double> noise(tree.n_leaves());
  NormalStream normals(rng);
  detail::run_cascade(tree, law, 1, [&](double* out) { *out = normals.next(); }, noise.data(), interrupts);
  return noise;
}

CascadeRelease release_cascade(const HierarchyTree& tree, const CascadeLaw& law, const std::int64_t* counts_by_cell,
                               RandomSource& rng, const Interrupts& interrupts) {
  CascadeRelease release;
  release.leaf_noise = cascade_leaf_noise(tree, law, rng, interrupts);
  std::vector<double> released(tree.n_leaves());
  for (std::uint32_t leaf = 0; leaf < released.size(); ++leaf) {
    interrupts.poll_every(leaf);
    released[leaf] = static_cast<double>(counts_by_cell[tree.leaf_cell(leaf)]) + release.leaf_noise[leaf];
  }
  release.node_values = rollup(tree, released, interrupts);
  return release;
}

}  // namespace invariant_dp::hierarchy
