// A computation that cannot poll, run so that a cancel need not wait for it.
//
// Some steps are single library calls that return only when done: FLINT's
// echelon form, Hermite form and LLL of the general lattice path
// (lattice/lattice_general.cpp), Eigen's sparse and dense factorisations
// of the invariant rows (invariants/sparse_projector.cpp,
// invariants/incomplete_two_way_projector.cpp, accuracy/general_form.cpp).
// At the limits their callers set they take seconds, during which a caller
// running them itself could not see statement_timeout, pg_cancel_backend
// or pg_terminate_backend. So they run on one helper
// thread while the calling thread sleeps, waking every 5 ms to poll
// Interrupts. On a cancel the caller throws Interrupted at once and leaves
// the helper to finish alone.
//
// What makes leaving safe: the body owns everything it reads and writes
// (its captures, copied in; its result, in memory it shares with the
// caller through a shared_ptr), so nothing of the caller's stack or of
// the backend's memory is touched after the caller left; the helper starts
// with every signal blocked (signals_blocked.hpp) and never calls into
// PostgreSQL; it frees its thread's FLINT caches when it ends. A process
// that exits meanwhile ends the helper with it.
//
// What bounds it: the body's own limits (the LLL work limit, the cell
// limits) bound its time, and at most one left helper runs per process:
// the next call first waits, cancellably, for the one left before, so
// repeated cancels cannot pile up threads or processor time. A body must
// not itself call run_leaving_on_cancel.
//
// Where no helper can be had (no thread, or the signal mask cannot be
// set), the body runs on the calling thread, as it did before.
#pragma once

#include <functional>

#include "interrupts.hpp"

namespace invariant_dp {

// Runs body() on a helper and returns once it has (rethrowing its error),
// or throws Interrupted as soon as interrupts reports a cancel.
void run_leaving_on_cancel(std::function<void()> body, const Interrupts& interrupts);

// Whether a helper left by an earlier cancel is still running (for tests).
bool left_helper_running();

}  // namespace invariant_dp
