// The C entry point of dp.range_variance and dp.range_variance_bounds: the
// variance of a range of a cascade or integer cascade release's leaves, from
// its published noise law.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "../errors.hpp"
#include "../hierarchy/cascade_law.hpp"
#include "../hierarchy/integer_cascade_accuracy.hpp"
#include "../hierarchy/hierarchy_tree.hpp"
#include "../rollups/hierarchy_release.hpp"
#include "capi_convert.hpp"
#include "capi_guard.hpp"
#include "invariant_dp_core.h"
#include "session_randomness.hpp"

using namespace invariant_dp;
using namespace invariant_dp::capi;

namespace {

// The published shape (children per internal node, in level order) as parent
// links. Its size is bounded before anything is allocated: anyone may call
// dp.range_variance with any arrays.
std::vector<std::int64_t> parents_from_children(const uint32_t* children, std::size_t n_internal,
                                                const Interrupts& interrupts) {
  if (n_internal > kMaxPublishedInternalNodes)
    throw TooLarge("the published tree has too many internal nodes",
                   std::to_string(n_internal) + " are listed; a cascade release publishes at most " +
                       std::to_string(kMaxPublishedInternalNodes) + ".");
  std::uint64_t nodes = 1;
  for (std::size_t v = 0; v < n_internal; ++v) {
    nodes += children[v];
    if (nodes > kMaxRangeVarianceNodes)
      throw TooLarge("the published tree has too many nodes",
                     "Its child counts add up to more than " + std::to_string(kMaxRangeVarianceNodes) + " nodes.",
                     "Pass the noise law of a cascade release, from dp.last_release() or dp.draws.noise_law.");
  }
  std::vector<std::int64_t> parent{-1};
  parent.reserve(nodes);
  for (std::size_t v = 0; v < n_internal; ++v) {
    interrupts.poll();
    if (v >= parent.size())
      throw InvalidArgument("the published tree is malformed", "An internal node has no parent.");
    parent.insert(parent.end(), children[v], static_cast<std::int64_t>(v));
  }
  return parent;
}

}  // namespace

extern "C" {

idp_status idp_cascade_range_variance(const uint32_t* children, size_t n_internal, const double* level_variance,
                                      size_t n_levels, const uint32_t* fixed_nodes, size_t n_fixed,
                                      double deficit_bound, uint64_t first, uint64_t last,
                                      const idp_interrupts* interrupts, double* lower, double* upper,
                                      idp_error* error) {
  return guarded(error, [&] {
    const Interrupts polling = interrupts_of(interrupts);
    const hierarchy::HierarchyTree tree =
        hierarchy::HierarchyTree::from_parents(parents_from_children(children, n_internal, polling), polling);
    hierarchy::CascadeLaw law(tree, std::vector<double>(level_variance, level_variance + n_levels), polling);
    if (n_fixed > 0) law = law.conditioned_on(tree, std::vector<std::uint32_t>(fixed_nodes, fixed_nodes + n_fixed), polling);
    if (first > last || last >= tree.n_leaves())
      throw InvalidArgument("leaf range out of bounds",
                            "The release has " + std::to_string(tree.n_leaves()) + " leaves, numbered from 0; got " +
                                std::to_string(first) + ".." + std::to_string(last) + ".");
    if (!(deficit_bound >= 0) || !std::isfinite(deficit_bound))
      throw InvalidArgument("the noise law has no valid variance_deficit_bound",
                            "An integer_cascade law publishes a finite, non-negative bound.");
    const auto bounds = hierarchy::integer_range_variance(tree, law, deficit_bound, static_cast<std::uint32_t>(first),
                                                          static_cast<std::uint32_t>(last));
    *upper = bounds.upper;
    // The real-valued cascade's closed form is its variance.
    *lower = deficit_bound == 0 ? bounds.upper : bounds.lower;
    const double both[2] = {*lower, *upper};
    refuse_non_finite(both, 2, "range variance");
  });
}

}  // extern "C"
