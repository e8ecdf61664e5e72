// A computation that cannot poll, on a helper a cancel may leave; see
// leave_on_cancel.hpp.
#include "leave_on_cancel.hpp"

#include <flint/flint.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include "signals_blocked.hpp"

namespace invariant_dp {
namespace {

// How long the calling thread sleeps at most between two polls.
constexpr std::chrono::milliseconds kWaitSlice{5};

// What the caller and the helper share; owned by both (shared_ptr), so it
// outlives whichever of them ends last.
struct Call {
  std::function<void()> body;
  std::exception_ptr error;
  std::mutex mutex;
  std::condition_variable ended_signal;
  bool ended = false;

  void run() {
    try {
      body();
    } catch (...) {
      error = std::current_exception();
    }
    body = nullptr;   // its captures (the copied inputs) freed here, even when left
    flint_cleanup();  // this thread's fmpz caches, which its exit does not free
    {
      std::lock_guard<std::mutex> lock(mutex);
      ended = true;
    }
    ended_signal.notify_all();
  }

  // Sleeps until the body ended, polling between slices; throws
  // Interrupted on a cancel.
  void wait(const Interrupts& interrupts) {
    std::unique_lock<std::mutex> lock(mutex);
    // Ends: the body ends (its own limits bound it) or a poll throws.
    while (!ended_signal.wait_for(lock, kWaitSlice, [this] { return ended; })) {
      lock.unlock();
      interrupts.poll();
      lock.lock();
    }
  }

  bool has_ended() {
    std::lock_guard<std::mutex> lock(mutex);
    return ended;
  }
};

// The helper a cancel left, if any (only the calling thread touches it).
std::shared_ptr<Call>& left_call() {
  static std::shared_ptr<Call> left;
  return left;
}

}  // namespace

bool left_helper_running() { return left_call() && !left_call()->has_ended(); }

void run_leaving_on_cancel(std::function<void()> body, const Interrupts& interrupts) {
  if (left_call()) {
    left_call()->wait(interrupts);
    left_call().reset();
  }
  auto call = std::make_shared<Call>();
  call->body = std::move(body);
  std::thread helper;
  {
    SignalsBlocked blocked;
    if (blocked.blocked()) {
      try {
        helper = std::thread([call] { call->run(); });
      } catch (const std::system_error&) {
        // no thread to be had: the body runs here
      }
    }
  }
  if (!helper.joinable()) {
    interrupts.poll();
    call->body();
    return;
  }
  try {
    call->wait(interrupts);
  } catch (...) {
    helper.detach();
    left_call() = std::move(call);
    throw;
  }
  helper.join();
  if (call->error) std::rethrow_exception(call->error);
}

}  // namespace invariant_dp
