// The hierarchy a cascade release runs on (the paper's perfect and general
// binary trees, Dharangutte, Gao, Gong, Wang 2024, arXiv:2402.07066,
// Section 3 and Appendix D.2, and any fan-out, DERIVATIONS.md): a rooted
// tree whose leaves are the released cells and
// whose internal nodes are the totals published with them.
//
// Node order (the order every node-indexed vector uses, and the order the
// shim prints rollup rows in): level order. The root is node 0, then every
// node of depth 1, then depth 2, ...; within a depth, nodes follow the leaf
// order. So the children of a node are consecutive ids, and the nodes of one
// depth are consecutive ids.
//
// Leaf order: the depth-first order of the leaves; every node covers the
// consecutive leaves [leaf_begin, leaf_end). Leaf-indexed vectors (noise,
// released leaves) use it; leaf_cell() maps a leaf back to its CellKeys cell.
//
// Storage is two flat uint32 arrays per node (first child, first leaf), so a
// 2^24-leaf binary tree needs 256 MB and no per-node allocation. parent() and
// depth() are binary searches over those arrays, leaf_end() walks down the
// last children (O(depth)): queries, not inner loops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/cell_keys.hpp"

namespace invariant_dp::hierarchy {

constexpr std::uint32_t kNoNode = 0xffffffffu;

class HierarchyTree {
 public:
  // The cells of `keys`, nested by level_columns (coarsest first): the root is
  // the grand total, depth d the distinct prefixes of the first d level
  // columns. The leaves are the cells (full key tuples): at depth
  // level_columns.size() when the level columns are all the key columns, one
  // depth below otherwise. Leaf order: lexicographic in the level columns'
  // codes, then the other columns' codes (codes follow first appearance, so a
  // source sorted by its keys keeps its order). InvalidArgument for an
  // unknown or repeated column.
  static HierarchyTree from_cell_keys(const CellKeys& keys, const std::vector<std::size_t>& level_columns,
                                      const Interrupts& interrupts);

  // parent[i]: the parent of node i, -1 for the one root. Children keep the
  // order of their indices; source_node() maps back to i. InvalidArgument for
  // no root, several roots, a cycle or an index out of range.
  static HierarchyTree from_parents(const std::vector<std::int64_t>& parent, const Interrupts& interrupts);

  // The perfect binary tree of 2^depth ordered leaves (the paper's setting:
  // dyadic ranges of a time or position axis). depth <= 28.
  static HierarchyTree perfect_binary(unsigned depth, const Interrupts& interrupts);

  std::size_t n_nodes() const { return first_leaf_.size() - 1; }
  std::size_t n_leaves() const { return leaf_node_.size(); }
  // Largest depth of any node (the root has depth 0).
  unsigned height() const { return static_cast<unsigned>(level_begin_.size() - 2); }

  // Nodes of depth d are [level_begin(d), level_end(d)).
  std::uint32_t level_begin(unsigned d) const { return level_begin_[d]; }
  std::uint32_t level_end(unsigned d) const { return level_begin_[d + 1]; }
  // A name per depth: "total", the level column names, "cell" (for key
  // trees); "depth d" otherwise. For metadata and error messages.
  const std::string& level_name(unsigned d) const { return level_names_[d]; }

  unsigned depth(std::uint32_t node) const;
  std::uint32_t parent(std::uint32_t node) const;  // kNoNode for the root
  std::uint32_t first_child(std::uint32_t node) const { return first_child_[node]; }
  std::uint32_t child_end(std::uint32_t node) const { return first_child_[node + 1]; }
  std::uint32_t n_children(std::uint32_t node) const { return first_child_[node + 1] - first_child_[node]; }
  bool is_leaf(std::uint32_t node) const { return first_child_[node] == first_child_[node + 1]; }

  std::uint32_t leaf_begin(std::uint32_t node) const { return first_leaf_[node]; }
  std::uint32_t leaf_end(std::uint32_t node) const;
  std::uint32_t leaf_node(std::uint32_t leaf) const { return leaf_node_[leaf]; }
  // The leaf whose key tuple a rollup row of `node` prints (the prefix columns
  // down to the node's depth; NULL below it): its first leaf.
  std::uint32_t representative_leaf(std::uint32_t node) const { return first_leaf_[node]; }
  // The CellKeys cell of a leaf (the identity for other trees).
  std::uint32_t leaf_cell(std::uint32_t leaf) const { return leaf_cell_.empty() ? leaf : leaf_cell_[leaf]; }
  // The from_parents() index of a node (the identity for other trees).
  std::uint32_t source_node(std::uint32_t node) const { return source_node_.empty() ? node : source_node_[node]; }

  // Leaf-indexed values in CellKeys cell order, reordered to leaf order.
  template <class T>
  std::vector<T> to_leaf_order(const T* by_cell, const Interrupts& interrupts) const {
    std::vector<T> out(n_leaves());
    for (std::size_t i = 0; i < out.size(); ++i) {
      interrupts.poll_every(i);
      out[i] = by_cell[leaf_cell(static_cast<std::uint32_t>(i))];
    }
    return out;
  }

 private:
  HierarchyTree() = default;
  // Fills leaf_node_ and level_names_ once the arrays are set.
  void finish(std::vector<std::string> level_names, const Interrupts& interrupts);

  std::vector<std::uint32_t> first_child_;  // n_nodes + 1; children = [fc[v], fc[v+1])
  std::vector<std::uint32_t> first_leaf_;   // n_nodes + 1; sentinel n_leaves
  std::vector<std::uint32_t> level_begin_;  // height + 2
  std::vector<std::uint32_t> leaf_node_;    // n_leaves
  std::vector<std::uint32_t> leaf_cell_;    // key trees only
  std::vector<std::uint32_t> source_node_;  // parent-array trees only
  std::vector<std::string> level_names_;    // height + 1
};

}  // namespace invariant_dp::hierarchy
