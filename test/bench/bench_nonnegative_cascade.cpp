// Benchmark: the non-negative cascade (src/core/hierarchy/nonnegative_cascade*).
// Prints, each case in its own child process (so peak RSS is its own):
//   * the national shape of test/support/national_tree.hpp (50 states,
//     3,143 counties, 85,000 tracts, 240,000 block groups, 8,000,000 blocks),
//     states exact, replace_one, the default split (one variance for every
//     level), at several epsilons: the tree, the calibration, the size check,
//     the release's phases (messages + exact draw + sums, wall and CPU, on
//     the threads it prints; the bias and variance of every node at the
//     released counts) and peak RSS; target: the
//     draw with room for the SQL path's ~25 s and ~1.4 GB inside 60 s and 4 GB;
//   * a county-sized tree (27 tracts, 76 block groups, 2,500 blocks): the
//     same phases; target: milliseconds;
//   * the refusal: the size check's verdict and its time at epsilons too
//     small for the national tree.
// Counts: a third of the blocks empty, the rest spread over 1..119 (mean
// about 40, like the U.S. blocks). Every release is verified (every node
// >= 0, the sum of its children, the states exact) or the benchmark exits 1.
//   * the U.S.-shaped slice of docs/comparisons/data_blocks.sql (2 states,
//     23,415 blocks, counts log-normal up to a few thousand), states exact:
//     the draw's cost and its attempts as epsilon falls;
//   * zeros: a tree of big zero-heavy sibling groups (4 parents, 40 groups
//     of about 150 leaves, half the leaves 0, the rest log-normal up to a
//     few thousand), nothing exact, and a flat one (20,000 leaves under 313
//     parents, counts 0..2, nothing exact): attempts and time as epsilon
//     falls, down to what the size check admits.
// Usage: bench_nonnegative_cascade [national|county|slice|zeros|flat|refusal] [epsilon ...]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_checks.hpp"
#include "bench_timing.hpp"
#include "errors.hpp"
#include "hierarchy/nonnegative_cascade.hpp"
#include "hierarchy/rollup.hpp"
#include "national_tree.hpp"
#include "random_source.hpp"

using namespace invariant_dp;
using namespace invariant_dp::hierarchy;

namespace {

using namespace bench_timing;

// Counts like docs/comparisons/data_blocks.sql's: a third of the blocks
// empty, the others log-normal around 39 people (up to a few thousand).
std::vector<std::int64_t> slice_counts(std::size_t n) {
  std::vector<std::int64_t> counts(n);
  std::mt19937_64 gen(715);
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> z(0, 1);
  for (auto& x : counts) x = u(gen) < 1.0 / 3 ? 0 : std::llround(58 * std::exp(1.2 * z(gen) - 0.72));
  return counts;
}

// Half the leaves empty, the others log-normal around 60 (up to a few
// thousand).
std::vector<std::int64_t> zero_heavy_counts(std::size_t n) {
  std::vector<std::int64_t> counts(n);
  std::mt19937_64 gen(2027);
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> z(0, 1);
  for (auto& x : counts) x = u(gen) < 0.5 ? 0 : std::llround(60 * std::exp(1.3 * z(gen) - 0.85));
  return counts;
}

std::vector<std::int64_t> synthetic_counts(std::size_t n) {
  std::vector<std::int64_t> counts(n);
  std::uint64_t state = 2020;
  for (auto& x : counts) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const std::uint64_t h = state >> 33;
    x = h % 3 == 0 ? 0 : static_cast<std::int64_t>(1 + (h >> 2) % 119);
  }
  return counts;
}

// A tree of given level sizes (the root first), children spread as in the
// national geography.
HierarchyTree tree_of_sizes(const std::vector<std::size_t>& sizes, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<std::int64_t> parent{-1};
  std::int64_t level_start = 0;
  for (std::size_t d = 1; d < sizes.size(); ++d) {
    const auto per_parent = bench::spread(sizes[d - 1], sizes[d], gen);
    for (std::size_t p = 0; p < per_parent.size(); ++p)
      parent.insert(parent.end(), per_parent[p], level_start + static_cast<std::int64_t>(p));
    level_start += static_cast<std::int64_t>(sizes[d - 1]);
  }
  return HierarchyTree::from_parents(parent, Interrupts());
}

// The county-sized tree: 1 county, 27 tracts, 76 block groups, 2,500 blocks.
HierarchyTree county_tree() { return tree_of_sizes({1, 27, 76, 2500}, 2021); }

// The U.S.-shaped slice of docs/comparisons/data_blocks.sql: 2 states, 10
// counties, 237 tracts, 711 block groups, 23,415 blocks.
HierarchyTree slice_tree() { return tree_of_sizes({1, 2, 10, 237, 711, 23415}, 715); }

void check(const HierarchyTree& tree, const std::vector<std::int64_t>& counts, const NonnegativeLaw& law,
           const std::vector<std::int64_t>& nodes) {
  const auto truth = rollup(tree, tree.to_leaf_order(counts.data(), Interrupts()), Interrupts());
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
    if (nodes[v] < 0) bench_checks::fail("a released count is negative");
    if (law.pinned(v) && nodes[v] != truth[v]) bench_checks::fail("an exact total moved");
    if (tree.is_leaf(v)) continue;
    std::int64_t sum = 0;
    for (std::uint32_t c = tree.first_child(v); c < tree.child_end(v); ++c) sum += nodes[c];
    if (sum != nodes[v]) bench_checks::fail("a node is not the sum of its children");
  }
}

void run_case(const char* name, const HierarchyTree& tree, double t_tree, double epsilon, bool states_exact,
              bool with_moments, const std::vector<std::int64_t>& counts) {
  std::vector<std::uint32_t> fixed;
  if (states_exact)
    for (std::uint32_t v = tree.level_begin(1); v < tree.level_end(1); ++v) fixed.push_back(v);
  auto start = Clock::now();
  const auto calibrated = calibrate_nonnegative_cascade(tree, std::vector<double>(tree.height() + 1, 1.0), fixed,
                                                        epsilon, {Neighbours::ReplaceOne}, Interrupts());
  const double t_calibrate = seconds_since(start);
  start = Clock::now();
  const NonnegativeSize size = nonnegative_cascade_size(tree, calibrated.law, {}, Interrupts());
  const double t_size = seconds_since(start);
  auto rng = make_seeded_random_source(1);
  NonnegativeReleaseOptions options;
  options.with_moments = false;
  start = Clock::now();
  double cpu = cpu_seconds();
  const auto release = release_nonnegative_cascade(tree, calibrated, counts.data(), *rng, Interrupts(), options);
  const double t_draw = seconds_since(start), cpu_draw = cpu_seconds() - cpu;
  const double rss_draw = peak_rss_mb();
  check(tree, counts, calibrated.law, release.node_values);
  double t_moments = 0, cpu_moments = 0;
  if (with_moments) {
    std::vector<std::int64_t> released_leaves(tree.n_leaves());
    for (std::uint32_t l = 0; l < tree.n_leaves(); ++l) released_leaves[l] = release.node_values[tree.leaf_node(l)];
    start = Clock::now();
    cpu = cpu_seconds();
    const auto moments = nonnegative_cascade_moments(tree, calibrated.law, released_leaves.data(), Interrupts());
    t_moments = seconds_since(start);
    cpu_moments = cpu_seconds() - cpu;
  }
  std::printf("%s, epsilon %g (level epsilon %.4g, base %.4g): tree %.3f s, calibration %.3f s, size check %.3f s "
              "(up to %.0f MB of messages, %.0f MB scratch, %.3g operations, widest window %zu), draw (messages + "
              "exact draw + sums) %.3f s (cpu %.3f s, %llu attempt(s), %llu values from a tail), peak RSS %.0f "
              "MB, %u thread(s)",
              name, epsilon, calibrated.law.level_epsilon(tree.height()), calibrated.calibration.base_epsilon, t_tree,
              t_calibrate, t_size, size.pool_bytes / 1048576, size.scratch_bytes / 1048576, size.operations,
              size.largest_window, t_draw, cpu_draw, static_cast<unsigned long long>(release.stats.attempts),
              static_cast<unsigned long long>(release.stats.tail_draws), rss_draw,
              nonnegative_threads({}, tree.n_nodes()));
  if (with_moments)
    std::printf("; bias and variance of every node %.3f s (cpu %.3f s), peak RSS %.0f MB", t_moments, cpu_moments,
                peak_rss_mb());
  std::printf("\n");
}

void national_case(double epsilon) {
  const auto start = Clock::now();
  const auto tree = bench::national_tree();
  run_case("national 50/3143/85000/240000/8000000 (states exact)", tree, seconds_since(start), epsilon, true, true,
           synthetic_counts(tree.n_leaves()));
}

void county_case(double epsilon) {
  const auto start = Clock::now();
  const auto tree = county_tree();
  run_case("county 27/76/2500", tree, seconds_since(start), epsilon, false, true, synthetic_counts(tree.n_leaves()));
}

void slice_case(double epsilon) {
  const auto start = Clock::now();
  const auto tree = slice_tree();
  run_case("slice 2/10/237/711/23415 (states exact)", tree, seconds_since(start), epsilon, true, false,
           slice_counts(tree.n_leaves()));
}

void zeros_case(double epsilon) {
  const auto start = Clock::now();
  const auto tree = tree_of_sizes({1, 4, 40, 6000}, 2027);
  run_case("zeros 4/40/6000 (half the leaves 0)", tree, seconds_since(start), epsilon, false, false,
           zero_heavy_counts(tree.n_leaves()));
}

// 20,000 leaves under 313 parents (i / 64), counts i mod 3, nothing exact.
void flat_case(double epsilon) {
  const auto start = Clock::now();
  std::vector<std::int64_t> parent{-1};
  for (int a = 0; a < 313; ++a) parent.push_back(0);
  std::vector<std::int64_t> counts;
  for (int i = 1; i <= 20000; ++i) {
    parent.push_back(1 + i / 64);
    counts.push_back(i % 3);
  }
  const auto tree = HierarchyTree::from_parents(parent, Interrupts());
  run_case("flat 313/20000 (counts 0..2)", tree, seconds_since(start), epsilon, false, false, counts);
}

void refusal_case(double epsilon) {
  const auto tree = bench::national_tree();
  std::vector<std::uint32_t> fixed;
  for (std::uint32_t v = tree.level_begin(1); v < tree.level_end(1); ++v) fixed.push_back(v);
  const auto calibrated = calibrate_nonnegative_cascade(tree, std::vector<double>(tree.height() + 1, 1.0), fixed,
                                                        epsilon, {Neighbours::ReplaceOne}, Interrupts());
  const auto start = Clock::now();
  const NonnegativeSize size = nonnegative_cascade_size(tree, calibrated.law, {}, Interrupts());
  try {
    require_nonnegative_cascade_fits(size);
    std::printf("national, epsilon %g: fits (%.0f MB of messages, %.3g operations), decided in %.3f s\n", epsilon,
                size.pool_bytes / 1048576, size.operations, seconds_since(start));
  } catch (const TooLarge& e) {
    std::printf("national, epsilon %g: refused in %.3f s (%s: %s)\n", epsilon, seconds_since(start), e.what(),
                e.detail().c_str());
  }
}

template <class F>
void in_child(F f) {
  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    try {
      f();
    } catch (const Error& e) {
      std::fprintf(stderr, "error: %s (%s)\n", e.what(), e.detail().c_str());
      _exit(1);
    }
    std::fflush(stdout);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  std::vector<double> epsilons;
  for (int i = 2; i < argc; ++i) epsilons.push_back(std::atof(argv[i]));
  if (only.empty() || only == "county")
    for (double eps : epsilons.empty() ? std::vector<double>{1, 4, 16} : epsilons) in_child([=] { county_case(eps); });
  if (only.empty() || only == "slice")
    for (double eps : epsilons.empty() ? std::vector<double>{1, 2, 4} : epsilons) in_child([=] { slice_case(eps); });
  if (only.empty() || only == "zeros")
    for (double eps : epsilons.empty() ? std::vector<double>{16, 4, 1, 0.5} : epsilons) in_child([=] { zeros_case(eps); });
  if (only.empty() || only == "flat")
    for (double eps : epsilons.empty() ? std::vector<double>{4, 1, 0.3} : epsilons) in_child([=] { flat_case(eps); });
  if (only.empty() || only == "national")
    for (double eps : epsilons.empty() ? std::vector<double>{4, 8, 17} : epsilons)
      in_child([=] { national_case(eps); });
  if (only.empty() || only == "refusal")
    for (double eps : epsilons.empty() ? std::vector<double>{0.25, 1} : epsilons) in_child([=] { refusal_case(eps); });
  return 0;
}
