// Computations that cannot poll, on a helper a cancel leaves
// (src/core/leave_on_cancel.hpp): the body's result and error come
// back; a cancel returns while the body still runs, and the next call waits
// for it first (cancellably too); the helper runs with every signal
// blocked; a cancel in the middle of a real LLL reduction leaves it, and the
// next basis is the same as a fresh one.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "errors.hpp"
#include "interrupt_callbacks.hpp"
#include "lattice_tables.hpp"
#include "lattice/lattice_basis.hpp"
#include "leave_on_cancel.hpp"

namespace invariant_dp {
namespace {

// A body that waits until the test opens its gate, then marks itself ended.
struct Gate {
  std::promise<void> open;
  std::shared_future<void> opened = open.get_future().share();
  std::atomic<bool> ended{false};
};

std::function<void()> held_by(const std::shared_ptr<Gate>& gate) {
  return [gate] {
    gate->opened.wait();
    gate->ended = true;
  };
}

// Waits (a bounded number of slices) until no left helper runs.
void wait_for_left_to_end() {
  for (int i = 0; i < 2000 && left_helper_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_FALSE(left_helper_running());
}

TEST(LeaveOnCancel, ReturnsTheResultAndRethrowsTheError) {
  auto value = std::make_shared<int>(0);
  run_leaving_on_cancel([value] { *value = 42; }, Interrupts());
  EXPECT_EQ(*value, 42);
  EXPECT_THROW(run_leaving_on_cancel([] { throw OutOfRange("too big", "detail", "hint"); }, Interrupts()), OutOfRange);
  EXPECT_FALSE(left_helper_running());
}

TEST(LeaveOnCancel, RunsWithEverySignalBlocked) {
  auto blocked = std::make_shared<std::vector<bool>>();
  run_leaving_on_cancel(
      [blocked] {
        sigset_t mask;
        pthread_sigmask(SIG_BLOCK, nullptr, &mask);
        for (int sig : {SIGINT, SIGTERM, SIGUSR1, SIGALRM, SIGQUIT}) blocked->push_back(sigismember(&mask, sig) == 1);
      },
      Interrupts());
  ASSERT_EQ(blocked->size(), 5u);
  for (bool b : *blocked) EXPECT_TRUE(b);
  // The caller's own mask is as it was (SIGINT deliverable to it).
  sigset_t mine;
  pthread_sigmask(SIG_BLOCK, nullptr, &mine);
  EXPECT_EQ(sigismember(&mine, SIGINT), 0);
}

TEST(LeaveOnCancel, ACancelLeavesTheBodyRunningAndTheNextCallWaitsForIt) {
  auto gate = std::make_shared<Gate>();
  int polls_left = 3;
  EXPECT_THROW(run_leaving_on_cancel(held_by(gate), Interrupts(test_interrupts::pending_after, &polls_left)),
               Interrupted);
  EXPECT_FALSE(gate->ended);  // the caller left before the body ended
  EXPECT_TRUE(left_helper_running());

  // While the left body runs, a cancelled call waits for it and runs nothing.
  auto ran = std::make_shared<std::atomic<bool>>(false);
  int second_polls = 2;
  EXPECT_THROW(run_leaving_on_cancel([ran] { *ran = true; }, Interrupts(test_interrupts::pending_after, &second_polls)),
               Interrupted);
  EXPECT_FALSE(*ran);
  EXPECT_TRUE(left_helper_running());

  // A call that is not cancelled runs once the left body has ended.
  std::thread opener([gate] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    gate->open.set_value();
  });
  auto saw_left_ended = std::make_shared<std::atomic<bool>>(false);
  run_leaving_on_cancel([gate, saw_left_ended] { *saw_left_ended = gate->ended.load(); }, Interrupts());
  opener.join();
  EXPECT_TRUE(*saw_left_ended);
  EXPECT_FALSE(left_helper_running());
}

// Asks to stop once 20 ms have passed since it was made: only the wait for
// the helper polls that late when the reduction takes longer.
struct After20ms {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  static bool pending(void* self) {
    return std::chrono::steady_clock::now() - static_cast<After20ms*>(self)->start > std::chrono::milliseconds(20);
  }
};

TEST(LeaveOnCancel, ACancelMidReductionLeavesItAndTheNextBasisIsTheSame) {
  wait_for_left_to_end();
  // 25 x 25 without a corner: 624 cells, a kernel of rank 576, LLL work
  // 2e8: tenths of a second, well past the cancel at 20 ms.
  const auto a = test_tables::table_without_a_corner(25, 25);
  auto clock = std::chrono::steady_clock::now();
  const LatticeBasis fresh = invariant_lattice_basis(a, Interrupts());
  const auto whole = std::chrono::steady_clock::now() - clock;
  ASSERT_GT(whole, std::chrono::milliseconds(60)) << "the reduction is too quick to cancel in its middle";

  After20ms cancel;
  EXPECT_THROW(invariant_lattice_basis(a, Interrupts(&After20ms::pending, &cancel)), Interrupted);
  const auto to_cancel = std::chrono::steady_clock::now() - cancel.start;
  EXPECT_TRUE(left_helper_running());  // the reduction goes on alone
  EXPECT_LT(to_cancel, whole / 2);      // the caller did not wait for it

  // The next basis waits for the left reduction and is the same.
  const LatticeBasis again = invariant_lattice_basis(a, Interrupts());
  EXPECT_FALSE(left_helper_running());
  ASSERT_EQ(again.rank(), fresh.rank());
  for (std::size_t j = 0; j < fresh.rank(); ++j) {
    EXPECT_EQ(again.column(j).index, fresh.column(j).index);
    EXPECT_EQ(again.column(j).value, fresh.column(j).value);
  }
}

}  // namespace
}  // namespace invariant_dp
