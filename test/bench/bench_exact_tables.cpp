// Benchmark: the exact samplers of integer_laplace on crossing margins
// (two-way tables with both totals kept):
//  - two_line_table.hpp, l1: 2 x n at n = 23 (the congenial paper's sex x
//    age shape), 10^4 and 10^6, and n x 2 at 10^6, at b = 4 (epsilon = 1:
//    a 2x2 swap has l1 norm 4) and b = 16 (epsilon = 0.25), OS and seeded
//    randomness; the group-total sampler a call needs is built by the first
//    call of its scale and group size and then taken from the thread's
//    cache (composition_total_cache.hpp), as in a backend's later releases;
//  - two_line_table.hpp, lattice Gaussian: 2 x 10^6 at sigma^2 = 60;
//  - three_line_table.hpp: 3 x n at the same n and scales;
//  - row_rejection_table.hpp (the tests' oracle): ms per draw on 4 x 4 and
//    5 x 5 at b = 1, and its measured acceptance beside the estimate;
//  - congenial/two_line_congenial.hpp: the congenial paper's 2 x 23 table
//    at b = 8 (epsilon = 1), and 2 x 10^3, 2 x 10^4 tables of counts 0..9,
//    with proposals a table (the group rejection's cost grows like n^1.5);
//  - for comparison, the chains these replace: integer_laplace's table
//    chain (pair blocks, 60 sweeps) on 2 x 23 and 2 x 10^4 at b = 4, and
//    congenial's (heat-bath swaps with floors, 400 sweeps) on 2 x 23.
// Every draw is checked: zero row and column sums (and y >= 0 for
// congenial). Targets: 2 x 23 under 10 ms; 2 x 10^6 a fraction of the 2 s
// allowed through SQL.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "bench_checks.hpp"
#include "congenial/chain_starts.hpp"
#include "congenial/two_line_congenial.hpp"
#include "mcmc/table_swap_chain.hpp"
#include "random_source.hpp"
#include "samplers/row_rejection_table.hpp"
#include "samplers/three_line_table.hpp"
#include "samplers/two_line_table.hpp"

using namespace invariant_dp;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

LatticeTable table(std::size_t rows, std::size_t columns) {
  LatticeTable t{{rows, columns}, std::vector<std::size_t>(rows * columns)};
  std::iota(t.cells.begin(), t.cells.end(), std::size_t(0));
  return t;
}

void check_margins(const std::vector<std::int64_t>& z, std::size_t rows, std::size_t columns) {
  std::vector<std::int64_t> row(rows, 0), column(columns, 0);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < columns; ++j) {
      row[i] += z[i * columns + j];
      column[j] += z[i * columns + j];
    }
  for (auto s : row)
    if (s != 0) bench_checks::fail("a row of noise does not sum to zero");
  for (auto s : column)
    if (s != 0) bench_checks::fail("a column of noise does not sum to zero");
}

enum class Law { two_line_l1, two_line_gaussian, three_line_l1 };

// Seconds per release of one rows x columns table: the median of `repeats`
// calls, and the first call (cold where no earlier case built the same
// group-total sampler).
void run(Law law, std::size_t rows, std::size_t columns, Rational parameter, const char* parameter_name, bool os,
         int repeats) {
  const std::vector<LatticeTable> tables{table(rows, columns)};
  std::vector<std::int64_t> z(rows * columns);
  std::unique_ptr<RandomSource> rng = os ? make_os_random_source() : make_seeded_random_source(7);
  std::vector<double> times;
  double squares = 0;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    switch (law) {
      case Law::two_line_l1:
        sample_laplace_on_two_line_tables(*rng, parameter, tables, z.size(), z.data(), {});
        break;
      case Law::two_line_gaussian:
        sample_gaussian_on_two_line_tables(*rng, parameter, tables, z.size(), z.data(), {});
        break;
      case Law::three_line_l1:
        sample_laplace_on_three_line_tables(*rng, parameter, tables, z.size(), z.data(), {});
        break;
    }
    times.push_back(seconds_since(t0));
    check_margins(z, rows, columns);
    for (auto v : z) squares += double(v) * double(v);
  }
  const double first = times.front();
  std::sort(times.begin(), times.end());
  const char* name = law == Law::two_line_l1         ? "two-line l1"
                     : law == Law::two_line_gaussian ? "two-line gauss"
                                                     : "three-line l1";
  std::printf("%-15s %zu x %-8zu %-7s=%-6s %-6s median %10.6f s  first %10.6f s  (%d runs)  mean z^2 %.2f\n", name,
              rows, columns, law == Law::two_line_gaussian ? "sigma2" : "b", parameter_name, os ? "os" : "seeded",
              times[times.size() / 2], first, repeats, squares / double(repeats * z.size()));
}

void run_oracle(std::size_t side, Rational scale, int draws) {
  std::vector<std::int64_t> z(side * side);
  auto rng = make_seeded_random_source(11);
  const auto t0 = std::chrono::steady_clock::now();
  RowRejectionSampler oracle(scale, side, side);
  const double setup = seconds_since(t0);
  std::uint64_t trials = 0;
  const auto t1 = std::chrono::steady_clock::now();
  for (int d = 0; d < draws; ++d) {
    oracle.sample(*rng, z.data(), {}, &trials);
    check_margins(z, side, side);
  }
  const double s = seconds_since(t1);
  std::printf(
      "row rejection   %zu x %zu b=%.2f: setup %.3f ms, %.3f ms a draw (%d draws); acceptance %.4g "
      "(estimate %.4g)\n",
      side, side, scale.to_double(), 1e3 * setup, 1e3 * s / draws, draws, double(draws) / double(trials),
      oracle.acceptance());
}

void run_congenial(std::size_t n, Rational b, const std::vector<std::int64_t>& x, int repeats) {
  const std::vector<LatticeTable> tables{table(2, n)};
  std::vector<std::int64_t> y(2 * n), z(2 * n);
  auto rng = make_seeded_random_source(13);
  std::uint64_t proposals = 0;
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto failed =
        sample_congenial_on_two_line_tables(x.data(), tables, 2 * n, b, 4096, *rng, {}, y.data(), proposals);
    times.push_back(seconds_since(t0));
    if (!failed.empty()) bench_checks::fail("a congenial table exhausted its budget");
    for (std::size_t i = 0; i < 2 * n; ++i) {
      if (y[i] < 0) bench_checks::fail("a congenial count is negative");
      z[i] = y[i] - x[i];
    }
    check_margins(z, 2, n);
  }
  std::sort(times.begin(), times.end());
  std::printf("congenial       2 x %-8zu b=%-6.2f median %10.6f s  (%d runs)  %.1f proposals a table\n", n,
              b.to_double(), times[times.size() / 2], repeats, double(proposals) / repeats);
}

// The chains the exact samplers replace, from their release defaults.
void run_chain(std::size_t n, double lambda, std::uint64_t sweeps, const std::vector<std::int64_t>& floors,
               int repeats) {
  const std::vector<LatticeTable> tables{table(2, n)};
  const mcmc::TableMoves moves(tables, 2 * n);
  mcmc::SwapChainConfig config{mcmc::laplace_l1(lambda), true};
  config.pair_blocks = floors.empty();
  mcmc::TableSwapChain chain(moves, config, floors);
  std::vector<std::int64_t> start(2 * n, 0);
  if (!floors.empty()) {
    std::vector<std::int64_t> x(2 * n);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = -floors[i];
    const auto proportional = proportional_table_start(tables, x.data(), x.size(), {});
    for (std::size_t i = 0; i < x.size(); ++i) start[i] = proportional[i] - x[i];
  }
  auto rng = make_seeded_random_source(17);
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < repeats; ++r) {
    chain.reset_to(start);
    chain.run(sweeps, *rng, {});
    check_margins(chain.z(), 2, n);
  }
  std::printf("%-15s 2 x %-8zu %llu sweeps: %10.6f s a release\n", floors.empty() ? "laplace chain" : "congenial chain",
              n, (unsigned long long)sweeps, seconds_since(t0) / repeats);
}

}  // namespace

int main() {
  const Rational four{4, 1}, sixteen{16, 1};
  for (bool os : {false, true}) {
    for (auto [b, name] : {std::pair<Rational, const char*>{four, "4"}, {sixteen, "16"}}) {
      run(Law::two_line_l1, 2, 23, b, name, os, 201);
      run(Law::two_line_l1, 2, 10000, b, name, os, 21);
      run(Law::two_line_l1, 2, 1000000, b, name, os, 5);
    }
  }
  run(Law::two_line_l1, 1000000, 2, four, "4", false, 5);
  run(Law::two_line_gaussian, 2, 23, Rational{60, 1}, "60", false, 201);
  run(Law::two_line_gaussian, 2, 1000000, Rational{60, 1}, "60", false, 5);
  for (auto [b, name] : {std::pair<Rational, const char*>{four, "4"}, {sixteen, "16"}}) {
    run(Law::three_line_l1, 3, 23, b, name, false, 201);
    run(Law::three_line_l1, 3, 10000, b, name, false, 21);
    run(Law::three_line_l1, 3, 1000000, b, name, false, 5);
  }
  run(Law::three_line_l1, 1000000, 3, four, "4", true, 5);
  run_oracle(4, Rational{1, 1}, 10000);
  run_oracle(5, Rational{1, 1}, 5000);
  run_oracle(5, Rational{4, 5}, 5000);
  const std::vector<std::int64_t> sex_by_age = {8, 6, 3, 6, 4, 4, 4, 8, 5, 7, 7,  6, 1, 5, 4, 4,  9, 6, 2, 8, 8, 8, 7,
                                                3, 4, 5, 8, 6, 4, 5, 5, 5, 6, 10, 7, 3, 2, 5, 11, 6, 4, 7, 4, 5, 3, 8};
  run_congenial(23, Rational{8, 1}, sex_by_age, 201);
  for (std::size_t n : {1000, 10000}) {
    std::vector<std::int64_t> x(2 * n);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::int64_t((i * 7919) % 10);
    run_congenial(n, Rational{8, 1}, x, n < 5000 ? 21 : 5);
  }
  run_chain(23, 0.25, 60, {}, 201);
  run_chain(10000, 0.25, 60, {}, 3);
  std::vector<std::int64_t> floors(46);
  for (std::size_t i = 0; i < 46; ++i) floors[i] = -sex_by_age[i];
  run_chain(23, 1.0 / 8, 400, floors, 51);
  return 0;
}
