// The table chain (mcmc/table_swap_chain) for integer_laplace with crossing
// margins: seconds per sweep at 100 x 100 to 1000 x 1000 (heat-bath and
// Metropolis, l1 at the calibration of epsilon = 1, lambda = epsilon / 4),
// and the L-lag TV bound curve (Biswas, Jacob and Vanetti 2019) from coupled
// meeting times: sweeps until it falls below 0.05, at 10 x 10 to 300 x 300.
// Usage: bench_table_chain [pairs] [max side for coupling]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "mcmc/coupling.hpp"
#include "mcmc/table_swap_chain.hpp"
#include "random_source.hpp"

using namespace invariant_dp;
using namespace invariant_dp::mcmc;

namespace {

LatticeTable square(std::size_t k) {
  LatticeTable t{{k, k}, std::vector<std::size_t>(k * k)};
  std::iota(t.cells.begin(), t.cells.end(), std::size_t(0));
  return t;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void time_sweeps(std::size_t k, bool heat_bath) {
  const TableMoves moves({square(k)}, k * k);
  TableSwapChain chain(moves, SwapChainConfig{laplace_l1(0.25), heat_bath});
  auto rng = make_seeded_random_source(7);
  const std::uint64_t sweeps = k >= 1000 ? 3 : k >= 300 ? 20 : 100;
  const auto start = std::chrono::steady_clock::now();
  chain.run(sweeps, *rng, Interrupts{});
  const double s = seconds_since(start) / double(sweeps);
  std::printf("%5zu x %-5zu %-10s %.4f s/sweep  %6.1f ns/step  moved %.2f\n", k, k,
              heat_bath ? "heat-bath" : "metropolis", s, 1e9 * s / double(moves.rank()), chain.counts().rate());
}

void meeting(std::size_t k, bool heat_bath, int pairs, std::int64_t lag) {
  const TableMoves moves({square(k)}, k * k);
  const SwapChainConfig config{laplace_l1(0.25), heat_bath};
  auto rng = make_seeded_random_source(42);
  std::vector<MeetingTime> times;
  const auto start = std::chrono::steady_clock::now();
  std::int64_t longest = 0;
  for (int p = 0; p < pairs; ++p) {
    times.push_back(sample_table_meeting_time(moves, config, lag, 200000, *rng, Interrupts{}));
    longest = std::max(longest, times.back().tau);
  }
  const double s = seconds_since(start);
  std::printf("%5zu x %-5zu %-10s L=%-5lld pairs=%d  TV<0.05 after %lld sweeps  (longest tau %lld, %.1f s)\n", k, k,
              heat_bath ? "heat-bath" : "metropolis", (long long)lag, pairs,
              (long long)first_iteration_below(times, lag, 0.05), (long long)longest, s);
  for (const DiagnosticRow& row : tv_upper_bound_curve(times, lag, 6))
    std::printf("      sweep %8lld  TV <= %.3f\n", (long long)row.iteration, row.tv_upper_bound);
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const int pairs = argc > 1 ? std::atoi(argv[1]) : 20;
  const std::size_t max_side = argc > 2 ? std::size_t(std::atoi(argv[2])) : 100;
  if (std::getenv("SKIP_SWEEPS") == nullptr)
    for (const std::size_t k : {100, 300, 1000})
      for (const bool hb : {true, false}) time_sweeps(k, hb);
  for (const std::size_t k : {4, 6, 8, 10, 30, 100, 300}) {
    if (k > max_side) break;
    for (const bool hb : {true, false}) meeting(k, hb, pairs, std::getenv("LAG") ? std::atoll(std::getenv("LAG")) : std::int64_t(k));
  }
}
