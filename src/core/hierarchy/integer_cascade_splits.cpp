// Exact split classes of an integer cascade (integer_cascade_splits.hpp).
#include "integer_cascade_splits.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "../errors.hpp"
#include "../samplers/big_int.hpp"

namespace invariant_dp::hierarchy {
namespace {

// A positive finite double as mantissa * 2^exponent, the mantissa odd.
struct Dyadic {
  std::uint64_t mantissa;
  int exponent;
};

Dyadic decompose(double x) {
  int e = 0;
  const double frac = std::frexp(x, &e);
  auto m = static_cast<std::uint64_t>(std::ldexp(frac, 53));  // exact
  e -= 53;
  // Ends: m is a nonzero 53-bit mantissa: at most 52 passes.
  while ((m & 1) == 0) {
    m >>= 1;
    ++e;
  }
  return Dyadic{m, e};
}

// x * 2^K as an integer (x a positive double, K >= -exponent(x)).
BigInt scaled_integer(double x, int K) {
  const Dyadic d = decompose(x);
  return BigInt(d.mantissa) << static_cast<std::size_t>(d.exponent + K);
}

bool fits_u128(const BigInt& x, Uint128& out) {
  if (x.sign() < 0 || x.bits() > 126) return false;  // room for small factors
  out = x.to_u128();
  return true;
}

[[noreturn]] void refuse(const std::string& detail) {
  throw OutOfRange("the variance targets do not fit the exact integer cascade sampler", detail,
                   "Give per-level variance targets of similar magnitudes.");
}

// The smallest K with every level variance an integer times 2^-K.
int common_exponent(const CascadeLaw& law) {
  int K = 0;
  for (double v : law.level_variances()) K = std::max(K, -decompose(v).exponent);
  return K;
}

}  // namespace

IntegerSplits::IntegerSplits(const HierarchyTree& tree, const CascadeLaw& law, const Interrupts& interrupts) {
  const int K = common_exponent(law);
  if (K > 200) refuse("A level variance needs " + std::to_string(K) + " binary digits after the point.");
  root_free_ = !law.pinned(0);
  if (root_free_) {
    BigInt n = scaled_integer(law.level_variance(0), K);
    BigInt den = BigInt(std::uint64_t{1}) << static_cast<std::size_t>(K);
    reduce_fraction(n, den);
    if (!fits_u128(n, root_num_) || !fits_u128(den, root_den_)) refuse("The root's variance is out of range.");
    ++n_coordinates_;
  }
  level_variance_ = law.level_variances();
  dense_.resize(tree.height() + 1);
  std::tuple<unsigned, std::uint32_t, double> last_key{~0u, 0, 0};
  std::uint32_t last_class = 0;
  std::uint64_t visited = 0;
  for (unsigned d = 0; d < tree.height(); ++d) {
    for (std::uint32_t v = tree.level_begin(d); v < tree.level_end(d); ++v) {
      interrupts.poll_every(visited++);
      const std::uint32_t m = tree.n_children(v);
      if (m < 2 || !law.splits_freely(tree, v)) continue;
      const std::tuple<unsigned, std::uint32_t, double> key{d, m, law.node_variance(v, d)};
      if (key != last_key && std::get<2>(key) == level_variance_[d] && m < dense_[d].size() &&
          dense_[d][m] != kNoClass) {
        last_key = key;
        last_class = dense_[d][m];
      } else if (key != last_key) {
        auto [it, inserted] = index_.try_emplace(key, static_cast<std::uint32_t>(classes_.size()));
        if (inserted) {
          SplitClass c;
          c.depth = d;
          c.fanout = m;
          c.parent_variance = std::get<2>(key);
          // tau^2 = (N_c m^2 - N_p) / (2^K m (m - 1)).
          BigInt num = scaled_integer(law.level_variance(d + 1), K) * m * m - scaled_integer(c.parent_variance, K);
          if (num.sign() <= 0) refuse("A split's children would need a negative variance.");
          BigInt den = (BigInt(std::uint64_t{m}) * (m - 1)) << static_cast<std::size_t>(K);
          reduce_fraction(num, den);
          // The sampler forms tau2_num * i and tau2_den * (i + 1) * 2, i < m.
          Uint128 unused;
          if (!fits_u128(num * m, unused) || !fits_u128(den * (2 * std::uint64_t{m}), unused) ||
              !fits_u128(num, c.tau2_num) || !fits_u128(den, c.tau2_den))
            refuse("A split of " + std::to_string(m) + " children at depth " + std::to_string(d) +
                   " has a variance increment beyond 128-bit fractions.");
          classes_.push_back(c);
          if (c.parent_variance == level_variance_[d] && m < kDenseFanouts) {
            if (dense_[d].size() <= m) dense_[d].resize(m + 1, kNoClass);
            dense_[d][m] = it->second;
          }
        }
        last_key = key;
        last_class = it->second;
      }
      ++classes_[last_class].n_nodes;
      n_coordinates_ += m - 1;
    }
  }
}

std::vector<CoordinateGroup> coordinate_groups(const IntegerSplits& splits) {
  constexpr std::uint32_t kExact = 64;
  std::vector<CoordinateGroup> out;
  if (splits.root_free()) {
    CoordinateGroup g;
    g.s2_num = g.class_min_num = splits.root_num();
    g.s2_den = g.class_min_den = splits.root_den();
    g.count = 1;
    g.root = true;
    out.push_back(g);
  }
  for (const SplitClass& c : splits.classes()) {
    CoordinateGroup g;
    g.class_min_num = c.tau2_num;
    g.class_min_den = c.tau2_den * 2;
    for (std::uint32_t i = 1; i < c.fanout && i <= kExact; ++i) {
      g.s2_num = c.tau2_num * i;
      g.s2_den = c.tau2_den * (i + 1);
      g.count = i < kExact ? c.n_nodes : c.n_nodes * (c.fanout - kExact);
      out.push_back(g);
    }
  }
  return out;
}

std::vector<CoordinateGroup> pooled_groups(std::vector<CoordinateGroup> groups, std::size_t max_groups) {
  std::vector<CoordinateGroup> out;
  std::vector<CoordinateGroup> rest;
  for (const CoordinateGroup& g : groups) (g.root ? out : rest).push_back(g);
  if (rest.size() <= max_groups || max_groups == 0) {
    out.insert(out.end(), rest.begin(), rest.end());
    return out;
  }
  // Exact order of the rationals: a/b < c/d iff a d < c b (BigInt, no
  // overflow). Tables list them strictly increasing already (checked
  // first; that order is the only sorted one, so the sort would keep it).
  const auto smaller = [](const CoordinateGroup& x, const CoordinateGroup& y) {
    // 80-bit quotients decide all but near-ties (each within 2^-63).
    const long double qx = static_cast<long double>(x.s2_num) / static_cast<long double>(x.s2_den);
    const long double qy = static_cast<long double>(y.s2_num) / static_cast<long double>(y.s2_den);
    if (qx < qy * (1 - 0x1p-60L)) return true;
    if (qy < qx * (1 - 0x1p-60L)) return false;
    return BigInt(x.s2_num) * BigInt(y.s2_den) < BigInt(y.s2_num) * BigInt(x.s2_den);
  };
  const auto not_increasing = [&](const CoordinateGroup& x, const CoordinateGroup& y) { return !smaller(x, y); };
  if (std::adjacent_find(rest.begin(), rest.end(), not_increasing) != rest.end())
    std::sort(rest.begin(), rest.end(), smaller);
  const std::size_t run = (rest.size() + max_groups - 1) / max_groups;
  for (std::size_t k = 0; k < rest.size(); k += run) {
    CoordinateGroup g = rest[k];  // the smallest s^2 of its run
    for (std::size_t j = k + 1; j < std::min(rest.size(), k + run); ++j) g.count += rest[j].count;
    out.push_back(g);
  }
  return out;
}

std::uint32_t IntegerSplits::mapped_class(unsigned depth, std::uint32_t fanout, double parent_variance) const {
  const auto it = index_.find({depth, fanout, parent_variance});
  if (it == index_.end()) throw Error("integer cascade: a split outside its classes");
  return it->second;
}

}  // namespace invariant_dp::hierarchy
