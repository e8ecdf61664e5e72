// One release of the non-negative cascade (nonnegative_cascade_release.hpp).
#include "nonnegative_cascade_release.hpp"

#include <algorithm>

#include "../errors.hpp"
#include "../json_text.hpp"
#include "../large_buffer.hpp"
#include "../samplers/wide_int.hpp"
#include "nonnegative_cascade_moments.hpp"

namespace invariant_dp::hierarchy {
namespace {

constexpr const char* kTotalOutOfRange = "a hierarchy total overflows a 64-bit integer";

std::string json_array(const std::vector<double>& values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + json_number(values[i]);
  return out + "]";
}

}  // namespace

const char* const kNonnegativeSamplerMethod =
    "backward messages from the leaves up on windows with closed-form geometric tails, then the root and each "
    "sibling group given its parent drawn from integer tables that bound the messages, and an acceptance coin per "
    "group whose probability is the law over the proposal (decided exactly, by enclosures when needed); a failed "
    "coin redraws the whole tree";

std::string nonnegative_noise_json(const HierarchyTree& tree, const CalibratedNonnegativeLaw& calibrated) {
  const NonnegativeCalibration& c = calibrated.calibration;
  const NonnegativeLaw& law = calibrated.law;
  std::string levels = "[";
  for (unsigned d = 0; d <= tree.height(); ++d) {
    levels += (d ? ", " : "") + std::string("{\"depth\": ") + std::to_string(d) +
              ", \"name\": " + json_quoted(c.level_names[d]) + ", \"exact\": " + (law.level_free(d) ? "false" : "true") +
              ", \"epsilon\": " + json_number(law.level_epsilon(d)) + ", \"variance\": " + json_number(c.level_variance[d]) +
              "}";
  }
  levels += "]";
  return "{\"law\": " +
         json_quoted("integer counts r with P(r) proportional to the product over free nodes v of "
                     "exp(-epsilon[depth(v)] |r_v - x_v|), x the true counts, on the integer tables in which every "
                     "node is the sum of its children, every exact total is kept and every leaf is >= 0: independent "
                     "discrete Laplace noise on every free node, restricted to consistent tables and conditioned on "
                     "non-negative leaves") +
         ", \"level_epsilon\": " + json_array(law.level_epsilons()) +
         ", \"level_variance\": " + json_array(c.level_variance) +
         ", \"level_variance_is\": \"the variance of each level's discrete Laplace before conditioning\"" +
         ", \"levels\": " + levels + "}";
}

std::string nonnegative_moments_json() {
  return "{\"computed_at\": \"the released counts\", \"method\": " +
         json_quoted("sum-product on the tree over the same windows (what they leave out is below exp(-" +
                     json_number(nonnegative_moment_windows().window_tail) + ") of each node's mass)") +
         ", \"note\": " +
         json_quoted("each node's bias and variance under the law if the true counts were the released ones: an "
                     "estimate of the true figures, which depend on the confidential counts and are not "
                     "published; non-negative counts cannot be unbiased where a true count can be 0") +
         "}";
}

std::string nonnegative_cascade_metadata(const HierarchyTree& tree, const CalibratedNonnegativeLaw& calibrated,
                                         bool with_moments) {
  const NonnegativeCalibration& c = calibrated.calibration;
  std::string out = "{\"mechanism\": \"nonnegative_cascade\", \"output\": \"integer\", \"derived_from\": " +
                    json_quoted(c.derived_from) + ", \"neighbours\": " + json_quoted(neighbours_name(c.neighbours)) +
                    ", \"epsilon\": " + json_number(c.epsilon) + ", \"delta\": 0, \"base_epsilon\": " +
                    json_number(c.base_epsilon) + ", \"exact\": true, \"fixed_nodes\": " +
                    std::to_string(c.n_fixed_nodes) + ", \"privacy\": " +
                    json_quoted(nonnegative_privacy_statement(c)) + ", \"noise\": " +
                    nonnegative_noise_json(tree, calibrated) + ", \"sampler\": {\"method\": " +
                    json_quoted(kNonnegativeSamplerMethod) + ", \"exact\": true}";
  if (with_moments) out += ", \"bias_and_variance\": " + nonnegative_moments_json();
  return out + "}";
}

NonnegativeCascadeRelease release_nonnegative_cascade(const HierarchyTree& tree,
                                                      const CalibratedNonnegativeLaw& calibrated,
                                                      const std::int64_t* counts_by_cell, RandomSource& rng,
                                                      const Interrupts& interrupts,
                                                      const NonnegativeReleaseOptions& options) {
  const NonnegativeLaw& law = calibrated.law;
  NonnegativeOptions windows = options.windows;
  windows.dominating = true;
  // The bias and variance use wider windows than the draw: check the larger.
  NonnegativeSize size = nonnegative_cascade_size(tree, law, windows, interrupts);
  if (options.with_moments) {
    const NonnegativeSize wide = nonnegative_cascade_size(tree, law, nonnegative_moment_windows(), interrupts);
    size.pool_bytes = std::max(size.pool_bytes, wide.pool_bytes);
    size.scratch_bytes = std::max(size.scratch_bytes, wide.scratch_bytes);
    size.operations += wide.operations;
  }
  require_nonnegative_cascade_fits(size);
  NonnegativeCascadeRelease out;
  const std::vector<std::int64_t> leaf_counts = tree.to_leaf_order(counts_by_cell, interrupts);
  out.node_values = zeroed_large_buffer<std::int64_t>(tree.n_nodes());
  {
    const NonnegativeMessages messages(tree, law, leaf_counts.data(), windows, interrupts);
    NonnegativeSampler sampler(messages);
    out.stats = sampler.sample(rng, out.node_values.data(), interrupts);
  }
  // Leaves: count + noise; every other node the sum of its children
  // (children have larger ids), which is its own count plus its noise.
  auto& node = out.node_values;
  std::vector<std::int64_t> released_leaves(tree.n_leaves());
  for (std::size_t v = node.size(); v-- > 0;) {
    interrupts.poll_every(v);
    const auto u = static_cast<std::uint32_t>(v);
    if (tree.is_leaf(u)) {
      node[v] = checked_add(node[v], leaf_counts[tree.leaf_begin(u)], kNoisyCountOutOfRange);
      if (node[v] < 0) throw Error("the non-negative cascade released a negative count");
      released_leaves[tree.leaf_begin(u)] = node[v];
      continue;
    }
    std::int64_t sum = 0;
    for (std::uint32_t c = tree.first_child(u); c < tree.child_end(u); ++c) add_to(sum, node[c], kTotalOutOfRange);
    node[v] = sum;
  }
  if (options.with_moments) {
    NonnegativeOptions moment_windows = nonnegative_moment_windows();
    moment_windows.threads = windows.threads;
    NonnegativeMoments moments =
        nonnegative_cascade_moments(tree, law, released_leaves.data(), interrupts, moment_windows);
    out.node_bias = std::move(moments.bias);
    out.node_variance = std::move(moments.variance);
  }
  out.metadata_json = nonnegative_cascade_metadata(tree, calibrated, options.with_moments);
  return out;
}

}  // namespace invariant_dp::hierarchy
