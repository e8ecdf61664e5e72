// Short vectors of a crossed integer cascade's grid where a sum of
// rectangles is 0 (crossed_kernel.hpp).
#include "crossed_kernel.hpp"

#include <cmath>
#include <cstdlib>
#include <map>
#include <numeric>
#include <unordered_map>
#include <utility>

#include "../errors.hpp"
#include "kernel_lengths.hpp"

namespace invariant_dp::accuracy {

CrossedKernel::CrossedKernel(const hierarchy::HierarchyTree& rows, const hierarchy::CascadeLaw& row_law,
                             const hierarchy::HierarchyTree& cols, const hierarchy::CascadeLaw& col_law,
                             const Interrupts& interrupts)
    : rows_(rows, row_law, interrupts), cols_(cols, col_law, interrupts) {
  if (!std::isfinite(rows_.moves_log_excess()) || !std::isfinite(cols_.moves_log_excess())) {
    moves_excess_ = rectangle_excess_ = INFINITY;
    return;
  }
  moves_excess_ = KernelLengths::products(rows_.moves(), cols_.moves(), interrupts).log_excess(interrupts);
  const double replaced = double(2 * rows.height() + 1) * double(2 * cols.height() + 1) - 1;
  const double longest = 4 * rows_.max_move_length2() * cols_.max_move_length2();
  rectangle_excess_ = moves_excess_ + log_excess_at_least(1 / longest * (1 - 1e-12), replaced);
}

StepFunctional CrossedKernel::query(const std::vector<std::uint32_t>& row_nodes,
                                    const std::vector<std::uint32_t>& col_nodes, const std::vector<double>& weights,
                                    double variance, const Interrupts& interrupts) const {
  if (row_nodes.size() != col_nodes.size() || weights.size() != row_nodes.size())
    throw InvalidArgument("a crossed query needs a row node, a column node and a weight per rectangle");
  if (row_nodes.size() >= (std::size_t(1) << 22))
    throw TooLarge("a crossed query of this many rectangles could overflow its products' values");
  // The moves each node changes (a node's own query, weight 1), once per node.
  std::unordered_map<std::uint32_t, std::vector<CascadeKernel::Move>> row_moves, col_moves;
  const auto moves_of = [&](const CascadeKernel& kernel, std::uint32_t node,
                            std::unordered_map<std::uint32_t, std::vector<CascadeKernel::Move>>& memo)
      -> const std::vector<CascadeKernel::Move>& {
    const auto found = memo.find(node);
    if (found != memo.end()) return found->second;
    CellQuery q;
    q.cells = {node};
    q.weights = {1};
    return memo.emplace(node, kernel.changed_moves(q, interrupts)).first->second;
  };
  // a of every changed product, keyed by its two moves (their left children).
  struct Product {
    std::int64_t a = 0;
    double length2 = 0;
  };
  std::map<std::pair<std::uint32_t, std::uint32_t>, Product> changed;
  for (std::size_t k = 0; k < row_nodes.size(); ++k) {
    interrupts.poll_every(k);
    const double w = weights[k];
    if (!(std::fabs(w) <= 0x1p40) || w != std::floor(w))
      throw InvalidArgument("a crossed query's weight is no integer up to 2^40");
    const auto weight = static_cast<std::int64_t>(w);
    const std::vector<CascadeKernel::Move>& r = moves_of(rows_, row_nodes[k], row_moves);
    const std::vector<CascadeKernel::Move>& c = moves_of(cols_, col_nodes[k], col_moves);
    for (const CascadeKernel::Move& m : r)
      for (const CascadeKernel::Move& n : c) {
        interrupts.poll_every(k);
        Product& p = changed[{m.left_child, n.left_child}];
        p.a += weight * m.a * n.a;  // |a| <= 1 for one node: no overflow below 2^22 rectangles
        p.length2 = m.length2 * n.length2;
      }
  }
  // The step and the pivot, among the products whose a did not cancel.
  std::uint64_t step = 0, pivot_size = 0;
  std::pair<std::uint32_t, std::uint32_t> pivot{};
  for (const auto& [moves, p] : changed) {
    interrupts.poll();
    const auto size = static_cast<std::uint64_t>(std::llabs(p.a));
    if (size == 0) continue;
    step = std::gcd(step, size);
    if (pivot_size == 0 || size < pivot_size) {
      pivot_size = size;
      pivot = moves;
    }
  }
  StepFunctional out;
  if (step == 0) return out;
  out.step = step;
  out.unit.variance = variance / (double(step) * double(step));
  const Product& p = changed.at(pivot);
  KernelLengths lengths;
  for (const auto& [moves, m] : changed) {
    interrupts.poll();
    if (m.a == 0 || moves == pivot) continue;
    const double b = rows_.move_bilinear(moves.first, pivot.first) * cols_.move_bilinear(moves.second, pivot.second);
    lengths.add(kernel_vector_length2(p.a, m.a, m.length2, p.length2, b));
  }
  out.unit.log_excess = lengths.log_excess(interrupts);
  return out;
}

}  // namespace invariant_dp::accuracy
