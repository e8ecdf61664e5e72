// Benchmarks verify what they timed: a fast release that breaks its
// invariants is a failure, not a figure. Each check prints what failed and
// exits non-zero.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace invariant_dp::bench_checks {

[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "benchmark check failed: %s\n", what);
  std::exit(1);
}

// Every group of the partition sums to exactly zero.
inline void assert_zero_group_sums(const std::vector<std::int64_t>& z, const std::uint32_t* group_of_cell,
                                   std::size_t n_groups) {
  std::vector<std::int64_t> sums(n_groups, 0);
  for (std::size_t i = 0; i < z.size(); ++i) sums[group_of_cell[i]] += z[i];
  for (std::int64_t s : sums)
    if (s != 0) fail("a group's noise does not sum to zero");
}

// Row and column totals of a rows x cols table (row-major) equal the true
// ones to 1e-9 relative.
inline void assert_two_way_margins(const std::vector<double>& released, const std::vector<std::int64_t>& truth,
                                   std::size_t rows, std::size_t cols, bool check_columns) {
  auto close = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); };
  for (std::size_t r = 0; r < rows; ++r) {
    double got = 0, want = 0;
    for (std::size_t c = 0; c < cols; ++c) got += released[r * cols + c], want += double(truth[r * cols + c]);
    if (!close(got, want)) fail("a row total was not kept");
  }
  for (std::size_t c = 0; check_columns && c < cols; ++c) {
    double got = 0, want = 0;
    for (std::size_t r = 0; r < rows; ++r) got += released[r * cols + c], want += double(truth[r * cols + c]);
    if (!close(got, want)) fail("a column total was not kept");
  }
}

}  // namespace invariant_dp::bench_checks
