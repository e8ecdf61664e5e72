// The one source of randomness of every sampler (STYLE.md practice 6).
// Production uses the OS CSPRNG (getrandom(2)); tests and the superuser-only
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

// Reads the kernel CSPRNG through getrandom(2), buffered. Throws Error if the
// kernel refuses (never falls back to a weaker source).
std::unique_ptr<RandomSource> make_os_random_source();

// Deterministic, reproducible stream for tests and the superuser-only seed:
// the same seed gives the same stream on every platform.
std::unique_ptr<RandomSource> make_seeded_random_source(std::uint64_t seed);

}  // namespace invariant_dp
