// Construction of the level-ordered hierarchy arrays (hierarchy_tree.hpp).
#include "hierarchy_tree.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "../errors.hpp"
#include "../polled_sort.hpp"

namespace invariant_dp::hierarchy {
namespace {

constexpr unsigned kMaxPerfectDepth = 28;  // 2^29 - 1 nodes still fit uint32 ids

void check_node_count(std::size_t n_nodes) {
  if (n_nodes >= kNoNode) {
    throw TooLarge("hierarchy has too many nodes", "It has " + std::to_string(n_nodes) + " nodes.",
                   "A hierarchy can have at most 4294967294 nodes.");
  }
}

// The cells in the order of their codes on `columns`, ties by index, as a
// comparison sort would put them. Cells read in key order (a released
// table's rows, a sorted source) are in order already: one pass finds so.
// Otherwise a counting sort per column, the last column first (each pass
// stable), O(n + levels) a column and polled, where std::sort of 8M cells
// took over a second without a poll (and fell to its heapsort on a sorted
// table read from its middle). A column whose dictionary is far larger than
// the cells (a domain's, shared) is sorted by comparison instead, which
// costs nothing per level.
std::vector<std::uint32_t> cells_in_code_order(const CellKeys& keys, const std::vector<std::size_t>& columns,
                                               const Interrupts& interrupts) {
  const std::size_t n = keys.n_cells();
  std::vector<std::uint32_t> order(n), next, start;
  std::iota(order.begin(), order.end(), 0u);
  std::vector<const std::uint32_t*> codes_of;
  bool sparse = false;
  for (std::size_t column : columns) {
    codes_of.push_back(keys.codes(column));
    sparse = sparse || keys.n_levels(column) > 4 * n + 4096;
  }
  bool in_order = true;
  for (std::size_t i = 1; i < n && in_order; ++i) {
    interrupts.poll_every(i);
    for (const std::uint32_t* codes : codes_of)
      if (codes[i - 1] != codes[i]) {
        in_order = codes[i - 1] < codes[i];
        break;
      }
  }
  if (in_order) return order;
  if (sparse) {
    polled_sort(
        order.begin(), order.end(),
        [&](std::uint32_t a, std::uint32_t b) {
          for (const std::uint32_t* codes : codes_of)
            if (codes[a] != codes[b]) return codes[a] < codes[b];
          return a < b;
        },
        interrupts);
    return order;
  }
  next.resize(n);
  std::uint64_t steps = 0;
  for (std::size_t k = columns.size(); k-- > 0;) {
    const std::uint32_t* codes = codes_of[k];
    const std::uint32_t levels = keys.n_levels(columns[k]);
    start.assign(std::size_t(levels) + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
      interrupts.poll_every(++steps);
      if (codes[i] >= levels) throw std::logic_error("a cell's code is past its column's levels");
      ++start[codes[i] + 1];
    }
    for (std::uint32_t v = 0; v < levels; ++v) {
      interrupts.poll_every(++steps);
      start[v + 1] += start[v];
    }
    for (std::size_t i = 0; i < n; ++i) {
      interrupts.poll_every(++steps);
      const std::uint32_t cell = order[i];
      next[start[codes[cell]]++] = cell;
    }
    order.swap(next);
  }
  return order;
}

}  // namespace

void HierarchyTree::finish(std::vector<std::string> level_names, const Interrupts& interrupts) {
  leaf_node_.assign(first_leaf_.back(), kNoNode);
  for (std::uint32_t v = 0; v < n_nodes(); ++v) {
    interrupts.poll_every(v);
    if (is_leaf(v)) leaf_node_[first_leaf_[v]] = v;
  }
  level_names_ = std::move(level_names);
  level_names_.resize(height() + 1);
  for (unsigned d = 0; d <= height(); ++d) {
    if (level_names_[d].empty()) level_names_[d] = "depth " + std::to_string(d);
  }
}

HierarchyTree HierarchyTree::from_cell_keys(const CellKeys& keys, const std::vector<std::size_t>& level_columns,
                                            const Interrupts& interrupts) {
  const std::size_t n = keys.n_cells(), n_columns = keys.n_columns();
  if (n == 0) throw InvalidData("a hierarchy needs at least one cell");
  check_node_count(n);
  std::vector<char> is_level(n_columns, 0);
  for (std::size_t column : level_columns) {
    if (column >= n_columns) {
      throw InvalidArgument("hierarchy column index out of range",
                            "Column " + std::to_string(column) + " was asked for; the source has " +
                                std::to_string(n_columns) + " key columns.");
    }
    if (is_level[column]) {
      throw InvalidArgument("hierarchy column \"" + keys.column_names()[column] + "\" appears more than once",
                            "Each level of a hierarchy is a distinct key column.",
                            "List each column once, coarsest level first.");
    }
    is_level[column] = 1;
  }
  // Sort key: the level columns, then the other key columns (so the leaves
  // under the deepest prefix keep a fixed order).
  std::vector<std::size_t> sort_columns = level_columns;
  for (std::size_t c = 0; c < n_columns; ++c)
    if (!is_level[c]) sort_columns.push_back(c);
  const bool leaf_level_below = level_columns.size() < n_columns;
  const unsigned height = static_cast<unsigned>(level_columns.size() + (leaf_level_below ? 1 : 0));
  if (height == 0 && n > 1) throw InvalidData("cells without key columns must be a single cell");

  std::vector<std::uint32_t> order = cells_in_code_order(keys, sort_columns, interrupts);

  // starts[d]: the sorted positions where a depth-d node begins. A node
  // begins where its parent begins or where its own column changes.
  std::vector<std::vector<std::uint32_t>> starts(height + 1);
  std::vector<char> begins(n, 0);
  begins[0] = 1;
  starts[0].push_back(0);
  for (unsigned d = 1; d <= height; ++d) {
    const bool own_column = d <= level_columns.size();
    const std::uint32_t* codes = own_column ? keys.codes(level_columns[d - 1]) : nullptr;
    for (std::size_t i = 0; i < n; ++i) {
      interrupts.poll_every(i);
      if (i > 0 && (!own_column || codes[order[i]] != codes[order[i - 1]])) begins[i] = 1;
      if (begins[i]) starts[d].push_back(static_cast<std::uint32_t>(i));
    }
  }

  HierarchyTree tree;
  tree.level_begin_.push_back(0);
  for (unsigned d = 0; d <= height; ++d) tree.level_begin_.push_back(tree.level_begin_.back() + starts[d].size());
  const std::size_t n_nodes = tree.level_begin_.back();
  check_node_count(n_nodes);
  tree.first_child_.resize(n_nodes + 1);
  tree.first_leaf_.resize(n_nodes + 1);
  for (unsigned d = 0; d <= height; ++d) {
    std::size_t child = 0;  // index into starts[d + 1]
    for (std::size_t k = 0; k < starts[d].size(); ++k) {
      const std::uint32_t node = tree.level_begin_[d] + static_cast<std::uint32_t>(k);
      interrupts.poll_every(node);
      tree.first_leaf_[node] = starts[d][k];
      if (d == height) {
        tree.first_child_[node] = static_cast<std::uint32_t>(n_nodes);
        continue;
      }
      // Ends: child only grows, over the next level's nodes once in all.
      while (starts[d + 1][child] < starts[d][k]) ++child;
      tree.first_child_[node] = tree.level_begin_[d + 1] + static_cast<std::uint32_t>(child);
    }
  }
  tree.first_child_[n_nodes] = static_cast<std::uint32_t>(n_nodes);
  tree.first_leaf_[n_nodes] = static_cast<std::uint32_t>(n);
  tree.leaf_cell_ = std::move(order);

  std::vector<std::string> names{"total"};
  for (std::size_t c : level_columns) names.push_back(keys.column_names()[c]);
  if (leaf_level_below) names.push_back("cell");
  tree.finish(std::move(names), interrupts);
  return tree;
}

HierarchyTree HierarchyTree::from_parents(const std::vector<std::int64_t>& parent, const Interrupts& interrupts) {
  const std::size_t n = parent.size();
  if (n == 0) throw InvalidArgument("a hierarchy needs at least one node");
  check_node_count(n);
  std::size_t root = n;
  std::vector<std::uint32_t> child_count(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    const std::int64_t p = parent[i];
    if (p == -1) {
      if (root != n) {
        throw InvalidArgument("hierarchy has more than one root",
                              "Nodes " + std::to_string(root) + " and " + std::to_string(i) + " have no parent.");
      }
      root = i;
    } else if (p < 0 || static_cast<std::size_t>(p) >= n || static_cast<std::size_t>(p) == i) {
      throw InvalidArgument("hierarchy parent index out of range",
                            "Node " + std::to_string(i) + " names parent " + std::to_string(p) + ".");
    } else {
      ++child_count[p + 1];
    }
  }
  if (root == n) throw InvalidArgument("hierarchy has no root", "Exactly one node must have parent -1.");
  // Children of every node in index order (counting sort).
  std::partial_sum(child_count.begin(), child_count.end(), child_count.begin());
  std::vector<std::uint32_t> children(n - 1), fill(child_count.begin(), child_count.end() - 1);
  for (std::size_t i = 0; i < n; ++i) {
    interrupts.poll_every(i);
    if (parent[i] >= 0) children[fill[parent[i]]++] = static_cast<std::uint32_t>(i);
  }

  // Breadth-first renumbering: a node's children are appended together.
  // The passes over nodes and their children poll on one count of both, so
  // a root with millions of children is polled inside its own loop.
  HierarchyTree tree;
  std::vector<std::uint32_t> bfs{static_cast<std::uint32_t>(root)}, depth(n, 0);
  bfs.reserve(n);
  tree.first_child_.resize(n + 1);
  std::uint64_t steps = 0;
  for (std::size_t head = 0; head < bfs.size(); ++head) {
    interrupts.poll_every(steps++);
    const std::uint32_t old = bfs[head];
    tree.first_child_[head] = static_cast<std::uint32_t>(bfs.size());
    for (std::uint32_t k = child_count[old]; k < child_count[old + 1]; ++k) {
      interrupts.poll_every(steps++);
      depth[children[k]] = depth[old] + 1;
      bfs.push_back(children[k]);
    }
  }
  if (bfs.size() != n) {
    throw InvalidArgument("hierarchy parent array has a cycle",
                          std::to_string(n - bfs.size()) + " nodes cannot be reached from the root.");
  }
  tree.first_child_[n] = static_cast<std::uint32_t>(n);
  tree.level_begin_.push_back(0);
  for (std::size_t v = 1; v < n; ++v) {
    interrupts.poll_every(v);
    if (depth[bfs[v]] != depth[bfs[v - 1]]) tree.level_begin_.push_back(static_cast<std::uint32_t>(v));
  }
  tree.level_begin_.push_back(static_cast<std::uint32_t>(n));

  // Leaves per subtree bottom-up, then each node's first leaf top-down.
  std::vector<std::uint32_t> n_leaves(n, 0);
  for (std::size_t v = n; v-- > 0;) {
    interrupts.poll_every(steps++);
    if (tree.is_leaf(static_cast<std::uint32_t>(v))) {
      n_leaves[v] = 1;
      continue;
    }
    for (std::uint32_t c = tree.first_child_[v]; c < tree.first_child_[v + 1]; ++c) {
      interrupts.poll_every(steps++);
      n_leaves[v] += n_leaves[c];
    }
  }
  tree.first_leaf_.assign(n + 1, 0);
  for (std::size_t v = 0; v < n; ++v) {
    interrupts.poll_every(steps++);
    std::uint32_t next = tree.first_leaf_[v];
    for (std::uint32_t c = tree.first_child_[v]; c < tree.first_child_[v + 1]; ++c) {
      interrupts.poll_every(steps++);
      tree.first_leaf_[c] = next;
      next += n_leaves[c];
    }
  }
  tree.first_leaf_[n] = n_leaves[0];
  tree.source_node_ = std::move(bfs);
  tree.finish({}, interrupts);
  return tree;
}

HierarchyTree HierarchyTree::perfect_binary(unsigned depth, const Interrupts& interrupts) {
  if (depth > kMaxPerfectDepth) {
    throw TooLarge("binary hierarchy is too deep", "Depth " + std::to_string(depth) + " was asked for.",
                   "The depth can be at most " + std::to_string(kMaxPerfectDepth) + ".");
  }
  const std::uint32_t n_internal = (1u << depth) - 1, n_nodes = (2u << depth) - 1;
  HierarchyTree tree;
  tree.first_child_.resize(n_nodes + 1);
  tree.first_leaf_.resize(n_nodes + 1);
  for (unsigned d = 0; d <= depth + 1; ++d) tree.level_begin_.push_back((1u << d) - 1);
  for (unsigned d = 0; d <= depth; ++d) {
    for (std::uint32_t v = (1u << d) - 1; v < (2u << d) - 1; ++v) {
      interrupts.poll_every(v);
      tree.first_child_[v] = v < n_internal ? 2 * v + 1 : n_nodes;
      tree.first_leaf_[v] = (v - ((1u << d) - 1)) << (depth - d);
    }
  }
  tree.first_child_[n_nodes] = n_nodes;
  tree.first_leaf_[n_nodes] = 1u << depth;
  tree.finish({}, interrupts);
  return tree;
}

unsigned HierarchyTree::depth(std::uint32_t node) const {
  return static_cast<unsigned>(std::upper_bound(level_begin_.begin(), level_begin_.end(), node) -
                               level_begin_.begin() - 1);
}

std::uint32_t HierarchyTree::parent(std::uint32_t node) const {
  if (node == 0) return kNoNode;
  // The parent u is the one with first_child(u) <= node < child_end(u).
  return static_cast<std::uint32_t>(std::upper_bound(first_child_.begin(), first_child_.end() - 1, node) -
                                    first_child_.begin() - 1);
}

std::uint32_t HierarchyTree::leaf_end(std::uint32_t node) const {
  // Ends: descends one level a pass: the tree's depth.
  while (!is_leaf(node)) node = child_end(node) - 1;
  return first_leaf_[node] + 1;
}

}  // namespace invariant_dp::hierarchy
