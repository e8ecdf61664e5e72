// The acceptance coin of probabilistic divide-and-conquer with a
// deterministic second half (Arratia and DeSalvo 2016, arXiv:1110.3856;
// DeSalvo 2014, arXiv:1411.6698) when the second half is a sum
// of geometric variables: for the negative binomial law of the sum N of k
// i.i.d. geometric variables P(G = g) = (1 - rho) rho^g,
//
//   P(N = m)  proportional to  nb(m) = C(m + k - 1, k - 1) rho^m,  m >= 0,
//   rho = exp(-rate), rate = num/den > 0, k >= 1,
//
// a Bernoulli(nb(m) / nb(mode)) decided exactly. A sampler that sets N = m
// from the first half's draws and accepts with this probability has
// accepted with probability proportional to P(N = m): the law of the first
// half is weighted exactly as if N had been drawn and matched.
//
// The mode is the smallest m with rho (m + k) < m + 1 (nb(m+1)/nb(m) =
// rho (m + k)/(m + 1) decreases in m: nb is log-concave), found with
// enclosures of rho; equality is impossible since rho is transcendental
// (Lindemann-Weierstrass) and (m + 1)/(m + k) rational. So nb(m) <=
// nb(mode) and the probability is at most 1. The decision is 1[U < p] for
// a LazyUniform U against outward-rounded enclosures of
//   log p = lnG(m+k) - lnG(m+1) - (lnG(M+k) - lnG(M+1)) - (m - M) rate,
// M the mode (lazy_bernoulli.hpp), so nothing is rounded in a way that
// changes the law. Cost: two log-gamma evaluations at 128 bits and one
// exponential per coin, more precision only when U falls within the
// enclosure's width of p. A coin that sees the same m again (many tables of
// one length) first compares U's first 64 digits with double bounds of p
// kept from the last time (outward-rounded: lo <= p <= hi), which decides
// all but about one comparison in 2^50; the decision is 1[U < p] for the
// same U either way, so the draws are the same with or without it.
#pragma once

#include <cstdint>
#include <vector>

#include "../random_source.hpp"
#include "interval.hpp"
#include "rational.hpp"

namespace invariant_dp {

class NegativeBinomialCoin {
 public:
  // InvalidArgument for k = 0 or a zero rate; OutOfRange if the mode
  // exceeds 2^50 (about k / rate > 2^50).
  NegativeBinomialCoin(Rational rate, std::uint64_t k);

  std::uint64_t mode() const { return mode_; }
  std::uint64_t k() const { return k_; }

  // Bernoulli(nb(m) / nb(mode)); m + k must stay below 2^63
  // (OutOfRange otherwise). Keeps bounds of p for totals near the mode:
  // one coin per thread.
  bool accept(RandomSource& rng, std::uint64_t m);

  // Enclosure of log(nb(m) / nb(mode)) at precision prec (>= 128).
  Interval log_ratio_bounds(mpfr_prec_t prec, std::uint64_t m) const;

 private:
  // Certified double bounds of p for m in [first_, first_ + kKept), filled
  // on first use (lo > hi: not yet).
  static constexpr std::uint64_t kKept = 4096;
  bool decide_from_first_word(std::uint64_t m, std::uint64_t word, bool& accept);

  Rational rate_;
  std::uint64_t k_;
  std::uint64_t mode_ = 0;
  std::uint64_t first_ = 0;
  std::vector<double> lo_, hi_;
};

}  // namespace invariant_dp
