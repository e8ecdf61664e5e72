// Truncated geometric thresholding: the partition selection that shows the
// most cells one unit's presence allows (options {"partition_selection":
// "truncated_geometric"}), drawn exactly.
//
// The law. A cell with n >= 1 distinct units (after contribution bounding,
// privacy_unit.hpp) is shown with probability p_n, independently of every
// other cell and of the released counts; a cell no unit has is absent, p_0
// = 0. Desfontaines, Voss, Gipson, Mandayam 2022 ("Differentially private
// partition selection", PoPETs, arXiv:2006.03684, section 3, Thm. 1) prove
// that for one cell per unit the largest p_n any (e, d)-DP selection can
// have at every n are
//   p_0 = 0,  p_n = min(e^e p_{n-1} + d, 1 - e^-e (1 - p_{n-1} - d), 1),
// the law of a truncated geometric noise added to n and thresholded (their
// section 4); Google's library and PipelineDP ship it.
//
// Several cells per unit (k = G under add_remove, 2G under replace_one,
// G = max_groups_per_unit): every cell runs the one-cell law at (e, d) =
// (epsilon_s / k, delta_s / k); neighbours differ in at most k cells' unit
// counts, each by at most one, and the cells are independent mechanisms,
// so basic composition (Dwork and Roth 2014, Thm. 3.16) gives (epsilon_s,
// delta_s) for the selection (the paper's section 5 extension). Its counts
// are then released with the rest of the budget, (epsilon_c, delta_c), and
// the release is (epsilon_s + epsilon_c, delta_s + delta_c)-DP.
//
// Jointly with discrete Laplace counts (the derivation is ours). When the
// shown cells' counts are discrete Laplace of scale b (mechanism
// discrete_laplace, b = l1 / epsilon_c, l1 = k R, R = max_rows_per_group),
// the selection and the counts together can be held to (epsilon, delta)
// with epsilon_c < epsilon and no further split: basic composition charges
// the counts' epsilon_c on the event "not shown" too, where no count is
// released. Per cell, with e = epsilon / k, d = delta / k, a = e^(-1/b),
// c = R / b <= epsilon_c / k < e:
//   p_0 = 0,
//   p_n = min(e^e a^R p_{n-1} + (1 + a) d,  e^e a^(R-1) p_{n-1} + d,
//             1 - e^-e (1 - p_{n-1} - d),  1).
// Why. One cell's output is "absent" or "shown with count m + Z", Z the
// counts' independent discrete Laplace noise, P(Z = z) proportional to
// a^|z|. Between neighbours its unit count moves from n to n + 1 and its
// count from m to m + s with 1 <= s <= R (the unit added holds at least one
// of its kept rows there, at most R). Write q = p_n, x = p_{n+1}, f the
// law of Z. The hockey-stick divergences at e^e of the two output laws are
//   D(n+1 || n) = (1 - x - e^e (1 - q))^+ + sum_y (x f(y - s) - e^e q f(y))^+,
//   D(n || n+1) = (1 - q - e^e (1 - x))^+ + sum_y (q f(y) - e^e x f(y - s))^+
// (y the count's offset from m). With x >= q (every p_n above is at least
// p_{n-1}: a^R e^e >= 1 and a^(R-1) e^e >= 1 because c <= e):
//  - the first term of D(n+1 || n) is 0;
//  - f(y) / f(y - s) <= e^(s/b) <= e^c <= e^e, so the last sum is 0, and
//    D(n || n+1) <= d iff x <= 1 - e^-e (1 - q - d): the third bound;
//  - in the sum of D(n+1 || n), f(y) / f(y - s) = a^(|y| - |y - s|): it is
//    a^s >= a^R where y - s >= 0, an event of probability P(Z >= 0) = 1 /
//    (1 + a) under f(. - s); and at least a^(R-2) where y - s <= -1
//    (probability a / (1 + a)): there |y| - |y - s| <= s - 2 when 0 < y < s,
//    and = -s <= R - 2 when y <= 0. So the sum is at most
//      (x - e^e a^R q)^+ / (1 + a) + a (x - e^e a^(R-2) q)^+ / (1 + a),
//    a convex, piecewise linear, increasing function of x; it is at most d
//    iff x <= e^e a^R q + (1 + a) d (its first piece) and x <= e^e a^(R-1)
//    q + d (the two pieces together: (1 + a) x - e^e q (a^R + a^(R-1)) <=
//    (1 + a) d): the first two bounds.
// A cell one side lacks is absent there (n = 0, p_0 = 0), so n = 0 against
// n = 1 is the same step. A cell both sides have with the same unit count
// (under replace_one, one in both units' kept cells) has the same p_n on
// both and its count moves by at most R - 1 < R: pure (c, 0) with c < e.
// So every cell is (e, d)-DP between neighbours, at most k cells differ,
// and basic composition over them gives (epsilon, delta) for the selection
// and the counts together. With b -> infinity (a -> 1, no counts released)
// the bounds reduce to the one-cell law above; plain thresholding is the
// special case a^R = a^(R-1) = 1, (1 + a) d -> d used for every other
// counts mechanism. The gain over the split: the third bound uses all of e,
// and (1 + a) d nearly doubles d while p is small. For one cell per unit
// the recursion is the largest p_n step by step given p_{n-1} (each bound
// is the exact feasibility condition of its divergence term, R = 1), so it
// is the optimal selection among those that release discrete Laplace counts
// of scale b independently of it.
//
// Exactness. p_n involves e^e, so it is irrational: each p_n is enclosed
// by outward-rounded intervals (samplers/interval.hpp) of the recursion,
// and a cell is shown iff U < p_n for one uniform U whose bits are read
// lazily (samplers/lazy_bernoulli.hpp): the first 64 bits decide against a
// table of 128-bit enclosures almost always, and an undecided draw
// recomputes p_n at doubling precision. No floating-point probability
// decides an output. Once an enclosure shows the third bound's value at or
// above 1 (p_{n-1} >= 1 - d), p_n = 1 exactly and so for every larger n:
// such cells are shown without a draw.
#pragma once

#include <mpfr.h>

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "../samplers/interval.hpp"
#include "../samplers/rational.hpp"

namespace invariant_dp {

// The public parameters of one release's law.
struct TruncatedGeometricParameters {
  double epsilon = 0;            // for the k cells together: e = epsilon / k per cell
  double delta = 0;              // d = delta / k per cell
  std::int64_t moved_cells = 1;  // k
  // Jointly with discrete Laplace counts: their exact scale b (num > 0) and
  // R; num == 0: plain thresholding at (epsilon, delta).
  Rational counts_scale{0, 1};
  std::int64_t max_rows = 1;
  bool joint() const { return counts_scale.num != 0; }
};

// An enclosure of p_n at about prec bits (the recursion run n steps;
// polls interrupts).
Interval truncated_geometric_probability(const TruncatedGeometricParameters& parameters, std::uint64_t n,
                                         mpfr_prec_t prec, const Interrupts& interrupts);

// The most steps of the recursion a release may take: a law whose p_n
// does not reach 1 within them (epsilon per cell below about 2e-5) is
// refused at calibration, so the table of enclosures stays under 64 MiB.
constexpr std::int64_t kMaxTruncatedGeometricSteps = std::int64_t{1} << 22;

// The public figures of the law, computed in double for the metadata and
// the calibration: the smallest n with p_n >= 1/2 and the smallest with p_n
// = 1 (within rounding; -1 beyond kMaxTruncatedGeometricSteps).
struct TruncatedGeometricFigures {
  std::int64_t units_at_half = -1;
  std::int64_t units_always_shown = -1;
};
TruncatedGeometricFigures truncated_geometric_figures(const TruncatedGeometricParameters& parameters,
                                                      const Interrupts& interrupts);

// Draws "shown" for cells of unit counts up to a maximum, exactly.
class TruncatedGeometricSelector {
 public:
  // max_units: the largest unit count that will be asked about; the table
  // of enclosures stops there or where p_n is certainly 1.
  TruncatedGeometricSelector(const TruncatedGeometricParameters& parameters, std::int64_t max_units,
                             const Interrupts& interrupts);

  // Bernoulli(p_n), exactly; units >= 0.
  bool shown(std::int64_t units, RandomSource& rng) const;

  // The first n whose p_n is certainly 1 (all larger too); the table's end
  // when it stopped at max_units first.
  std::int64_t certain_from() const { return certain_from_; }
  // The 128-bit enclosure of p_n as doubles (lower, upper), n < certain_from().
  double lower(std::int64_t n) const { return lower_[std::size_t(n)]; }
  double upper(std::int64_t n) const { return upper_[std::size_t(n)]; }

 private:
  TruncatedGeometricParameters parameters_;
  const Interrupts& interrupts_;
  std::vector<double> lower_, upper_;  // p_n for n < certain_from_
  std::int64_t certain_from_ = 0;
  bool always_at_end_ = false;  // p at certain_from_ is certainly 1
};

}  // namespace invariant_dp
