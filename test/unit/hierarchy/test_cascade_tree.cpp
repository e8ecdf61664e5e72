// Unit tests of the hierarchy tree (src/core/hierarchy/hierarchy_tree.hpp):
// node order, parents, children, leaf ranges and representative leaves for
// the three constructors, and the errors they raise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "errors.hpp"
#include "hierarchy/hierarchy_tree.hpp"
#include "hierarchy/rollup.hpp"
#include "interrupt_callbacks.hpp"
#include "table_builder.hpp"

namespace invariant_dp::hierarchy {
namespace {

// Three states; s2 and s3 have one county; s3's county one tract. Rows are
// out of order on purpose: the leaf order follows the keys' codes.
test_tables::TestTable geography() {
  return {{"state", "county", "tract"},
          {"s1", "c1", "t1", "s2", "c3", "t4", "s1", "c2", "t3", "s1", "c1", "t2", "s2", "c3", "t5", "s3", "c4", "t6"},
          {10, 20, 30, 40, 50, 60}};
}

TEST(CascadeTree, FromCellKeysLevelOrderAndLeafOrder) {
  const auto table = geography();
  const auto keys = table.keys();
  const auto tree = HierarchyTree::from_cell_keys(keys, {0, 1, 2}, Interrupts());
  ASSERT_EQ(tree.n_nodes(), 14u);
  ASSERT_EQ(tree.n_leaves(), 6u);
  EXPECT_EQ(tree.height(), 3u);
  EXPECT_EQ(tree.level_name(0), "total");
  EXPECT_EQ(tree.level_name(2), "county");
  // Leaf order: s1/c1/t1, s1/c1/t2, s1/c2/t3, s2/c3/t4, s2/c3/t5, s3/c4/t6.
  const std::vector<std::uint32_t> cells{0, 3, 2, 1, 4, 5};
  for (std::uint32_t leaf = 0; leaf < 6; ++leaf) {
    EXPECT_EQ(tree.leaf_cell(leaf), cells[leaf]);
    EXPECT_EQ(tree.leaf_node(leaf), 8 + leaf);
    EXPECT_EQ(tree.depth(tree.leaf_node(leaf)), 3u);
  }
  const std::vector<std::uint32_t> first_child{1, 4, 6, 7, 8, 10, 11, 13};
  const std::vector<std::uint32_t> n_children{3, 2, 1, 1, 2, 1, 2, 1};
  for (std::uint32_t v = 0; v < 8; ++v) {
    EXPECT_EQ(tree.first_child(v), first_child[v]) << v;
    EXPECT_EQ(tree.n_children(v), n_children[v]) << v;
    for (std::uint32_t c = tree.first_child(v); c < tree.child_end(v); ++c) EXPECT_EQ(tree.parent(c), v);
  }
  EXPECT_EQ(tree.parent(0), kNoNode);
  EXPECT_EQ(tree.leaf_begin(1), 0u);
  EXPECT_EQ(tree.leaf_end(1), 3u);
  EXPECT_EQ(tree.leaf_begin(2), 3u);
  EXPECT_EQ(tree.leaf_end(2), 5u);
  EXPECT_EQ(tree.leaf_end(0), 6u);
  // The rollup row of state s2 prints the keys of its first cell (s2, c3, t4)
  // down to its depth: cell 1.
  EXPECT_EQ(tree.leaf_cell(tree.representative_leaf(2)), 1u);
  EXPECT_EQ(tree.depth(2), 1u);
}

TEST(CascadeTree, LeafLevelBelowTheLevelColumns) {
  const auto table = geography();
  const auto keys = table.keys();
  const auto tree = HierarchyTree::from_cell_keys(keys, {0}, Interrupts());
  EXPECT_EQ(tree.height(), 2u);
  EXPECT_EQ(tree.level_name(1), "state");
  EXPECT_EQ(tree.level_name(2), "cell");
  EXPECT_EQ(tree.n_nodes(), 1u + 3u + 6u);
  EXPECT_EQ(tree.n_children(1), 3u);  // s1 holds three cells
}

TEST(CascadeTree, FromCellKeysRefusesBadColumns) {
  const auto table = geography();
  const auto keys = table.keys();
  EXPECT_THROW(HierarchyTree::from_cell_keys(keys, {0, 0}, Interrupts()), InvalidArgument);
  EXPECT_THROW(HierarchyTree::from_cell_keys(keys, {5}, Interrupts()), InvalidArgument);
}

// Cells out of key order (shuffled, or a sorted table read from its middle,
// as a scan joining another one reads it) are put in the order of their
// codes, column by column: the order a comparison sort on the codes gives.
TEST(CascadeTree, FromCellKeysOrdersCellsByTheirCodes) {
  const std::size_t n = 20000;
  std::mt19937_64 random(7);
  std::vector<std::vector<std::uint32_t>> sorted(3, std::vector<std::uint32_t>(n));
  for (std::size_t i = 0; i < n; ++i) {  // states of 500 cells, counties of 50
    sorted[0][i] = std::uint32_t(i / 500);
    sorted[1][i] = std::uint32_t(i / 50);
    sorted[2][i] = std::uint32_t(i);
  }
  std::vector<std::uint32_t> shuffled(n), rotated(n);
  std::iota(shuffled.begin(), shuffled.end(), 0u);
  std::shuffle(shuffled.begin(), shuffled.end(), random);
  for (std::size_t i = 0; i < n; ++i) rotated[i] = std::uint32_t((i + 12345) % n);
  // With spread 100 the tracts' codes lie in a dictionary 100 times the
  // cells (a domain's): sorted by comparison, not by counting.
  const std::pair<const std::vector<std::uint32_t>*, std::uint32_t> cases[] = {
      {&shuffled, 1}, {&rotated, 1}, {&shuffled, 100}, {&rotated, 100}};
  for (const auto& [order_given, spread] : cases) {
    const std::vector<std::uint32_t>& cells = *order_given;
    std::vector<std::vector<std::uint32_t>> codes(3, std::vector<std::uint32_t>(n));
    for (std::size_t c = 0; c < 3; ++c)
      for (std::size_t i = 0; i < n; ++i) codes[c][i] = sorted[c][cells[i]] * (c == 2 ? spread : 1);
    const CellKeys keys =
        CellKeys::from_codes({"state", "county", "tract"}, codes, {40, 400, std::uint32_t(n) * spread}, Interrupts());
    // Levels: state and county; the tract is the leaves' other column.
    const auto tree = HierarchyTree::from_cell_keys(keys, {0, 1}, Interrupts());
    std::vector<std::uint32_t> expected(n);
    std::iota(expected.begin(), expected.end(), 0u);
    std::sort(expected.begin(), expected.end(), [&](std::uint32_t a, std::uint32_t b) {
      for (const auto& column : codes)
        if (column[a] != column[b]) return column[a] < column[b];
      return a < b;
    });
    ASSERT_EQ(tree.n_leaves(), n);
    EXPECT_EQ(tree.n_nodes(), 1u + 40u + 400u + n);
    for (std::uint32_t leaf = 0; leaf < n; ++leaf) ASSERT_EQ(tree.leaf_cell(leaf), expected[leaf]) << leaf;
  }
}

// Sorting the cells polls: 200000 shuffled cells poll once per 4096 steps of
// the sort's passes (two columns, each counted, summed over its levels and
// scattered) beyond what the same cells in order do, less the pass that
// finds cells in order, and a stop asked during the sort is obeyed.
TEST(CascadeTree, SortingTheCellsPolls) {
  const std::size_t n = 200000;
  std::vector<std::uint32_t> shuffled(n), in_order(n);
  std::iota(in_order.begin(), in_order.end(), 0u);
  shuffled = in_order;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(11));
  struct Counted {
    long seen = 0, stop_at = -1;
    static bool pending(void* self) {
      auto* c = static_cast<Counted*>(self);
      return ++c->seen == c->stop_at;
    }
  };
  const auto polls = [&](const std::vector<std::uint32_t>& cells, long stop_at) {
    std::vector<std::vector<std::uint32_t>> codes(2, std::vector<std::uint32_t>(n));
    for (std::size_t i = 0; i < n; ++i) {
      codes[0][i] = cells[i] / 1000;
      codes[1][i] = cells[i];
    }
    const CellKeys keys = CellKeys::from_codes({"a", "b"}, codes, {200, std::uint32_t(n)}, Interrupts());
    Counted counted;
    counted.stop_at = stop_at;
    try {
      HierarchyTree::from_cell_keys(keys, {0}, Interrupts(&Counted::pending, &counted));
    } catch (const Interrupted&) {
      return -counted.seen;
    }
    return counted.seen;
  };
  const long sorted_polls = polls(in_order, -1), shuffled_polls = polls(shuffled, -1);
  const long sort_steps = long(n + n + n) + long(n + 200 + n);
  EXPECT_GE(shuffled_polls - sorted_polls, (sort_steps - long(n)) / 4096 - 2);
  // Stopped at the 50th poll, within the sort.
  EXPECT_EQ(polls(shuffled, 50), -50);
}

TEST(CascadeTree, FromParentsRenumbersBreadthFirst) {
  // 4 is the root; 0 and 2 its children (in index order); 1, 3 under 2.
  const auto tree = HierarchyTree::from_parents({4, 2, 4, 2, -1}, Interrupts());
  ASSERT_EQ(tree.n_nodes(), 5u);
  EXPECT_EQ(tree.source_node(0), 4u);
  EXPECT_EQ(tree.source_node(1), 0u);
  EXPECT_EQ(tree.source_node(2), 2u);
  EXPECT_EQ(tree.source_node(3), 1u);
  EXPECT_EQ(tree.source_node(4), 3u);
  EXPECT_EQ(tree.n_leaves(), 3u);
  EXPECT_EQ(tree.leaf_node(0), 1u);  // old 0
  EXPECT_EQ(tree.leaf_node(1), 3u);  // old 1
  EXPECT_EQ(tree.leaf_begin(2), 1u);
  EXPECT_EQ(tree.leaf_end(2), 3u);
  EXPECT_EQ(tree.height(), 2u);
}

// Asks to stop once *polls_left polls have passed.
using test_interrupts::pending_after;

// A root over 100000 leaves: the breadth-first pass alone polls 25 times
// (once per 4096 nodes); the other passes over nodes and children poll too,
// so a stop at the 31st poll is reached.
TEST(CascadeTree, EveryPassOverTheNodesPolls) {
  std::vector<std::int64_t> parents(100001, 0);
  parents[0] = -1;
  int polls_left = 30;
  EXPECT_THROW(HierarchyTree::from_parents(parents, Interrupts(pending_after, &polls_left)), Interrupted);
  // 10000 leaves reordered: polls at leaves 0, 4096 and 8192.
  const auto table = test_tables::grid({"a", "b"}, {100, 100}, std::vector<std::int64_t>(10000, 1));
  const auto keys = table.keys();
  const auto tree = HierarchyTree::from_cell_keys(keys, {0}, Interrupts());
  polls_left = 1;
  EXPECT_THROW(tree.to_leaf_order(table.counts.data(), Interrupts(pending_after, &polls_left)), Interrupted);
}

TEST(CascadeTree, FromParentsRefusesMalformedArrays) {
  EXPECT_THROW(HierarchyTree::from_parents({}, Interrupts()), InvalidArgument);
  EXPECT_THROW(HierarchyTree::from_parents({-1, -1}, Interrupts()), InvalidArgument);
  EXPECT_THROW(HierarchyTree::from_parents({1, 0}, Interrupts()), InvalidArgument);
  EXPECT_THROW(HierarchyTree::from_parents({-1, 2, 1}, Interrupts()), InvalidArgument);  // cycle 1 <-> 2
  EXPECT_THROW(HierarchyTree::from_parents({-1, 7}, Interrupts()), InvalidArgument);
}

TEST(CascadeTree, PerfectBinaryIsDyadic) {
  const auto tree = HierarchyTree::perfect_binary(3, Interrupts());
  EXPECT_EQ(tree.n_nodes(), 15u);
  EXPECT_EQ(tree.n_leaves(), 8u);
  for (std::uint32_t v = 0; v < 15; ++v) {
    const unsigned d = tree.depth(v);
    const std::uint32_t width = 8u >> d, position = v - ((1u << d) - 1);
    EXPECT_EQ(tree.leaf_begin(v), position * width);
    EXPECT_EQ(tree.leaf_end(v), (position + 1) * width);
    if (v > 0) {
      EXPECT_EQ(tree.parent(v), (v - 1) / 2);
    }
  }
  EXPECT_THROW(HierarchyTree::perfect_binary(29, Interrupts()), TooLarge);
  const auto single = HierarchyTree::perfect_binary(0, Interrupts());
  EXPECT_EQ(single.n_nodes(), 1u);
  EXPECT_TRUE(single.is_leaf(0));
}

TEST(CascadeTree, RollupIsTheFoldOfChildren) {
  const auto table = geography();
  const auto keys = table.keys();
  const auto tree = HierarchyTree::from_cell_keys(keys, {0, 1, 2}, Interrupts());
  const auto counts = tree.to_leaf_order(table.counts.data(), Interrupts());
  const auto nodes = rollup(tree, counts, Interrupts());
  EXPECT_EQ(nodes[0], 210);
  EXPECT_EQ(nodes[1], 10 + 40 + 30);
  EXPECT_EQ(nodes[2], 20 + 50);
  EXPECT_EQ(nodes[3], 60);
  EXPECT_THROW(rollup(tree, std::vector<std::int64_t>(5), Interrupts()), InvalidArgument);
  std::vector<std::int64_t> huge(6, INT64_MAX / 2);
  EXPECT_THROW(rollup(tree, huge, Interrupts()), OutOfRange);
}

}  // namespace
}  // namespace invariant_dp::hierarchy
