// Statistical tests of the table chain (mcmc/table_swap_chain) and its l1
// line law (mcmc/laplace_line), fixed seeds, thresholds from the math:
//  * LaplaceLine draws against its pmf (formula normalised by summation):
//    chi-square goodness of fit at p = 1e-6 (chi_square.hpp), N = 2e5,
//    unbounded and bounded lines with repeated points. Power: the same draws
//    against the law at lambda x 1.1 must be rejected.
//  * Invariance of the target: N = 1e5 independent chains START FROM THE
//    TARGET ITSELF (an exact draw from the pmf enumerated on a box of the
//    lattice, truncated mass < e^-30) and run 3 sweeps; a kernel that leaves
//    q invariant gives exactly q again, whatever the mixing, so there is no
//    burn-in bias and the chi-square test is exact up to its large-N
//    approximation. Lattices: the 2 x 3 table with both margins (rank 2,
//    z = [[a, b, -a-b], [-a, -b, a+b]]) and the 2 x 2 x 2 cube with its
//    three two-way margins (rank 1, z = k (-1)^(i+j+l)). Targets: l1 by
//    heat-bath and by Metropolis, l2 and the lattice Gaussian by Metropolis.
//    With floors (congenial: z >= -x for a 2 x 3 count table x, so the
//    target is the l1 law restricted to that finite set), heat-bath and
//    Metropolis. Power, two ways: the draws against the law at a wrong parameter
//    (x 1.1, sigma^2 x 1.2) must be rejected, and a chain run at the wrong
//    parameter (lambda x 1.3) for 10 sweeps from the right law must move
//    the draws off it (rejected).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <numeric>
#include <vector>

#include "chi_square.hpp"
#include "mcmc/laplace_line.hpp"
#include "mcmc/table_swap_chain.hpp"
#include "random_source.hpp"

namespace invariant_dp::mcmc {
namespace {

using chi_square_test::ChiSquare;
using chi_square_test::goodness_of_fit;
using chi_square_test::report;

std::map<std::int64_t, double> line_pmf(const std::vector<std::int64_t>& p, double lambda, std::int64_t lo,
                                        std::int64_t hi) {
  std::map<std::int64_t, double> pmf;
  double total = 0;
  for (std::int64_t t = std::max<std::int64_t>(lo, -400); t <= std::min<std::int64_t>(hi, 400); ++t) {
    double s = 0;
    for (auto x : p) s += std::fabs(double(t - x));
    pmf[t] = std::exp(-lambda * s);
    total += pmf[t];
  }
  for (auto& [t, w] : pmf) w /= total;
  return pmf;
}

void check_line(const std::vector<std::int64_t>& p, double lambda, std::int64_t lo, std::int64_t hi,
                std::uint64_t seed) {
  const LaplaceLine line(p.data(), p.size(), lambda, lo, hi);
  auto rng = make_seeded_random_source(seed);
  const double n = 2e5;
  std::map<std::int64_t, std::int64_t> counts;
  for (int i = 0; i < int(n); ++i) ++counts[line.sample(*rng)];
  const ChiSquare fit = goodness_of_fit(line_pmf(p, lambda, lo, hi), counts, n);
  const ChiSquare wrong = goodness_of_fit(line_pmf(p, lambda * 1.1, lo, hi), counts, n);
  report("laplace line", fit);
  report("laplace line, lambda x 1.1 (must fail)", wrong);
  EXPECT_TRUE(fit.passes());
  EXPECT_FALSE(wrong.passes());
}

TEST(StatTableChain, LaplaceLineMatchesItsPmf) {
  check_line({3, -1, -1, 4}, 0.4, -kUnboundedStep, kUnboundedStep, 1);
  check_line({0, 0, 2, 9, 9, -3, 5, 1}, 0.2, -kUnboundedStep, kUnboundedStep, 2);
  check_line({0, 0, 2, 9}, 0.3, -4, 6, 3);
}

// A small lattice: free coordinates on a box, and the table they make.
struct SmallTable {
  std::vector<std::size_t> shape;
  int free;                                                   // rank
  std::function<std::vector<std::int64_t>(const std::vector<std::int64_t>&)> fill;
};

SmallTable two_by_three() {
  return {{2, 3}, 2, [](const std::vector<std::int64_t>& v) {
            const std::int64_t a = v[0], b = v[1];
            return std::vector<std::int64_t>{a, b, -a - b, -a, -b, a + b};
          }};
}

SmallTable cube() {
  return {{2, 2, 2}, 1, [](const std::vector<std::int64_t>& v) {
            std::vector<std::int64_t> z(8);
            for (int c = 0; c < 8; ++c) z[c] = (__builtin_popcount(unsigned(c)) % 2 ? -1 : 1) * v[0];
            return z;
          }};
}

double log_q(const Target& target, const std::vector<std::int64_t>& z) { return log_density(target, z.data(), z.size()); }

// The target enumerated on the box |v_i| <= radius, keyed by z's first
// free coordinates packed into one integer.
struct Enumerated {
  std::vector<std::vector<std::int64_t>> states;  // z of each box point
  std::vector<double> prob;
  std::map<std::int64_t, double> by_key;
};

std::int64_t key_of(const SmallTable& t, const std::vector<std::int64_t>& z) {
  return t.free == 1 ? z[0] : z[0] * 100000 + z[1];
}

// floors: empty, or z >= floors cell by cell (congenial's y = x + z >= 0).
Enumerated enumerate(const SmallTable& t, const Target& target, int radius,
                     const std::vector<std::int64_t>& floors = {}) {
  Enumerated e;
  const int side = 2 * radius + 1;
  const int n = t.free == 1 ? side : side * side;
  double total = 0;
  std::vector<double> w;
  for (int s = 0; s < n; ++s) {
    std::vector<std::int64_t> v{s % side - radius};
    if (t.free == 2) v.push_back(s / side - radius);
    const std::vector<std::int64_t> z = t.fill(v);
    bool above = true;
    for (std::size_t i = 0; i < floors.size(); ++i) above = above && z[i] >= floors[i];
    if (!above) continue;
    e.states.push_back(z);
    w.push_back(std::exp(log_q(target, e.states.back())));
    total += w.back();
  }
  for (std::size_t i = 0; i < w.size(); ++i) {
    e.prob.push_back(w[i] / total);
    e.by_key[key_of(t, e.states[i])] = e.prob.back();
  }
  return e;
}

// N chains from exact draws of `start`, `sweeps` sweeps under `config`.
std::map<std::int64_t, std::int64_t> run_chains(const SmallTable& t, const Enumerated& start,
                                                const SwapChainConfig& config, int sweeps, int n,
                                                std::uint64_t seed, const std::vector<std::int64_t>& floors = {}) {
  LatticeTable table{t.shape, std::vector<std::size_t>(start.states[0].size())};
  std::iota(table.cells.begin(), table.cells.end(), std::size_t(0));
  const TableMoves moves({table}, table.cells.size());
  auto rng = make_seeded_random_source(seed);
  std::vector<double> cumulative(start.prob.size());
  std::partial_sum(start.prob.begin(), start.prob.end(), cumulative.begin());
  std::map<std::int64_t, std::int64_t> counts;
  TableSwapChain chain(moves, config, floors);
  for (int i = 0; i < n; ++i) {
    const double u = rng->uniform_open01() * cumulative.back();
    const std::size_t s = std::size_t(std::lower_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin());
    chain.reset_to(start.states[s]);
    chain.run(std::uint64_t(sweeps), *rng, Interrupts{});
    ++counts[key_of(t, chain.z())];
  }
  return counts;
}

void check_invariance(const char* name, const SmallTable& t, const Target& target, const Target& wrong_target,
                      bool heat_bath, int radius, std::uint64_t seed, const std::vector<std::int64_t>& floors = {}) {
  const int n = 100000;
  const Enumerated right = enumerate(t, target, radius, floors);
  const std::map<std::int64_t, std::int64_t> counts =
      run_chains(t, right, SwapChainConfig{target, heat_bath}, 3, n, seed, floors);
  const ChiSquare fit = goodness_of_fit(right.by_key, counts, n);
  const ChiSquare wrong = goodness_of_fit(enumerate(t, wrong_target, radius, floors).by_key, counts, n);
  Target off = target;
  if (target.kind == TargetKind::lattice_gaussian)
    off.sigma2 /= 1.3 * 1.3;
  else
    off.epsilon *= 1.3;
  const ChiSquare drifted =
      goodness_of_fit(right.by_key, run_chains(t, right, SwapChainConfig{off, heat_bath}, 10, n, seed + 1, floors), n);
  std::printf("%s\n", name);
  report("  from the target, 3 sweeps", fit);
  report("  same draws, wrong law (must fail)", wrong);
  report("  chain at the wrong parameter, 10 sweeps (must fail)", drifted);
  EXPECT_TRUE(fit.passes()) << name;
  EXPECT_FALSE(wrong.passes()) << name;
  EXPECT_FALSE(drifted.passes()) << name;
}

TEST(StatTableChain, HeatBathLeavesTheL1LawInvariant) {
  check_invariance("2x3 l1 heat-bath", two_by_three(), laplace_l1(0.5), laplace_l1(0.55), true, 30, 11);
  check_invariance("2x2x2 l1 heat-bath", cube(), laplace_l1(0.2), laplace_l1(0.22), true, 120, 12);
}

TEST(StatTableChain, MetropolisLeavesEachTargetInvariant) {
  check_invariance("2x3 l1 metropolis", two_by_three(), laplace_l1(0.5), laplace_l1(0.55), false, 30, 21);
  check_invariance("2x3 l2 metropolis", two_by_three(), laplace_l2(0.5), laplace_l2(0.55), false, 60, 22);
  check_invariance("2x3 gaussian metropolis", two_by_three(), lattice_gaussian(9), lattice_gaussian(10.8), false, 30, 23);
  check_invariance("2x2x2 gaussian metropolis", cube(), lattice_gaussian(4), lattice_gaussian(4.8), false, 30, 24);
}

}  // namespace
}  // namespace invariant_dp::mcmc

namespace invariant_dp::mcmc {
namespace {

TEST(StatTableChain, FloorsRestrictTheL1LawExactly) {
  // x = [[1, 0, 3], [2, 2, 0]]: y = x + z >= 0 leaves 10 lattice points.
  const std::vector<std::int64_t> floors{-1, 0, -3, -2, -2, 0};
  check_invariance("2x3 l1 heat-bath, y >= 0", two_by_three(), laplace_l1(0.3), laplace_l1(0.4), true, 10, 31, floors);
  check_invariance("2x3 l1 metropolis, y >= 0", two_by_three(), laplace_l1(0.3), laplace_l1(0.4), false, 10, 32, floors);
}

}  // namespace
}  // namespace invariant_dp::mcmc
