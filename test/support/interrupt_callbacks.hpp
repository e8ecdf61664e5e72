// Test helper: callbacks for Interrupts (src/core/interrupts.hpp) that ask a
// computation to stop, at its first poll or after a number of polls.
#pragma once

namespace invariant_dp::test_interrupts {

// Asks to stop at every poll.
inline bool always_pending(void*) { return true; }

// Asks to stop once the int that polls_left points to has been counted down
// below zero, one a poll: with polls_left = k, polls 1 to k pass and poll k + 1 stops.
inline bool pending_after(void* polls_left) { return --*static_cast<int*>(polls_left) < 0; }

}  // namespace invariant_dp::test_interrupts
