// The exact law of a pair of lines of a two-way table; see pair_block.hpp.
#include "pair_block.hpp"

#include <algorithm>
#include <cmath>

#include "../errors.hpp"

namespace invariant_dp::mcmc {

PairBlockLaw::PairBlockLaw(std::size_t n, double lambda) : n_(n) {
  if (n == 0) throw InvalidArgument("a pair block needs at least one position");
  if (!(std::isfinite(lambda) && lambda > 0)) throw InvalidArgument("the l1 rate must be finite and positive");
  rho_ = std::exp(-2 * lambda);
  one_minus_rho_ = -std::expm1(-2 * lambda);
  // NB(n, rho): P(m) ∝ C(m + n - 1, m) rho^m, ratio P(m+1)/P(m) = rho (m + n) / (m + 1),
  // largest at floor((n - 1) rho / (1 - rho)). Walk out from the mode in
  // both directions while the weight exceeds 2^-64 of the mode's.
  const double nd = double(n);
  // The table spans about 19 standard deviations sqrt(n rho) / (1 - rho).
  if (19 * std::sqrt(nd * rho_) / one_minus_rho_ > double(kMaxTable))
    throw TooLarge("the l1 rate is too small for the table chain's block updates");
  const std::int64_t mode = std::int64_t(std::floor((nd - 1) * rho_ / one_minus_rho_));
  constexpr double kNegligible = 5.421010862427522e-20;  // 2^-64
  std::vector<double> below, above{1.0};
  // Ends: the table grows by one a pass and is refused past kMaxTable.
  for (double w = 1; ;) {  // m = mode + above.size() - 1 -> next
    const double m = double(mode) + double(above.size()) - 1;
    w *= rho_ * (m + nd) / (m + 1);
    if (w < kNegligible) break;
    above.push_back(w);
    if (above.size() > kMaxTable) throw TooLarge("the l1 rate is too small for the table chain's block updates");
  }
  // Ends: the table grows by one a pass and is refused past kMaxTable.
  for (double w = 1; mode - std::int64_t(below.size()) > 0;) {  // m -> m - 1
    const double m = double(mode) - double(below.size());
    w *= m / (rho_ * (m - 1 + nd));
    if (w < kNegligible) break;
    below.push_back(w);
    if (below.size() > kMaxTable) throw TooLarge("the l1 rate is too small for the table chain's block updates");
  }
  nb_first_ = mode - std::int64_t(below.size());
  nb_relative_.assign(below.rbegin(), below.rend());
  nb_relative_.insert(nb_relative_.end(), above.begin(), above.end());
  inverse_one_minus_rho_ = 1 / one_minus_rho_;
  // rho^m while above 2^-54 (no uniform lies below it), at most kMaxTable
  // entries (past them geometric_quantile() goes on by memorylessness);
  // each entry at most the one before, so that counting them is monotone.
  constexpr double kBelowEveryUniform = 5.551115123125783e-17;  // 2^-54
  geometric_tail_.push_back(1.0);
  // Ends: the table grows by one a pass up to kMaxTable.
  while (geometric_tail_.back() >= kBelowEveryUniform && geometric_tail_.size() < kMaxTable)
    geometric_tail_.push_back(
        std::min(geometric_tail_.back(), std::exp(-2 * lambda * double(geometric_tail_.size()))));
  geometric_by_chunk_ = ChunkedUniforms::ChunkTable([&](double u) { return geometric_quantile(u); }, true);
  for (std::size_t length = 0; length <= kPlateauTable; ++length)  // (0: the point 0)
    plateau_by_chunk_.emplace_back([&](double u) { return plateau_quantile(std::int64_t(length), u); }, false);
}

// alpha on {0..L}: weight 1 at both ends, 1 - rho inside (L >= 1).
// Inversion, so the draw is monotone in L for a fixed u.
std::int64_t PairBlockLaw::plateau_quantile(std::int64_t length, double u) const {
  const double inside = double(length - 1) * one_minus_rho_;
  double x = u * (2 + inside);
  if (x < 1) return 0;
  x -= 1;
  if (x >= inside) return length;
  return std::min<std::int64_t>(length - 1, 1 + std::int64_t(x * inverse_one_minus_rho_));
}

std::int64_t PairBlockLaw::unsettled_plateau(std::int64_t length, const ChunkedUniforms::Draw& draw,
                                             ChunkedUniforms& uniforms) const {
  return uniforms.settle(draw, [&](double u) { return plateau_quantile(length, u); });
}

// G = the number of m >= 1 with rho^m > u, so P(G >= m) = rho^m (not
// increasing in u). Below the table's last entry rho^M (only when the
// table was cut at kMaxTable entries, at rates far below calibrated ones)
// G = M + G' with G' the same count at u / rho^M: the law is memoryless.
std::int64_t PairBlockLaw::geometric_quantile(double u) const {
  const double last = geometric_tail_.back();
  const std::int64_t span = std::int64_t(geometric_tail_.size()) - 1;
  std::int64_t base = 0;
  // Ends: each pass multiplies u by 1 / rho^M > 1 until it reaches rho^M; passes are
  // taken with probability rho^M each, and only for a table cut short.
  while (u < last) {
    base += span;
    u /= last;
  }
  const auto above = std::partition_point(geometric_tail_.begin() + 1, geometric_tail_.end(),
                                          [u](double p) { return p > u; });
  return base + std::int64_t(above - geometric_tail_.begin()) - 1;
}

std::int64_t PairBlockLaw::unsettled_geometric(const ChunkedUniforms::Draw& draw, ChunkedUniforms& uniforms) const {
  return uniforms.settle(draw, [&](double u) { return geometric_quantile(u); });
}

namespace {

// The parts of a composition in a Fenwick tree (tree[1..n], tree[i] the sum
// of parts (i - lowbit(i), i]), for the unit moves: a part picked with
// probability proportional to itself, or to itself plus one (each part's
// one extra is lowbit(i) in node i), by one descent, and moved by one
// update: O(log n) each.
class PartTree {
 public:
  PartTree(std::int64_t* tree, std::size_t n) : tree_(tree), n_(n) {
    top_ = 1;
    // Ends: doubles up to n, at most 64 times.
    while (top_ * 2 <= n_) top_ *= 2;
  }
  // From the parts (built in place in O(n)).
  void build(const std::int64_t* parts) {
    for (std::size_t i = 1; i <= n_; ++i) tree_[i] = parts[i - 1];
    for (std::size_t i = 1; i <= n_; ++i)
      if (std::size_t parent = i + (i & (0 - i)); parent <= n_) tree_[parent] += tree_[i];
  }
  // The part holding the x-th unit (0-based) counting `extra` more per part.
  std::size_t find(std::uint64_t x, std::int64_t extra) const {
    std::size_t at = 0;
    for (std::size_t step = top_; step != 0; step /= 2) {
      const std::size_t next = at + step;
      if (next > n_) continue;
      const std::uint64_t weight = std::uint64_t(tree_[next] + extra * std::int64_t(next & (0 - next)));
      if (weight <= x) {
        at = next;
        x -= weight;
      }
    }
    return at;  // 0-based: the part after the `at` whole parts passed
  }
  void add(std::size_t part, std::int64_t delta) {
    for (std::size_t i = part + 1; i <= n_; i += i & (0 - i)) tree_[i] += delta;
  }

 private:
  std::int64_t* tree_;
  std::size_t n_, top_;
};

}  // namespace

// The split of `total` (see pair_block.hpp): n geometrics, four to a
// word, then the unit moves, each part picked by one exact uniform integer
// over the units (removing) or the units and one more per part (adding).
void PairBlockLaw::add_composition(std::int64_t total, std::int64_t* out, std::int64_t* scratch,
                                   ChunkedUniforms& uniforms) const {
  std::int64_t* const parts = scratch;
  std::int64_t sum = 0;
  std::uint64_t four = 0;
  for (std::size_t j = 0; j < n_; ++j) {
    if (j % 4 == 0) four = uniforms.four();
    parts[j] = geometric(ChunkedUniforms::chunk(four, unsigned(j % 4)), uniforms);
    sum += parts[j];
  }
  if (sum != total) {
    PartTree tree(scratch + n_, n_);  // tree[1..n] after the parts
    tree.build(parts);
    const std::int64_t n = std::int64_t(n_);
    // Ends: each pass adds one of the total - sum units missing.
    for (; sum < total; ++sum) {
      const std::size_t j = tree.find(uniforms.below(std::uint64_t(sum + n)), 1);
      ++parts[j];
      tree.add(j, 1);
    }
    // Ends: each pass removes one of the sum - total units too many.
    for (; sum > total; --sum) {
      const std::size_t j = tree.find(uniforms.below(std::uint64_t(sum)), 0);
      --parts[j];
      tree.add(j, -1);
    }
  }
  for (std::size_t j = 0; j < n_; ++j) out[j] += parts[j];
}

std::uint64_t PairBlockLaw::sample(const std::int64_t* sums, std::int64_t total, std::int64_t* first,
                                   RandomSource& rng) const {
  ChunkedUniforms uniforms(rng, rng);
  std::vector<std::int64_t> scratch(kScratchPerPosition * n_ + 1);
  return sample(sums, total, first, scratch.data(), uniforms);
}

std::uint64_t PairBlockLaw::sample(const std::int64_t* sums, std::int64_t total, std::int64_t* first,
                                   std::int64_t* scratch, ChunkedUniforms& uniforms) const {
  std::int64_t lows = 0;  // sum of a_j
  for (std::size_t j = 0; j < n_; ++j) lows += std::min<std::int64_t>(0, sums[j]);
  const std::int64_t target = total - lows;  // sum of C + N+ - N-
  const std::int64_t nb_last = nb_first_ + std::int64_t(nb_relative_.size()) - 1;
  constexpr std::uint8_t kUnsettled = ChunkedUniforms::kUnsettled;
  const ChunkedUniforms::ChunkTable* const plateaus = plateau_by_chunk_.data();
  std::int64_t drawn;  // sum of C - G-
  // Position j from two chunks: C_j (read even where the plateau is the
  // point 0, so that chains whose sums differ somewhere keep reading the
  // same chunks for the same positions) and G-_j; their tables first.
  auto position = [&](std::size_t j, std::uint64_t plateau_chunk, std::uint64_t geometric_chunk) {
    const std::int64_t s = sums[j];
    const std::int64_t length = s < 0 ? -s : s;
    const std::uint8_t settled =
        length <= std::int64_t(kPlateauTable) ? plateaus[length](plateau_chunk) : kUnsettled;
    const std::int64_t c =
        settled != kUnsettled ? settled : unsettled_plateau(length, ChunkedUniforms::Draw{plateau_chunk}, uniforms);
    const std::int64_t minus = geometric(geometric_chunk, uniforms);
    first[j] = std::min<std::int64_t>(0, s) + c - minus;
    drawn += c - minus;
  };
  std::int64_t plus;
  std::uint64_t trials = 0;
  // Ends: a trial is accepted with probability about (2 + Var(sum C) / Var(N+))^(-1/2), 0.5 to 0.7 (above),
  // each pass O(n).
  for (;;) {
    ++trials;
    drawn = 0;
    for (std::size_t j = 0; j < n_; j += 2) {
      const std::uint64_t four = uniforms.four();
      position(j, ChunkedUniforms::chunk(four, 0), ChunkedUniforms::chunk(four, 1));
      if (j + 1 < n_) position(j + 1, ChunkedUniforms::chunk(four, 2), ChunkedUniforms::chunk(four, 3));
    }
    plus = target - drawn;
    const ChunkedUniforms::Draw acceptance{ChunkedUniforms::chunk(uniforms.four(), 0)};
    if (plus < nb_first_ || plus > nb_last) continue;
    // Accepted when v < weight: the rejection (v >= weight) is the
    // monotone function of v that the draw settles.
    const double weight = nb_relative_[std::size_t(plus - nb_first_)];
    if (!uniforms.settle(acceptance, [&](double v) { return v >= weight; })) break;
  }
  add_composition(plus, first, scratch, uniforms);
  return trials;
}

}  // namespace invariant_dp::mcmc
