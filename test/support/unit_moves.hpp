// Test helper: the largest dx^T A dx over the moves of one privacy unit that
// keeps one or two cells with one row in each (G = 2, R = 1), enumerated,
// for a precision matrix A given densely (small tables only). added: the
// unit added or removed; replaced: its rows replaced by another such unit's.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace invariant_dp::test_tables {

struct UnitMoveCosts {
  double added = 0, replaced = 0;
};

inline UnitMoveCosts max_unit_move_costs(const std::vector<std::vector<double>>& a) {
  const std::size_t n = a.size();
  const auto cost = [&](const std::vector<int>& dx) {
    double c = 0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) c += dx[i] * a[i][j] * dx[j];
    return c;
  };
  std::vector<std::vector<int>> kept;  // one cell (i == j) or two
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i; j < n; ++j) {
      std::vector<int> x(n, 0);
      x[i] = 1;
      x[j] = 1;
      kept.push_back(x);
    }
  UnitMoveCosts out;
  for (const auto& s : kept) {
    out.added = std::max(out.added, cost(s));
    for (const auto& t : kept) {
      std::vector<int> dx(n);
      for (std::size_t k = 0; k < n; ++k) dx[k] = s[k] - t[k];
      out.replaced = std::max(out.replaced, cost(dx));
    }
  }
  return out;
}

}  // namespace invariant_dp::test_tables
