// The production random source (a ChaCha20 keystream keyed from
// getrandom(2), random_source.hpp) against reading the kernel directly
// (getrandom in 4 KiB blocks, the source before it) and the seeded xoshiro
// stream of the tests: nanoseconds per 64-bit word through
// RandomSource::next_u64 (a virtual call), three repetitions.
#include <sys/random.h>

#include <chrono>
#include <cstdint>
#include <cstdio>

#include "random_source.hpp"

using namespace invariant_dp;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main() {
  const long words = 20000000;
  auto os = make_os_random_source();
  auto seeded = make_seeded_random_source(1);
  std::uint64_t sink = 0;
  for (int rep = 0; rep < 3; ++rep) {
    auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < words; ++i) sink += os->next_u64();
    const double chacha = seconds_since(start);
    start = std::chrono::steady_clock::now();
    for (long i = 0; i < words; ++i) sink += seeded->next_u64();
    const double xoshiro = seconds_since(start);
    unsigned char block[4096];
    start = std::chrono::steady_clock::now();
    for (long i = 0; i < words / 512; ++i)
      if (getrandom(block, sizeof block, 0) == sizeof block) sink += block[0];
    const double kernel = seconds_since(start);
    std::printf("ns per 64-bit word: os (chacha20) %.2f  seeded (xoshiro) %.2f  getrandom 4 KiB %.2f\n",
                1e9 * chacha / double(words), 1e9 * xoshiro / double(words), 1e9 * kernel / double(words));
  }
  return int(sink & 0);
}
