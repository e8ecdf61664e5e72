// Benchmark: the exact lattice Gaussian on a two-way table with both
// margins (samplers/kronecker_gaussian.hpp). Prints seconds, cells/second
// and peak memory growth for 100 x 100, 300 x 300 and 1000 x 1000 tables at
// sigma2 = 60 and 400 (integer_gaussian at epsilon = 1, delta = 1e-6 on a
// 2 x 2 swap has sigma2 about 113), OS and seeded randomness; checks that
// every row and column of noise sums to zero (exits non-zero otherwise).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "random_source.hpp"
#include "samplers/kronecker_gaussian.hpp"

using namespace invariant_dp;

namespace {

long peak_rss_kb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

void check_margins(const std::vector<std::int64_t>& z, std::size_t r, std::size_t c) {
  for (std::size_t i = 0; i < r; ++i) {
    std::int64_t s = 0;
    for (std::size_t j = 0; j < c; ++j) s += z[i * c + j];
    if (s != 0) { std::fprintf(stderr, "row %zu sums to %lld\n", i, (long long)s); std::exit(1); }
  }
  for (std::size_t j = 0; j < c; ++j) {
    std::int64_t s = 0;
    for (std::size_t i = 0; i < r; ++i) s += z[i * c + j];
    if (s != 0) { std::fprintf(stderr, "column %zu sums to %lld\n", j, (long long)s); std::exit(1); }
  }
}

void run(std::size_t r, std::size_t c, Rational s2, bool os_source) {
  std::vector<std::int64_t> z(r * c);
  std::unique_ptr<RandomSource> rng = os_source ? make_os_random_source() : make_seeded_random_source(1);
  const long rss0 = peak_rss_kb();
  const auto t0 = std::chrono::steady_clock::now();
  sample_table_lattice_gaussian(*rng, s2, {r, c}, z.data(), {});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  check_margins(z, r, c);
  double sq = 0;
  for (auto v : z) sq += double(v) * double(v);
  std::printf("%5zu x %-5zu sigma2=%-4g %-6s %8.3f s %12.0f cells/s  peak RSS +%6.1f MB  mean z^2 %.1f (expect %.1f)\n",
              r, c, s2.to_double(), os_source ? "os" : "seeded", s, double(r * c) / s,
              (peak_rss_kb() - rss0) / 1024.0, sq / double(r * c),
              s2.to_double() * (1 - 1.0 / double(r)) * (1 - 1.0 / double(c)));
}

}  // namespace

int main() {
  for (bool os : {false, true})
    for (Rational s2 : {Rational{60, 1}, Rational{400, 1}})
      for (std::size_t n : {100, 300, 1000}) run(n, n, s2, os);
  return 0;
}
