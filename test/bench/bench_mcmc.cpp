// Benchmark of the lattice MCMC on the 4x4 example of Dharangutte, Gao,
// Gong, Yu 2023 (arXiv:2212.00936; Section 5, Appendix E.3, Table 2: d = 16,
// both margins, eps = 0.25): iterations per second of one chain, and
// iterations (and seconds) until the L-lag coupling TV upper bound (200
// coupled pairs, the paper's Section 4) falls below 0.05, for the
// l1 and l2 targets, with the paper's proposal alone (Eq. 11, a = e^-1 for
// l1, e^-2 for l2) and with 9 extra 2x2-swap proposals per iteration.
// Paper: ~1e4 iterations (l1), ~1e5 (l2). Prints the figures.
#include <chrono>
#include <cstdio>
#include <vector>

#include "lattice_tables.hpp"
#include "mcmc/coupling.hpp"
#include "mcmc/defaults.hpp"
#include "mcmc/lattice_chain.hpp"

using namespace invariant_dp;
using namespace invariant_dp::mcmc;

namespace {

using test_tables::table_basis;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void bench(const char* name, Target target, bool swaps, std::int64_t lag) {
  SamplerConfig cfg;
  cfg.target = target;
  cfg.proposal_a = default_sampler(target.kind, swaps).proposal_a;
  if (swaps) {
    cfg.moves = two_way_swap_moves(4, 4);
    cfg.moves_per_iteration = 9;
  }
  const ChainModel model(table_basis(4, 4), cfg);
  auto rng = make_seeded_random_source(42);
  LatticeChain chain(model);
  chain.reset_from_proposal(*rng);
  const std::uint64_t n = 2000000;
  auto t0 = std::chrono::steady_clock::now();
  chain.run(n, *rng, Interrupts());
  const double rate = double(n) / seconds_since(t0);
  std::vector<MeetingTime> times;
  t0 = std::chrono::steady_clock::now();
  for (int p = 0; p < 200; ++p)
    times.push_back(sample_meeting_time(model, lag, 100000000, StartKind::proposal, *rng, Interrupts()));
  const double coupling_s = seconds_since(t0);
  const std::int64_t at = first_iteration_below(times, lag, 0.05);
  std::printf("%-18s a=%.3f acc(basis)=%.3f acc(swaps)=%.3f  %9.0f it/s  L=%6ld  TV<0.05 at %7ld it (%.4f s)  "
              "[200 pairs: %.1f s]\n",
              name, cfg.proposal_a, chain.acceptance().basis_rate(), chain.acceptance().move_rate(), rate, long(lag),
              long(at), double(at) / rate, coupling_s);
}

}  // namespace

int main() {
  std::printf("4x4 table, both margins, eps = 0.25 (paper: l1 ~1e4, l2 ~1e5 iterations)\n");
  bench("l1 paper", laplace_l1(0.25), false, 1000);
  bench("l1 paper", laplace_l1(0.25), false, 3000);
  bench("l1 +9 swaps", laplace_l1(0.25), true, 1000);
  bench("l2 paper", laplace_l2(0.25), false, 1000);
  bench("l2 paper", laplace_l2(0.25), false, 10000);
  bench("l2 +9 swaps", laplace_l2(0.25), true, 3000);
  return 0;
}
