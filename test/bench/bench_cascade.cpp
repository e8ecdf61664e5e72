// Benchmark: Cascade Sampling (src/core/hierarchy). Prints, each case in its
// own child process (so peak RSS is its own):
//   * 2^24 leaves of a perfect binary tree: tree, noise, rollup; target < 3 s;
//   * a geography of 50 states, 3,000 counties, 70,000 tracts from cell keys,
//     calibrated at eps = 1, delta = 1e-9, replace_one, states exact or not;
//   * noise time for n = 2^10 .. 2^24 and the fitted log-log slope (~1).
// Every timed release is verified (each node bit-exactly the fold of its
// children; exact totals kept); a failed check exits non-zero.
// `bench_cascade --compare k1 k2 ...` prints "k seconds" per depth for
// cascade_compare.sh (noise only, best of 3).
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
#include "table_builder.hpp"
#include "hierarchy/cascade_calibration.hpp"
#include "hierarchy/cascade_margins.hpp"
#include "hierarchy/cascade_sampler.hpp"
#include "hierarchy/hierarchy_tree.hpp"
#include "hierarchy/rollup.hpp"
#include "invariants/cell_keys.hpp"
#include "random_source.hpp"

using namespace invariant_dp;
using namespace invariant_dp::hierarchy;

namespace {

using namespace bench_timing;

void check_consistent(const HierarchyTree& tree, const std::vector<double>& nodes) {
  for (std::uint32_t v = 0; v < tree.n_nodes(); ++v) {
    if (tree.is_leaf(v)) continue;
    double sum = nodes[tree.first_child(v)];
    for (std::uint32_t c = tree.first_child(v) + 1; c < tree.child_end(v); ++c) sum += nodes[c];
    if (sum != nodes[v]) bench_checks::fail("a node is not the fold of its children");
  }
}

double noise_seconds(const HierarchyTree& tree, const CascadeLaw& law, RandomSource& rng, int repeats) {
  double best = 1e300;
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    const auto noise = cascade_leaf_noise(tree, law, rng, Interrupts());
    best = std::min(best, seconds_since(start));
    if (noise.size() != tree.n_leaves()) bench_checks::fail("wrong number of leaves");
  }
  return best;
}

void binary_case() {
  const unsigned k = 24;
  auto rng = make_seeded_random_source(1);
  auto start = Clock::now();
  const auto tree = HierarchyTree::perfect_binary(k, Interrupts());
  const double t_tree = seconds_since(start);
  const auto law =
      calibrate_epsilon_delta(tree, CascadeLaw::uniform(tree, 1.0), 1.0, 1e-9, Neighbours::AddRemove, Interrupts()).law;
  start = Clock::now();
  const auto noise = cascade_leaf_noise(tree, law, *rng, Interrupts());
  const double t_noise = seconds_since(start);
  start = Clock::now();
  const auto nodes = rollup(tree, noise, Interrupts());
  const double t_rollup = seconds_since(start);
  check_consistent(tree, nodes);
  std::printf("binary 2^%u leaves (%zu nodes): tree %.3f s, noise %.3f s, rollup %.3f s, noise+rollup %.3f s, "
              "peak RSS %.0f MB\n",
              k, tree.n_nodes(), t_tree, t_noise, t_rollup, t_noise + t_rollup, peak_rss_mb());
}

// 50 states x 60 counties = 3,000 counties; 70,000 tracts spread over them
// (23 or 24 per county), keys as text the way the shim hands them over.
void geography_case(bool states_exact) {
  std::vector<std::string> text;
  std::vector<std::int64_t> counts;
  const int n_tracts = 70000, n_counties = 3000;
  for (int t = 0; t < n_tracts; ++t) {
    const int county = static_cast<int>(std::int64_t(t) * n_counties / n_tracts), state = county / 60;
    text.push_back("state" + std::to_string(state));
    text.push_back("county" + std::to_string(county));
    text.push_back("tract" + std::to_string(t));
    counts.push_back(1000 + (t * 7919) % 3000);
  }
  std::vector<const char*> pointers;
  for (const auto& s : text) pointers.push_back(s.c_str());
  auto start = Clock::now();
  const CellKeys keys(test_tables::TextKeys(pointers, 3).rows(), {"state", "county", "tract"}, Interrupts());
  const auto tree = HierarchyTree::from_cell_keys(keys, {0, 1, 2}, Interrupts());
  CascadeLaw shape = CascadeLaw::uniform(tree, 1.0);
  if (states_exact) shape = shape.conditioned_on(tree, margin_nodes(tree, keys, {0}, Interrupts()));
  const double t_tree = seconds_since(start);
  start = Clock::now();
  const auto calibrated = calibrate_epsilon_delta(tree, shape, 1.0, 1e-9, Neighbours::ReplaceOne, Interrupts());
  const double t_calibrate = seconds_since(start);
  auto rng = make_seeded_random_source(2);
  start = Clock::now();
  const auto release = release_cascade(tree, calibrated.law, counts.data(), *rng, Interrupts());
  const double t_release = seconds_since(start);
  check_consistent(tree, release.node_values);
  if (tree.level_end(1) - tree.level_begin(1) != 50 || tree.level_end(2) - tree.level_begin(2) != 3000)
    bench_checks::fail("wrong geography");
  if (states_exact) {
    const auto exact = rollup(tree, tree.to_leaf_order(counts.data(), Interrupts()), Interrupts());
    for (std::uint32_t v = 0; v < tree.level_end(1); ++v)
      if (std::fabs(release.node_values[v] - double(exact[v])) > 1e-6) bench_checks::fail("a state total moved");
  }
  std::printf("geography 50/3000/70000%s: keys+tree %.3f s, calibration %.4f s, release %.4f s, sd %.2f, "
              "peak RSS %.0f MB\n",
              states_exact ? " (states exact)" : "", t_tree, t_calibrate, t_release,
              std::sqrt(calibrated.law.level_variance(0)), peak_rss_mb());
}

void scaling_case() {
  auto rng = make_seeded_random_source(3);
  std::vector<double> log_n, log_t;
  std::printf("noise time by n (best of 3):\n");
  for (unsigned k = 10; k <= 24; k += 2) {
    const auto tree = HierarchyTree::perfect_binary(k, Interrupts());
    const double t = noise_seconds(tree, CascadeLaw::uniform(tree, 1.0), *rng, k <= 20 ? 3 : 1);
    std::printf("  n = 2^%-2u %10.6f s  %6.1f ns/leaf\n", k, t, t * 1e9 / std::ldexp(1.0, k));
    log_n.push_back(k * std::log(2.0));
    log_t.push_back(std::log(t));
  }
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < log_n.size(); ++i) mx += log_n[i] / log_n.size(), my += log_t[i] / log_n.size();
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < log_n.size(); ++i) sxy += (log_n[i] - mx) * (log_t[i] - my), sxx += (log_n[i] - mx) * (log_n[i] - mx);
  std::printf("log-log slope of time against n (2^10..2^24): %.3f\n", sxy / sxx);
}

// Runs f in a child; a failing child fails the benchmark.
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
  if (argc > 1 && std::string(argv[1]) == "--compare") {
    auto rng = make_seeded_random_source(4);
    for (int i = 2; i < argc; ++i) {
      const unsigned k = static_cast<unsigned>(std::atoi(argv[i]));
      const auto tree = HierarchyTree::perfect_binary(k, Interrupts());
      const auto law = CascadeLaw::uniform(tree, 1.0);
      const double t = noise_seconds(tree, law, *rng, 3);
      const auto nodes = rollup(tree, cascade_leaf_noise(tree, law, *rng, Interrupts()), Interrupts());
      check_consistent(tree, nodes);
      std::printf("%u %.9f\n", k, t);
    }
    return 0;
  }
  in_child(binary_case);
  in_child([] { geography_case(false); });
  in_child([] { geography_case(true); });
  in_child(scaling_case);
  return 0;
}
