// Two crossed hierarchies as integers: the exact lattice Gaussian on the
// grid of (row leaf, column leaf) cells with covariance Sigma_rows (x)
// Sigma_cols (the Kronecker law of crossed_cascade.hpp), i.e.
//   P(Z) proportional to exp(-vec(Z)^T (Sigma_r^-1 (x) Sigma_c^-1) vec(Z) / 2),  Z in Z^{n_r x n_c}.
// The argument of integer_cascade_sampler.hpp carries over (beyond the
// papers; stat_integer_cascade.cpp checks it against the enumerated law):
// 1. With each tree's coordinates y = U z (step 2 there; U unimodular) and
//    its form z^T Sigma^-1 z = |D^-1/2 (I - M) U z|^2 (M strictly lower
//    triangular: the centres), the Kronecker product gives
//      vec(Z)^T (Sigma_r^-1 (x) Sigma_c^-1) vec(Z)
//        = |(D_r (x) D_c)^-1/2 ((I - M_r) (x) (I - M_c)) (U_r (x) U_c) vec(Z)|^2,
//    U_r (x) U_c is unimodular and (I - M_r) (x) (I - M_c) is unit lower
//    triangular in the lexicographic order of (row coordinate a, column
//    coordinate b). So y_ab has s^2 = s_a^2 s_b^2 and the centre
//      c_ab = sum_l M_r[a,l] y_lb + sum_l' M_c[b,l'] y_al' - sum_{l,l'} M_r[a,l] M_c[b,l'] y_ll'.
// 2. In node values: a row coordinate a = P_i of a row split (P_{i+1} known,
//    ratio r = i/(i+1); the row root has r = 0) is a vector over the column
//    tree. Keep every row vector as its column node values; then for the
//    column coordinate b = P'_j of a column split of that vector W, with
//    V the column node values of P_{i+1},
//      c_ab = r P'_j(V) + (j/(j+1)) (P'_{j+1}(W) - r P'_{j+1}(V))
//           = [i (j+1) P'_j(V) + j (i+1) P'_{j+1}(W) - i j P'_{j+1}(V)] / ((i+1)(j+1)),
//    and for the column root c = r V_root: W - r V follows the column
//    cascade's Klein order centred at 0. Only the (root, root) coordinate
//    has an integer centre.
// 3. Klein's sampler in that order with the correction coins of Brakerski,
//    Langlois, Peikert, Regev, Stehle 2013 (Lemma 2.3), restarting the whole
//    grid on a failed coin, is exact as for one tree; acceptance >= 1 -
//    sum 4 q/(1 - q) over all n_r n_c coordinates (used only when >= 1/2),
//    with s^2 products: the smallest is (tau_r^2/2)(tau_c^2/2), so the
//    grid needs about the square root of a tree's noise in each factor.
// Privacy: crossed_max_sensitivity_squared (the same Mahalanobis form; the
// Poisson argument of integer_cascade_calibration.hpp). Accuracy: every
// rectangle's variance lies in [(1 - B) V, V], V =
// crossed_rectangle_variance, B = crossed_integer_cascade_deficit_bound.
// Both laws unconditioned. Cost: O(row nodes x column nodes) time and
// memory (every (row node, column node) value is kept, as crossed_rollup
// returns them); each cell one exact 1-D draw (the rejection sampler of
// conditioned_gaussian.hpp; no tables here) and one coin.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "cascade_law.hpp"
#include "hierarchy_tree.hpp"
#include "integer_cascade_accuracy.hpp"

namespace invariant_dp::hierarchy {

struct CrossedIntegerCascadeOptions {
  // Power tests only: no correction coins.
  bool skip_correction_for_power_test = false;
};

class CrossedIntegerCascadeSampler {
 public:
  // The trees and laws must outlive the sampler. InvalidArgument for a
  // conditioned law; OutOfRange when the acceptance bound is below 1/2 or
  // the variances leave 128-bit fractions; TooLarge beyond
  // kMaxIntegerCascadeNodes node pairs.
  CrossedIntegerCascadeSampler(const HierarchyTree& rows, const CascadeLaw& row_law, const HierarchyTree& cols,
                               const CascadeLaw& col_law, const Interrupts& interrupts,
                               CrossedIntegerCascadeOptions options = {});
  ~CrossedIntegerCascadeSampler();
  CrossedIntegerCascadeSampler(const CrossedIntegerCascadeSampler&) = delete;
  CrossedIntegerCascadeSampler& operator=(const CrossedIntegerCascadeSampler&) = delete;

  // Fills out[rows.n_nodes() * cols.n_nodes()] with one exact draw; returns
  // the number of attempts. OutOfRange if a centre leaves 64-bit integers;
  // Interrupted on cancel.
  std::uint64_t sample(RandomSource& rng, std::int64_t* out, const Interrupts& interrupts) const;
  double acceptance_bound() const { return acceptance_bound_; }

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
  double acceptance_bound_ = 0;
};

// Noise of every (row node, column node), row-major over node orders (the
// layout of crossed_rollup): integers, each (s, t) the sum over the
// children of s and over the children of t. Errors as above.
std::vector<std::int64_t> crossed_integer_cascade_noise(const HierarchyTree& rows, const CascadeLaw& row_law,
                                                        const HierarchyTree& cols, const CascadeLaw& col_law,
                                                        RandomSource& rng, const Interrupts& interrupts,
                                                        CrossedIntegerCascadeOptions options = {});

// The exact variance of the sum over row leaves [row_lo, row_hi] x column
// leaves [col_lo, col_hi]: [(1 - B) V, V], V = crossed_rectangle_variance,
// B = crossed_integer_cascade_deficit_bound.
VarianceBounds crossed_integer_rectangle_variance(const HierarchyTree& rows, const CascadeLaw& row_law,
                                                  const HierarchyTree& cols, const CascadeLaw& col_law,
                                                  double deficit_bound, std::uint32_t row_lo, std::uint32_t row_hi,
                                                  std::uint32_t col_lo, std::uint32_t col_hi);

// Both bounds pass over every node of both trees (IntegerSplits).
double crossed_integer_cascade_acceptance_bound(const HierarchyTree& rows, const CascadeLaw& row_law,
                                                const HierarchyTree& cols, const CascadeLaw& col_law,
                                                const Interrupts& interrupts);
// B for every rectangle (integer_cascade_accuracy.hpp), rounded up.
double crossed_integer_cascade_deficit_bound(const HierarchyTree& rows, const CascadeLaw& row_law,
                                             const HierarchyTree& cols, const CascadeLaw& col_law,
                                             const Interrupts& interrupts);

}  // namespace invariant_dp::hierarchy
