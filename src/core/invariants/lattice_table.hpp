// One complete table among the cells, the shape shared by the invariant
// model (which finds the tables), the exact table sampler and the table
// chain (which draw noise on them): `cells` lists the cell index of each
// position of a shape[0] x shape[1] x ... array, row-major.
#pragma once

#include <cstddef>
#include <vector>

namespace invariant_dp {

struct LatticeTable {
  std::vector<std::size_t> shape;
  std::vector<std::size_t> cells;
};

}  // namespace invariant_dp
