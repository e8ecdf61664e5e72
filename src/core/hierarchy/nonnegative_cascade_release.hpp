// One release of the non-negative cascade: the exact draw, every node's
// value, the law's bias and variance per node, and the facts its metadata
// states (nonnegative_cascade.hpp has the call order).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "hierarchy_tree.hpp"
#include "nonnegative_cascade_law.hpp"
#include "nonnegative_cascade_messages.hpp"
#include "nonnegative_cascade_sampler.hpp"

namespace invariant_dp::hierarchy {

struct NonnegativeReleaseOptions {
  // Per-node bias and variance of the law at the released counts.
  bool with_moments = true;
  NonnegativeOptions windows;
};

struct NonnegativeCascadeRelease {
  std::vector<std::int64_t> node_values;  // node order: each >= 0, each the sum of its children
  // Per node, the law's bias E[r_v] - x_v and variance Var[r_v] evaluated
  // at x = the released counts (a function of the release alone, so covered
  // by its guarantee; the same figures at the true counts are not).
  std::vector<double> node_bias, node_variance;
  // For tests and benchmarks; depends on the counts, never published.
  NonnegativeDrawStats stats;
  // The metadata: law, privacy statement, sampler, per-level figures.
  std::string metadata_json;
};

// counts_by_cell: one count per leaf in CellKeys cell order (tree.leaf_cell).
// TooLarge (before any window is allocated) when the windows would not fit;
// InvalidData for a negative count; OutOfRange if a total overflows int64;
// Interrupted on cancel.
NonnegativeCascadeRelease release_nonnegative_cascade(const HierarchyTree& tree,
                                                      const CalibratedNonnegativeLaw& calibrated,
                                                      const std::int64_t* counts_by_cell, RandomSource& rng,
                                                      const Interrupts& interrupts,
                                                      const NonnegativeReleaseOptions& options = {});

// The metadata of a release (a JSON object): depends on the public
// parameters only. Its parts, for a caller that writes the metadata field
// by field: the sampler's method in words, the "noise" object (the law,
// per-level epsilons and variances) and the "bias_and_variance" object
// (how the per-node figures were computed, and at which counts).
std::string nonnegative_cascade_metadata(const HierarchyTree& tree, const CalibratedNonnegativeLaw& calibrated,
                                         bool with_moments);
extern const char* const kNonnegativeSamplerMethod;
std::string nonnegative_noise_json(const HierarchyTree& tree, const CalibratedNonnegativeLaw& calibrated);
std::string nonnegative_moments_json();

}  // namespace invariant_dp::hierarchy
