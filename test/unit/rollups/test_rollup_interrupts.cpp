// Cancellation of the hierarchy releases' own loops (src/core/rollups): each
// loop over nodes, cells or (row node, column node) pairs polls the
// interrupt callback every 4096 steps (interrupts.hpp), so a cancel reaches
// a release of millions of rows within its inner loops, not only between
// the phases around them.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "errors.hpp"
#include "hierarchy/hierarchy_tree.hpp"
#include "interrupt_callbacks.hpp"
#include "interrupts.hpp"
#include "random_source.hpp"
#include "rollups/cascade_release_common.hpp"
#include "rollups/crossed_grid.hpp"
#include "rollups/crossed_release.hpp"
#include "rollups/hierarchy_release.hpp"
#include "table_builder.hpp"
#include "request/release_request.hpp"
#include "checked_parts.hpp"

namespace invariant_dp {
namespace {

// Asks to stop once *polls_left polls have passed.
using test_interrupts::pending_after;

// Never asks to stop; counts the polls.
bool count_polls(void* polls) {
  ++*static_cast<int*>(polls);
  return false;
}

// A root over n leaves.
hierarchy::HierarchyTree flat_tree(std::size_t n) {
  std::vector<std::int64_t> parents(n + 1, 0);
  parents[0] = -1;
  return hierarchy::HierarchyTree::from_parents(parents, Interrupts());
}

// r x c cells, keys "r" and "c", every count 1.
test_tables::TestTable square_grid(int r, int c) {
  return test_tables::grid({"r", "c"}, {r, c}, std::vector<std::int64_t>(std::size_t(r) * c, 1));
}

ReleaseRequest cascade_request(bool stddev) {
  RawRequest raw;
  raw.mechanism = "cascade";
  raw.epsilon = 1.0;
  raw.has_delta = true;
  raw.delta = 1e-9;
  if (stddev) raw.options.emplace_back("stddev", "true");
  return validate_request(raw);
}

// 20001 nodes: polls at nodes 0, 4096, ..., 16384; the third stops it.
TEST(RollupInterrupts, DescribeNodesPollsPerNode) {
  const auto tree = flat_tree(20000);
  HierarchyReleaseResult out;
  int polls_left = 2;
  EXPECT_THROW(describe_nodes(tree, out, Interrupts(pending_after, &polls_left)), Interrupted);
  HierarchyReleaseResult done;
  int polls = 0;
  describe_nodes(tree, done, Interrupts(count_polls, &polls));
  EXPECT_EQ(polls, 5);
  EXPECT_EQ(done.node_depth.size(), tree.n_nodes());
}

// 101 row nodes x 101 column nodes: one poll over the column depths, then
// pairs 0, 4096 and 8192; the third poll (pair 4096, inside row node 40)
// stops it.
TEST(RollupInterrupts, CrossedDescribeNodesPollsPerPair) {
  const auto table = square_grid(100, 100);
  const CellKeys cells = table.keys();
  const CrossedGrid grid = build_crossed_grid(cells, {"r"}, {"c"}, Interrupts());
  CrossedReleaseResult out;
  int polls_left = 2;
  EXPECT_THROW(describe_nodes(grid, out, Interrupts(pending_after, &polls_left)), Interrupted);
  CrossedReleaseResult done;
  int polls = 0;
  describe_nodes(grid, done, Interrupts(count_polls, &polls));
  EXPECT_EQ(polls, 4);
  EXPECT_EQ(done.node_cell.size(), 101u * 101u);
}

// A cascade release's standard deviations are a walk to the root per node
// (10101 nodes here: three polls); asking for them adds those polls.
TEST(RollupInterrupts, StandardDeviationsPollPerNode) {
  const auto table = square_grid(100, 100);
  const CellKeys cells = table.keys();
  HierarchyRequest hierarchy;
  hierarchy.levels = {"r"};
  auto polls_of = [&](bool stddev) {
    int polls = 0;
    auto rng = make_seeded_random_source(3);
    run_hierarchy_release(cells, table.counts.data(), checked_parts(cascade_request(stddev), hierarchy, {}), *rng,
                          Interrupts(count_polls, &polls));
    return polls;
  };
  EXPECT_GE(polls_of(true) - polls_of(false), 3);
}

// The standard deviations of a crossed cascade release are one value per
// (row node, column node): asking for them adds the polls of that loop
// (the same seed draws the same noise, so everything else polls alike).
TEST(RollupInterrupts, CrossedStandardDeviationsPollPerPair) {
  const auto table = square_grid(100, 100);
  const CellKeys cells = table.keys();
  HierarchyRequest hierarchy;
  hierarchy.levels = {"r"};
  hierarchy.crossed = {"c"};
  auto polls_of = [&](bool stddev) {
    int polls = 0;
    auto rng = make_seeded_random_source(3);
    run_crossed_release(cells, table.counts.data(), checked_parts(cascade_request(stddev), hierarchy, {}), *rng,
                        Interrupts(count_polls, &polls));
    return polls;
  };
  // 101 column variances (one poll), 10201 pairs (three).
  EXPECT_GE(polls_of(true) - polls_of(false), 4);
  int polls_left = 0;
  auto rng = make_seeded_random_source(3);
  EXPECT_THROW(run_crossed_release(cells, table.counts.data(), checked_parts(cascade_request(true), hierarchy, {}), *rng,
                                   Interrupts(pending_after, &polls_left)),
               Interrupted);
}

}  // namespace
}  // namespace invariant_dp
