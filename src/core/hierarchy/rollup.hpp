// Every node's released value from the released leaves, as the paper
// answers every query from the perturbed leaves (Dharangutte, Gao, Gong,
// Wang 2024, arXiv:2402.07066, Definition 3.2): a node is the left-to-right
// fold of its children's values, never the top-down X/2 +- h of the
// sampler (whose two halves need not add back to X in floating point), so
// "parent == sum of children" holds bit-exactly in floating point as well
// as in integers, whatever rounding the leaves carry (checked by
// test_cascade_sampler.cpp, ReleaseIsBitExactlyConsistent). Bottom-up over
// the level order (children have larger ids than their parent).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "../errors.hpp"
#include "../interrupts.hpp"
#include "../samplers/wide_int.hpp"
#include "hierarchy_tree.hpp"

namespace invariant_dp::hierarchy {

// leaf_values in leaf order; the result in node order. T: double or int64
// (OutOfRange if an integer total overflows).
template <class T>
std::vector<T> rollup(const HierarchyTree& tree, const std::vector<T>& leaf_values, const Interrupts& interrupts) {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, std::int64_t>, "rollup of double or int64");
  if (leaf_values.size() != tree.n_leaves()) {
    throw InvalidArgument("wrong number of leaf values for the hierarchy",
                          "The hierarchy has " + std::to_string(tree.n_leaves()) + " leaves; " +
                              std::to_string(leaf_values.size()) + " values were given.");
  }
  std::vector<T> node(tree.n_nodes());
  for (std::size_t v = node.size(); v-- > 0;) {
    interrupts.poll_every(v);
    const auto u = static_cast<std::uint32_t>(v);
    if (tree.is_leaf(u)) {
      node[v] = leaf_values[tree.leaf_begin(u)];
      continue;
    }
    T sum = node[tree.first_child(u)];
    for (std::uint32_t c = tree.first_child(u) + 1; c < tree.child_end(u); ++c) {
      if constexpr (std::is_same_v<T, double>) {
        sum += node[c];
      } else {
        add_to(sum, node[c], "a hierarchy total overflows a 64-bit integer");
      }
    }
    node[v] = sum;
  }
  return node;
}

}  // namespace invariant_dp::hierarchy
