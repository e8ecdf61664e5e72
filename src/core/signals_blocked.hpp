// Every signal blocked on the calling thread while helper threads are
// created (they inherit the mask), the caller's mask restored after: a
// signal arriving meanwhile waits, and is then handled on the calling
// thread. A backend's signal handlers (cancel, terminate, latches) must only
// ever run on the thread PostgreSQL runs, so a helper is started only when
// blocked() holds.
#pragma once

#include <pthread.h>
#include <signal.h>

namespace invariant_dp {

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

}  // namespace invariant_dp
