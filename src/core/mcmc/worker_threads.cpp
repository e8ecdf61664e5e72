// Jobs on a few threads inside a backend; see worker_threads.hpp.
#include "worker_threads.hpp"

#include <mpfr.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "../signals_blocked.hpp"

namespace invariant_dp::mcmc {
namespace {

// Thrown by a job told to stop because another thread failed or the
// caller cancelled; never leaves run_jobs.
struct Stopped {};

// Up to `count` helper threads, each running `body` with every signal
// blocked; a helper's error is kept and `on_error` stops the others. A
// helper that cannot be started leaves its share to the threads that run.
class HelperThreads {
 public:
  HelperThreads(std::size_t count, std::function<void()> body, std::function<void()> on_error)
      : body_(std::move(body)), on_error_(std::move(on_error)), errors_(count) {
    if (count == 0) return;
    SignalsBlocked blocked;
    // Without the mask a helper could run the backend's handlers: none then.
    for (std::size_t h = 0; blocked.blocked() && h < count; ++h) {
      try {
        threads_.emplace_back([this, h] {
          try {
            body_();
          } catch (const Stopped&) {
          } catch (...) {
            errors_[h] = std::current_exception();
            on_error_();
          }
          // MPFR keeps per-thread caches of its constants (pi, log 2),
          // which a thread's exit does not free.
          mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
        });
      } catch (const std::system_error&) {
        break;  // no more threads to be had
      }
    }
  }
  HelperThreads(const HelperThreads&) = delete;
  HelperThreads& operator=(const HelperThreads&) = delete;
  ~HelperThreads() { join(); }

  // Joins every helper, then rethrows the calling thread's failure, else a
  // helper's.
  void join_and_rethrow(const std::exception_ptr& failure) {
    join();
    if (failure) std::rethrow_exception(failure);
    for (const std::exception_ptr& error : errors_)
      if (error) std::rethrow_exception(error);
  }

 private:
  void join() {
    for (std::thread& thread : threads_)
      if (thread.joinable()) thread.join();
  }
  const std::function<void()> body_, on_error_;  // the helpers read them until joined
  std::vector<std::exception_ptr> errors_;
  std::vector<std::thread> threads_;
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
  auto stop_all = [&] { stop.store(true, std::memory_order_relaxed); };
  HelperThreads helpers(wanted > 1 ? wanted - 1 : 0, [&] { work(JobPoll(nullptr, &stop)); }, stop_all);
  std::exception_ptr failure;
  try {
    work(JobPoll(&interrupts, &stop));
  } catch (const Stopped&) {
  } catch (...) {
    failure = std::current_exception();
    stop_all();
  }
  helpers.join_and_rethrow(failure);
}

namespace {

// How long the calling thread sleeps at most between two polls while it
// waits for a helper's preparation.
constexpr std::chrono::milliseconds kWaitSlice{5};

// The state run_in_order's threads share. An item k is claimed once (the
// counter `claimed`), prepared into slot k % slots, published by ready[slot]
// = k + 1, and used by the calling thread; its slot may take item k + slots
// once `used` passed k.
class OrderedItems {
 public:
  OrderedItems(std::size_t items, std::size_t slots)
      : items_(items), slots_(slots), ready_(new std::atomic<std::size_t>[slots]) {
    for (std::size_t s = 0; s < slots; ++s) ready_[s].store(0, std::memory_order_relaxed);
  }
  static constexpr std::size_t kNone = ~std::size_t{0};

  // The next item if its slot is free, else kNone.
  std::size_t claim() {
    std::size_t k = claimed_.load(std::memory_order_relaxed);
    // Ends: a failed exchange means another thread claimed k (the counter
    // only grows, at most `items` times).
    while (k < items_ && k < used_.load(std::memory_order_acquire) + slots_)
      if (claimed_.compare_exchange_weak(k, k + 1, std::memory_order_relaxed)) return k;
    return kNone;
  }
  void prepare(std::size_t k, const PrepareItem& prepare, const JobPoll& poll) {
    prepare(k, k % slots_, poll);
    {
      // Under the mutex, so that a caller about to wait for k sees it.
      std::lock_guard<std::mutex> lock(mutex_);
      ready_[k % slots_].store(k + 1, std::memory_order_release);
    }
    published_.notify_all();
  }
  // Blocks until item k is ready, a stop, or `timeout` (the caller polls
  // between waits).
  void wait_ready(std::size_t k, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    published_.wait_for(lock, timeout, [&] { return ready(k) || stop_.load(std::memory_order_relaxed); });
  }
  bool ready(std::size_t k) const { return ready_[k % slots_].load(std::memory_order_acquire) == k + 1; }
  void mark_used(std::size_t k) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      used_.store(k + 1, std::memory_order_release);
    }
    advanced_.notify_all();
  }
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_.store(true, std::memory_order_relaxed);
    }
    advanced_.notify_all();
    published_.notify_all();
  }
  const std::atomic<bool>* stop_flag() const { return &stop_; }
  // A helper's loop: claim, prepare, publish; asleep while every free slot
  // is taken (woken by a use or a stop).
  void help(const PrepareItem& prepare) {
    const JobPoll poll(nullptr, &stop_);
    // Ends: each pass prepares one of the `items` items, or leaves.
    for (;;) {
      poll.poll();
      const std::size_t k = claim();
      if (k != kNone) {
        this->prepare(k, prepare, poll);
        continue;
      }
      std::unique_lock<std::mutex> lock(mutex_);
      if (claimed_.load(std::memory_order_relaxed) >= items_) return;
      advanced_.wait(lock, [&] {
        const std::size_t c = claimed_.load(std::memory_order_relaxed);
        return stop_.load(std::memory_order_relaxed) || c >= items_ ||
               c < used_.load(std::memory_order_relaxed) + slots_;
      });
    }
  }

 private:
  const std::size_t items_, slots_;
  std::unique_ptr<std::atomic<std::size_t>[]> ready_;
  std::atomic<std::size_t> claimed_{0}, used_{0};
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable advanced_;   // used_ grew, or a stop
  std::condition_variable published_;  // an item was prepared, or a stop
};

}  // namespace

bool run_in_order(std::size_t items, std::size_t slots, unsigned threads, const Interrupts& interrupts,
                  const PrepareItem& prepare, const UseItem& use) {
  OrderedItems shared(items, std::max<std::size_t>(slots, 1));
  const std::size_t wanted = items > 1 ? std::max(threads, 1u) : 1;
  HelperThreads helpers(wanted - 1, [&] { shared.help(prepare); }, [&] { shared.stop(); });
  const JobPoll poll(&interrupts, shared.stop_flag());
  std::exception_ptr failure;
  bool all_used = true;
  try {
    for (std::size_t j = 0; j < items && all_used; ++j) {
      // Ends: each pass prepares an item (at most `items` in all) or waits
      // for the one preparation of item j under way on a helper.
      while (!shared.ready(j)) {
        poll.poll();  // a helper's error stops the wait too
        const std::size_t k = shared.claim();
        if (k != OrderedItems::kNone) {
          shared.prepare(k, prepare, poll);
          continue;
        }
        // Asleep rather than spinning (a spinning caller takes a core
        // from the helper it waits for when the machine is busy); woken
        // by the preparation, and at least every kWaitSlice to poll.
        shared.wait_ready(j, kWaitSlice);
      }
      all_used = use(j, j % std::max<std::size_t>(slots, 1));
      shared.mark_used(j);
    }
  } catch (const Stopped&) {
  } catch (...) {
    failure = std::current_exception();
  }
  shared.stop();
  helpers.join_and_rethrow(failure);
  return all_used;
}

}  // namespace invariant_dp::mcmc
