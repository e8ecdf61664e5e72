// The theta excess of a full-rank set of vectors of the kernel of a
// functional X of a lattice Gaussian (DERIVATIONS.md, section 13, "Any
// functional of a two-way table" and after): each vector b of squared
// length Q(b) in the law's metric (b^T Sigma^-1 b) is a coordinate of
// conditional variance at least s^2 = 1 / Q(b) in the claim, so the log
// excess is at most the sum of log(1 + 2 q / (1 - q)), q = exp(-2 pi^2 / Q).
//
// The kernel's vectors are built from a basis of moves M with values
// a = X(M): every move with a = 0, and for every other move
// (a_P M - a_M P) / gcd(a_P, a_M), P a pivot of smallest nonzero |a|.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <numeric>

#include "../interrupts.hpp"
#include "lattice_gaussian_quantiles.hpp"

namespace invariant_dp::accuracy {

// Vectors counted by squared length, pooled upward to 2^(k/16): few theta
// sums, each an upper bound for its vectors (s^2 = 1 / length^2).
class KernelLengths {
 public:
  void add(double length2, double count = 1) {
    by_k_[static_cast<int>(std::ceil(std::log2(length2) * 16 + 1e-9))] += count;
  }
  // The products of two sets' lengths, every pair (Kronecker products of
  // vectors of two lattices, in the product metric): a pair of classes at
  // most 2^(k/16) and 2^(l/16) is at most 2^((k + l)/16).
  static KernelLengths products(const KernelLengths& x, const KernelLengths& y, const Interrupts& interrupts) {
    KernelLengths out;
    for (const auto& [k, count] : x.by_k_) {
      interrupts.poll();
      for (const auto& [l, other] : y.by_k_) out.by_k_[k + l] += count * other;
    }
    return out;
  }
  double log_excess(const Interrupts& interrupts) const {
    double total = 0;
    for (const auto& [k, count] : by_k_) {
      interrupts.poll();
      total += log_excess_at_least(std::exp2(-double(k) / 16) * (1 - 1e-12), count);
    }
    return total;
  }

 private:
  std::map<int, double> by_k_;
};

// The squared length of (a_p M - a_m P) / gcd(a_p, a_m), given Q(M), Q(P)
// and their polarisation B(M, P): alpha^2 Q(M) + beta^2 Q(P) - 2 alpha beta
// B(M, P), with the cancellation's rounding covered by a relative 1e-12 of
// the sum (|2 alpha beta B| is at most the sum by Cauchy-Schwarz).
inline double kernel_vector_length2(std::int64_t a_p, std::int64_t a_m, double q_m, double q_p, double b_mp) {
  const auto g = static_cast<std::int64_t>(
      std::gcd(static_cast<std::uint64_t>(std::llabs(a_p)), static_cast<std::uint64_t>(std::llabs(a_m))));
  const double alpha = double(a_p / g), beta = double(a_m / g);
  const double sum = alpha * alpha * q_m + beta * beta * q_p;
  return sum - 2 * alpha * beta * b_mp + 1e-12 * sum;
}

}  // namespace invariant_dp::accuracy
