// The shape a cascade release publishes (children per internal node, in
// level order: hierarchy_release.cpp), with its law, for range variances
// (dp.range_variance) in memory independent of the number of leaves.
//
// The nodes are numbered in level order from the root 0: the children of
// node v are the consecutive ids after those of v - 1. The listed nodes
// 0 .. n_listed - 1 carry a child count (0 for a leaf); every later id is a
// leaf. So every internal node is listed and its children are some listed
// nodes followed by a run of unlisted leaves: only the listed nodes are
// stored, the runs are counted, and a shape of billions of leaves takes the
// memory of its internal nodes. Leaf order (the leaf numbers a range names)
// is depth-first, as HierarchyTree::from_parents orders the leaves of the
// same shape, and everything here equals what HierarchyTree, CascadeLaw and
// range_variance (cascade_covariance.hpp) compute on that tree:
// test_published_shape.cpp compares the two on random shapes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"

namespace invariant_dp {

// Trees with more internal nodes than this publish their shape without the
// per-node child counts (they would dominate the metadata); dp.range_variance
// accepts no larger a published shape (and holds nothing per leaf).
constexpr std::size_t kMaxPublishedInternalNodes = 100000;

}  // namespace invariant_dp

namespace invariant_dp::hierarchy {

class PublishedShape {
 public:
  // InvalidArgument when a listed node has no parent (more nodes are listed
  // than the counts before them create).
  PublishedShape(const std::uint32_t* children, std::size_t n_listed, const Interrupts& interrupts);

  std::uint64_t n_nodes() const { return n_nodes_; }
  std::uint64_t n_leaves() const { return n_leaves_[0]; }
  unsigned height() const { return height_; }

  // The variance of the sum of leaves lo..hi (inclusive, leaf order) under
  // cascade noise with these per-depth targets, conditioned on the totals
  // of fixed_nodes being exact: the checks and the errors of CascadeLaw
  // and its conditioned_on (InvalidArgument), then range_variance's closed
  // form. InvalidArgument for a range outside the leaves.
  double range_variance(const std::vector<double>& level_variance, std::vector<std::uint64_t> fixed_nodes,
                        std::uint64_t lo, std::uint64_t hi, const Interrupts& interrupts) const;

 private:
  std::uint64_t first_child(std::uint32_t v) const { return first_child_[v]; }
  std::uint32_t n_children(std::uint32_t v) const { return children_[v]; }
  bool listed(std::uint64_t node) const { return node < children_.size(); }
  // The listed children of v are [first_child, listed_end); the rest of its
  // children are unlisted leaves.
  std::uint64_t listed_end(std::uint32_t v) const;
  // The first leaf number of v's unlisted leaves.
  std::uint64_t run_begin(std::uint32_t v) const { return run_leaf_[v]; }
  std::uint64_t run_length(std::uint32_t v) const { return first_child_[v] + children_[v] - listed_end(v); }

  std::vector<std::uint32_t> children_;      // per listed node
  std::vector<std::uint64_t> first_child_;   // per listed node
  std::vector<std::uint32_t> depth_;         // per listed node
  std::vector<std::uint64_t> first_leaf_;    // per listed node
  std::vector<std::uint64_t> n_leaves_;      // per listed node
  std::vector<std::uint64_t> run_leaf_;      // per listed node
  std::uint64_t n_nodes_ = 1;
  unsigned height_ = 0;
};

}  // namespace invariant_dp::hierarchy
