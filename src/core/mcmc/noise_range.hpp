// The range of one noise entry in the lattice chains: |z_i| <= 2^20, so the
// exact integer ||z||_2^2 of up to 2^23 cells cannot overflow int64 (at the
// privacy levels of interest entries are in the tens).
#pragma once

#include <cstdint>

#include "../errors.hpp"

namespace invariant_dp::mcmc {

constexpr std::int64_t kMaxEntry = std::int64_t(1) << 20;

// OutOfRange when x is outside [-kMaxEntry, kMaxEntry].
inline void check_entry(std::int64_t x) {
  if (x > kMaxEntry || x < -kMaxEntry)
    throw OutOfRange("lattice noise entry exceeds the sampler's range",
                     "The chain wandered beyond 2^20 in one cell; the target is too flat.");
}

}  // namespace invariant_dp::mcmc
