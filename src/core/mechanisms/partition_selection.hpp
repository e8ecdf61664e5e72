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
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "../samplers/rational.hpp"

namespace invariant_dp {

enum class SelectionMethod { None, Laplace, Gaussian };

// options {"partition_selection": "laplace"} or {"partition_selection":
// {"method": "gaussian", "budget_share": 0.3}}: the share (0, 1) of epsilon
// (and of delta, when the counts' mechanism uses one) spent on selection.
struct SelectionRequest {
  SelectionMethod method = SelectionMethod::None;
  double budget_share = 0.5;
  bool active() const { return method != SelectionMethod::None; }
};

// value: the option's text (a name, or a JSON object).
SelectionRequest parse_partition_selection(const std::string& value);

// The calibrated selection: shown iff units + noise >= threshold.
struct SelectionLaw {
  SelectionMethod method = SelectionMethod::None;
  double epsilon = 0, delta = 0;  // the selection's share of the budget
  std::int64_t moved_cells = 0;   // k: unit counts one unit's change moves
  Rational noise_parameter;       // discrete Laplace scale b, or discrete Gaussian sigma^2
  std::int64_t threshold = 0;
};

// groups: G (1 without a privacy unit); replace_one: the neighbours.
SelectionLaw calibrate_selection(SelectionMethod method, double epsilon, double delta, std::int64_t groups,
                                 bool replace_one);

// Which of n cells with these unit counts are shown.
std::vector<bool> select_partitions(const std::int64_t* units, std::size_t n, const SelectionLaw& law,
                                    RandomSource& rng, const Interrupts& interrupts);

const char* selection_method_name(SelectionMethod method);

// The law as metadata JSON: method, epsilon, delta, noise, threshold, rule.
std::string selection_json(const SelectionLaw& law);

}  // namespace invariant_dp
