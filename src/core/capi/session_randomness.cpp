#include "session_randomness.hpp"

#include <memory>

namespace invariant_dp {
namespace {

std::unique_ptr<RandomSource> os_source;
std::unique_ptr<RandomSource> seeded_source;
std::uint64_t seeded_generation = 0;

}  // namespace

RandomSource& session_random_source(const idp_randomness* randomness) {
  if (randomness != nullptr && randomness->seeded) {
    if (!seeded_source || seeded_generation != randomness->seed_generation) {
      seeded_source = make_seeded_random_source(randomness->seed);
      seeded_generation = randomness->seed_generation;
    }
    return *seeded_source;
  }
  if (!os_source) os_source = make_os_random_source();
  return *os_source;
}

}  // namespace invariant_dp
