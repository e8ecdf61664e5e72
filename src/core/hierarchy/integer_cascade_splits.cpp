// Exact split classes of an integer cascade (integer_cascade_splits.hpp).
#include "integer_cascade_splits.hpp"

#include <gmp.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "../errors.hpp"

namespace invariant_dp::hierarchy {
namespace {

using u128 = Uint128;

struct Mpz {
  Mpz() { mpz_init(v); }
  ~Mpz() { mpz_clear(v); }
  Mpz(const Mpz&) = delete;
  Mpz& operator=(const Mpz&) = delete;
  mpz_t v;
};

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
  while ((m & 1) == 0) {
    m >>= 1;
    ++e;
  }
  return Dyadic{m, e};
}

// x * 2^K as an integer (x a positive double, K >= -exponent(x)).
void scaled_integer(double x, int K, mpz_t out) {
  const Dyadic d = decompose(x);
  mpz_set_ui(out, static_cast<unsigned long>(d.mantissa));
  mpz_mul_2exp(out, out, static_cast<mp_bitcnt_t>(d.exponent + K));
}

bool to_u128(const mpz_t x, u128& out) {
  if (mpz_sgn(x) < 0 || mpz_sizeinbase(x, 2) > 126) return false;  // room for small factors
  Mpz high;
  mpz_tdiv_q_2exp(high.v, x, 64);
  out = (static_cast<u128>(mpz_get_ui(high.v)) << 64) | static_cast<u128>(mpz_getlimbn(x, 0));
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
    Mpz n;
    scaled_integer(law.level_variance(0), K, n.v);
    Mpz den;
    mpz_set_ui(den.v, 1);
    mpz_mul_2exp(den.v, den.v, static_cast<mp_bitcnt_t>(K));
    Mpz g;
    mpz_gcd(g.v, n.v, den.v);
    mpz_divexact(n.v, n.v, g.v);
    mpz_divexact(den.v, den.v, g.v);
    if (!to_u128(n.v, root_num_) || !to_u128(den.v, root_den_)) refuse("The root's variance is out of range.");
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
          Mpz num, den, np, g;
          scaled_integer(law.level_variance(d + 1), K, num.v);
          mpz_mul_ui(num.v, num.v, m);
          mpz_mul_ui(num.v, num.v, m);
          scaled_integer(c.parent_variance, K, np.v);
          mpz_sub(num.v, num.v, np.v);
          if (mpz_sgn(num.v) <= 0) refuse("A split's children would need a negative variance.");
          mpz_set_ui(den.v, m);
          mpz_mul_ui(den.v, den.v, m - 1);
          mpz_mul_2exp(den.v, den.v, static_cast<mp_bitcnt_t>(K));
          mpz_gcd(g.v, num.v, den.v);
          mpz_divexact(num.v, num.v, g.v);
          mpz_divexact(den.v, den.v, g.v);
          // The sampler forms tau2_num * i and tau2_den * (i + 1) * 2, i < m.
          Mpz room_num, room_den;
          mpz_mul_ui(room_num.v, num.v, m);
          mpz_mul_ui(room_den.v, den.v, 2 * static_cast<unsigned long>(m));
          u128 unused;
          if (!to_u128(room_num.v, unused) || !to_u128(room_den.v, unused) || !to_u128(num.v, c.tau2_num) ||
              !to_u128(den.v, c.tau2_den))
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
  // Exact order of the rationals: a/b < c/d iff a d < c b (GMP, no overflow).
  std::sort(rest.begin(), rest.end(), [](const CoordinateGroup& x, const CoordinateGroup& y) {
    Mpz a, b, t;
    mpz_set_ui(t.v, 0);
    auto set = [](mpz_t out, u128 v) {
      mpz_set_ui(out, static_cast<unsigned long>(v >> 64));
      mpz_mul_2exp(out, out, 64);
      mpz_add_ui(out, out, static_cast<unsigned long>(v));
    };
    set(a.v, x.s2_num);
    set(t.v, y.s2_den);
    mpz_mul(a.v, a.v, t.v);
    set(b.v, y.s2_num);
    set(t.v, x.s2_den);
    mpz_mul(b.v, b.v, t.v);
    return mpz_cmp(a.v, b.v) < 0;
  });
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
