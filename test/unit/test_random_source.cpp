// Deterministic tests of RandomSource: the seeded engine's exact stream, the
// exactness of uniform_below's rejection, the open interval of
// uniform_open01, and the OS engine's basic behaviour (ChaCha20 keyed from
// the kernel: balanced distinct words, no replay across fork or reseeds).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>
#include <vector>

#include "derived_random_source.hpp"
#include "errors.hpp"
#include "random_source.hpp"
#include "scripted_source.hpp"

namespace invariant_dp {
namespace {

constexpr std::uint64_t kMaxWord = std::numeric_limits<std::uint64_t>::max();

using test_sources::ScriptedSource;

TEST(RandomSourceSeeded, MatchesReferenceXoshiroStream) {
  // xoshiro256** seeded by splitmix64, computed by an independent Python
  // transcription of the reference C code: pins the stream on every platform.
  auto rng0 = make_seeded_random_source(0);
  EXPECT_EQ(rng0->next_u64(), 0x99ec5f36cb75f2b4ull);
  EXPECT_EQ(rng0->next_u64(), 0xbf6e1f784956452aull);
  EXPECT_EQ(rng0->next_u64(), 0x1a5f849d4933e6e0ull);
  EXPECT_EQ(rng0->next_u64(), 0x6aa594f1262d2d2cull);
  auto rng42 = make_seeded_random_source(42);
  EXPECT_EQ(rng42->next_u64(), 0x15780b2e0c2ec716ull);
  EXPECT_EQ(rng42->next_u64(), 0x6104d9866d113a7eull);
}

TEST(RandomSourceSeeded, SameSeedSameStreamOtherSeedOtherStream) {
  auto a = make_seeded_random_source(7);
  auto b = make_seeded_random_source(7);
  auto c = make_seeded_random_source(8);
  int equal_to_other_seed = 0;
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t x = a->next_u64();
    EXPECT_EQ(x, b->next_u64());
    if (x == c->next_u64()) ++equal_to_other_seed;
  }
  EXPECT_EQ(equal_to_other_seed, 0);
}

// Derived streams (derived_random_source.hpp): a seeded parent's are a
// function of the parent alone, each takes one of its words, and they
// differ from one another; an OS parent's are new keystreams, which differ
// from one another and from the parent.
TEST(RandomSourceDerived, SeededStreamsFollowTheParentOSStreamsAreNewKeystreams) {
  SeededRandomSource a(17), b(17), c(17);
  auto a1 = derive_random_source(a), a2 = derive_random_source(a);
  auto b1 = derive_random_source(b);
  EXPECT_EQ(a1->next_u64(), b1->next_u64());
  c.next_u64();
  c.next_u64();
  EXPECT_EQ(a.next_u64(), c.next_u64());  // one word each
  EXPECT_NE(a1->next_u64(), a2->next_u64());
  auto os = make_os_random_source();
  auto o1 = derive_random_source(*os), o2 = derive_random_source(*os);
  std::set<std::uint64_t> words;
  for (int i = 0; i < 4; ++i) {
    words.insert(o1->next_u64());
    words.insert(o2->next_u64());
    words.insert(os->next_u64());
  }
  EXPECT_EQ(words.size(), 12u);
}

TEST(RandomSourceUniformBelow, ZeroBoundIsRejected) {
  auto rng = make_seeded_random_source(1);
  EXPECT_THROW(rng->uniform_below(0), InvalidArgument);
}

TEST(RandomSourceUniformBelow, BoundOneIsAlwaysZero) {
  ScriptedSource rng({0, 1, kMaxWord, 0x8000000000000000ull});
  for (int i = 0; i < 4; ++i) EXPECT_EQ(rng.uniform_below(1), 0u);
  EXPECT_EQ(rng.used(), 4u);  // one word per draw: nothing is ever rejected
}

TEST(RandomSourceUniformBelow, BoundTwoIsTheTopBit) {
  ScriptedSource rng({0, kMaxWord, 0x7fffffffffffffffull, 0x8000000000000000ull});
  EXPECT_EQ(rng.uniform_below(2), 0u);
  EXPECT_EQ(rng.uniform_below(2), 1u);
  EXPECT_EQ(rng.uniform_below(2), 0u);
  EXPECT_EQ(rng.uniform_below(2), 1u);
  EXPECT_EQ(rng.used(), 4u);  // 2 divides 2^64: no rejection
}

TEST(RandomSourceUniformBelow, RejectsTheBiasedWordsForThree) {
  // 2^64 mod 3 = 1: exactly the word 0 (low product 0 < 1) must be redrawn.
  ScriptedSource rng({0, kMaxWord});
  EXPECT_EQ(rng.uniform_below(3), 2u);
  EXPECT_EQ(rng.used(), 2u);
  // Word 1: low product 3 >= 1, accepted, high word 0.
  ScriptedSource one({1});
  EXPECT_EQ(one.uniform_below(3), 0u);
}

TEST(RandomSourceUniformBelow, RejectsTheBiasedWordsForLargeBound) {
  // n = 2^63 + 1: 2^64 mod n = 2^63 - 1. x = 1 gives low word n >= 2^63 - 1,
  // accepted; x = 2 gives low word 2 < 2^63 - 1, rejected.
  const std::uint64_t n = 0x8000000000000001ull;
  ScriptedSource accept({1});
  EXPECT_EQ(accept.uniform_below(n), 0u);
  ScriptedSource reject({2, 1});
  EXPECT_EQ(reject.uniform_below(n), 0u);
  EXPECT_EQ(reject.used(), 2u);
}

TEST(RandomSourceUniformBelow, StaysBelowHugeBounds) {
  auto rng = make_seeded_random_source(3);
  for (std::uint64_t n : {kMaxWord, kMaxWord - 1, std::uint64_t{1} << 63, (std::uint64_t{1} << 63) + 1}) {
    for (int i = 0; i < 10000; ++i) EXPECT_LT(rng->uniform_below(n), n);
  }
  // The all-ones word maps to n - 1 for n = 2^64 - 1 (the top of the range).
  ScriptedSource top({kMaxWord});
  EXPECT_EQ(top.uniform_below(kMaxWord), kMaxWord - 1);
}

TEST(RandomSourceUniformBelow, SmallBoundHitsEveryValue) {
  auto rng = make_seeded_random_source(4);
  std::set<std::uint64_t> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t x = rng->uniform_below(7);
    ASSERT_LT(x, 7u);
    seen.insert(x);
  }
  EXPECT_EQ(seen.size(), 7u);
}

TEST(RandomSourceOpen01, NeverZeroNeverOne) {
  // Words below 2^11 have zero top 53 bits: they must be skipped.
  ScriptedSource rng({0, 0x7ff, kMaxWord, std::uint64_t{1} << 11});
  const double top = rng.uniform_open01();
  EXPECT_EQ(rng.used(), 3u);
  EXPECT_LT(top, 1.0);
  EXPECT_EQ(top, 1.0 - 0x1p-53);
  EXPECT_EQ(rng.uniform_open01(), 0x1p-53);
}

TEST(RandomSourceOpen01, SeededDrawsAreInsideTheInterval) {
  auto rng = make_seeded_random_source(5);
  for (int i = 0; i < 100000; ++i) {
    const double u = rng->uniform_open01();
    ASSERT_GT(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
}

TEST(RandomSourceFairBit, IsTheTopBit) {
  ScriptedSource rng({0x7fffffffffffffffull, 0x8000000000000000ull});
  EXPECT_FALSE(rng.fair_bit());
  EXPECT_TRUE(rng.fair_bit());
}

TEST(RandomSourceOs, ProducesBalancedDistinctWordsAcrossRefills) {
  auto rng = make_os_random_source();
  auto other = make_os_random_source();
  // 20000 words cross several 16 KiB refills.
  constexpr int kWords = 20000;
  std::set<std::uint64_t> seen;
  long ones = 0;
  for (int i = 0; i < kWords; ++i) {
    const std::uint64_t x = rng->next_u64();
    seen.insert(x);
    ones += __builtin_popcountll(x);
  }
  // Collisions among 20000 uniform 64-bit words: probability ~1e-11.
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kWords));
  EXPECT_EQ(seen.count(other->next_u64()), 0u);
  // 1.28e6 fair bits: mean 640000, sd 566; 10 sd is a ~1e-23 false alarm.
  EXPECT_NEAR(static_cast<double>(ones), 640000.0, 5660.0);
}

TEST(RandomSourceOs, ForkedChildDoesNotReplayTheParentsBuffer) {
  auto rng = make_os_random_source();
  rng->next_u64();  // the buffer now holds 2047 unread words
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::uint64_t words[4];
    for (auto& w : words) w = rng->next_u64();
    const bool ok = write(fds[1], words, sizeof words) == static_cast<ssize_t>(sizeof words);
    _exit(ok ? 0 : 1);
  }
  close(fds[1]);
  std::uint64_t child[4];
  ASSERT_EQ(read(fds[0], child, sizeof child), static_cast<ssize_t>(sizeof child));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  for (int i = 0; i < 4; ++i) EXPECT_NE(child[i], rng->next_u64()) << i;
}

// The child's stream shares no word with the parent's, across refills on
// both sides (a child that refilled from the inherited cipher state would
// replay the parent's next 16 KiB).
TEST(RandomSourceOs, ForkedChildSharesNoWordWithTheParentAcrossRefills) {
  auto rng = make_os_random_source();
  rng->next_u64();
  constexpr int kWords = 6000;  // three refills
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::vector<std::uint64_t> words(kWords);
    for (auto& w : words) w = rng->next_u64();
    const auto size = static_cast<ssize_t>(words.size() * sizeof(std::uint64_t));
    const bool ok = write(fds[1], words.data(), std::size_t(size)) == size;
    _exit(ok ? 0 : 1);
  }
  close(fds[1]);
  std::vector<std::uint64_t> child(kWords);
  std::size_t got = 0;
  auto* bytes = reinterpret_cast<char*>(child.data());
  while (got < child.size() * sizeof(std::uint64_t)) {
    const ssize_t n = read(fds[0], bytes + got, child.size() * sizeof(std::uint64_t) - got);
    ASSERT_GT(n, 0);
    got += std::size_t(n);
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const std::set<std::uint64_t> theirs(child.begin(), child.end());
  for (int i = 0; i < kWords; ++i) ASSERT_EQ(theirs.count(rng->next_u64()), 0u) << i;
}

// Past the reseed interval (2^20 words) the stream goes on: balanced bits,
// no repeated word.
TEST(RandomSourceOs, KeepsGoingAcrossKernelReseeds) {
  auto rng = make_os_random_source();
  constexpr int kWords = (1 << 20) + 5000;
  long ones = 0;
  std::set<std::uint64_t> tail;
  for (int i = 0; i < kWords; ++i) {
    const std::uint64_t x = rng->next_u64();
    ones += __builtin_popcountll(x);
    if (i >= kWords - 10000) tail.insert(x);
  }
  EXPECT_EQ(tail.size(), 10000u);
  // 64 kWords fair bits: sd = 4 sqrt(kWords) ~ 4100; 10 sd is a ~1e-23 false alarm.
  EXPECT_NEAR(double(ones), 32.0 * kWords, 10 * 4.0 * std::sqrt(double(kWords)));
}

TEST(RandomSourceOs, HelpersWork) {
  auto rng = make_os_random_source();
  for (int i = 0; i < 1000; ++i) {
    EXPECT_LT(rng->uniform_below(10), 10u);
    const double u = rng->uniform_open01();
    EXPECT_GT(u, 0.0);
    EXPECT_LT(u, 1.0);
  }
}

}  // namespace
}  // namespace invariant_dp
