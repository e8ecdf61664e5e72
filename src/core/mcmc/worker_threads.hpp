// Independent jobs shared between the calling thread and a few helper
// threads, inside a PostgreSQL backend.
//
// What a backend allows (and what this keeps): the helpers run core code
// only, never call into PostgreSQL and hold none of its state; they start
// with every signal blocked, so the backend's signal handlers keep running
// on the calling thread; only the calling thread polls the Interrupts
// callback (between its jobs and inside them), and a cancel, or an error in
// any thread, stops the others at their next check; every helper is joined
// before run_jobs returns or throws, so no thread outlives the call and no
// error leaves the core while one runs. A helper that cannot be started
// leaves its jobs to the others.
//
// Why threads and not PostgreSQL's parallel workers: a worker is another
// process, which would see the chain's table only through dynamic shared
// memory and would have to be planned by the executor; a pair-block round
// writes disjoint lines of one array in this process, which threads share
// for free. The helpers never touch the backend's memory contexts, locks,
// elog or signals, which is what makes them safe there: they read and
// write only what the core allocated (the chain's cells and laws, their
// own scratch and streams), never memory the shim handed in.
//
// Who uses them: the table chain's pair-block rounds (run_jobs); the
// non-negative cascade's backward pass (run_jobs, one depth of the tree at a
// time) and its draw (run_in_order: each split's suffix functions prepared
// ahead, the splits drawn in order from the one random stream).
//
// Cancellation within a second: the calling thread polls Interrupts before
// each job and between the items of a job (Interrupts::poll_scaled's
// stride), a helper checks the stop flag as often; jobs are milliseconds
// (table_swap_chain.hpp: kPositionsPerJob), so after a cancel the helpers
// leave within one item and the join waits no longer than that.
//
// Jobs are taken in order from a shared counter, so which thread runs which
// job depends on the scheduling: a job must depend on its index only (its
// own random stream, its own cells) for the result to be the same whatever
// the number of threads.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "../interrupts.hpp"

namespace invariant_dp::mcmc {

// How a job checks whether to stop: on the calling thread the Interrupts
// callback, on a helper the shared stop flag (both: the flag).
class JobPoll {
 public:
  JobPoll(const Interrupts* interrupts, const std::atomic<bool>* stop) : interrupts_(interrupts), stop_(stop) {}
  // Throws Interrupted (calling thread) or stops the job (any thread).
  void poll() const;
  // For loops of steps costing about `cost` each (Interrupts::poll_scaled).
  void poll_scaled(std::uint64_t iteration, std::uint64_t cost) const {
    const std::uint64_t stride = cost >= 4096 ? 1 : 4096 / (cost + 1);
    if (iteration % stride == 0) poll();
  }
  // The same check as an Interrupts, for code that takes one (valid while
  // this JobPoll lives): on a helper it reads the stop flag only.
  Interrupts interrupts() const { return Interrupts(&JobPoll::pending, const_cast<JobPoll*>(this)); }

 private:
  static bool pending(void* self) {
    static_cast<const JobPoll*>(self)->poll();
    return false;
  }
  const Interrupts* interrupts_;  // nullptr on a helper
  const std::atomic<bool>* stop_;
};

using Job = std::function<void(std::size_t job, const JobPoll& poll)>;

// Runs job(k, poll) for k = 0 .. jobs - 1 on the calling thread and up to
// threads - 1 helpers (none when threads <= 1 or jobs <= 1). Rethrows the
// calling thread's error, else a helper's, after joining every helper.
void run_jobs(std::size_t jobs, unsigned threads, const Interrupts& interrupts, const Job& job);

// Items used in order on the calling thread, prepared ahead on any thread:
// prepare(item, slot, poll) fills slot `slot` (of `slots`) for `item`
// without touching anything the uses read or write (it may run on a
// helper); use(item, slot) runs on the calling thread for items 0, 1, ...
// in order, after the item's preparation, and returns false to stop there.
// An item is prepared only once the item `slots` before it (the slot's
// last) has been used, so the slots bound the memory. The calling thread,
// when the next item is not ready, prepares the next unclaimed one itself
// rather than wait; it waits only when every free slot is taken, for at
// most one preparation, asleep (woken by the preparation, and every 5 ms to
// poll Interrupts). With up to threads - 1 helpers
// (none when threads <= 1). Returns whether every item was used; rethrows
// as run_jobs does, after joining every helper.
using PrepareItem = std::function<void(std::size_t item, std::size_t slot, const JobPoll& poll)>;
using UseItem = std::function<bool(std::size_t item, std::size_t slot)>;
bool run_in_order(std::size_t items, std::size_t slots, unsigned threads, const Interrupts& interrupts,
                  const PrepareItem& prepare, const UseItem& use);

}  // namespace invariant_dp::mcmc
