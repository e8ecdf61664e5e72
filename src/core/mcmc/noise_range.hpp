// The range of one noise entry in the lattice chains: |z_i| <= 2^20, so the
// exact integer ||z||_2^2 of up to 2^23 cells cannot overflow int64 (at the
// privacy levels of interest entries are in the tens). A chain that keeps
// only ||z||_1 (the l1 table chain, whose congenial states z = y - x reach
// minus a count) allows |z_i| <= 2^38: ||z||_1 < 2^61 for 2^23 cells, and a step's range
// (at most 2^39 either way) stays inside laplace_line.hpp's kUnboundedStep.
#pragma once

#include <cstdint>
#include <string>

#include "../errors.hpp"

namespace invariant_dp::mcmc {

constexpr std::int64_t kMaxEntry = std::int64_t(1) << 20;
constexpr std::int64_t kMaxL1Entry = std::int64_t(1) << 38;

// OutOfRange when x is outside [-limit, limit].
inline void check_entry(std::int64_t x, std::int64_t limit = kMaxEntry) {
  if (x > limit || x < -limit)
    throw OutOfRange("lattice noise entry exceeds the sampler's range",
                     "A chain state left the range of +-" + std::to_string(limit) + " in one cell.");
}

}  // namespace invariant_dp::mcmc
