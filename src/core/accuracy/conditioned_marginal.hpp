// The law of one cell of a margin group under integer_laplace: k i.i.d.
// discrete Laplace variables of scale b conditioned on a zero sum
// (samplers/conditioned_laplace.hpp). Cell 1 has
//   P(z_1 = t | sum = 0) = p(t) P(S_{k-1} = -t) / P(S_k = 0),
// p the discrete Laplace pmf, S_m the sum of m i.i.d. copies.
//
// S_m's pmf solves a three-term recurrence: its generating function
// G(x) = ((1 - a)^2 / ((1 - a x)(1 - a/x)))^m, a = exp(-1/b), satisfies
// (1 - a x)(x - a) x G' = m a (x^2 - 1) G, whose coefficient of x^(s+1) is
//   a (s + 1 - m) P_{s+1} = (1 + a^2) s P_s - a (s + m - 1) P_{s-1}.
// P decays like a^s as s grows, the recurrence's minimal solution, so it is
// computed downwards from far in the tail (Miller's algorithm: the other
// solution, growing like a^-s, dies out going down) and normalised by
// sum_s P_s = 1. The start lies 12 standard deviations of S_m plus 70 b
// beyond 0, where P is below e^-70 and the start's error has decayed by
// a^140 b = e^-140; the cost is that many steps. DERIVATIONS.md, section 5,
// and test_accuracy_intervals.cpp check it against direct convolution.
//
// Without the recurrence (work past the limit) the conditioned cell is
// still bounded: P(S_{k-1} = -t) is symmetric and non-increasing in |t|
// (a sum of symmetric log-concave pmfs is log-concave), so the likelihood
// ratio to p decreases in |t| and |z_1| is stochastically smaller than the
// unconditioned |X|: the discrete Laplace quantile is conservative.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../samplers/rational.hpp"

namespace invariant_dp::accuracy {

// P(S_m = s) for s = 0 .. s_max (the law is symmetric), m >= 1; a = exp(-1/b).
std::vector<double> discrete_laplace_sum_pmf(double a, std::uint64_t m, std::size_t s_max,
                                            const Interrupts& interrupts = {});

// Steps the recurrence needs for S_m at this a (for the work limit).
double sum_pmf_steps(double a, std::uint64_t m);

// P(z_1 = t | sum = 0) for t = 0 .. T (symmetric), T beyond which the mass is
// below e^-45; empty when the recurrence would take more than max_steps
// steps or T more than 2^22 entries (b beyond about 93,000). k >= 2.
std::vector<double> conditioned_laplace_marginal(Rational b, std::uint64_t k, double max_steps,
                                                const Interrupts& interrupts = {});

// The smallest t with P(|z_1| > t) <= 1 - level, the tail clearing it by a
// relative 1e-9 (double rounding): the exact quantile of that law.
std::int64_t marginal_half_width(const std::vector<double>& pmf, double level);

}  // namespace invariant_dp::accuracy
