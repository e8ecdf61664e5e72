// Unit tests (deterministic) of the cascade sampler and release
// (cascade_sampler.hpp, rollup.hpp): bit-exact consistency, noise independent
// of the data, the number of normal draws, degenerate trees, conditioned
// releases and cancellation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "errors.hpp"
#include "hierarchy/cascade_law.hpp"
#include "hierarchy/cascade_margins.hpp"
#include "hierarchy/cascade_sampler.hpp"
#include "hierarchy/hierarchy_tree.hpp"
#include "hierarchy/normal_stream.hpp"
#include "hierarchy/rollup.hpp"
#include "interrupt_callbacks.hpp"
#include "random_source.hpp"
#include "table_builder.hpp"

namespace invariant_dp::hierarchy {
namespace {

// Counts the 64-bit words drawn (two per pair of normals).
class CountingSource final : public RandomSource {
 public:
  explicit CountingSource(std::uint64_t seed) : inner_(make_seeded_random_source(seed)) {}
  std::uint64_t next_u64() override {
    ++words;
    return inner_->next_u64();
  }
  std::uint64_t words = 0;

 private:
  std::unique_ptr<RandomSource> inner_;
};

test_tables::TestTable states_counties_tracts() {
  // 4 states x 3 counties x 5 tracts, with one state of a single county.
  test_tables::TestTable t{{"state", "county", "tract"}, {}, {}};
  for (int s = 0; s < 4; ++s)
    for (int c = 0; c < (s == 3 ? 1 : 3); ++c)
      for (int k = 0; k < 5; ++k) {
        t.text.insert(t.text.end(), {"s" + std::to_string(s), "c" + std::to_string(c), "t" + std::to_string(k)});
        t.counts.push_back(17 * s + 5 * c + k);
      }
  return t;
}

void expect_bit_exact_rollup(const HierarchyTree& tree, const std::vector<double>& nodes) {
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
    if (tree.is_leaf(v)) continue;
    double sum = nodes[tree.first_child(v)];
    for (std::uint32_t c = tree.first_child(v) + 1; c < tree.child_end(v); ++c) sum += nodes[c];
    EXPECT_EQ(sum, nodes[v]) << v;  // ==, not near
  }
}

TEST(CascadeSampler, ReleaseIsBitExactlyConsistent) {
  const auto table = states_counties_tracts();
  const auto keys = table.keys();
  const auto tree = HierarchyTree::from_cell_keys(keys, {0, 1, 2}, Interrupts());
  const CascadeLaw law(tree, {40.0, 20.0, 10.0, 5.0});  // s3's one county carries 20
  auto rng = make_seeded_random_source(5);
  const auto release = release_cascade(tree, law, table.counts.data(), *rng, Interrupts());
  ASSERT_EQ(release.node_values.size(), tree.n_nodes());
  expect_bit_exact_rollup(tree, release.node_values);
  for (std::uint32_t leaf = 0; leaf < tree.n_leaves(); ++leaf)
    EXPECT_EQ(release.node_values[tree.leaf_node(leaf)],
              double(table.counts[tree.leaf_cell(leaf)]) + release.leaf_noise[leaf]);
  const auto binary = HierarchyTree::perfect_binary(12, Interrupts());
  const auto noise = cascade_leaf_noise(binary, CascadeLaw::uniform(binary, 3.0), *rng, Interrupts());
  expect_bit_exact_rollup(binary, rollup(binary, noise, Interrupts()));
}

TEST(CascadeSampler, NoiseDoesNotDependOnTheData) {
  const auto table = states_counties_tracts();
  auto other = table;
  for (auto& c : other.counts) c = c * 3 + 1000;
  const auto keys = table.keys();
  const auto tree = HierarchyTree::from_cell_keys(keys, {0, 1, 2}, Interrupts());
  const auto law = CascadeLaw::uniform(tree, 9.0);
  auto rng_a = make_seeded_random_source(42), rng_b = make_seeded_random_source(42);
  const auto a = release_cascade(tree, law, table.counts.data(), *rng_a, Interrupts());
  const auto b = release_cascade(tree, law, other.counts.data(), *rng_b, Interrupts());
  EXPECT_EQ(a.leaf_noise, b.leaf_noise);  // bit-identical
  const auto diff = rollup(tree, tree.to_leaf_order(table.counts.data(), Interrupts()), Interrupts());
  const auto diff_other = rollup(tree, tree.to_leaf_order(other.counts.data(), Interrupts()), Interrupts());
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
    // y - y' = x - x' up to the rounding of the additions (counts < 2^20).
    EXPECT_NEAR(a.node_values[v] - b.node_values[v], double(diff[v] - diff_other[v]), 1e-9) << v;
  }
}

TEST(CascadeSampler, DrawsExactlyOneNormalPerLeafOfABinaryTree) {
  for (unsigned k : {0u, 1u, 5u, 10u}) {
    const auto tree = HierarchyTree::perfect_binary(k, Interrupts());
    CountingSource rng(k);
    cascade_leaf_noise(tree, CascadeLaw::uniform(tree, 1.0), rng, Interrupts());
    const std::uint64_t normals = 1ull << k;  // 1 root + 2^k - 1 splits
    EXPECT_EQ(rng.words, 2 * ((normals + 1) / 2)) << k;  // two words per Box-Muller pair
  }
  // Fan-out m > 2 draws m per split; one-child nodes draw nothing.
  const auto tree = HierarchyTree::from_parents({-1, 0, 0, 0, 1, 4, 4}, Interrupts());
  CountingSource rng(1);
  cascade_leaf_noise(tree, CascadeLaw::uniform(tree, 1.0), rng, Interrupts());
  EXPECT_EQ(rng.words, 2u * 3u);  // 1 + 3 + 0 + 1 = 5 normals: three pairs
}

TEST(CascadeSampler, DegenerateTrees) {
  // A single cell is the Gaussian mechanism: sqrt(v) times the first normal.
  const auto single = HierarchyTree::perfect_binary(0, Interrupts());
  auto rng = make_seeded_random_source(9), same = make_seeded_random_source(9);
  const auto noise = cascade_leaf_noise(single, CascadeLaw::uniform(single, 4.0), *rng, Interrupts());
  NormalStream normals(*same);
  ASSERT_EQ(noise.size(), 1u);
  EXPECT_EQ(noise[0], 2.0 * normals.next());
  // A one-child chain copies its noise down.
  const auto chain = HierarchyTree::from_parents({-1, 0, 1, 1, 2}, Interrupts());
  const auto chain_noise = cascade_leaf_noise(chain, CascadeLaw::uniform(chain, 4.0), *rng, Interrupts());
  const auto nodes = rollup(chain, chain_noise, Interrupts());
  EXPECT_EQ(nodes[0], nodes[1]);
}

TEST(CascadeSampler, ConditionedReleaseKeepsStateTotals) {
  const auto table = states_counties_tracts();
  const auto keys = table.keys();
  const auto tree = HierarchyTree::from_cell_keys(keys, {0, 1, 2}, Interrupts());
  const auto law = CascadeLaw::uniform(tree, 10.0)
                       .conditioned_on(tree, margin_nodes(tree, keys, {0}, Interrupts()));
  auto rng = make_seeded_random_source(77);
  const auto release = release_cascade(tree, law, table.counts.data(), *rng, Interrupts());
  const auto exact = rollup(tree, tree.to_leaf_order(table.counts.data(), Interrupts()), Interrupts());
  expect_bit_exact_rollup(tree, release.node_values);
  // Exact in real arithmetic; the float sums of the leaves keep them to rounding.
  for (std::uint32_t v = 0; v < tree.level_end(1); ++v) EXPECT_NEAR(release.node_values[v], double(exact[v]), 1e-9);
  bool county_moved = false;
  for (std::uint32_t v = tree.level_begin(2); v < tree.level_end(2); ++v)
    county_moved |= std::fabs(release.node_values[v] - double(exact[v])) > 1e-3;
  EXPECT_TRUE(county_moved);
}

using test_interrupts::always_pending;

TEST(CascadeSampler, PollsForCancellation) {
  const auto tree = HierarchyTree::perfect_binary(14, Interrupts());
  auto rng = make_seeded_random_source(1);
  EXPECT_THROW(cascade_leaf_noise(tree, CascadeLaw::uniform(tree, 1.0), *rng, Interrupts(always_pending, nullptr)),
               Interrupted);
  EXPECT_THROW(HierarchyTree::perfect_binary(14, Interrupts(always_pending, nullptr)), Interrupted);
}

}  // namespace
}  // namespace invariant_dp::hierarchy
