// Integer noise on the invariant lattice Lambda_A = {z in Z^d : A z = 0} by
// MCMC (Dharangutte, Gao, Gong, Yu 2023, arXiv:2212.00936, Algorithm 1;
// src/core/mcmc), for the integer
// mechanisms where no exact sampler applies: integer_laplace with crossing
// margins, integer_laplace_l2, integer_gaussian with margins.
//
// Calibration. epsilon (and delta) bound the privacy loss between databases
// with equal invariants whose histograms differ by a shortest nonzero
// lattice vector v (for one margin, one person's record moving between two
// cells of a group, |v|_1 = 2; for crossing margins of a two-way table, a
// 2x2 swap, |v|_1 = 4). The shortest basis vector's norm is used for |v|:
// it is at least the lattice minimum, so the stated guarantee is never
// weaker than claimed. l1: q ~ exp(-(epsilon/|v|_1) |z|_1); l2: q ~
// exp(-(epsilon/|v|_2) |z|_2); Gaussian: (|v|_2^2 / 2 sigma^2)-zCDP
// converted to (epsilon, delta) (calibration/zcdp.hpp).
//
// Complete tables with all their (K-1)-way margins (a two-way table with
// both margins, or several such blocks; a cube with its three two-way
// margins) need no basis: the table chain (mcmc/table_swap_chain.hpp) moves
// the noise by exact redraws of random pairs of rows and of columns (l1 on
// two-way tables) or by random basic moves (the 2x2 swaps of any two rows
// and any two columns: heat-bath for l1 on K-way tables, Metropolis for the
// Gaussian), from z = 0, for the default sweeps below; l2 runs the
// scale-mixture Gibbs sampler (mcmc/scale_mixture_chain.hpp), whose every
// iteration is an exact lattice Gaussian draw. The shortest move is exact:
// 2^K in both norms. Any other margins: the chain starts from the symmetric
// proposal law, never from the data, and runs `iterations` sweeps; each
// sweep is one joint basis jump plus one single-basis-vector move per basis
// vector. Either way the released z is the chain's state.
// MCMC is not exact: the law of z is within the chain's total variation
// distance of the target (dp.diagnose bounds it), and the metadata says so.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../interrupts.hpp"
#include "../invariants/invariant_model.hpp"
#include "../lattice/lattice_basis.hpp"
#include "../mcmc/chain_model.hpp"
#include "../mcmc/table_swap_chain.hpp"
#include "../random_source.hpp"
#include "noise_calibration.hpp"
#include "release_request.hpp"

namespace invariant_dp {

struct SamplerReport {
  std::string sampler = "exact";
  std::uint64_t iterations = 0;
  double acceptance = 0;
  bool sd_estimated = false;
  // congenial: the chain's start, and the sd's meaning when it is neither
  // exact nor estimated (empty: not published).
  std::string start;
  std::string stddev;
};

// What a lattice mechanism brings to the chain: the target it draws from
// and the law calibrated on the shortest protected move.
struct LatticeNoise {
  mcmc::TargetKind target;
  LatticeLaw law;
};

// Everything a chain for this request needs: the lattice, the calibrated
// law, the chain model and the number of sweeps.
struct LatticeSetup {
  LatticeBasis basis;
  NoiseLaw law;
  std::unique_ptr<mcmc::ChainModel> chain_model;
  std::uint64_t iterations = 0;
};
LatticeSetup prepare_lattice(const ReleaseRequest& request, const LatticeNoise& noise, const InvariantModel& model,
                             const Interrupts& interrupts);

// Writes noisy = counts + z and a Monte Carlo estimate of each cell's noise
// sd (from as many further iterations of the chain); fills law and report.
void release_on_lattice(const std::int64_t* counts, const ReleaseRequest& request, const LatticeNoise& noise,
                        const InvariantModel& model,
                        RandomSource& rng, const Interrupts& interrupts, std::vector<std::int64_t>& noisy,
                        std::vector<double>& noise_sd, NoiseLaw& law, SamplerReport& report);

// Default sweeps: ten times the burn-in measured for the paper's 4x4 table
// with single-vector moves (mcmc/defaults.hpp), so 20000 for l1 and the
// Gaussian, 100000 for l2; dp.diagnose checks a given table.
constexpr std::uint64_t kDefaultIterationsFactor = 10;
// Further sweeps for the Monte Carlo sd, at most.
constexpr std::uint64_t kSdIterations = 20000;
// Table chain defaults (test/bench/README.md, "Table chain"), constant in
// the table's size:
//  - l1 on two-way tables (pair blocks): from z = 0, ||z||_1 reaches its
//    stationary level within 6 sweeps and the slowest statistic measured
//    has an integrated autocorrelation time below 2 sweeps, the same at
//    100 x 100 and 300 x 300; the default is ten times the relaxation (about
//    35 autocorrelation times). A measurement, not a coupling bound: the
//    coupled pairs of every l1 kernel stop meeting from 8 x 8 on
//    (mcmc/table_swap_chain.hpp), so the L-lag bound can check 4 x 4 only.
//  - l1 on K-way tables (heat-bath moves): relaxation ~20 sweeps,
//    autocorrelation 3-6; ten times the relaxation, likewise measured.
//  - l2 (the scale-mixture Gibbs sampler, mcmc/scale_mixture_chain.hpp):
//    from the coupling bound. The L-lag TV bound falls below 0.05 after 4
//    iterations at 100 x 100, 3 at 300 x 300 and 4 at 1000 x 1000
//    (bench_scale_mixture, epsilon = 1), constant in size as the contraction
//    of its scale variable says; the rule is five times the largest of
//    these, 20 iterations, where every measured bound is 0.
//  - Metropolis moves (the Gaussian chain fallback): relaxation ~80-100
//    sweeps, autocorrelation 18-50; ten times the relaxation.
constexpr std::uint64_t kTableHeatBathSweeps = 200;
constexpr std::uint64_t kTablePairBlockSweeps = 60;
constexpr std::uint64_t kTableScaleMixtureIterations = 20;
constexpr std::uint64_t kTableMetropolisSweeps = 1000;
// Further sweeps for the sd, pooled over each table's cells (exchangeable
// under every target: permuting the levels of an axis keeps the lattice
// and the norm).
constexpr std::uint64_t kTableSdSweeps = 20;
// Steps a release's table chain may take (54000 beyond: about ten minutes).
constexpr double kMaxTableSteps = 1e9;

// The scalar c of each table's covariance c * Pi_N from the tables' pooled
// per-cell sds (noise_sd), one per table shape (the mean over the tables of
// that shape), into law.covariance_scale; pinned tables have none.
void publish_covariance_scale(const std::vector<LatticeTable>& tables, const std::vector<double>& noise_sd,
                              NoiseLaw& law, const Interrupts& interrupts);
// A basis chain's scale from its per-cell Monte Carlo sds: per table shape
// as above on complete tables and margin groups (one-axis tables of k
// cells, published with shape [k]); on general margins, with no symmetry, the
// one scalar c of the estimate c * Pi_N fitted to the trace, c = sum of the
// cells' variances / trace(Pi_N) = / null_dimension (shape [];
// src/core/accuracy/DERIVATIONS.md, section 3e).
void publish_basis_covariance_scale(const InvariantModel& model, const std::vector<double>& noise_sd, NoiseLaw& law,
                                    const Interrupts& interrupts);

// The complete tables a table chain can move, or none when the margins are
// not (K-1)-way margins of complete tables with at most kMaxTableAxes axes.
std::vector<LatticeTable> chain_tables(const InvariantModel& model);
// Pair blocks for l1 when every table is two-way (table_swap_chain.hpp).
mcmc::SwapChainConfig table_chain_config(const ReleaseRequest& request, mcmc::TargetKind target,
                                         const NoiseLaw& law, const mcmc::TableMoves& moves);
std::uint64_t table_chain_sweeps(const ReleaseRequest& request, const mcmc::SwapChainConfig& config);
// Entry updates a release's chain may cost (refuse_long_chain, 54000).
constexpr double kMaxChainWork = 2e11;

}  // namespace invariant_dp
