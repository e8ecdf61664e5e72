// Margins to tree nodes (cascade_margins.hpp).
#include "cascade_margins.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "../errors.hpp"
#include "../polled_sort.hpp"

namespace invariant_dp::hierarchy {
namespace {

struct Group {
  std::uint32_t first, last, count;
};

std::string margin_name(const CellKeys& keys, const std::vector<std::size_t>& columns) {
  std::string name = "(";
  for (std::size_t k = 0; k < columns.size(); ++k) name += (k ? ", " : "") + keys.column_names()[columns[k]];
  return name + ")";
}

[[noreturn]] void refuse(const CellKeys& keys, const std::vector<std::size_t>& columns) {
  throw InvalidArgument("margin " + margin_name(keys, columns) + " is not a level of the hierarchy",
                        "One of its groups is not exactly the cells of one node of the hierarchy; the cascade "
                        "can keep exact only totals of whole nodes.",
                        "Declare margins that are a prefix of the hierarchy columns, e.g. {state}, or {} for the "
                        "grand total.");
}

}  // namespace

std::vector<std::uint32_t> margin_nodes(const HierarchyTree& tree, const CellKeys& keys,
                                        const std::vector<std::size_t>& margin_columns, const Interrupts& interrupts) {
  if (tree.n_leaves() != keys.n_cells()) throw InvalidArgument("hierarchy and cells do not match");
  for (std::size_t c : margin_columns)
    if (c >= keys.n_columns()) throw InvalidArgument("margin column index out of range");
  std::unordered_map<std::string, Group> groups;
  std::string key(margin_columns.size() * sizeof(std::uint32_t), '\0');
  for (std::uint32_t leaf = 0; leaf < tree.n_leaves(); ++leaf) {
    interrupts.poll_every(leaf);
    const std::uint32_t cell = tree.leaf_cell(leaf);
    for (std::size_t k = 0; k < margin_columns.size(); ++k) {
      const std::uint32_t code = keys.code(margin_columns[k], cell);
      key.replace(k * sizeof code, sizeof code, reinterpret_cast<const char*>(&code), sizeof code);
    }
    auto [it, inserted] = groups.try_emplace(key, Group{leaf, leaf, 0});
    it->second.last = leaf;
    ++it->second.count;
  }
  // A margin on the finest level has a group per cell, each a walk up the tree.
  std::vector<std::uint32_t> nodes;
  std::uint64_t checked = 0;
  for (const auto& [unused, g] : groups) {
    interrupts.poll_every(checked++);
    // Contiguous in leaf order, and some node covers exactly those leaves.
    if (g.last - g.first + 1 != g.count) refuse(keys, margin_columns);
    std::uint32_t v = tree.leaf_node(g.first);
    // Ends: climbs to the root at most: the tree's depth.
    while (tree.leaf_end(v) < g.last + 1 && v != 0) v = tree.parent(v);
    if (tree.leaf_begin(v) != g.first || tree.leaf_end(v) != g.last + 1) refuse(keys, margin_columns);
    nodes.push_back(v);
  }
  polled_sort(nodes.begin(), nodes.end(), interrupts);  // independent of the hash order
  return nodes;
}

}  // namespace invariant_dp::hierarchy
