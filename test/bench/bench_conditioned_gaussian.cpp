// Benchmark: discrete Gaussian conditioned on zero group sums
// (samplers/conditioned_gaussian.hpp). Prints seconds and cells/second for
// 1M cells in 50 groups and one group of 100k cells at sigma2 = 60 and 400,
// with the OS random source and the seeded one, and the mean of z^2 (about
// sigma2 (1 - 1/k)).
#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include "bench_checks.hpp"
#include "random_source.hpp"
#include "samplers/conditioned_gaussian.hpp"

using namespace invariant_dp;

namespace {

// Cell i belongs to group i mod n_groups (interleaved, like unsorted input).
void run(const char* name, std::size_t cells, std::size_t groups, Rational s2, bool os_source) {
  std::vector<std::uint32_t> g(cells);
  for (std::size_t i = 0; i < cells; ++i) g[i] = static_cast<std::uint32_t>(i % groups);
  std::vector<std::int64_t> z(cells);
  std::unique_ptr<RandomSource> rng = os_source ? make_os_random_source() : make_seeded_random_source(1);
  const auto t0 = std::chrono::steady_clock::now();
  sample_gaussian_with_zero_group_sums(*rng, s2, {g.data(), cells, groups}, z.data(), {});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  bench_checks::assert_zero_group_sums(z, g.data(), groups);
  double sq = 0;
  for (auto v : z) sq += double(v) * double(v);
  std::printf("%-22s sigma2=%-5g %-6s %9.3f s %12.0f cells/s   mean z^2 %.2f\n", name, s2.to_double(),
              os_source ? "os" : "seeded", s, cells / s, sq / cells);
}

}  // namespace

int main() {
  for (bool os : {true, false}) {
    for (Rational s2 : {Rational{60, 1}, Rational{400, 1}}) {
      run("1M cells, 50 groups", 1000000, 50, s2, os);
      run("100k cells, 1 group", 100000, 1, s2, os);
    }
  }
  return 0;
}
