// Uniforms read 16 bits at a time (mcmc/chunked_uniforms.hpp): a draw
// settled by the ends of its range takes the value the whole uniform would
// give it, a table of the first 8 (and 16) bits agrees with the function it
// tabulates, a completion keeps uniform_open01's grid and its rejection of
// 0, and the chunks of a word are read from its highest bits down.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "mcmc/chunked_uniforms.hpp"
#include "random_source.hpp"
#include "scripted_source.hpp"

namespace invariant_dp::mcmc {
namespace {

constexpr double kUlp = 1.0 / 9007199254740992.0;  // 2^-53

// f(u) = how many thresholds lie at or below u: non-decreasing.
struct Steps {
  std::vector<double> at;
  int operator()(double u) const { return int(std::upper_bound(at.begin(), at.end(), u) - at.begin()); }
};

TEST(ChunkedUniforms, SettledDrawsTakeTheWholeUniformsValue) {
  auto rng = make_seeded_random_source(3);
  int settled = 0, completed = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const ChunkedUniforms::Draw draw{trial % 97 == 0 ? 0 : rng->next_u64() >> 48};
    Steps f;
    for (int k = 0; k < 4; ++k) f.at.push_back(rng->uniform_open01());
    // Half the time a threshold inside the draw's own range.
    if (trial % 2 == 0) f.at.push_back(draw.low() + (draw.high() - draw.low()) * rng->uniform_open01());
    std::sort(f.at.begin(), f.at.end());
    const std::uint64_t seed = rng->next_u64();
    SeededRandomSource unused(1), completions_a(seed), completions_b(seed), fresh(seed);
    ChunkedUniforms a(unused, completions_a), b(unused, completions_b);
    const int value = a.settle(draw, f);
    const double u = b.complete(draw);
    ASSERT_EQ(value, f(u)) << "chunk " << draw.chunk;
    ASSERT_GE(u, draw.chunk == 0 ? kUlp : draw.low());
    ASSERT_LE(u, draw.high());
    (completions_a.next_u64() == fresh.next_u64() ? settled : completed)++;
  }
  EXPECT_GT(settled, 5000);   // both ways taken
  EXPECT_GT(completed, 5000);
}

TEST(ChunkedUniforms, ChunkTablesAgreeWithTheirFunction) {
  Steps f;
  for (double p = 0.6; p > 1e-9; p *= 0.6) f.at.push_back(p);  // a geometric's tail probabilities
  std::sort(f.at.begin(), f.at.end());
  auto rng = make_seeded_random_source(5);
  for (const bool finer : {false, true}) {
    const ChunkedUniforms::ChunkTable table(f, finer);
    EXPECT_EQ(table(0), ChunkedUniforms::kUnsettled);  // its range holds the rejected k = 0
    int unsettled = 0;
    for (std::uint64_t t = 0; t < 65536; ++t) {
      if (table(t) == ChunkedUniforms::kUnsettled) {
        ++unsettled;
        continue;
      }
      const ChunkedUniforms::Draw draw{t};
      ASSERT_EQ(table(t), f(draw.low())) << "chunk " << t;
      ASSERT_EQ(table(t), f(draw.high())) << "chunk " << t;
      const std::uint64_t k = (t << 37) | (rng->next_u64() >> 27);  // a k in the chunk's range
      ASSERT_EQ(table(t), f(double(k) * kUlp)) << "chunk " << t;
    }
    // 8 bits leave the ranges holding one of the thresholds above 2^-8,
    // and all of [0, 2^-8); 16 bits leave the thresholds' own chunks and
    // most of [0, 2^-16).
    if (finer)
      EXPECT_LT(unsettled, 600);
    else
      EXPECT_LT(unsettled, 14 * 256);
    EXPECT_GT(unsettled, 0);
  }
}

TEST(ChunkedUniforms, CompletionsKeepTheGridAndRejectZero) {
  using test_sources::ScriptedSource;
  // Chunk 1 completed by a word's top 37 bits.
  ScriptedSource unused({}), words({0xfedcba9876543210ull});
  ChunkedUniforms one(unused, words);
  EXPECT_EQ(one.complete({1}), double((std::uint64_t(1) << 37) | (0xfedcba9876543210ull >> 27)) * kUlp);
  // Chunk 0 completed by zeros is k = 0: a new uniform_open01 instead.
  ScriptedSource zero_then({0, std::uint64_t(5) << 11});
  ChunkedUniforms zero(unused, zero_then);
  EXPECT_EQ(zero.complete({0}), 5 * kUlp);
  EXPECT_EQ(zero_then.used(), 2u);
}

TEST(ChunkedUniforms, ChunksComeFromTheHighestBitsDown) {
  const std::uint64_t word = 0x0123456789abcdefull;
  EXPECT_EQ(ChunkedUniforms::chunk(word, 0), 0x0123u);
  EXPECT_EQ(ChunkedUniforms::chunk(word, 1), 0x4567u);
  EXPECT_EQ(ChunkedUniforms::chunk(word, 2), 0x89abu);
  EXPECT_EQ(ChunkedUniforms::chunk(word, 3), 0xcdefu);
  SeededRandomSource a(9), b(9);
  ChunkedUniforms uniforms(a, a);
  EXPECT_EQ(uniforms.four(), b.next_u64());
}

}  // namespace
}  // namespace invariant_dp::mcmc
