// SipHash-2-4 (Aumasson and Bernstein 2012, "SipHash: a fast short-input
// PRF", INDOCRYPT) of two 64-bit words under a 128-bit key: a keyed hash
// whose outputs, for a key drawn from the release's random source, behave
// as independent uniform draws for distinct inputs. Used where a random
// choice must not depend on the order rows arrive in (privacy_unit.cpp).
#pragma once

#include <cstdint>

namespace invariant_dp {

struct SipKey {
  std::uint64_t k0 = 0, k1 = 0;
};

inline std::uint64_t siphash_2_4(const SipKey& key, std::uint64_t m0, std::uint64_t m1) {
  auto rotl = [](std::uint64_t x, int b) { return (x << b) | (x >> (64 - b)); };
  std::uint64_t v0 = key.k0 ^ 0x736f6d6570736575ull, v1 = key.k1 ^ 0x646f72616e646f6dull;
  std::uint64_t v2 = key.k0 ^ 0x6c7967656e657261ull, v3 = key.k1 ^ 0x7465646279746573ull;
  auto round = [&] {
    v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32);
    v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;
    v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;
    v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);
  };
  const std::uint64_t words[3] = {m0, m1, std::uint64_t(16) << 56};  // last block: the length (16 bytes)
  for (std::uint64_t m : words) {
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  v2 ^= 0xff;
  for (int i = 0; i < 4; ++i) round();
  return v0 ^ v1 ^ v2 ^ v3;
}

}  // namespace invariant_dp
