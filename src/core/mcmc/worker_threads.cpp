// Jobs on a few threads inside a backend; see worker_threads.hpp.
#include "worker_threads.hpp"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace invariant_dp::mcmc {
namespace {

// Thrown by a job told to stop because another thread failed or the
// caller cancelled; never leaves run_jobs.
struct Stopped {};

// Every signal blocked on the calling thread while helpers are created
// (they inherit the mask), the caller's mask restored after: a signal
// arriving meanwhile waits, and is then handled on the calling thread.
class SignalsBlocked {
 public:
  SignalsBlocked() {
    sigset_t all;
    sigfillset(&all);
    blocked_ = pthread_sigmask(SIG_BLOCK, &all, &saved_) == 0;
  }
  ~SignalsBlocked() {
    if (blocked_) pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
  }
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;
  bool blocked() const { return blocked_; }

 private:
  sigset_t saved_;
  bool blocked_ = false;
};

}  // namespace

void JobPoll::poll() const {
  if (stop_->load(std::memory_order_relaxed)) throw Stopped{};
  if (interrupts_ != nullptr) interrupts_->poll();
}

void run_jobs(std::size_t jobs, unsigned threads, const Interrupts& interrupts, const Job& job) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  auto work = [&](const JobPoll& poll) {
    // Ends: each pass takes the next of the `jobs` jobs, or leaves.
    for (;;) {
      const std::size_t k = next.fetch_add(1, std::memory_order_relaxed);
      if (k >= jobs) return;
      poll.poll();
      job(k, poll);
    }
  };
  const std::size_t wanted = std::min<std::size_t>(threads == 0 ? 1 : threads, jobs);
  std::vector<std::exception_ptr> errors(wanted > 1 ? wanted - 1 : 0);
  std::vector<std::thread> helpers;
  if (wanted > 1) {
    SignalsBlocked blocked;
    // Without the mask a helper could run the backend's handlers: none then.
    for (std::size_t h = 0; blocked.blocked() && h + 1 < wanted; ++h) {
      try {
        helpers.emplace_back([&, h] {
          try {
            work(JobPoll(nullptr, &stop));
          } catch (const Stopped&) {
          } catch (...) {
            errors[h] = std::current_exception();
            stop.store(true, std::memory_order_relaxed);
          }
        });
      } catch (const std::system_error&) {
        break;  // no more threads to be had: the others share the jobs
      }
    }
  }
  std::exception_ptr failure;
  try {
    work(JobPoll(&interrupts, &stop));
  } catch (const Stopped&) {
  } catch (...) {
    failure = std::current_exception();
    stop.store(true, std::memory_order_relaxed);
  }
  for (std::thread& helper : helpers) helper.join();
  if (failure) std::rethrow_exception(failure);
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
}

}  // namespace invariant_dp::mcmc
