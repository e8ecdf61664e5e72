// The one source of randomness of every sampler: injected, so that every mechanism is testable with a fixed seed.
// Production uses a ChaCha20 keystream keyed from the OS CSPRNG (getrandom(2)); tests and the superuser-only
// seed GUC use a deterministic engine. Samplers only ever see RandomSource&.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace invariant_dp {

class RandomSource {
 public:
  virtual ~RandomSource() = default;

  // 64 uniformly random bits.
  virtual std::uint64_t next_u64() = 0;

  // Uniform integer in [0, n), exactly (rejection, no modulo bias). n >= 1.
  std::uint64_t uniform_below(std::uint64_t n);

  // Uniform double in the open interval (0, 1), 53 random bits.
  double uniform_open01();

  // One fair bit.
  bool fair_bit() { return (next_u64() >> 63) != 0; }
};

// A ChaCha20 keystream keyed from the kernel CSPRNG (getrandom(2)), rekeyed
// by fast key erasure, reseeded from the kernel every 8 MiB and after fork;
// consumed words are wiped. Throws Error if the kernel or the cipher refuses
// (never falls back to a weaker source).
std::unique_ptr<RandomSource> make_os_random_source();

// Deterministic, reproducible stream for tests and the superuser-only seed:
// the same seed gives the same stream on every platform.
std::unique_ptr<RandomSource> make_seeded_random_source(std::uint64_t seed);

// The engine behind make_seeded_random_source, for callers that need many
// short streams without allocating: coupled chains replay one stream in
// both chains of a pair (mcmc/table_swap_chain.hpp).
// xoshiro256** (Blackman & Vigna 2018) seeded through splitmix64. Chosen over
// ChaCha20 because the seeded stream exists for reproducibility, not secrecy
// (whoever knows the seed knows the noise anyway); xoshiro is a few lines of
// pure uint64 arithmetic, so the stream is identical on every platform and
// compiler, and it passes BigCrush. splitmix64 spreads any seed (even 0)
// into a non-zero, well-mixed state, as the xoshiro authors recommend.
class SeededRandomSource final : public RandomSource {
 public:
  explicit SeededRandomSource(std::uint64_t seed) {
    for (auto& word : s_) word = splitmix64(seed);
  }

  std::uint64_t next_u64() override {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  static std::uint64_t splitmix64(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  std::uint64_t s_[4];
};

}  // namespace invariant_dp
