// Jobs shared between the calling thread and helpers (mcmc/worker_threads):
// every job runs once whatever the number of threads, an error in any job
// is rethrown once every thread has ended, the Interrupts callback is
// called from the calling thread only and a cancel stops the helpers, and
// helpers run with every signal blocked. Items used in order
// (run_in_order): each prepared once, at most `slots` ahead of the use, and
// used in order on the calling thread after its preparation; a use can stop
// the run; errors and cancels as for the jobs.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "errors.hpp"
#include "mcmc/worker_threads.hpp"

namespace invariant_dp::mcmc {
namespace {

// An Interrupts callback that records which threads call it and cancels
// after 50 calls.
struct CancellingPoller {
  std::thread::id caller = std::this_thread::get_id();
  std::mutex mutex;
  std::set<std::thread::id> pollers;
  std::atomic<int> polls{0};

  Interrupts interrupts() {
    return Interrupts(
        [](void* c) {
          auto* self = static_cast<CancellingPoller*>(c);
          std::lock_guard<std::mutex> lock(self->mutex);
          self->pollers.insert(std::this_thread::get_id());
          return ++self->polls > 50;
        },
        this);
  }
};

TEST(WorkerThreads, EveryJobRunsOnceWhateverTheThreads) {
  for (unsigned threads = 0; threads <= 4; ++threads)
    for (std::size_t jobs : {0, 1, 2, 7, 64}) {
      std::vector<std::atomic<int>> runs(jobs);
      run_jobs(jobs, threads, Interrupts{}, [&](std::size_t k, const JobPoll&) { ++runs[k]; });
      for (std::size_t k = 0; k < jobs; ++k) ASSERT_EQ(runs[k].load(), 1) << threads << " threads, job " << k;
    }
}

TEST(WorkerThreads, AnErrorInAnyJobIsRethrownAfterTheThreadsEnd) {
  for (const std::size_t failing : {0, 5, 31}) {
    std::atomic<int> running{0};
    struct Running {  // counts the jobs under way, however they leave
      std::atomic<int>& count;
      explicit Running(std::atomic<int>& c) : count(c) { ++count; }
      ~Running() { --count; }
    };
    auto job = [&](std::size_t k, const JobPoll& poll) {
      Running under_way(running);
      if (k == failing) throw OutOfRange("a job failed");
      for (int i = 0; i < 1000; ++i) poll.poll();  // a failure elsewhere stops this one
    };
    EXPECT_THROW(run_jobs(32, 3, Interrupts{}, job), OutOfRange);
    EXPECT_EQ(running.load(), 0);  // every job had left when the error came out
  }
}

TEST(WorkerThreads, OnlyTheCallingThreadPollsAndACancelStopsTheHelpers) {
  CancellingPoller context;
  const Interrupts interrupts = context.interrupts();
  std::atomic<int> done{0};
  auto job = [&](std::size_t, const JobPoll& poll) {
    for (int i = 0; i < 20; ++i) {
      poll.poll();
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    ++done;
  };
  EXPECT_THROW(run_jobs(1000, 2, interrupts, job), Interrupted);
  EXPECT_EQ(context.pollers, std::set<std::thread::id>{context.caller});
  EXPECT_LT(done.load(), 1000);
}

TEST(WorkerThreads, HelpersRunWithEverySignalBlocked) {
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> helper_jobs{0}, unblocked{0};
  run_jobs(64, 2, Interrupts{}, [&](std::size_t, const JobPoll&) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // leaves jobs to the helper
    if (std::this_thread::get_id() == caller) return;
    ++helper_jobs;
    sigset_t mask;
    pthread_sigmask(SIG_BLOCK, nullptr, &mask);
    for (const int signal : {SIGINT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGQUIT})
      if (!sigismember(&mask, signal)) ++unblocked;
  });
  EXPECT_GT(helper_jobs.load(), 0);
  EXPECT_EQ(unblocked.load(), 0);
  sigset_t mine;  // the caller's mask is restored
  pthread_sigmask(SIG_BLOCK, nullptr, &mine);
  EXPECT_FALSE(sigismember(&mine, SIGINT));
}

TEST(WorkerThreads, InOrderUsesEveryItemOnceInOrderAfterItsPreparation) {
  for (unsigned threads = 0; threads <= 3; ++threads)
    for (std::size_t items : {0, 1, 2, 9, 200})
      for (std::size_t slots : {1, 3}) {
        std::vector<std::atomic<int>> prepared(items);
        std::vector<std::size_t> in_slot(slots, SIZE_MAX);  // the slot protocol orders these accesses
        std::atomic<std::size_t> used{0};
        std::atomic<int> too_far{0};
        std::vector<std::size_t> order;
        const bool all = run_in_order(
            items, slots, threads, Interrupts{},
            [&](std::size_t k, std::size_t slot, const JobPoll&) {
              ++prepared[k];
              if (k >= used.load() + slots) ++too_far;  // its slot's last item not used yet
              in_slot[slot] = k;
            },
            [&](std::size_t k, std::size_t slot) {
              order.push_back(k);
              EXPECT_EQ(in_slot[slot], k);
              used = k + 1;
              return true;
            });
        EXPECT_TRUE(all);
        ASSERT_EQ(order.size(), items);
        for (std::size_t k = 0; k < items; ++k) {
          EXPECT_EQ(order[k], k);
          EXPECT_EQ(prepared[k].load(), 1) << threads << " threads, item " << k;
        }
        EXPECT_EQ(too_far.load(), 0);
      }
}

TEST(WorkerThreads, InOrderStopsWhereAUseSaysSo) {
  for (unsigned threads : {1u, 2u}) {
    std::vector<std::size_t> order;
    const bool all = run_in_order(
        100, 4, threads, Interrupts{}, [](std::size_t, std::size_t, const JobPoll&) {},
        [&](std::size_t k, std::size_t) {
          order.push_back(k);
          return k != 10;
        });
    EXPECT_FALSE(all);
    EXPECT_EQ(order.size(), 11u);
  }
}

TEST(WorkerThreads, InOrderRethrowsAnErrorAndPollsFromTheCallingThreadOnly) {
  auto use_all = [](std::size_t, std::size_t) { return true; };
  for (unsigned threads : {1u, 2u}) {
    EXPECT_THROW(run_in_order(
                     100, 4, threads, Interrupts{},
                     [](std::size_t k, std::size_t, const JobPoll& poll) {
                       if (k == 37) throw OutOfRange("a preparation failed");
                       for (int i = 0; i < 100; ++i) poll.poll();
                     },
                     use_all),
                 OutOfRange);
  }
  CancellingPoller context;
  const Interrupts interrupts = context.interrupts();
  std::atomic<int> used{0};
  auto prepare = [&](std::size_t, std::size_t, const JobPoll& poll) {
    const Interrupts as_interrupts = poll.interrupts();  // what code taking an Interrupts sees
    for (int i = 0; i < 20; ++i) {
      as_interrupts.poll();
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  };
  EXPECT_THROW(run_in_order(1000, 4, 2, interrupts, prepare,
                            [&](std::size_t, std::size_t) {
                              ++used;
                              return true;
                            }),
               Interrupted);
  EXPECT_EQ(context.pollers, std::set<std::thread::id>{context.caller});
  EXPECT_LT(used.load(), 1000);
}

// A helper that reached MPFR's constants leaves no per-thread cache behind
// (the sanitized build's leak check fails otherwise).
TEST(WorkerThreads, HelpersFreeMpfrsThreadCaches) {
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> helper_jobs{0};
  run_jobs(16, 2, Interrupts{}, [&](std::size_t, const JobPoll&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // leaves jobs to the helper
    if (std::this_thread::get_id() == caller) return;
    ++helper_jobs;
    mpfr_t pi;
    mpfr_init2(pi, 200);
    mpfr_const_pi(pi, MPFR_RNDN);
    mpfr_clear(pi);
  });
  EXPECT_GT(helper_jobs.load(), 0);
}

// The calling thread sleeps while a helper prepares the item it needs: the
// helper's preparations take 20 ms, the caller's 1 ms (asleep both), so the
// caller spends most of the run waiting for the helper's items, and its CPU time must stay far
// below that wall time (a caller spinning on a yield loop burns about all
// of it).
TEST(WorkerThreads, InOrderCallerSleepsWhileItWaits) {
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> helper_items{0};
  timespec cpu0{}, cpu1{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
  const auto wall0 = std::chrono::steady_clock::now();
  run_in_order(
      60, 2, 2, Interrupts{},
      [&](std::size_t, std::size_t, const JobPoll&) {
        const bool helper = std::this_thread::get_id() != caller;
        if (helper) ++helper_items;
        std::this_thread::sleep_for(std::chrono::milliseconds(helper ? 20 : 1));
      },
      [](std::size_t, std::size_t) { return true; });
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double cpu = double(cpu1.tv_sec - cpu0.tv_sec) + 1e-9 * double(cpu1.tv_nsec - cpu0.tv_nsec);
  ASSERT_GT(helper_items.load(), 0);
  EXPECT_GE(wall, 0.02);
  EXPECT_LT(cpu, 0.25 * wall) << "the calling thread used " << cpu << " s of CPU in " << wall << " s";
}

}  // namespace
}  // namespace invariant_dp::mcmc
