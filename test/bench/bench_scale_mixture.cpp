// The l2 scale-mixture Gibbs sampler (mcmc/scale_mixture_chain) of
// integer_laplace_l2 with both margins of a square table, at the
// calibration of epsilon = 1 (lambda = epsilon / |v|_2 = 1/2): seconds per
// iteration, and the L-lag TV bound curve (Biswas, Jacob and Vanetti 2019,
// arXiv:1905.09971) from independent coupled pairs, at 100 x 100, 300 x 300
// and 1000 x 1000 (seeded randomness). The default iterations of
// lattice_release.hpp rest on these curves.
// Usage: bench_scale_mixture [pairs at 100^2] [largest side]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "mcmc/coupling.hpp"
#include "mcmc/scale_mixture_chain.hpp"
#include "random_source.hpp"

using namespace invariant_dp;
using namespace invariant_dp::mcmc;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void measure(std::size_t k, int pairs, std::int64_t lag) {
  LatticeTable table{{k, k}, std::vector<std::size_t>(k * k)};
  std::iota(table.cells.begin(), table.cells.end(), std::size_t(0));
  const TableMoves moves({table}, k * k);
  const double lambda = 0.5;
  auto rng = make_seeded_random_source(42);
  ScaleMixtureChain chain(moves, lambda);
  chain.start(*rng, Interrupts{});
  const auto start = std::chrono::steady_clock::now();
  const int timed = 5;
  chain.run(timed, *rng, Interrupts{});
  const double per_iteration = seconds_since(start) / timed;
  std::vector<MeetingTime> times;
  std::int64_t longest = 0;
  const auto coupled = std::chrono::steady_clock::now();
  for (int p = 0; p < pairs; ++p) {
    times.push_back(sample_scale_mixture_meeting_time(moves, lambda, lag, lag + 200, *rng, Interrupts{}));
    longest = std::max(longest, times.back().tau - lag);
  }
  std::printf("%5zu x %-5zu %.3f s/iteration  L=%lld pairs=%d  TV<0.05 after %lld iterations  (longest tau - L %lld, "
              "%.0f s)\n",
              k, k, per_iteration, (long long)lag, pairs, (long long)first_iteration_below(times, lag, 0.05),
              (long long)longest, seconds_since(coupled));
  std::printf("      TV bound:");
  for (std::int64_t l = 0; l <= 8; ++l) std::printf("  %lld: %.3f", (long long)l, tv_upper_bound(times, lag, l));
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const int pairs = argc > 1 ? std::atoi(argv[1]) : 200;
  const std::size_t largest = argc > 2 ? std::size_t(std::atoi(argv[2])) : 1000;
  for (const std::size_t k : {100, 300, 1000}) {
    if (k > largest) break;
    measure(k, k >= 1000 ? pairs / 10 : k >= 300 ? pairs / 4 : pairs, 10);
  }
}
