// The top-down cascade shared by the scalar sampler and the crossed
// (Kronecker) sampler: each node carries a block of `width` values, a draw
// fills one block with a unit draw (N(0,1) for the scalar cascade; a whole
// column-tree cascade for crossed hierarchies, DERIVATIONS.md section 6), and each split
// is the law of cascade_law.hpp applied elementwise. Level by level, so only
// two levels of blocks are alive; leaves go straight to leaf_out (leaf order).
// Draws: 1 for the root, 1 per binary split, m per split into m > 2, none for
// one-child nodes or pinned subtrees: n draws for a binary tree of n leaves.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "../interrupts.hpp"
#include "cascade_law.hpp"
#include "hierarchy_tree.hpp"

namespace invariant_dp::hierarchy::detail {

template <class Draw>
void run_cascade(const HierarchyTree& tree, const CascadeLaw& law, std::size_t width, Draw&& draw, double* leaf_out,
                 const Interrupts& interrupts) {
  std::vector<double> level(width, 0.0), next, g;
  if (!law.pinned(0)) {
    draw(level.data());
    const double sd = std::sqrt(law.level_variance(0));
    for (double& x : level) x *= sd;
  }
  if (tree.is_leaf(0)) {
    std::copy(level.begin(), level.end(), leaf_out);
    return;
  }
  std::uint64_t visited = 0;
  for (unsigned d = 0; d < tree.height(); ++d) {
    const std::uint32_t begin = tree.level_begin(d), end = tree.level_end(d);
    const std::uint32_t next_begin = tree.level_begin(d + 1), next_end = tree.level_end(d + 1);
    // The deepest level holds only leaves: write them in place.
    const bool last = next_end == tree.n_nodes();
    if (!last) next.assign(std::size_t(next_end - next_begin) * width, 0.0);
    const double vc = law.level_variance(d + 1);
    for (std::uint32_t v = begin; v < end; ++v) {
      // A node moves `width` values (a whole column block when crossed).
      interrupts.poll_scaled(visited++, width);
      const std::uint32_t m = tree.n_children(v);
      if (m == 0) continue;
      const double* x = &level[std::size_t(v - begin) * width];
      const std::uint32_t c0 = tree.first_child(v);
      auto child = [&](std::uint32_t k) {
        const std::uint32_t c = c0 + k;
        return last ? leaf_out + std::size_t(tree.leaf_begin(c)) * width : &next[std::size_t(c - next_begin) * width];
      };
      if (law.pinned(c0)) {
        for (std::uint32_t k = 0; k < m; ++k) std::fill(child(k), child(k) + width, 0.0);
      } else if (m == 1) {
        std::copy(x, x + width, child(0));
      } else if (m == 2) {
        const double h = std::sqrt(std::max(0.0, vc - law.node_variance(v, d) / 4));  // feasible by CascadeLaw
        g.resize(width);
        draw(g.data());
        double* a = child(0);
        double* b = child(1);
        for (std::size_t i = 0; i < width; ++i) {
          a[i] = x[i] * 0.5 + h * g[i];
          b[i] = x[i] * 0.5 - h * g[i];
        }
      } else {
        const double tau = std::sqrt(law.split_tau2(v, d, m)), share = 1.0 / m;
        g.resize(std::size_t(m + 1) * width);
        double* mean = &g[std::size_t(m) * width];
        std::fill(mean, mean + width, 0.0);
        for (std::uint32_t k = 0; k < m; ++k) {
          draw(&g[std::size_t(k) * width]);
          for (std::size_t i = 0; i < width; ++i) mean[i] += g[std::size_t(k) * width + i];
        }
        for (std::size_t i = 0; i < width; ++i) mean[i] *= share;
        for (std::uint32_t k = 0; k < m; ++k) {
          double* out = child(k);
          for (std::size_t i = 0; i < width; ++i) out[i] = x[i] * share + tau * (g[std::size_t(k) * width + i] - mean[i]);
        }
      }
    }
    if (last) break;
    // Leaves above the deepest level leave through leaf_out too.
    for (std::uint32_t c = next_begin; c < next_end; ++c) {
      interrupts.poll_scaled(visited++, width);
      if (tree.is_leaf(c)) {
        const double* src = &next[std::size_t(c - next_begin) * width];
        std::copy(src, src + width, leaf_out + std::size_t(tree.leaf_begin(c)) * width);
      }
    }
    level.swap(next);
  }
}

}  // namespace invariant_dp::hierarchy::detail
