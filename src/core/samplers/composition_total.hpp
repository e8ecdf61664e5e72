// Exact sampler of the total N of one group of the conditioned discrete
// Laplace (conditioned_laplace.hpp):
//
//   P(N = n)  proportional to  w(n) = C(n+k-1, k-1)^2 a^(2n),  n >= 0,
//   a = exp(-1/b), b = num/den, k >= 2 cells.
//
// w is log-concave: w(n+1)/w(n) = ((n+k)/(n+1))^2 a^2 decreases in n. The
// sampler is rejection from a dominating envelope e >= w built from that
// fact alone, with accept/reject decided exactly by LazyUniform against
// enclosures of w(n)/e(n). Nothing is rounded in a way that changes the law.
//
// Envelope. Let m be the mode: the smallest n with (n+k) a < n+1 (found
// exactly with enclosures of a; equality is impossible because a is
// transcendental, Lindemann-Weierstrass), M = w(m) = max w. With L <= m <= R,
// hL, hR >= 1 such that w(R+hR) <= w(R)/2 and (when L >= hL) w(L-hL) <= w(L)/2,
// both certified with enclosures:
//   e(n) = M              on [L, R)                       ("middle"),
//   e(n) = M 2^-j         on [R + j hR, R + (j+1) hR)     (right block j),
//   e(n) = M 2^-j         on [L - (j+1) hL, L - j hL)     (left block j, only if L > 0).
// e >= w: on the middle, w <= M. Right of the mode w decreases, and the hR-step
// ratio w(n+hR)/w(n) is non-increasing in n (it is a product of the
// non-increasing one-step ratios), so w(n) <= w(R + j hR) <= w(R) 2^-j <= M 2^-j
// on right block j. The left side is the mirror image (w increases up to m);
// if L < hL every left block j >= 1 lies below 0, where w = 0.
// Proposal. With T = (R - L) + 2 hR + (L > 0 ? 2 hL : 0) and t uniform on
// [0, T): t < R-L gives n = L + t; otherwise a fair side, j = number of heads
// before the first tail (P = 2^-(j+1)) and an offset uniform in the block.
// Each n then has proposal probability e(n) / (M T) exactly; n < 0 is
// rejected (w = 0). Accepting with probability w(n)/e(n) = exp(log w(n) -
// log w(m) + j ln 2) makes the accepted n have law w(n) / sum w, exactly.
// With L = m - s, R = m + s, s ~ the standard deviation of N and h ~ 0.6 s,
// the acceptance rate is about 0.6.
// Squeeze (speed only). For a size shared by many groups, certified double
// bounds plo <= w(n)/M <= phi on a grid of up to 1024 cells (log-concavity:
// on a cell w >= the smaller end value; beside the mode w <= the nearer end
// value; the bounds are MPFR values rounded outwards to double) decide most
// comparisons from the first 64 digits of the same U, with a margin of 2^12
// units of the last digit for the rounding of the word to double; the rest
// go to MPFR. The decision is 1[U < p] either way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "../random_source.hpp"
#include "interval.hpp"
#include "rational.hpp"

namespace invariant_dp {

// Totals above this are refused (OutOfRange); N + k - 1 and every part then
// fit in a signed 64-bit integer.
constexpr std::uint64_t kMaxCompositionTotal = std::uint64_t{1} << 62;

class CompositionTotalSampler {
 public:
  // Throws InvalidArgument for k < 2 or a non-positive scale, OutOfRange if
  // the mode of N exceeds 2^50 (about k * scale > 2^50).
  // squeeze_cells > 0 builds the squeeze on that many grid cells (about
  // 4 lngamma evaluations each): worth it when many groups share k.
  CompositionTotalSampler(Rational scale, std::uint64_t k, unsigned squeeze_cells);

  std::uint64_t sample(RandomSource& rng, const Interrupts& interrupts) const;

  std::uint64_t mode() const { return m_; }
  std::uint64_t cells() const { return k_; }

  // The bytes this object holds, its squeeze grid and the mode term's
  // limbs included (composition_total_cache.hpp budgets them).
  std::size_t memory_bytes() const;

  // Enclosure of log w(n) - log w(mode) + j ln 2 at precision prec (>= 128).
  Interval log_ratio_bounds(mpfr_prec_t prec, std::uint64_t n, std::uint64_t j) const;

 private:
  std::uint64_t find_mode() const;
  bool halves_within(std::uint64_t from, std::uint64_t to) const;
  void choose_envelope();
  Interval mode_term_bounds(mpfr_prec_t prec) const;
  void build_squeeze(unsigned cells);
  bool squeeze_decides(std::uint64_t n, std::uint64_t j, std::uint64_t word, bool& accept) const;

  Rational scale_;
  std::uint64_t k_;
  std::uint64_t m_ = 0, L_ = 0, R_ = 0, hL_ = 1, hR_ = 1, total_ = 0;
  // Squeeze grid: points grid_start_ + i * grid_step_, certified bounds of w/M.
  std::uint64_t grid_start_ = 0, grid_step_ = 1;
  std::vector<double> grid_lo_, grid_hi_;
  Interval mode_term_;  // lnG(m+k) - lnG(m+1) at 128 bits
};

}  // namespace invariant_dp
