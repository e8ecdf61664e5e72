// Certified half-widths for functionals of lattice Gaussians
// (lattice_gaussian_quantiles.hpp; DERIVATIONS.md, section 13).
#include "lattice_gaussian_quantiles.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "../errors.hpp"
#include "../hierarchy/integer_cascade_splits.hpp"
#include "../hierarchy/theta_sums.hpp"
#include "../samplers/interval.hpp"
#include "independent_sum_quantiles.hpp"
#include "integer_noise_transforms.hpp"
#include "tail_quantiles.hpp"

namespace invariant_dp::accuracy {
namespace {

using hierarchy::CoordinateGroup;

// The sum over the products of the factors' groups of count log1p(2 S),
// S = sum_{m>=1} q^(m^2) <= q / (1 - q), q = exp(-2 pi^2 s2): each
// coordinate class's share of log(1 + eps), enclosed.
double product_excess(const std::vector<std::vector<CoordinateGroup>>& factors,
                      hierarchy::CoordinateTerms* kept = nullptr) {
  Interval total(hierarchy::kThetaPrecision);
  bool says_nothing = false;
  hierarchy::for_each_product(factors, [&](const std::vector<const CoordinateGroup*>& groups) {
    const std::optional<Interval> term =
        hierarchy::coordinate_term(groups, hierarchy::CoordinateTerm::log1p_twice_q_ratio, 1.0, kept);
    if (!term) {
      says_nothing = true;
      return false;
    }
    accumulate(total, *term);
    return true;
  });
  return says_nothing ? INFINITY : to_double(total, End::upper);
}

// The run i/(i+1), i = 1 .. length, as groups (times num/den): one group
// per i below 64, the rest one group at i = 64, the smallest of them (so sums
// of decreasing functions over the groups stay upper bounds), as
// integer_cascade_splits.hpp groups a split's coordinates.
void add_run(std::vector<CoordinateGroup>& groups, std::size_t length, Uint128 num, Uint128 den) {
  for (std::size_t i = 1; i <= length; ++i) {
    CoordinateGroup g;
    g.s2_num = Uint128(i) * num;
    g.s2_den = Uint128(i + 1) * den;
    g.count = i < 64 ? 1 : length - 63;
    groups.push_back(g);
    if (i == 64) break;
  }
}

void check_box(const std::vector<std::size_t>& shape, const std::vector<std::size_t>& selected) {
  if (shape.empty() || shape.size() != selected.size())
    throw InvalidArgument("a box needs one selected count per axis of its table");
  for (std::size_t k = 0; k < shape.size(); ++k)
    if (!(selected[k] > 0 && selected[k] < shape[k]))
      throw InvalidArgument("a box must select some but not all levels of each axis",
                            "A box over every level of an axis sums whole lines, whose noise is zero.");
}

}  // namespace

Quantile tilted_gaussian_quantile(double V, std::uint64_t g, double log_excess, double level,
                                  const Interrupts& interrupts) {
  check_level(level);
  if (!(V > 0) || !std::isfinite(V) || g == 0)
    throw InvalidArgument("a tilted discrete Gaussian needs a positive finite variance and a positive step");
  if (!(log_excess >= 0)) throw InvalidArgument("a log excess must be non-negative");
  if (!(log_excess < 0.69)) throw OutOfRange("the lattice of this law is too coarse for the tilted Gaussian bound");
  const double eps = next_up(std::expm1(log_excess) * (1 + 1e-15));
  const double ratio = next_up((1 + eps) / next_down(1 - eps) * (1 + 1e-15));
  // The step's variance as a rational, rounded up: the discrete Gaussian's
  // tails grow with its parameter (monotone likelihood ratio).
  const double v = V / (double(g) * double(g)) * (1 + 1e-14);  // above the callers' few roundings
  const double max_den = std::min(0x1p40, std::floor(0x1p62 / (v + 1)));
  if (!(max_den >= 1)) throw OutOfRange("the variance is too large for an exact discrete Gaussian quantile");
  const Rational parameter = rational_at_least(v, static_cast<std::uint64_t>(max_den));
  const NoiseTransform law({IntegerNoise::Kind::gaussian, parameter});
  const double alpha = 1 - level;
  const std::int64_t t_max = law.tail_point({{1, 1}}, alpha / (2 * ratio));
  const SumCoverage plain(law, {{1, 1}}, t_max, interrupts);
  const auto tilted = [&](std::int64_t t) {
    const CoverageBounds c = plain(t);
    return CoverageBounds{std::max(0.0, next_down(1 - next_up(ratio * (1 - c.lower)))),
                          std::min(1.0, next_up(1 - next_down((1 - c.upper) / ratio)))};
  };
  const auto guess = static_cast<std::int64_t>(std::floor(normal_quantile(level) * std::sqrt(v)));
  Quantile q = smallest_covering(tilted, level, guess, t_max, interrupts);
  q.half_width *= static_cast<std::int64_t>(g);
  return q;
}

double tilted_gaussian_variance_lower(double V, std::uint64_t g, double log_excess) {
  if (!(V > 0) || !std::isfinite(V) || g == 0 || !(log_excess >= 0) || !(log_excess < 0.69)) return 0;
  const double step2 = double(g) * double(g), v = V / step2;
  if (v < 0.25) return 0;
  const double pi2 = 9.869604401089358;  // pi^2
  double sum = 0;
  // Eight terms; from v >= 1/4 the rest sum to less than 1e-170 (the
  // ninth is 81 e^(-2 pi^2 81 / 4), about 6e-172, and they fall faster
  // than halving), added as their bound.
  for (int k = 1; k <= 8; ++k) sum += double(k) * double(k) * std::exp(-2 * pi2 * v * double(k) * double(k));
  sum += 1e-170;
  const double dg_lower = v - 8 * pi2 * v * v * sum;
  const double eps = std::expm1(log_excess);
  const double ratio = (1 + eps) / (1 - eps);
  return std::max(0.0, step2 * dg_lower / ratio * (1 - 1e-12));
}

double log_excess_at_least(double s2, double count) {
  if (!(count >= 0)) throw InvalidArgument("a coordinate count must be non-negative");
  if (count == 0) return 0;
  if (!(s2 > 0)) return INFINITY;
  const mpfr_prec_t p = hierarchy::kThetaPrecision;
  const std::optional<Interval> two_s = hierarchy::twice_q_ratio(exact_double(p, s2), 1.0);
  return two_s ? to_double(mul(log1p(*two_s), exact_double(p, count)), End::upper) : INFINITY;
}

double box_variance(Rational sigma2, const std::vector<std::size_t>& shape,
                    const std::vector<std::size_t>& selected) {
  check_box(shape, selected);
  double v = sigma2.to_double();
  for (std::size_t k = 0; k < shape.size(); ++k)
    v *= double(selected[k]) * double(shape[k] - selected[k]) / double(shape[k]);
  return v;
}

double box_log_excess(Rational sigma2, const std::vector<std::size_t>& shape, const std::vector<std::size_t>& selected,
                      hierarchy::CoordinateTerms* kept) {
  check_box(shape, selected);
  if (sigma2.num == 0 || sigma2.den == 0) throw InvalidArgument("a lattice Gaussian needs a positive variance");
  // Per axis: the box's levels' zero-sum run, the others', and the bridge
  // s (n - s) / n; factor 0 carries sigma2. Pooled as table_coordinates
  // pools (lattice_bounds.hpp): at most about 4096 products.
  const std::size_t pool = std::min<std::size_t>(
      48, std::max<std::size_t>(2, static_cast<std::size_t>(std::pow(4096.0, 1.0 / double(shape.size())))));
  std::vector<std::vector<CoordinateGroup>> factors;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    const Uint128 num = k == 0 ? sigma2.num : 1, den = k == 0 ? sigma2.den : 1;
    const std::size_t n = shape[k], s = selected[k];
    std::vector<CoordinateGroup> groups;
    add_run(groups, s - 1, num, den);
    add_run(groups, n - s - 1, num, den);
    CoordinateGroup bridge;
    bridge.s2_num = Uint128(s) * Uint128(n - s) * num;
    bridge.s2_den = Uint128(n) * den;
    bridge.count = 1;
    groups.push_back(bridge);
    factors.push_back(hierarchy::pooled_groups(std::move(groups), pool));
  }
  return product_excess(factors, kept);
}

TiltedFunctional independent_blocks(const std::vector<TiltedFunctional>& blocks, const Interrupts& interrupts) {
  std::vector<double> v;
  TiltedFunctional out;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    interrupts.poll_every(b);
    if (!(blocks[b].variance >= 0) || !(blocks[b].log_excess >= 0))
      throw InvalidArgument("a block's variance and log excess must be non-negative");
    if (blocks[b].variance == 0) continue;
    v.push_back(blocks[b].variance);
    out.variance += blocks[b].variance;
    out.log_excess += blocks[b].log_excess;
  }
  // R_j from the end: the merges' conditional variances, 1e-12 smaller to
  // cover their rounding.
  double rest = 0;
  for (std::size_t j = v.size(); j-- > 0;) {
    interrupts.poll_every(j);
    if (rest > 0) out.log_excess += log_excess_at_least(v[j] * rest / (v[j] + rest) * (1 - 1e-12), 1);
    rest += v[j];
  }
  return out;
}

double cascade_tree_log_excess(const hierarchy::HierarchyTree& tree, const hierarchy::CascadeLaw& law,
                               const Interrupts& interrupts) {
  try {
    const hierarchy::IntegerSplits splits(tree, law, interrupts);
    return product_excess({hierarchy::pooled_groups(hierarchy::coordinate_groups(splits), 256)});
  } catch (const OutOfRange&) {
    return INFINITY;
  }
}

TiltedFunctional cascade_children_query(const hierarchy::HierarchyTree& tree, const hierarchy::CascadeLaw& law,
                                    const std::vector<double>& node_variance, std::uint32_t parent,
                                    std::uint32_t count) {
  if (parent >= tree.n_nodes() || node_variance.size() != tree.n_nodes())
    throw InvalidArgument("a cascade query names a node out of range");
  const std::uint32_t m = tree.n_children(parent);
  if (!(count >= 1 && count < m)) throw InvalidArgument("a cascade query takes some but not all children of a node");
  TiltedFunctional out;
  if (!law.splits_freely(tree, parent)) return out;  // the children are pinned: no noise
  const double vp = node_variance[parent], mm = double(m), tau = double(count);
  const double tau2 = law.split_tau2(parent, tree.depth(parent), m);
  out.variance = tau * tau * vp / (mm * mm) + tau2 * tau * (mm - tau) / mm;
  // The split's second run: the shorter of the two runs i/(i+1) of the
  // selected children and of the others (the longer is among the tree's).
  const std::uint32_t shorter = std::min(count, m - count);
  for (std::uint32_t i = 1; i < shorter; ++i) {
    const double s2 = tau2 * double(i) / double(i + 1) * (1 - 1e-12);
    if (i == 64) {
      out.log_excess += log_excess_at_least(s2, double(shorter - 64));
      break;
    }
    out.log_excess += log_excess_at_least(s2, 1);
  }
  // The chain up the root path: Var(X_p | X_T), then Var(X_a | X_child) at
  // every free split above (one-child links are identities).
  if (vp > 0) {
    const double cov = tau * vp / mm;
    out.log_excess += log_excess_at_least((vp - cov * cov / out.variance) * (1 - 1e-12), 1);
  }
  std::uint32_t child = parent;
  for (std::uint32_t node = tree.parent(parent); node != hierarchy::kNoNode; child = node, node = tree.parent(node)) {
    const double vn = node_variance[node], vc = node_variance[child];
    if (!(vn > 0)) break;  // pinned from here up
    const std::uint32_t mn = tree.n_children(node);
    if (mn < 2 || !law.splits_freely(tree, node) || !(vc > 0)) continue;
    const double c = vn / double(mn);
    out.log_excess += log_excess_at_least((vn - c * c / vc) * (1 - 1e-12), 1);
  }
  return out;
}

TiltedFunctional cascade_node_query(const hierarchy::HierarchyTree& tree, const hierarchy::CascadeLaw& law,
                                const std::vector<double>& node_variance, std::uint32_t node) {
  if (node >= tree.n_nodes() || node_variance.size() != tree.n_nodes())
    throw InvalidArgument("a cascade query names a node out of range");
  // Up through one-child links (a node with a single child has that child's noise).
  std::uint32_t parent = tree.parent(node);
  // Ends: climbs one level a pass: at most the tree's depth.
  while (parent != hierarchy::kNoNode && tree.n_children(parent) == 1) {
    node = parent;
    parent = tree.parent(node);
  }
  if (parent == hierarchy::kNoNode) return {node_variance[node], 0};
  return cascade_children_query(tree, law, node_variance, parent, 1);
}

}  // namespace invariant_dp::accuracy
