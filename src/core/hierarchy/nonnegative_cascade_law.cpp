// The law of the non-negative cascade and its calibration
// (nonnegative_cascade_law.hpp; NONNEGATIVE.md, sections 1-2).
#include "nonnegative_cascade_law.hpp"

#include <algorithm>
#include <cmath>

#include "../errors.hpp"
#include "../samplers/interval.hpp"
#include "cascade_law.hpp"

namespace invariant_dp::hierarchy {
namespace {

// Rounded down to the quantum; OutOfRange outside (quantum, kMaxLevelEpsilon].
double quantised_epsilon(double eps, const std::string& level_label) {
  const double q = std::floor(std::ldexp(eps, 40));
  if (!(eps <= kMaxLevelEpsilon))
    throw OutOfRange("the noise of " + level_label + " is too small for the non-negative cascade",
                     "Its discrete Laplace would need epsilon " + law_checks::six_digits(eps) +
                         " at that level; at most " + law_checks::six_digits(kMaxLevelEpsilon) + " is supported.",
                     "Lower epsilon, or raise that level's variance target.");
  if (!(q >= 1))
    throw OutOfRange("the noise of " + level_label + " is too large for the non-negative cascade",
                     "Its discrete Laplace would need epsilon " + law_checks::six_digits(eps) + " at that level.",
                     "Raise epsilon, or lower that level's variance target.");
  return std::ldexp(q, -40);
}

// The largest sum_v eps_v |dx_v| over single-record moves, with the nodes of
// the best move's two paths counted per depth (for the calibration's solve).
struct MoveCost {
  double replace_one = 0;     // 0 when no replace_one move exists
  double add_remove = 0;      // root-to-leaf; only when the root is free
  std::vector<double> replace_one_counts, add_remove_counts;  // nodes per depth on the best moves
};

MoveCost move_cost(const HierarchyTree& tree, const NonnegativeLaw& law, const Interrupts& interrupts) {
  const std::size_t n = tree.n_nodes();
  // down[v]: the largest cost of a path from v (included) to a leaf below it;
  // best[v]: the child that path goes through.
  std::vector<double> down(n, 0.0);
  std::vector<std::uint32_t> best(n, kNoNode);
  std::uint64_t steps = 0;
  MoveCost out;
  std::uint32_t top_node = kNoNode, top_a = kNoNode, top_b = kNoNode;
  for (std::size_t i = n; i-- > 0;) {
    interrupts.poll_every(steps++);
    const auto v = static_cast<std::uint32_t>(i);
    const double own = law.pinned(v) ? 0.0 : law.level_epsilon(tree.depth(v));
    double first = -1, second = -1;
    std::uint32_t a = kNoNode, b = kNoNode;
    for (std::uint32_t c = tree.first_child(v); c < tree.child_end(v); ++c) {
      interrupts.poll_every(steps++);
      if (down[c] > first) {
        second = first;
        b = a;
        first = down[c];
        a = c;
      } else if (down[c] > second) {
        second = down[c];
        b = c;
      }
    }
    down[v] = next_up(own + std::max(first, 0.0));
    best[v] = a;
    // A replace_one move with lowest common ancestor v keeps every exact
    // total iff v's children are free.
    const bool children_free = !tree.is_leaf(v) && !law.pinned(tree.first_child(v));
    if (b != kNoNode && children_free) {
      const double cost = next_up(first + second);
      if (cost > out.replace_one) {
        out.replace_one = cost;
        top_node = v;
        top_a = a;
        top_b = b;
      }
    }
  }
  auto count_path = [&](std::uint32_t v, std::vector<double>& counts) {
    for (; v != kNoNode; v = tree.is_leaf(v) ? kNoNode : best[v])
      if (!law.pinned(v)) counts[tree.depth(v)] += 1;
  };
  out.replace_one_counts.assign(tree.height() + 1, 0.0);
  out.add_remove_counts.assign(tree.height() + 1, 0.0);
  if (top_node != kNoNode) {
    count_path(top_a, out.replace_one_counts);
    count_path(top_b, out.replace_one_counts);
  }
  if (law.root_free()) {
    out.add_remove = down[0];
    count_path(0, out.add_remove_counts);
  }
  return out;
}

double protected_cost(const MoveCost& cost, const NonnegativeLaw& law, const Protected& protect) {
  double single = 0;
  if (protect.neighbours == Neighbours::AddRemove) {
    if (!law.root_free())
      throw InvalidArgument("add_remove neighbours cannot keep an exact total",
                            "Adding or removing one person changes the total of the exact node it belongs to.",
                            "Use replace_one neighbours with exact totals.");
    single = cost.add_remove;
  } else {
    // A unit's move without exact totals may add or remove rows as well as
    // move them (cascade_privacy.hpp, protected_sensitivity_squared).
    single = protect.unit_mass > 1 && law.root_free() ? std::max(cost.replace_one, cost.add_remove)
                                                       : cost.replace_one;
  }
  return protect.unit_mass == 1 ? single : next_up(single * protect.unit_mass);
}

NonnegativeCalibration describe_nonnegative(const HierarchyTree& tree, const NonnegativeLaw& law,
                                            const Protected& protect, double base_epsilon, const char* derived_from) {
  NonnegativeCalibration c;
  c.derived_from = derived_from;
  c.neighbours = protect.neighbours;
  c.unit_mass = protect.unit_mass;
  c.base_epsilon = base_epsilon;
  c.epsilon = 2 * base_epsilon;  // exact: doubling a double
  for (unsigned d = 0; d <= tree.height(); ++d) {
    c.level_names.push_back(tree.level_name(d));
    c.level_variance.push_back(law.level_free(d) ? discrete_laplace_variance_at(law.level_epsilon(d)) : 0.0);
  }
  c.n_fixed_nodes = law.n_fixed_nodes();
  return c;
}

void check_targets(const HierarchyTree& tree, const std::vector<double>& level_variance) {
  law_checks::check_target_count(level_variance.size(), tree.height());
  for (unsigned d = 0; d < level_variance.size(); ++d)
    law_checks::check_target(level_variance[d], law_checks::level_label(tree, d));
}

std::size_t count_fixed(const std::vector<std::uint32_t>& fixed_nodes, std::size_t n) {
  std::vector<std::uint8_t> seen(n, 0);
  std::size_t count = 0;
  for (std::uint32_t v : fixed_nodes) count += v < n && !seen[v]++;
  return count;
}

}  // namespace

NonnegativeLaw::NonnegativeLaw(const HierarchyTree& tree, std::vector<double> level_epsilon,
                               std::vector<std::uint8_t> pinned, std::size_t n_fixed_nodes)
    : level_epsilon_(std::move(level_epsilon)), pinned_(std::move(pinned)), n_fixed_(n_fixed_nodes) {
  if (level_epsilon_.size() != std::size_t(tree.height()) + 1 || pinned_.size() != tree.n_nodes())
    throw InvalidArgument("a non-negative cascade law does not match its hierarchy");
  level_free_.assign(tree.height() + 1, 0);
  for (unsigned d = 0; d <= tree.height(); ++d) {
    for (std::uint32_t v = tree.level_begin(d); v < tree.level_end(d) && !level_free_[d]; ++v)
      level_free_[d] = pinned_[v] == 0;
    if (!level_free_[d]) {
      level_epsilon_[d] = 0;
    } else if (!(level_epsilon_[d] > 0) || !(level_epsilon_[d] <= kMaxLevelEpsilon) ||
               std::ldexp(level_epsilon_[d], 40) != std::floor(std::ldexp(level_epsilon_[d], 40))) {
      throw InvalidArgument("a level epsilon of a non-negative cascade law is not a positive multiple of 2^-40 "
                            "of at most 512",
                            "Level " + std::to_string(d) + " has " + format_double(level_epsilon_[d]) + ".");
    }
  }
}

std::vector<std::uint8_t> nonnegative_pinned(const HierarchyTree& tree, const std::vector<std::uint32_t>& fixed_nodes,
                                             const Interrupts& interrupts) {
  const std::size_t n = tree.n_nodes();
  std::vector<std::uint8_t> pinned(n, 0);
  if (fixed_nodes.empty()) return pinned;
  std::uint64_t steps = 0;
  for (std::uint32_t node : fixed_nodes) {
    interrupts.poll_every(steps++);
    if (node >= n) law_checks::refuse_fixed_node(node);
    pinned[node] = 1;
  }
  std::vector<std::uint8_t> covered = pinned;
  // Ancestors of fixed nodes (children have larger ids than their parent).
  for (std::size_t v = n; v-- > 0;) {
    interrupts.poll_every(steps++);
    for (std::uint32_t c = tree.first_child(v); c < tree.child_end(v) && !pinned[v]; ++c) {
      interrupts.poll_every(steps++);
      pinned[v] = pinned[c];
    }
  }
  // The cut must be clean (every pinned node a sum of fixed totals) and cover
  // every leaf, as for the cascades; a pinned node's only child is forced.
  for (std::uint32_t v = 0; v < n; ++v) {
    interrupts.poll_every(steps++);
    std::uint32_t pinned_children = 0;
    for (std::uint32_t c = tree.first_child(v); c < tree.child_end(v); ++c) {
      interrupts.poll_every(steps++);
      covered[c] |= covered[v];
      pinned_children += pinned[c];
    }
    if (pinned_children != 0 && pinned_children != tree.n_children(v))
      law_checks::refuse_partial_cut(law_checks::level_label(tree, tree.depth(v)), pinned_children, tree.n_children(v));
    if (tree.is_leaf(v) && !covered[v]) law_checks::refuse_uncovered_leaf(tree.leaf_begin(v));
    if (pinned[v] && tree.n_children(v) == 1) pinned[tree.first_child(v)] = 1;
  }
  return pinned;
}

double discrete_laplace_variance_at(double eps) {
  const double s = std::sinh(eps / 2);
  return 1 / (2 * s * s);
}

double discrete_laplace_epsilon_for_variance(double variance) { return 2 * std::asinh(1 / std::sqrt(2 * variance)); }

double nonnegative_base_epsilon(const HierarchyTree& tree, const NonnegativeLaw& law, const Protected& protect,
                                const Interrupts& interrupts) {
  return protected_cost(move_cost(tree, law, interrupts), law, protect);
}

CalibratedNonnegativeLaw calibrate_nonnegative_cascade(const HierarchyTree& tree,
                                                       const std::vector<double>& level_variance,
                                                       const std::vector<std::uint32_t>& fixed_nodes, double epsilon,
                                                       const Protected& protect, const Interrupts& interrupts) {
  if (!(epsilon > 0) || !std::isfinite(epsilon)) throw InvalidArgument("epsilon must be finite and positive");
  check_targets(tree, level_variance);
  auto pinned = nonnegative_pinned(tree, fixed_nodes, interrupts);
  const std::size_t n_fixed = count_fixed(fixed_nodes, tree.n_nodes());
  const unsigned levels = tree.height() + 1;
  // eps_d(k) = epsilon of variance k v_d: the base epsilon decreases in k.
  // Each round solves for k on the currently most expensive move (its nodes
  // per depth), then checks every move at that k; the most expensive move
  // can only change to one that costs more there, so this ends.
  auto epsilons_at = [&](double log_k) {
    std::vector<double> eps(levels);
    for (unsigned d = 0; d < levels; ++d)
      eps[d] = discrete_laplace_epsilon_for_variance(std::exp(log_k) * level_variance[d]);
    return eps;
  };
  const double target = epsilon / 2;
  NonnegativeLaw probe(tree, std::vector<double>(levels, 1.0), pinned, n_fixed);
  auto law_at = [&](const std::vector<double>& eps) {
    std::vector<double> q(levels, 0.0);
    for (unsigned d = 0; d < levels; ++d)
      if (probe.level_free(d)) q[d] = quantised_epsilon(eps[d], law_checks::level_label(tree, d));
    return q;
  };
  MoveCost unit = move_cost(tree, probe, interrupts);
  const double unit_cost = protected_cost(unit, probe, protect);
  if (unit_cost == 0)
    throw InconsistentInvariants("no move is left to protect",
                                 "Every change of one person's record changes an exact total, or the hierarchy "
                                 "has one cell.",
                                 "Declare fewer exact totals.");
  std::vector<double> counts = protect.neighbours == Neighbours::AddRemove ? unit.add_remove_counts
                                                                           : unit.replace_one_counts;
  double log_k = 0;
  // The solve is on the unrounded epsilons and the check on the certified,
  // rounded-up sums of the quantised ones: where the budget falls exactly on
  // the 2^-40 grid (epsilon a power of two, say) the check can exceed it by
  // an ulp with the same move. Then the solve asks for a little less.
  double shortfall = 0;
  for (int round = 0; round < 64; ++round) {
    interrupts.poll();
    auto cost_of = [&](double lk) {
      const auto eps = epsilons_at(lk);
      double c = 0;
      for (unsigned d = 0; d < levels; ++d) c += counts[d] * eps[d];
      if (protect.unit_mass > 1 && protect.neighbours == Neighbours::ReplaceOne && probe.root_free()) {
        double c2 = 0;
        for (unsigned d = 0; d < levels; ++d) c2 += unit.add_remove_counts[d] * eps[d];
        c = std::max(c, c2);
      }
      return c * protect.unit_mass;
    };
    double lo = -200, hi = 200;  // log k: cost_of decreases in it
    for (int i = 0; i < 200 && hi - lo > 1e-13; ++i) {
      const double mid = (lo + hi) / 2;
      (cost_of(mid) > target * (1 - shortfall) ? lo : hi) = mid;
    }
    log_k = hi;
    const NonnegativeLaw law(tree, law_at(epsilons_at(log_k)), pinned, n_fixed);
    const MoveCost at = move_cost(tree, law, interrupts);
    const double cost = protected_cost(at, law, protect);
    if (cost <= target) {
      return CalibratedNonnegativeLaw{law, [&] {
                                        NonnegativeCalibration c =
                                            describe_nonnegative(tree, law, protect, cost, "epsilon");
                                        c.epsilon = epsilon;
                                        return c;
                                      }()};
    }
    const auto& next = protect.neighbours == Neighbours::AddRemove ? at.add_remove_counts : at.replace_one_counts;
    if (next == counts) {
      shortfall = shortfall == 0 ? 0x1p-40 : 2 * shortfall;  // rounding alone: ask for slightly more noise
      continue;
    }
    counts = next;
  }
  throw Error("non-negative cascade calibration did not converge");
}

CalibratedNonnegativeLaw nonnegative_cascade_cost_of_targets(const HierarchyTree& tree,
                                                             const std::vector<double>& level_variance,
                                                             const std::vector<std::uint32_t>& fixed_nodes,
                                                             const Protected& protect, const Interrupts& interrupts) {
  check_targets(tree, level_variance);
  auto pinned = nonnegative_pinned(tree, fixed_nodes, interrupts);
  const std::size_t n_fixed = count_fixed(fixed_nodes, tree.n_nodes());
  std::vector<double> eps(tree.height() + 1, 1.0);
  NonnegativeLaw probe(tree, eps, pinned, n_fixed);
  for (unsigned d = 0; d <= tree.height(); ++d)
    if (probe.level_free(d))
      eps[d] =
          quantised_epsilon(discrete_laplace_epsilon_for_variance(level_variance[d]), law_checks::level_label(tree, d));
  const NonnegativeLaw law(tree, eps, pinned, n_fixed);
  const double cost = nonnegative_base_epsilon(tree, law, protect, interrupts);
  return CalibratedNonnegativeLaw{law, describe_nonnegative(tree, law, protect, cost, "variance_targets")};
}

std::string nonnegative_privacy_statement(const NonnegativeCalibration& c) {
  const bool exact = c.n_fixed_nodes > 0;
  std::string who = c.unit_mass > 1 ? "one privacy unit's rows (at most " + law_checks::six_digits(c.unit_mass) + ")"
                                    : std::string("one person's record");
  std::string moves = c.neighbours == Neighbours::AddRemove ? who + " added or removed"
                                                            : who + " moved between cells";
  return "pure epsilon-DP with epsilon = " + law_checks::six_digits(c.epsilon) + " for databases that differ by " +
         moves + (exact ? " and agree on every exact total" : "") +
         ": the unconditioned release (independent discrete Laplace noise on every free node, epsilon_d at depth "
         "d) is " +
         law_checks::six_digits(c.base_epsilon) +
         "-DP for them, and conditioning it on consistency, the exact totals and non-negative leaves, a set fixed "
         "in output space, at most doubles that (Gong and Meng 2020, Theorem 2.1)";
}

}  // namespace invariant_dp::hierarchy
