// Cooperative cancellation. The PostgreSQL shim passes a function that only
// reads the backend's interrupt flag (it never longjmps); long core loops call
// poll() and unwind with Interrupted, after which the shim lets PostgreSQL
// report the cancel. The core never blocks signals or reads the clock.
#pragma once

#include <cstdint>

#include "errors.hpp"

namespace invariant_dp {

class Interrupts {
 public:
  using PendingFn = bool (*)(void* context);

  Interrupts() = default;
  Interrupts(PendingFn pending, void* context) : pending_(pending), context_(context) {}

  // Throws Interrupted if the caller asked to stop.
  void poll() const {
    if (pending_ != nullptr && pending_(context_)) throw Interrupted();
  }

  // Cheap form for tight loops: checks every 4096th call only.
  void poll_every(std::uint64_t iteration) const {
    if ((iteration & 4095u) == 0) poll();
  }

 private:
  PendingFn pending_ = nullptr;
  void* context_ = nullptr;
};

}  // namespace invariant_dp
