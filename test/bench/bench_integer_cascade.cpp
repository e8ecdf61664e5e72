// Benchmark: the exact integer cascade (src/core/hierarchy/integer_cascade*).
// Prints, each case in its own child process (so peak RSS is its own):
//   * 2^24 leaves of a perfect binary tree as integers: tree, calibration
//     (eps = 1, delta = 1e-9, add_remove), sampler set-up (split classes,
//     correction thresholds, CDF tables), noise, release (counts + noise,
//     every node the sum of its children); target < 3 s for tree + noise +
//     release, memory linear in nodes;
//   * a national-scale shape: 50 states, 3,143 counties, 85,000 tracts,
//     240,000 block groups, 8,000,000 blocks (a synthetic tree with skewed
//     fan-outs), calibrated at eps = 1, delta = 1e-9, replace_one, with and
//     without exact state totals; target well under 60 s for the draw;
//   * noise time for n = 2^10 .. 2^24 and its log-log slope (~1);
//   * limits: the smallest uniform variance at which the exact sampler runs
//     on each shape, and the calibrated variance at epsilon 0.5 .. 20.
// Every release is verified (every node the exact sum of its children,
// exact totals kept) or the benchmark exits 1.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench_checks.hpp"
#include "bench_timing.hpp"
#include "errors.hpp"
#include "hierarchy/integer_cascade.hpp"
#include "hierarchy/rollup.hpp"
#include "large_buffer.hpp"
#include "national_tree.hpp"
#include "random_source.hpp"

using namespace invariant_dp;
using namespace invariant_dp::hierarchy;

namespace {

using namespace bench_timing;

void check_consistent(const HierarchyTree& tree, const std::vector<std::int64_t>& nodes) {
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
    if (tree.is_leaf(v)) continue;
    std::int64_t sum = 0;
    for (std::uint32_t c = tree.first_child(v); c < tree.child_end(v); ++c) sum += nodes[c];
    if (sum != nodes[v]) bench_checks::fail("a node is not the sum of its children");
  }
}

std::vector<std::int64_t> synthetic_counts(std::size_t n) {
  std::vector<std::int64_t> counts(n);
  for (std::size_t i = 0; i < n; ++i) counts[i] = static_cast<std::int64_t>((i * 7919) % 300);
  return counts;
}

void print_law(const IntegerCascadeCalibration& c, const IntegerCascadeSampler& sampler) {
  std::printf("  calibrated: rho %.4g, level variances %.4g .. %.4g, acceptance bound %.17g, variance deficit "
              "bound %.3g, %llu of %llu coordinates from tables (%.1f MB)\n",
              c.privacy.rho, *std::min_element(c.privacy.level_variance.begin(), c.privacy.level_variance.end()),
              *std::max_element(c.privacy.level_variance.begin(), c.privacy.level_variance.end()), c.acceptance_bound,
              c.variance_deficit_bound, static_cast<unsigned long long>(sampler.table_coordinates()),
              static_cast<unsigned long long>(sampler.splits().n_coordinates()), sampler.table_bytes() / 1e6);
}

void binary_case() {
  const unsigned k = 24;
  auto start = Clock::now();
  const auto tree = HierarchyTree::perfect_binary(k, Interrupts());
  const double t_tree = seconds_since(start);
  start = Clock::now();
  const auto calibrated = calibrate_integer_cascade_epsilon_delta(tree, CascadeLaw::uniform(tree, 1.0), 1.0, 1e-9,
                                                                  Neighbours::AddRemove, Interrupts());
  const double t_calibrate = seconds_since(start);
  start = Clock::now();
  const IntegerCascadeSampler sampler(tree, calibrated.law, Interrupts());
  const double t_setup = seconds_since(start);
  auto rng = make_seeded_random_source(1);
  auto nodes = zeroed_large_buffer<std::int64_t>(tree.n_nodes());
  start = Clock::now();
  const std::uint64_t attempts = sampler.sample(*rng, nodes.data(), Interrupts());
  const double t_noise = seconds_since(start);
  check_consistent(tree, nodes);
  nodes.clear();
  nodes.shrink_to_fit();
  const auto counts = synthetic_counts(tree.n_leaves());
  start = Clock::now();
  const double cpu_start = cpu_seconds();
  const auto release = release_integer_cascade(tree, calibrated.law, counts.data(), *rng, Interrupts());
  const double t_release = seconds_since(start), cpu_release = cpu_seconds() - cpu_start;
  check_consistent(tree, release.node_values);
  std::printf("binary 2^%u leaves (%zu nodes): tree %.3f s, calibration %.3f s, sampler set-up %.3f s, "
              "noise %.3f s (%llu attempt), release (set-up + noise + counts + sums) %.3f s (cpu %.3f s), "
              "tree + release %.3f s, peak RSS %.0f MB\n",
              k, tree.n_nodes(), t_tree, t_calibrate, t_setup, t_noise, static_cast<unsigned long long>(attempts),
              t_release, cpu_release, t_tree + t_release, peak_rss_mb());
  print_law(calibrated.calibration, sampler);
}

using bench::national_tree;

void national_case(bool states_exact) {
  auto start = Clock::now();
  const auto tree = national_tree();
  const double t_tree = seconds_since(start);
  CascadeLaw shape = CascadeLaw::uniform(tree, 1.0);
  if (states_exact) {
    std::vector<std::uint32_t> states;
    for (std::uint32_t v = tree.level_begin(1); v < tree.level_end(1); ++v) states.push_back(v);
    shape = shape.conditioned_on(tree, states);
  }
  start = Clock::now();
  const auto calibrated =
      calibrate_integer_cascade_epsilon_delta(tree, shape, 1.0, 1e-9, Neighbours::ReplaceOne, Interrupts());
  const double t_calibrate = seconds_since(start);
  start = Clock::now();
  const IntegerCascadeSampler sampler(tree, calibrated.law, Interrupts());
  const double t_setup = seconds_since(start);
  auto rng = make_seeded_random_source(2);
  const auto counts = synthetic_counts(tree.n_leaves());
  start = Clock::now();
  const double cpu_start = cpu_seconds();
  const auto release = release_integer_cascade(tree, calibrated.law, counts.data(), *rng, Interrupts());
  const double t_release = seconds_since(start), cpu_release = cpu_seconds() - cpu_start;
  check_consistent(tree, release.node_values);
  if (states_exact) {
    const auto exact = rollup(tree, tree.to_leaf_order(counts.data(), Interrupts()), Interrupts());
    for (std::uint32_t v = 0; v < tree.level_end(1); ++v)
      if (release.node_values[v] != exact[v]) bench_checks::fail("a state total moved");
  }
  std::printf("national 50/3143/85000/240000/8000000%s (%zu nodes, %u classes): tree %.3f s, calibration %.3f s, "
              "sampler set-up %.3f s, release (set-up + noise + counts + sums) %.3f s (cpu %.3f s), peak RSS "
              "%.0f MB\n",
              states_exact ? " (states exact)" : "", tree.n_nodes(),
              static_cast<unsigned>(sampler.splits().classes().size()), t_tree, t_calibrate, t_setup, t_release,
              cpu_release, peak_rss_mb());
  print_law(calibrated.calibration, sampler);
}

// The smallest uniform variance at which the exact sampler runs on a tree
// (acceptance bound >= 1/2), in steps of 1/64, and the calibrated variance
// at several epsilons (delta = 1e-9, replace_one).
void limits_case(const char* name, const HierarchyTree& tree) {
  const IntegerSplits unit(tree, CascadeLaw::uniform(tree, 1.0), Interrupts());
  const auto groups = coordinate_groups(unit);
  auto applies_at = [&](std::uint64_t k) {  // variance k / 64
    auto scaled = groups;
    for (auto& g : scaled) {
      g.s2_num *= k;
      g.s2_den *= 64;
    }
    return product_acceptance_bound({scaled}) >= 0.5;
  };
  std::uint64_t lo = 1, hi = 64 * 16;
  while (hi - lo > 1) {
    const std::uint64_t mid = (lo + hi) / 2;
    (applies_at(mid) ? hi : lo) = mid;
  }
  std::printf("%s: exact sampler applies from uniform variance %.4f (%.4f does not)\n", name, hi / 64.0, lo / 64.0);
  for (double eps : {0.5, 1.0, 2.0, 5.0, 10.0, 20.0}) {
    try {
      const auto c = calibrate_integer_cascade_epsilon_delta(tree, CascadeLaw::uniform(tree, 1.0), eps, 1e-9,
                                                             Neighbours::ReplaceOne, Interrupts());
      std::printf("  eps %-4g: variance %.4g, acceptance bound %.6g, variance deficit bound %.3g\n", eps,
                  c.law.level_variance(0), c.calibration.acceptance_bound, c.calibration.variance_deficit_bound);
    } catch (const OutOfRange&) {
      std::printf("  eps %-4g: refused (noise too small for the exact sampler)\n", eps);
    }
  }
}

void scaling_case() {
  auto rng = make_seeded_random_source(3);
  std::vector<double> log_n, log_t;
  std::printf("noise time by n (uniform variance 100, best of 3):\n");
  for (unsigned k = 10; k <= 24; k += 2) {
    const auto tree = HierarchyTree::perfect_binary(k, Interrupts());
    const CascadeLaw law = CascadeLaw::uniform(tree, 100.0);
    const IntegerCascadeSampler sampler(tree, law, Interrupts());
    auto nodes = zeroed_large_buffer<std::int64_t>(tree.n_nodes());
    double best = 1e300;
    for (int r = 0; r < (k <= 20 ? 3 : 1); ++r) {
      const auto start = Clock::now();
      sampler.sample(*rng, nodes.data(), Interrupts());
      best = std::min(best, seconds_since(start));
    }
    std::printf("  n = 2^%-2u %10.6f s  %6.1f ns/leaf\n", k, best, best * 1e9 / std::ldexp(1.0, k));
    log_n.push_back(k * std::log(2.0));
    log_t.push_back(std::log(best));
  }
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < log_n.size(); ++i) mx += log_n[i] / log_n.size(), my += log_t[i] / log_n.size();
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < log_n.size(); ++i)
    sxy += (log_n[i] - mx) * (log_t[i] - my), sxx += (log_n[i] - mx) * (log_n[i] - mx);
  std::printf("log-log slope of time against n (2^10..2^24): %.3f\n", sxy / sxx);
}

template <class F>
void in_child(F f) {
  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    f();
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
  if (only.empty() || only == "binary") in_child(binary_case);
  if (only.empty() || only == "national") {
    in_child([] { national_case(false); });
    in_child([] { national_case(true); });
  }
  if (only.empty() || only == "scaling") in_child(scaling_case);
  if (only.empty() || only == "limits") {
    in_child([] { limits_case("binary 2^24", HierarchyTree::perfect_binary(24, Interrupts())); });
    in_child([] { limits_case("national", national_tree()); });
  }
  return 0;
}
