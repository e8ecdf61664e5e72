// Benchmark: discrete Laplace conditioned on zero group sums
// (samplers/conditioned_laplace.hpp). Prints seconds and cells/second for
// 1M cells in 50 groups, one group of 100k cells and (a stress case for the
// per-group cost) 1M cells in 500k pairs, at b = 2/0.192 (the Census county
// example, epsilon = 0.192) and b = 2 (epsilon = 1), with the OS random
// source and the seeded one; then, seeded, one group of 1M cells, 1M cells in
// groups of 1413 distinct sizes (no squeeze: one envelope per size) and
// b = 10^6 (totals ~ 10^6 per cell: bars drawn through the hash set).
// Target: under 2 s per release of 1M cells.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench_checks.hpp"
#include "random_source.hpp"
#include "samplers/conditioned_laplace.hpp"

using namespace invariant_dp;

namespace {

// Cell i belongs to group i mod n_groups (interleaved, like unsorted input).
std::vector<std::uint32_t> round_robin(std::size_t cells, std::size_t groups) {
  std::vector<std::uint32_t> g(cells);
  for (std::size_t i = 0; i < cells; ++i) g[i] = static_cast<std::uint32_t>(i % groups);
  return g;
}

// Groups of sizes 2, 3, ..., until the cells run out (every size distinct).
std::vector<std::uint32_t> distinct_sizes(std::size_t cells, std::size_t& groups) {
  std::vector<std::uint32_t> g;
  groups = 0;
  for (std::size_t size = 2; g.size() + size <= cells; ++size, ++groups) g.insert(g.end(), size, groups);
  while (g.size() < cells) g.push_back(static_cast<std::uint32_t>(groups));
  ++groups;
  return g;
}

void run(const char* name, std::size_t cells, std::size_t groups, Rational b, const char* b_name,
         bool os_source) {
  const auto group_of = groups == 0 ? distinct_sizes(cells, groups) : round_robin(cells, groups);
  std::vector<std::int64_t> z(cells);
  std::unique_ptr<RandomSource> rng = os_source ? make_os_random_source() : make_seeded_random_source(1);
  const auto t0 = std::chrono::steady_clock::now();
  sample_laplace_with_zero_group_sums(*rng, b, {group_of.data(), cells, groups}, z.data(), {});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  bench_checks::assert_zero_group_sums(z, group_of.data(), groups);
  double sq = 0;
  for (auto v : z) sq += double(v) * double(v);
  std::printf("%-22s b=%-9s %-6s %9.3f s %12.0f cells/s   mean z^2 %.2f\n", name, b_name,
              os_source ? "os" : "seeded", s, cells / s, sq / cells);
}

}  // namespace

int main() {
  const Rational census{125, 12}, two{2, 1};
  for (bool os : {true, false}) {
    for (auto [b, b_name] : {std::pair<Rational, const char*>{census, "2/0.192"}, {two, "2"}}) {
      run("1M cells, 50 groups", 1000000, 50, b, b_name, os);
      run("100k cells, 1 group", 100000, 1, b, b_name, os);
      run("1M cells, 500k pairs", 1000000, 500000, b, b_name, os);
    }
  }
  run("1M cells, 1 group", 1000000, 1, census, "2/0.192", false);
  run("1M cells, sizes 2..1414", 1000000, 0, census, "2/0.192", false);
  run("1M cells, 50 groups", 1000000, 50, Rational{1000000, 1}, "10^6", false);
  run("100k cells, 1 group", 100000, 1, Rational{1000000, 1}, "10^6", false);
  return 0;
}
