// Differentially private partition selection: which cells a release shows
// when its keys are not public (options {"partition_selection": ...}).
//
// Without a domain the released cells are the source's, so which keys exist
// would be revealed exactly: a key only one person has would betray them.
// Instead each cell is shown only if a noisy count of its distinct units
// (after contribution bounding, privacy_unit.hpp) reaches a threshold, and
// its count is then released with the rest of the budget, independently of
// the selection (so released counts are unbiased given that they are shown).
// One unit is in at most G = max_groups_per_unit cells (G = 1 without a
// privacy unit), so it moves at most k = G (add_remove) or 2G (replace_one)
// unit counts, each by one.
//
// laplace (Korolova, Kenthapadi, Mishra, Ntoulas 2009, "Releasing search
// queries and clicks privately", WWW, section 4; Wilson et al. 2020,
// "Differentially private SQL with bounded user contribution", PoPETs,
// arXiv:1909.01917, section 3.2): discrete Laplace noise of scale b = k /
// epsilon_s on every unit count, shown when count + noise >= tau. Per cell
// this is (1/b, delta')-DP: between counts n >= 1 and n + 1 the geometric
// tails differ by at most e^(1/b); between an absent cell (never shown) and
// a count of 1 the only difference is P(1 + Z >= tau) = a^(tau-1) / (1 + a)
// with a = e^(-1/b), which tau = 1 + ceil(b ln(1 / (delta' (1 + a)))) holds
// to delta' = delta_s / k. Basic composition over the k cells one unit
// moves gives (epsilon_s, delta_s).
//
// gaussian (Desfontaines, Voss, Gipson, Mandayam 2022, "Differentially
// private partition selection", PoPETs, arXiv:2006.03684, section 5; the
// derivation below is ours): discrete Gaussian noise of variance sigma^2 on
// the unit counts, with sigma^2 the smallest whose (k / (2 sigma^2))-zCDP
// converts to (epsilon_s, delta_s / 2) (Canonne, Kamath, Steinke 2020,
// Cor. 13). The cells one side has and the other lacks (at most G each
// way) are handled by comparing with the same mechanism run on every cell
// of both, absent ones at count 0: the two differ only when such a cell is
// shown, with probability at most G P(N >= tau) <= G exp(-tau^2 /
// (2 sigma^2)) (the discrete Gaussian is sigma-subgaussian, CKS 2020), so
// the release is (epsilon_s, delta_s/2 + (1 + e^epsilon_s) G P(N >= tau))
// -DP; tau = ceil(sigma sqrt(2 ln(2 (1 + e^epsilon_s) G / delta_s))) makes
// that at most delta_s. The Gaussian threshold grows like sqrt(G) where the
// Laplace one grows like G: it wins when units reach many cells.
//
// truncated_geometric (Desfontaines, Voss, Gipson, Mandayam 2022, sections
// 3-5): each cell shown with the largest probability p_n that (epsilon_s /
// k, delta_s / k)-DP allows at n units, the cells composed as above; with
// discrete_laplace counts, calibrated jointly with them instead (the whole
// (epsilon, delta) of the release bounds the selection's "absent" side, and
// the counts' epsilon_c only its growth). The law, the joint derivation and
// the exact draw are in truncated_geometric.hpp. It dominates laplace at
// every G (each cell's law is the optimal one at the same per-cell budget).
//
// dp_sips (Swanberg, Desfontaines, Haney 2023, arXiv:2301.01998): each
// unit spreads a weight of l2 norm 1 over its cells, Gaussian noise and a
// threshold, in one or more rounds; its law and proof are in dp_sips.hpp.
// It shows a cell at least as often as gaussian (one round, up to the
// rounding of the weights), more when units hold fewer than G cells.
//
// auto: truncated_geometric, unless dp_sips (one round) shows a cell whose
// units all hold G cells at half chance with fewer units (many cells per
// unit: the Gaussian threshold grows like sqrt(G), the per-cell budget of
// truncated_geometric like G). Both are calibrated on the public
// parameters and the one with the smaller count of units at which a cell is
// shown half the time is used; the metadata says which.
//
// The budget: a share s ("budget_share", default 0.5) of epsilon goes to
// the selection and 1 - s to the counts; of delta, the share s when the
// counts' mechanism uses a delta, else all of it. The two parts add up to
// the release's epsilon and delta. truncated_geometric with discrete_laplace
// counts is reported the same way (s epsilon and all of delta for the
// selection), but its law is not the split's: both parts are spent on it
// together, per cell (truncated_geometric.hpp).
//
// noisy_count (Wilson et al. 2020, arXiv:1909.01917, section 3.2, as OpenDP
// does it; the derivation below is ours): no separate noisy count of units
// and no split of the budget. The counts themselves are drawn with all of
// epsilon (and, for discrete_gaussian, delta / 2), and a cell is shown iff
// its released count reaches tau. Which cells are shown and their counts
// then share one noise, so a shown count near tau is biased upward: no
// per-cell error bar holds given that a cell is shown. Only mechanisms of
// independent integer noise qualify (discrete_laplace, discrete_gaussian).
// A cell one side has and the other lacks holds at most R rows of the unit
// (R = max_rows_per_group, 1 without a privacy unit), and there are at most
// k = G (add_remove) or 2G (replace_one) such cells, at most G on each side.
//
// laplace counts (discrete_laplace, b = l1_sensitivity / epsilon, a =
// e^(-1/b), P(Z = z) = (1 - a) / (1 + a) a^|z|, so P(Z >= m) = a^m / (1 + a)
// for m >= 1). Treat each cell as its own mechanism, all independent:
//  - the cells both sides have move by at most the l1 sensitivity in all,
//    so their noisy counts (thresholding is post-processing) are
//    (epsilon, 0)-DP together;
//  - a cell one side lacks is never shown there, and shown on the other with
//    probability p = P(c + Z >= tau) <= P(R + Z >= tau) = a^(tau-R) / (1 + a)
//    (c <= R, tau - R >= 1): a mechanism whose two output laws differ by at
//    most p in every event is (0, p)-DP, both ways;
//  - basic composition (Dwork and Roth 2014, Thm. 3.16) of the shared part
//    and the k lone cells gives (epsilon, k a^(tau-R) / (1 + a)).
// k a^(tau-R) / (1 + a) <= delta iff (tau - R) / b >= ln(k / (delta (1 +
// a))), so tau = R + max(1, ceil(b ln(k / (delta (1 + a))))) holds the
// release to (epsilon, delta); the max keeps tau - R >= 1 (where the tail
// formula holds), which only adds to tau.
//
// gaussian counts (discrete_gaussian, sigma^2 the mechanism's own at
// (epsilon, delta / 2), with or without a privacy unit): compare with the
// same mechanism run on the union of both sides' cells, absent ones at
// count 0, which is (epsilon, delta / 2)-DP (the counts on the union move
// by the sensitivity the mechanism is calibrated for). On each side the
// release differs from that run only when one of the union's cells it lacks
// (at most G: under replace_one each side lacks only the other unit's
// cells) is shown, with probability at most G P(N >= tau) <= G exp(-tau^2 /
// (2 sigma^2)) (sigma-subgaussian, Canonne, Kamath, Steinke 2020). Going
// through the union costs that once on the side one starts from and, scaled
// by e^epsilon, once on the other: (epsilon, delta / 2 + (1 + e^epsilon) G
// P(N >= tau)). So G, not k, belongs in tau = ceil(sigma sqrt(2 ln(2 (1 +
// e^epsilon) G / delta))), which holds that to (epsilon, delta).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "../samplers/rational.hpp"
#include "dp_sips.hpp"
#include "truncated_geometric.hpp"

namespace invariant_dp {

enum class SelectionMethod { None, Laplace, Gaussian, NoisyCount, TruncatedGeometric, DpSips, Auto };

// options {"partition_selection": "truncated_geometric"} or
// {"partition_selection": {"method": "gaussian", "budget_share": 0.3}}:
// the share (0, 1) of epsilon (and of delta, when the counts' mechanism uses
// one) spent on selection; an object without a method is "auto".
// {"partition_selection": "noisy_count"} splits nothing: budget_share is
// refused with it. {"method": "dp_sips", "rounds": T}: its rounds (1 to
// kDpSipsMaxRounds, default 1), refused with any other method.
struct SelectionRequest {
  SelectionMethod method = SelectionMethod::None;
  double budget_share = 0.5;
  int rounds = 1;
  bool active() const { return method != SelectionMethod::None; }
};

// value: the option's text (a name, or a JSON object).
SelectionRequest parse_partition_selection(const std::string& value);

// The calibrated selection: shown iff units + noise >= threshold; for
// noisy_count, iff the released count >= threshold.
struct SelectionLaw {
  SelectionMethod method = SelectionMethod::None;
  double epsilon = 0, delta = 0;  // the selection's share of the budget (noisy_count: epsilon 0)
  std::int64_t moved_cells = 0;   // k: unit counts one unit's change moves
  Rational noise_parameter;       // discrete Laplace scale b, or discrete Gaussian sigma^2
  std::int64_t threshold = 0;
  bool gaussian_counts = false;   // noisy_count: the counts' noise is discrete Gaussian
  // truncated_geometric: its law (threshold and noise_parameter unused).
  TruncatedGeometricParameters geometric;
  TruncatedGeometricFigures geometric_figures;
  // dp_sips: its rounds' noise and thresholds (threshold and noise_parameter unused).
  DpSipsLaw sips;
  bool chosen_automatically = false;  // asked as "auto"
  double budget_share = 0;            // the share asked for (0: none, noisy_count)
};

// groups: G (1 without a privacy unit); replace_one: the neighbours;
// rounds: dp_sips's.
SelectionLaw calibrate_selection(SelectionMethod method, double epsilon, double delta, std::int64_t groups,
                                 bool replace_one, int rounds = 1);

// truncated_geometric calibrated jointly with discrete Laplace counts of
// exact scale counts_scale at counts_epsilon < epsilon: (epsilon, delta)
// for both together (truncated_geometric.hpp).
SelectionLaw calibrate_geometric_with_counts(double epsilon, double delta, double counts_epsilon,
                                             const Rational& counts_scale, std::int64_t groups,
                                             std::int64_t max_rows, bool replace_one);

// The count of units at which a cell is shown with probability about 1/2
// (truncated_geometric: the smallest with p_n >= 1/2; laplace and
// gaussian: the threshold; dp_sips: for units of G cells), from the law's
// public parameters.
std::int64_t units_at_half(const SelectionLaw& law);

// noisy_count's threshold on the counts themselves. counts_parameter: the
// counts' discrete Laplace scale b, or discrete Gaussian sigma^2 (gaussian);
// epsilon: all of it; delta: the release's whole delta; groups: G;
// max_rows: R (1 without a privacy unit).
SelectionLaw calibrate_noisy_count(bool gaussian, const Rational& counts_parameter, double epsilon, double delta,
                                   std::int64_t groups, std::int64_t max_rows, bool replace_one);

// noisy_count: the indices of the cells whose released value reaches the
// threshold, in order.
std::vector<std::size_t> shown_by_count(const std::int64_t* values, std::size_t n, const SelectionLaw& law,
                                        const Interrupts& interrupts);

// Which of n cells with these unit counts are shown. unit_cells: each
// unit's cells, which dp_sips weighs by (nullptr: one cell per unit).
std::vector<bool> select_partitions(const std::int64_t* units, std::size_t n, const SelectionLaw& law,
                                    RandomSource& rng, const Interrupts& interrupts,
                                    const KeptCells* unit_cells = nullptr);

const char* selection_method_name(SelectionMethod method);

// The law as metadata JSON: method, epsilon, delta, noise, threshold, rule.
std::string selection_json(const SelectionLaw& law);

}  // namespace invariant_dp
