// An independent stream for a share of work done apart from its parent (a
// part of a chain's sweep that another thread may run), keyed from the
// parent's next words, so that seeded work comes out the same whichever
// thread does it: derived in a fixed order, the streams depend on the
// parent alone. The OS source (make_os_random_source) keys a new ChaCha20
// keystream with 32 bytes of its own, reseeded from the kernel like any
// other; every other source (the seeded engine, the tests' scripted
// sources) seeds a seeded engine with one word.
#pragma once

#include <memory>

#include "random_source.hpp"

namespace invariant_dp {

std::unique_ptr<RandomSource> derive_random_source(RandomSource& parent);

}  // namespace invariant_dp
