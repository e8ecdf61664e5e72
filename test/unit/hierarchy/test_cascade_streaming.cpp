// Unit tests of the streaming cascade (streaming_cascade.hpp): the state
// survives serialization bit-exactly, old leaves are never redrawn, the
// horizon is enforced, malformed states are refused, range variances equal
// the batch tree's, and the privacy constants equal the depth-K tree's.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "errors.hpp"
#include "hierarchy/cascade_covariance.hpp"
#include "hierarchy/cascade_law.hpp"
#include "hierarchy/cascade_privacy.hpp"
#include "hierarchy/hierarchy_tree.hpp"
#include "hierarchy/streaming_cascade.hpp"
#include "random_source.hpp"

namespace invariant_dp::hierarchy {
namespace {

TEST(CascadeStreaming, SerializedStateContinuesTheSameStream) {
  // The same appends, once through a kept object and once through the text
  // state between every refresh: bit-identical leaves (hex floats lose
  // nothing, and old leaves are never redrawn).
  auto rng_a = make_seeded_random_source(8), rng_b = make_seeded_random_source(8);
  StreamingCascade kept(2.0, 10);
  std::vector<double> expected, got;
  std::string state = StreamingCascade(2.0, 10).serialize();
  for (std::uint64_t chunk : {5u, 1u, 7u, 0u, 24u}) {
    const auto a = kept.append(chunk, *rng_a, Interrupts());
    expected.insert(expected.end(), a.begin(), a.end());
    auto next = StreamingCascade::deserialize(state);
    const auto b = next.append(chunk, *rng_b, Interrupts());
    got.insert(got.end(), b.begin(), b.end());
    state = next.serialize();
    EXPECT_EQ(state, kept.serialize());
  }
  EXPECT_EQ(got, expected);
  EXPECT_EQ(StreamingCascade::deserialize(state).n_released(), 37u);
}

TEST(CascadeStreaming, FullTreesSumToTheirRoot) {
  auto rng = make_seeded_random_source(2);
  StreamingCascade stream(1.0, 8);
  std::vector<double> leaves;
  for (unsigned h = 0; h <= 6; ++h) {
    const auto more = stream.append((h == 0 ? 1u : (1u << (h - 1))), *rng, Interrupts());
    leaves.insert(leaves.end(), more.begin(), more.end());
    ASSERT_EQ(leaves.size(), 1u << h);
    // The state's root is the whole tree's noise: the leaves sum to it.
    const std::string state = stream.serialize();
    const double root = std::strtod(state.substr(state.find("root=") + 5).c_str(), nullptr);
    EXPECT_NEAR(std::accumulate(leaves.begin(), leaves.end(), 0.0), root, 1e-12 * (1 << h));
  }
}

TEST(CascadeStreaming, HorizonAndMalformedStates) {
  auto rng = make_seeded_random_source(1);
  StreamingCascade stream(1.0, 3);
  stream.append(6, *rng, Interrupts());
  EXPECT_THROW(stream.append(3, *rng, Interrupts()), TooLarge);
  EXPECT_EQ(stream.n_released(), 6u);  // nothing drawn by the refused append
  EXPECT_EQ(stream.append(2, *rng, Interrupts()).size(), 2u);
  const std::string good = StreamingCascade(1.0, 3).serialize();
  EXPECT_NO_THROW(StreamingCascade::deserialize(good));
  for (const std::string& bad : {std::string(""), std::string("cascade_stream/2 variance=0x1p+0"), good + " extra",
                                std::string("cascade_stream/1 variance=0x1p+0 horizon=3 n=3 height=2 root=0x0p+0 pending="),
                                std::string("cascade_stream/1 variance=0x1p+0 horizon=3 n=3 height=2 root=0x0p+0 pending=1:0x1p+0"),
                                std::string("cascade_stream/1 variance=-1 horizon=3 n=0 height=0 root=0x0p+0 pending=")}) {
    EXPECT_THROW(StreamingCascade::deserialize(bad), InvalidData) << bad;
  }
  EXPECT_NO_THROW(StreamingCascade::deserialize(
      "cascade_stream/1 variance=0x1p+0 horizon=3 n=3 height=2 root=0x0p+0 pending=0:0x1p+0"));
  EXPECT_THROW(StreamingCascade(0.0, 3), InvalidArgument);
}

TEST(CascadeStreaming, RangeVarianceAndPrivacyAreTheBatchTrees) {
  auto rng = make_seeded_random_source(4);
  StreamingCascade stream(3.0, 6);
  stream.append(21, *rng, Interrupts());
  const auto tree = HierarchyTree::perfect_binary(5, Interrupts());
  const auto law = CascadeLaw::uniform(tree, 3.0);
  for (std::uint32_t lo = 0; lo < 21; ++lo)
    for (std::uint32_t hi = lo; hi < 21; ++hi)
      EXPECT_NEAR(stream.range_variance(lo, hi), range_variance(tree, law, lo, hi), 1e-12);
  EXPECT_THROW(stream.range_variance(0, 21), InvalidArgument);
  for (unsigned k = 0; k <= 6; ++k) {
    const auto t = HierarchyTree::perfect_binary(k, Interrupts());
    const auto unit = CascadeLaw::uniform(t, 1.0);
    for (Neighbours nb : {Neighbours::AddRemove, Neighbours::ReplaceOne})
      EXPECT_NEAR(StreamingCascade::unit_sensitivity_squared(k, nb), max_sensitivity_squared(t, unit, nb, Interrupts()),
                  1e-12);
  }
}

}  // namespace
}  // namespace invariant_dp::hierarchy
