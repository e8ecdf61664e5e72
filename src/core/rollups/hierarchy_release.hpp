// A release of every level of a hierarchy (dp.privatize's `hierarchy`):
// the leaves are the cells, the internal nodes their totals, ROLLUP-style.
//
// Four ways to noise it:
// - mechanism "cascade": Gaussian cascade noise on the leaves
//   (hierarchy/cascade_sampler.hpp), every node at its level's target
//   variance; declared margins must be whole nodes and stay exact
//   (conditioning, which equals projection for Gaussian noise).
// - mechanism "integer_cascade" (integer_cascade_release.hpp): the same
//   covariance as an exact lattice Gaussian, integers at every level.
// - mechanism "nonnegative_cascade" (nonnegative_cascade_release.hpp):
//   integers at every level, every node >= 0, discrete Laplace noise at
//   every node conditioned on consistency and non-negative leaves.
// - any other mechanism: the leaves are released by it as usual (margins
//   exact, integers stay integers), then rolled up.
// Every internal node is the sum of its children's released values (for
// the rollups and "cascade" folded in a fixed order, hierarchy/rollup.hpp),
// so "parent = sum of children" holds exactly, in integers and bit-exactly
// in float8.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../accuracy/published_law_json.hpp"
#include "../interrupts.hpp"
#include "../invariants/cell_keys.hpp"
#include "../mechanisms/release_request.hpp"
#include "../random_source.hpp"
#include "../hierarchy/published_shape.hpp"
#include "../request/checked_request.hpp"

namespace invariant_dp {

namespace hierarchy {
class HierarchyTree;
}
namespace accuracy {
class CellIntervals;
}

struct HierarchyReleaseResult {
  bool integer_output = false;
  std::vector<std::size_t> level_columns;  // key column index of each level, coarsest first
  // Per node, in output order (the grand total first, then each depth in
  // leaf order): the cell whose keys the row prints, its depth (0 for the
  // grand total; an internal node prints its first `depth` levels and NULL
  // for every other key; a leaf prints every key), whether it is a leaf.
  std::vector<std::uint32_t> node_cell;
  std::vector<std::uint32_t> node_depth;
  std::vector<std::uint8_t> node_is_leaf;
  std::vector<double> values;                // real mechanisms
  std::vector<std::int64_t> integer_values;  // integer mechanisms
  std::vector<double> noise_sd;              // empty unless requested
  // A law that depends on the counts (nonnegative_cascade) has no published
  // law to derive intervals from: such a release computes its own, one per
  // node, when asked; nullptr otherwise.
  std::shared_ptr<const accuracy::CellIntervals> intervals;
  accuracy::PublishedLaw law;         // typed (accuracy/published_law.hpp)
  accuracy::MetadataObject metadata;  // that law written with the release's other fields
  std::string metadata_json;          // its text
};

HierarchyReleaseResult run_hierarchy_release(const CellKeys& cells, const std::int64_t* counts,
                                             const CheckedRequest& checked, RandomSource& rng,
                                             const Interrupts& interrupts);

// A tree's shape for the release metadata ("levels", "nodes", "children",
// ...): enough to rebuild it (dp.range_variance). Crossed releases publish
// one per hierarchy.
accuracy::PublishedTree published_tree(const hierarchy::HierarchyTree& tree, const std::vector<std::string>& levels);

}  // namespace invariant_dp
