// Cooperative cancellation. The PostgreSQL shim passes a function that only
// reads the backend's interrupt flag (it never longjmps); long core loops call
// poll() and unwind with Interrupted, after which the shim lets PostgreSQL
// report the cancel. The core never reads the clock, and blocks signals only
// on the helper threads it starts (signals_blocked.hpp).
#pragma once

#include <cstdint>

#include "errors.hpp"

namespace invariant_dp {

class Interrupts {
 public:
  using PendingFn = bool (*)(void* context);
  // Told how far a long computation is; the caller decides whether and when
  // to show it (the core never reads the clock).
  using ProgressFn = void (*)(void* context, const char* stage, std::uint64_t done, std::uint64_t total);

  Interrupts() = default;
  Interrupts(PendingFn pending, void* context, ProgressFn progress = nullptr)
      : pending_(pending), context_(context), progress_(progress) {}

  // Reports progress, then polls (a failed report asks the caller to stop).
  void progress(const char* stage, std::uint64_t done, std::uint64_t total) const {
    if (progress_ != nullptr) progress_(context_, stage, done, total);
    poll();
  }

  // Throws Interrupted if the caller asked to stop.
  void poll() const {
    if (pending_ != nullptr && pending_(context_)) throw Interrupted();
  }

  // Cheap form for tight loops: checks every 4096th call only.
  void poll_every(std::uint64_t iteration) const {
    if ((iteration & 4095u) == 0) poll();
  }

  // For loops whose iterations cost about `cost` elementary steps each
  // (a chain sweep over thousands of moves): polls every 4096 steps, so
  // at least once per iteration when an iteration is that long.
  void poll_scaled(std::uint64_t iteration, std::uint64_t cost) const {
    const std::uint64_t stride = cost >= 4096 ? 1 : 4096 / (cost + 1);
    if (iteration % stride == 0) poll();
  }

 private:
  PendingFn pending_ = nullptr;
  void* context_ = nullptr;
  ProgressFn progress_ = nullptr;
};

}  // namespace invariant_dp
