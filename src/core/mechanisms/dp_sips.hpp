// DP-SIPS partition selection: weighted Gaussian thresholding, iterated
// (options {"partition_selection": "dp_sips"} or {"partition_selection":
// {"method": "dp_sips", "rounds": 2}}).
//
// The selector. Swanberg, Desfontaines, Haney 2023 ("DP-SIPS: a simpler,
// more scalable mechanism for differentially private partition selection",
// arXiv:2301.01998): in each of T rounds every unit spreads a
// weight of l2 norm at most 1 evenly over its cells not shown in an earlier
// round, a cell's weight is the sum of its units' (the weighted Gaussian
// thresholding of Gopi, Gulhane, Kulkarni, Shen, Shokouhi, Yekhanin 2020,
// "Differentially private set union", ICML, arXiv:2002.09745),
// Gaussian noise is added and the cells at or above a threshold are shown;
// the rounds spend growing shares of one zCDP budget. One round (the
// default, "rounds": 1) is Gopi et al.'s weighted Gaussian. Only which
// cells are shown comes from this noise: the shown cells' counts are drawn
// afterwards with the rest of the budget, independently, so they stay
// unbiased with their per-cell error bars.
//
// Why it beats splitting epsilon evenly over a unit's cells (laplace,
// truncated_geometric at epsilon / G per cell): the noise grows like
// sqrt(G), not G, with the cells a unit may reach; and a unit that holds
// m < G cells (fewer kept, or some already shown) gives each of them
// 1 / sqrt(m) instead of 1 / sqrt(G). Against "gaussian" (every unit 1 on
// each cell, noise calibrated for sqrt(G)): with the noise and threshold
// scaled by sqrt(G) it is the same law for a unit of G cells and a larger
// weight for every other unit, so at one round it shows each cell at least
// as often (up to the rounding of the weights below). Against
// truncated_geometric it wins only once G is large enough for sqrt(G) to
// beat its optimal per-cell law: with discrete_laplace counts at epsilon 1,
// delta 1e-6 and the default share a cell of units holding G cells is shown
// half the time from 73 units against 90 at G = 3, from 118 against 120 at
// G = 5 ("auto" compares exactly these figures). More rounds help only when
// the cells shown early free much of their units' weight; each round spends
// a share of the budget and pays its own share of delta, and on the peers'
// visits table one round shows the most (test/bench/README.md).
//
// Exact integers. A unit with m live cells gives each w_m = floor(S /
// sqrt(m)), S = kDpSipsWeightScale = 4096, the largest integer with m w_m^2
// <= S^2 (so its weight vector has squared norm at most S^2; the rounding
// costs under 1 / 2000 of a weight). A cell's weight V is an integer and
// the noise N is the discrete Gaussian of variance sigma_i^2 (rational),
// drawn exactly (samplers/independent_integer_noise.hpp); shown iff V + N
// >= tau_i.
//
// Calibration (the proof below is ours, not the papers'; it is the argument of
// partition_selection.hpp's "gaussian", with T rounds and weights). Budget
// (epsilon, delta) for the selection; Delta^2 = S^2 under add_remove, 2 S^2
// under replace_one; sigma^2 = the lattice Gaussian's at (epsilon, delta /
// 2) for shifts of squared norm Delta^2 (calibration/zcdp.hpp: rho =
// Delta^2 / (2 sigma^2) converts to (epsilon, delta / 2), Canonne, Kamath,
// Steinke 2020, Cor. 13); round i of T spends the share f_i = 2^(i-1) /
// (2^T - 1) of rho (growing shares, as DP-SIPS does): sigma_i^2 = sigma^2 /
// f_i, rounded up; tau_i = ceil(sigma_i sqrt(2 ln(2 (1 + e^epsilon) G T /
// delta))).
//
// Proof. Neighbours D, D' (D' adds unit v, or replaces D's unit u by v);
// U = the cells either has. M_U(D): the same T rounds run on every cell of
// U, a cell D lacks at weight 0 in every round (no unit of D holds it).
//  1. M_U(D) against M_U(D'): given the cells shown before round i (the
//     same on both sides: they are the previous rounds' outputs), a unit's
//     weights depend only on its own cells, so the weight vectors on U
//     differ by v's weights (add_remove; squared norm <= S^2) or by v's
//     minus u's (replace_one; both nonnegative, so the squared norm is at
//     most |w_v|^2 + |w_u|^2 <= 2 S^2). Round i is the discrete Gaussian
//     mechanism on Z^U, (Delta^2 / (2 sigma_i^2))-zCDP (zcdp.hpp), the
//     threshold is post-processing, and zCDP's composition, which holds
//     when each round depends on the earlier outputs (Bun, Steinke 2016,
//     arXiv:1605.02065, Lemma 1.7), sums the rounds to sum_i f_i rho = rho:
//     M_U is (epsilon, delta / 2)-DP between D and D'.
//  2. M(D) against M_U(D), with the same noise on D's cells: a cell of U
//     that D lacks (at most G: v's kept cells) changes no weight of D's
//     units, so the two shown sets are equal unless M_U(D) shows such a
//     cell in some round, which has probability at most beta = sum_i G
//     P(N_i >= tau_i) <= sum_i G exp(-tau_i^2 / (2 sigma_i^2)) (the
//     discrete Gaussian is sigma-subgaussian, CKS 2020) <= delta / (2 (1 +
//     e^epsilon)) by the choice of tau_i. So |P(M(D) in O) - P(M_U(D) in
//     O)| <= beta for every set of outputs O; the same for D'.
//  3. P(M(D) in O) <= P(M_U(D) in O) + beta <= e^epsilon P(M_U(D') in O) +
//     delta / 2 + beta <= e^epsilon P(M(D') in O) + delta / 2 + (1 +
//     e^epsilon) beta <= e^epsilon P(M(D') in O) + delta, and the same with
//     D and D' exchanged: the selection is (epsilon, delta)-DP. The counts
//     of the shown cells are then released with the rest of the budget
//     (basic composition, as for every split selector).
// Without a privacy unit every unit is one row of one cell (m = 1, G = 1):
// a cell's weight is S times its count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "../samplers/rational.hpp"
#include "kept_cells.hpp"

namespace invariant_dp {

constexpr std::int64_t kDpSipsWeightScale = 4096;
constexpr int kDpSipsMaxRounds = 8;

struct DpSipsRound {
  Rational sigma2;             // the discrete Gaussian's variance, in weight units (S per unit of one cell)
  std::int64_t threshold = 0;  // tau_i
};

struct DpSipsLaw {
  std::int64_t groups = 1;  // G: cells one side may hold that the other lacks
  double squared_shift = 0;  // Delta^2
  std::vector<DpSipsRound> rounds;
};

// epsilon, delta: the selection's; rounds in 1..kDpSipsMaxRounds.
DpSipsLaw calibrate_dp_sips(double epsilon, double delta, std::int64_t groups, bool replace_one, int rounds);

// w_m = floor(S / sqrt(m)) exactly, m >= 1.
std::int64_t dp_sips_weight(std::int64_t live_cells);

// The smallest count of units, each holding G cells, at which a cell is
// shown with probability at least 1/2 (its weight reaches the last round's
// threshold; a unit of fewer cells weighs more).
std::int64_t dp_sips_units_at_half(const DpSipsLaw& law);

// Which of n cells are shown. units[c]: the cell's count of units (0: the
// cell is absent, never shown); unit_cells: each unit's cells (nullptr:
// every unit holds one cell, so a cell's weight is S units[c]).
std::vector<bool> dp_sips_select(const std::int64_t* units, std::size_t n, const KeptCells* unit_cells,
                                 const DpSipsLaw& law, RandomSource& rng, const Interrupts& interrupts);

}  // namespace invariant_dp
