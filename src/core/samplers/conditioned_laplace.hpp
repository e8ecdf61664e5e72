// Exact i.i.d. discrete Laplace noise conditioned on zero sums within the
// groups of a partition of the cells: the "integer_laplace" mechanism for
// totals over a partition, i.e. the l1 generalized Laplace of Dharangutte,
// Gao, Gong, Yu 2023 (arXiv:2212.00936), Definition 9, whose density
// exp(-eps ||z||_1) factorises into i.i.d. discrete Laplace coordinates,
// sampled exactly where the paper uses MCMC (exact samplers are its open
// problem, Section 6):
//
//   P(z)  proportional to  exp(-||z||_1 / b)  on  {z in Z^d : sum_{i in g} z_i = 0
//   for every group g},   b = scale = num/den > 0.
//
// The density factorises over groups and so does the constraint, so groups
// are independent; a group of one cell gets 0. For a group of k >= 2 cells:
//
// 1. Write each X_i = G_i - G'_i with G, G' i.i.d. geometric on {0, 1, ...},
//    P(g) = (1-a) a^g, a = exp(-1/b). Then P(X_i = x) is proportional to
//    sum_{g - g' = x} a^(g + g') = a^|x| / (1 - a^2): X is the discrete
//    Laplace of scale b, so the target is the law of X given sum X = 0.
// 2. sum X = 0 iff sum G = sum G'. So the target is the law of G - G' given
//    the event E = {sum G = sum G'}: for any z,
//    P(X = z | E) = sum_{(g, g') : g - g' = z, E} P(g) P(g') / P(E).
// 3. P(g) = (1-a)^k a^(sum g) depends only on n = sum g, and there are
//    C(n+k-1, k-1) compositions g of n. Hence, given E, the common total
//    N = sum G has P(N = n | E) proportional to C(n+k-1, k-1)^2 a^(2n), and
//    given N = n and E, G and G' are independent and each uniform over the
//    compositions of n into k non-negative parts. Sampling N from that law
//    (CompositionTotalSampler, composition_total.hpp: exact rejection for a
//    log-concave law with MPFR-certified lazy Bernoulli decisions), then G
//    and G' as two independent uniform compositions, and returning G - G',
//    draws (G, G') from its exact law given E, so z = G - G' has exactly the
//    target law.
// 4. A uniform composition of n into k parts is a uniform (k-1)-subset of
//    the n+k-1 positions of "stars and bars" (a bijection: parts are the gaps
//    between consecutive bars). The subset is drawn with Floyd's algorithm
//    (Bentley and Floyd 1987), which is exactly uniform given exact
//    uniform_below draws.
// Cost: O(k + N) per group with the bitmap of positions, O(k log k) with a
// hash set when N >> k; E[N] ~ k a / (1 - a) ~ k b.
//
// Limits: the expected total of a group, about k * b, must stay below 2^50
// (else OutOfRange); then every |z_i| <= N < 2^62 fits a bigint.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "composition_total.hpp"
#include "rational.hpp"
#include "zero_sum_groups.hpp"

namespace invariant_dp {

// Writes a uniformly random composition of total into parts.size() >= 1
// non-negative parts (exposed for tests). total + parts.size() - 1 < 2^63.
void sample_uniform_composition(RandomSource& rng, std::uint64_t total,
                                std::vector<std::uint64_t>& parts, const Interrupts& interrupts);

// One group of k >= 2 cells with the law above (steps 1-4): the one home of
// the group draw, for every caller that draws groups of one size many times
// (the partition sampler below, the exact table samplers of
// two_line_table.hpp and row_rejection_table.hpp). The total's sampler
// comes from the thread's cache (composition_total_cache.hpp: a function of
// scale, k and squeeze_cells only, never of the counts), so it is built
// once per thread for each, not once per release. squeeze_cells as
// CompositionTotalSampler's (0: none). Holds scratch compositions: one
// object per thread.
class ZeroSumGroupSampler {
 public:
  // InvalidArgument for k < 2 or a zero scale; OutOfRange as
  // CompositionTotalSampler (about k * scale > 2^50).
  ZeroSumGroupSampler(Rational scale, std::uint64_t k, unsigned squeeze_cells);

  std::uint64_t cells() const { return total_->cells(); }

  // Draws one group and calls write(t, z_t) for t = 0 .. k-1 in order.
  template <class Write>
  void sample(RandomSource& rng, const Interrupts& interrupts, Write write) {
    draw(rng, interrupts);
    for (std::uint64_t t = 0; t < g1_.size(); ++t)
      write(t, static_cast<std::int64_t>(g1_[t]) - static_cast<std::int64_t>(g2_[t]));
  }
  // The same into z[0 .. k).
  void sample(RandomSource& rng, std::int64_t* z, const Interrupts& interrupts) {
    sample(rng, interrupts, [z](std::uint64_t t, std::int64_t v) { z[t] = v; });
  }

 private:
  void draw(RandomSource& rng, const Interrupts& interrupts);  // N, then G and G'

  std::shared_ptr<const CompositionTotalSampler> total_;
  std::vector<std::uint64_t> g1_, g2_;
};

// The law above on the partition of zero_sum_groups.hpp, written to z (or
// added to its base). InvalidArgument for a zero scale or a bad partition;
// OutOfRange if a group is too large for the scale (see Limits) or a sum
// leaves bigint; Interrupted on cancel.
void sample_laplace_with_zero_group_sums(RandomSource& rng, Rational scale, const ZeroSumPartition& groups,
                                         NoiseOutput z, const Interrupts& interrupts);

}  // namespace invariant_dp
