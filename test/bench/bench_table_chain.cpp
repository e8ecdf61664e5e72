// The table chain (mcmc/table_swap_chain) for integer_laplace with crossing
// margins: seconds per sweep at 100 x 100 to 1000 x 1000 (heat-bath and
// Metropolis, l1 at the calibration of epsilon = 1, lambda = epsilon / 4),
// the relaxation the default sweeps rest on (lattice_release.hpp): from
// z = 0, the sweeps until ||z||_1 first reaches its long-run mean, and the
// integrated autocorrelation time (Sokal's window, c = 5) of ||z||_1, of one
// cell and of a quadrant's sum (the slowest statistic found), at 100 x 100
// and 300 x 300; and the L-lag TV bound (Biswas, Jacob and Vanetti 2019,
// arXiv:1905.09971) from coupled meeting times on small tables (pairs stop
// meeting from 8 x 8 on; table_swap_chain.hpp); and congenial's relaxation
// from its public start (congenial_release.hpp). Kernels: heat-bath along
// 2x2 moves, pair blocks, Metropolis along 2x2 moves.
// Usage: bench_table_chain [pairs] [max side for coupling];
// bench_table_chain release [side]: the chain of one release (pair blocks)
// on 1 and 2 threads; bench_table_chain relaxation: the pair blocks' only.
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "congenial/chain_starts.hpp"
#include "mcmc/coupling.hpp"
#include "mechanisms/lattice_release.hpp"
#include "mcmc/table_swap_chain.hpp"
#include "random_source.hpp"

using namespace invariant_dp;
using namespace invariant_dp::mcmc;

namespace {

// The three l1 kernels: heat-bath along 2x2 moves, pair blocks,
// Metropolis along 2x2 moves.
enum class Kernel { heat_bath, pair_blocks, metropolis };

const char* name(Kernel kernel) {
  return kernel == Kernel::heat_bath ? "heat-bath" : kernel == Kernel::pair_blocks ? "pair-block" : "metropolis";
}

SwapChainConfig config_of(Kernel kernel, double lambda = 0.25) {
  SwapChainConfig config{laplace_l1(lambda), kernel != Kernel::metropolis};
  config.pair_blocks = kernel == Kernel::pair_blocks;
  return config;
}

LatticeTable square(std::size_t k) {
  LatticeTable t{{k, k}, std::vector<std::size_t>(k * k)};
  std::iota(t.cells.begin(), t.cells.end(), std::size_t(0));
  return t;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Seconds per sweep, and per cell update (a sweep updates about 4 cells'
// worth per cell under every kernel: 4 rank for moves, 2 (r - 1) c +
// 2 (c - 1) r for blocks).
void time_sweeps(std::size_t k, Kernel kernel) {
  const TableMoves moves({square(k)}, k * k);
  TableSwapChain chain(moves, config_of(kernel));
  auto rng = make_seeded_random_source(7);
  const std::uint64_t sweeps = k >= 1000 ? 3 : k >= 300 ? 20 : 100;
  const auto start = std::chrono::steady_clock::now();
  chain.run(sweeps, *rng, Interrupts{});
  const double s = seconds_since(start) / double(sweeps);
  std::printf("%5zu x %-5zu %-10s %.4f s/sweep  %6.1f ns/cell update  changed %.2f\n", k, k, name(kernel), s,
              1e9 * s / (4.0 * double(k) * double(k - 1)), chain.counts().rate());
}

// Meeting times of `pairs` coupled pairs, cap `cap` sweeps; the TV bound
// when every pair met.
void meeting(std::size_t k, Kernel kernel, int pairs, std::int64_t lag, std::int64_t cap) {
  const TableMoves moves({square(k)}, k * k);
  const SwapChainConfig config = config_of(kernel);
  auto rng = make_seeded_random_source(42);
  std::vector<MeetingTime> times;
  const auto start = std::chrono::steady_clock::now();
  std::int64_t longest = 0;
  int met = 0;
  for (int p = 0; p < pairs; ++p) {
    times.push_back(sample_table_meeting_time(moves, config, lag, cap, *rng, Interrupts{}));
    longest = std::max(longest, times.back().tau);
    met += times.back().met;
  }
  const double s = seconds_since(start);
  const std::int64_t below = first_iteration_below(times, lag, 0.05);
  if (below < 0)
    std::printf("%5zu x %-5zu %-10s L=%-5lld pairs=%d  censored: %d of %d met within %lld sweeps (%.1f s)\n", k, k,
                name(kernel), (long long)lag, pairs, met, pairs, (long long)cap, s);
  else
    std::printf("%5zu x %-5zu %-10s L=%-5lld pairs=%d  TV<0.05 after %lld sweeps  (longest tau %lld, %.1f s)\n", k,
                k, name(kernel), (long long)lag, pairs, (long long)below, (long long)longest, s);
}

// Integrated autocorrelation time of a series (Sokal's adaptive window).
double tau_int(const std::vector<double>& x) {
  const std::size_t n = x.size();
  double mean = 0, var = 0;
  for (double v : x) mean += v;
  mean /= double(n);
  for (double v : x) var += (v - mean) * (v - mean);
  var /= double(n);
  double tau = 1;
  for (std::size_t lag = 1; lag < n / 5; ++lag) {
    double c = 0;
    for (std::size_t s = 0; s + lag < n; ++s) c += (x[s] - mean) * (x[s + lag] - mean);
    tau += 2 * c / (double(n - lag) * var);
    if (double(lag) >= 5 * tau) break;
  }
  return tau;
}

void relaxation(std::size_t k, Kernel kernel, std::size_t draws) {
  const TableMoves moves({square(k)}, k * k);
  TableSwapChain chain(moves, config_of(kernel));
  auto rng = make_seeded_random_source(5);
  std::vector<double> l1, cell, quadrant;
  const std::size_t warm = 200;
  for (std::size_t s = 0; s < warm + draws; ++s) {
    chain.sweep(*rng);
    l1.push_back(double(chain.l1()));
    cell.push_back(double(chain.z()[0]));
    double sum = 0;
    for (std::size_t i = 0; i < k / 2; ++i)
      for (std::size_t j = 0; j < k / 2; ++j) sum += double(chain.z()[i * k + j]);
    quadrant.push_back(sum);
  }
  double stationary = 0;
  for (std::size_t s = warm; s < l1.size(); ++s) stationary += l1[s];
  stationary /= double(draws);
  std::size_t reached = 0;
  while (reached < l1.size() && l1[reached] < stationary) ++reached;
  auto tail = [&](const std::vector<double>& v) { return std::vector<double>(v.begin() + warm, v.end()); };
  std::printf("%5zu x %-5zu %-10s ||z||_1 at its mean after %zu sweeps; tau_int: ||z||_1 %.1f, cell %.1f, "
              "quadrant sum %.1f sweeps\n", k, k, name(kernel), reached + 1,
              tau_int(tail(l1)), tau_int(tail(cell)), tau_int(tail(quadrant)));
}

// congenial's chain (y = x + z >= 0, heat-bath, lambda = 1/8: epsilon = 1)
// from the proportional start of the public totals: ||y - x||_1 per cell
// at chosen sweeps, on a smooth table and a sparse one (two thirds zeros).
void congenial_relaxation(std::size_t k, bool sparse) {
  const LatticeTable table = square(k);
  auto data = make_seeded_random_source(3);
  std::vector<std::int64_t> x(k * k);
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = 0; j < k; ++j)
      x[i * k + j] = sparse ? (data->uniform_below(3) == 0 ? std::int64_t(data->uniform_below(200)) : 0)
                            : std::int64_t((i * 7 + j * 3) % 13);
  const std::vector<std::int64_t> start = proportional_table_start({table}, x.data(), k * k, Interrupts{});
  const TableMoves moves({table}, k * k);
  std::vector<std::int64_t> floors(k * k), z(k * k);
  for (std::size_t i = 0; i < k * k; ++i) floors[i] = -x[i], z[i] = start[i] - x[i];
  TableSwapChain chain(moves, SwapChainConfig{laplace_l1(0.125), true}, floors);
  chain.reset_to(z);
  auto rng = make_seeded_random_source(5);
  std::printf("%5zu x %-5zu congenial %-6s ||y-x||_1 per cell:", k, k, sparse ? "sparse" : "smooth");
  std::printf(" start %.2f", double(chain.l1()) / double(k * k));
  for (std::size_t s = 1; s <= 400; ++s) {
    chain.sweep(*rng);
    if (s == 5 || s == 10 || s == 20 || s == 40 || s == 80 || s == 200 || s == 400)
      std::printf("  %zu: %.2f", s, double(chain.l1()) / double(k * k));
  }
  std::printf("\n");
}

double thread_cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// The chain of one integer_laplace release with both margins of a k x k
// table, as lattice_release.cpp runs it: the default sweeps and the sd's,
// pair blocks on `threads` threads, seeded or OS randomness. The figure the
// chain's speed targets are measured by (README.md).
void time_release_chain(std::size_t k, unsigned threads, bool seeded) {
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  const double caller_start = thread_cpu_seconds();
  const TableMoves moves({square(k)}, k * k);
  SwapChainConfig config = config_of(Kernel::pair_blocks);
  config.threads = threads;
  TableSwapChain chain(moves, config);
  auto rng = seeded ? make_seeded_random_source(7) : make_os_random_source();
  const std::uint64_t sweeps = kTablePairBlockSweeps + kTableSdSweeps;
  chain.run(sweeps, *rng, Interrupts{});
  const double s = seconds_since(start);
  const double cpu = double(std::clock() - cpu_start) / CLOCKS_PER_SEC;  // every thread's
  // The calling thread's share: with a free core for the helper, about the
  // wall time (the caller waits for the helper's last job only).
  const double caller = thread_cpu_seconds() - caller_start;
  std::printf("%5zu x %-5zu release chain (%llu sweeps) %u thread%s %-6s %.3f s  %.4f s/sweep  CPU %.3f s (calling "
              "thread %.3f s)\n",
              k, k, static_cast<unsigned long long>(sweeps), threads, threads == 1 ? " " : "s",
              seeded ? "seeded" : "OS", s, s / double(sweeps), cpu, caller);
}

// Random words a sweep of pair blocks reads per cell (one job, so that
// every word comes from the counted source).
class CountingSource final : public RandomSource {
 public:
  explicit CountingSource(std::uint64_t seed) : engine_(seed) {}
  std::uint64_t next_u64() override {
    ++words;
    return engine_.next_u64();
  }
  std::uint64_t words = 0;

 private:
  SeededRandomSource engine_;
};

void count_words(std::size_t k) {
  const TableMoves moves({square(k)}, k * k);
  SwapChainConfig config = config_of(Kernel::pair_blocks);
  config.positions_per_job = std::size_t(1) << 40;
  TableSwapChain chain(moves, config);
  CountingSource rng(7);
  const std::uint64_t sweeps = 4;
  chain.run(sweeps, rng, Interrupts{});
  std::printf("%5zu x %-5zu pair blocks read %.2f random words per cell a sweep\n", k, k,
              double(rng.words) / double(sweeps) / double(k * k));
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  // bench_table_chain release [side]: the release's chain alone.
  if (argc > 1 && std::string(argv[1]) == "release") {
    const std::size_t side = argc > 2 ? std::size_t(std::atoi(argv[2])) : 1000;
    for (const bool seeded : {true, false})
      for (const unsigned threads : {1u, 2u}) time_release_chain(side, threads, seeded);
    count_words(side);
    return 0;
  }
  // bench_table_chain relaxation: the pair blocks' relaxation alone.
  if (argc > 1 && std::string(argv[1]) == "relaxation") {
    for (const std::size_t k : {100, 300}) relaxation(k, Kernel::pair_blocks, k >= 300 ? 600 : 2000);
    return 0;
  }
  const int pairs = argc > 1 ? std::atoi(argv[1]) : 20;
  const std::size_t max_side = argc > 2 ? std::size_t(std::atoi(argv[2])) : 8;
  const Kernel kernels[] = {Kernel::heat_bath, Kernel::pair_blocks, Kernel::metropolis};
  if (std::getenv("SKIP_SWEEPS") == nullptr) {
    for (const std::size_t k : {100, 300, 1000})
      for (const Kernel kernel : kernels) time_sweeps(k, kernel);
    for (const std::size_t k : {100, 300})
      for (const Kernel kernel : kernels) relaxation(k, kernel, k >= 300 ? 600 : 2000);
    for (const std::size_t k : {100, 300})
      for (const bool sparse : {false, true}) congenial_relaxation(k, sparse);
  }
  // The l1 kernels' coupling: meets on small tables only (table_swap_chain.hpp).
  for (const std::size_t k : {4, 6, 8, 10, 30, 100}) {
    if (k > max_side) break;
    for (const Kernel kernel : kernels)
      meeting(k, kernel, pairs, k <= 4 ? 100 : 1000, k <= 6 ? 200000 : 20000);
  }
}
