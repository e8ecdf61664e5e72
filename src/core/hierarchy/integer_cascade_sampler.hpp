// Integer Cascade: exact lattice Gaussian noise with the cascade's
// covariance on a hierarchy. Leaf noise z in Z^n with
//
//   P(z)  proportional to  rho(z) = exp(-z^T Sigma^-1 z / 2),
//
// Sigma the Cascade Sampling covariance of cascade_law.hpp (Dharangutte,
// Gao, Gong, Wang, arXiv 2402.07066, Def. 3.1 and Algorithm 1; any fan-out,
// one-child chains, per-level targets as in cascade_law.hpp), and, under a
// conditioned law, z restricted to the lattice where every pinned node's
// noise is 0 (the margin lattice; the form is then the one of the
// conditioned Gaussian). The derivation below goes beyond the papers;
// test_integer_cascade_sampler.cpp checks steps 1-2 against a dense
// Cholesky (Eigen) and stat_integer_cascade.cpp the law against the
// enumerated target.
//
// 1. The form along the tree. Write X_u for the noise of node u (the sum of
//    its leaves). The cascade is an invertible linear map of independent
//    normals: the root X_0 ~ N(0, v_0) and, per split s into m children,
//    D_s = X_children - (X_s / m) 1 ~ N(0, tau_s^2 (I - J/m)) (tau_s^2 of
//    cascade_law.hpp), which has density proportional to
//    exp(-|D_s|^2 / (2 tau_s^2)) on the hyperplane sum D_s = 0. The map's
//    Jacobian is constant, and |X_children - (X_s/m) 1|^2 =
//    sum_c X_c^2 - X_s^2 / m, so
//      z^T Sigma^-1 z = X_0^2 / v_0 + sum_{splits s} (sum_c X_c^2 - X_s^2/m_s) / tau_s^2
//    (one-child nodes add nothing; pinned splits have every X = 0).
// 2. A basis and its Gram-Schmidt data. For a split s with children
//    c_1 .. c_m (in order) let P_i = X_{c_1} + ... + X_{c_i}, so P_0 = 0,
//    P_m = X_s. By induction on m (the step k -> k + 1 adds
//    (P_{k+1} - P_k)^2 - P_{k+1}^2/(k+1) + P_k^2/k, which expands to
//    ((k+1)/k)(P_k - k P_{k+1}/(k+1))^2),
//      sum_{i=1}^{m} (P_i - P_{i-1})^2 - P_m^2/m
//        = sum_{i=1}^{m-1} ((i+1)/i) (P_i - i P_{i+1}/(i+1))^2.
//    Take as coordinates y: X_0 (unless pinned), then, for every free split
//    in node order, P_{m-1}, ..., P_1. They are integers for integer z, and
//    any integers give integer z top-down (X_{c_i} = P_i - P_{i-1}): the
//    map is unimodular, so the coordinates are those of a basis of Z^n (of
//    the margin lattice when some nodes are pinned). Each centre below uses
//    only coordinates listed earlier (P_{i+1}, or X_s, fixed by the splits
//    above s). Hence
//      rho(z) = prod_j rho_{s_j}(y_j - c_j),   rho_s(t) = exp(-t^2 / (2 s^2)),
//      root:  s^2 = v_0,                     c = 0;
//      P_i:   s^2 = tau_s^2 i/(i+1),         c = i P_{i+1} / (i+1),
//    i.e. in this order the basis has squared Gram-Schmidt norms 1/s_j^2
//    (with respect to Sigma^-1) and Gram-Schmidt centres c_j. Every
//    s^2 >= tau_s^2 / 2 (binary splits: s^2 = tau^2/2 = v_c - v_p/4, the
//    3v/4 of the paper's eq. 2 at uniform v).
// 3. Exact sampling (Klein 2000; Gentry, Peikert, Vaikuntanathan 2008;
//    Brakerski, Langlois, Peikert, Regev, Stehle 2013, Lemma 2.3). Drawing
//    each y_j in order from D_{Z, s_j, c_j} exactly outputs z with
//    probability rho(z) / prod_j rho_{s_j}(Z - c_j); the denominators depend
//    on z through c_j mod 1 only (the parity of the parent at a binary
//    split; i P_{i+1} mod (i+1) in general). Accepting z with probability
//    prod_j R_j, R_j = rho_{s_j}(Z - c_j) / rho_{s_j}(Z) <= 1 (Poisson
//    summation), as independent coins (KleinCorrection, klein_correction.hpp;
//    none when c_j is an integer, as for the root), and otherwise restarting
//    the whole tree, gives P(z, accepted) = rho(z) / prod_j rho_{s_j}(Z): a
//    constant times the target, so accepted draws have exactly the target
//    law. Each 1-D draw is exact: DiscreteGaussianTable (inversion against a
//    certified CDF, discrete_gaussian_table.hpp) for the (s^2, denominator)
//    pairs that recur often enough to pay for a table, else
//    sample_discrete_gaussian_centred (conditioned_gaussian.hpp).
// 4. Acceptance. R_j >= 1 - 4 q_j/(1 - q_j), q_j = exp(-2 pi^2 s_j^2), so a
//    tree is accepted with probability >= 1 - sum_j 4 q_j/(1 - q_j) (summed
//    exactly over split classes, integer_cascade_splits.hpp). The sampler is
//    used only when that bound is >= 1/2 (at most two attempts expected);
//    otherwise it refuses (OutOfRange) rather than approximate. At uniform
//    variance v on a binary tree of n leaves (s^2 = 3v/4) this needs
//    v >= 1.27 for n = 2^24, 0.61 for n = 2^10; on a national shape (50
//    states, 3,143 counties, 85,000 tracts, 240,000 block groups, 8e6
//    blocks) v >= 1.41. Calibrations (delta = 1e-9, replace_one) give
//    v = 557 (2^24 binary) and 323 (national) at epsilon = 1, and 7.6 and
//    4.4 at epsilon = 10, where the bound still exceeds 1 - 1e-11 (every
//    s^2 >= 2.2, q < e^-43).
//    Exactness is out of reach, and refused, only for noise below about one
//    count per node on large trees (the national shape from epsilon = 20),
//    or a split whose children's target barely exceeds v_p/m^2.
// 5. The release. Internal nodes are sums of integer leaves, so every level
//    is integer and consistent; rho(-z) = rho(z), so E z = 0 and the release
//    is unbiased; nothing is clamped or rounded. The noise does not depend on
//    the data: the same random stream gives the same z for any counts.
// Streams (streaming_cascade.hpp) do not carry over. Its growth step rests
// on a prefix of the leaves having the same law under every horizon; for
// the lattice law a prefix's marginal is the target summed over the other
// leaves, which tilts it by theta-function factors that depend on the
// horizon (it is not itself the lattice Gaussian of the smaller tree). And
// the correction of step 3 may restart the whole tree, which a stream
// cannot do once leaves are published. An exact integer stream would have
// to draw the whole horizon at once and release it piecewise (a secret
// state of 2^K leaves), which is not implemented.
// Cost: O(nodes) time; per coordinate one exact 1-D draw (with a table: one
// 64-bit word and a short scan) and, when the centre is fractional, one coin
// (one 64-bit word except with probability about 4 q_j). Memory: one int64
// per node, the tables (at most 64 MB).
#pragma once

#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "../samplers/discrete_gaussian_table.hpp"
#include "../samplers/klein_correction.hpp"
#include "cascade_law.hpp"
#include "hierarchy_tree.hpp"
#include "integer_cascade_splits.hpp"

namespace invariant_dp::hierarchy {

// Larger hierarchies are refused (TooLarge) before any noise is allocated:
// 2^27 nodes is 1 GiB of node noise.
constexpr std::size_t kMaxIntegerCascadeNodes = std::size_t(1) << 27;
void require_integer_cascade_size(std::size_t n_nodes);

// step 4: the lower bound of an attempt's acceptance probability (may be
// negative), and whether the exact sampler applies (bound >= 1/2).
double integer_cascade_acceptance_bound(const IntegerSplits& splits);
// The same for the coordinates of a product of lattices (one factor: a
// tree; two: crossed trees, crossed_integer_cascade.hpp): each coordinate's
// s^2 is the product of its factors' and only the all-root coordinate has
// an integer centre.
double product_acceptance_bound(const std::vector<std::vector<CoordinateGroup>>& factors);
bool integer_cascade_exact_applies(const IntegerSplits& splits);
// OutOfRange, saying why, unless integer_cascade_exact_applies.
void require_integer_cascade_exact(const IntegerSplits& splits);

struct IntegerCascadeOptions {
  // How each 1-D coordinate is drawn (both exact); automatic picks tables
  // for the (s^2, denominator) pairs that recur.
  enum class Draws { automatic, tables, rejection };
  Draws draws = Draws::automatic;
  // Power tests only: Klein's draw without the correction coins (close to,
  // but not exactly, the target).
  bool skip_correction_for_power_test = false;
};

class IntegerCascadeSampler {
 public:
  // tree and law must outlive the sampler. TooLarge past
  // kMaxIntegerCascadeNodes; OutOfRange when the law does not fit exact
  // integers or the acceptance bound is below 1/2; Interrupted on cancel.
  IntegerCascadeSampler(const HierarchyTree& tree, const CascadeLaw& law, const Interrupts& interrupts,
                        IntegerCascadeOptions options = {});

  // Fills node_noise[0 .. n_nodes) (node order) with one exact draw; returns
  // the number of attempts it took (1 except after a correction coin fails).
  std::uint64_t sample(RandomSource& rng, std::int64_t* node_noise, const Interrupts& interrupts) const;

  const IntegerSplits& splits() const { return splits_; }
  double acceptance_bound() const { return acceptance_bound_; }
  // Coordinates drawn from tables, and table memory, for the benchmark.
  std::uint64_t table_coordinates() const { return table_coordinates_; }
  std::size_t table_bytes() const { return table_bytes_; }

 private:
  struct ClassDraws {
    KleinCorrection correction;
    // tables[i][F]: D_{Z, s_i, F/(i+1)}; empty when drawn by rejection.
    std::vector<std::vector<DiscreteGaussianTable>> tables;
  };

  const HierarchyTree& tree_;
  const CascadeLaw& law_;
  IntegerSplits splits_;
  IntegerCascadeOptions options_;
  std::vector<ClassDraws> draws_;
  double acceptance_bound_ = 0;
  std::uint64_t table_coordinates_ = 0;
  std::size_t table_bytes_ = 0;
};

// The noise of every leaf, in leaf order.
std::vector<std::int64_t> integer_cascade_leaf_noise(const HierarchyTree& tree, const CascadeLaw& law,
                                                     RandomSource& rng, const Interrupts& interrupts);

struct IntegerCascadeRelease {
  std::vector<std::int64_t> node_values;  // node order: released leaves and their rollups
  std::uint64_t attempts = 0;             // of the exact sampler (step 3)
};

// counts_by_cell: one count per leaf in CellKeys cell order (tree.leaf_cell).
// Released leaf = count + noise; every internal node is the integer sum of
// its children (equal to its own count plus its noise). OutOfRange if a
// total overflows int64. Memory: one int64 per node.
IntegerCascadeRelease release_integer_cascade(const HierarchyTree& tree, const CascadeLaw& law,
                                              const std::int64_t* counts_by_cell, RandomSource& rng,
                                              const Interrupts& interrupts);

// Exposed for tests: the coordinates of step 2 in the sampler's order, and
// the deterministic map from their values to node noise, recording each
// coordinate's centre c_j (as a double) on the way.
struct CascadeCoordinate {
  std::uint32_t node;   // the root, or the split node
  std::uint32_t index;  // i of P_i; 0 for the root
  double s2;
};
std::vector<CascadeCoordinate> integer_cascade_coordinates(const HierarchyTree& tree, const CascadeLaw& law);
std::vector<std::int64_t> integer_cascade_from_coordinates(const HierarchyTree& tree, const CascadeLaw& law,
                                                           const std::vector<std::int64_t>& y,
                                                           std::vector<double>* centres);

}  // namespace invariant_dp::hierarchy
