// The request's sensitivities and its margins as column indices.
#include "release_request.hpp"

#include <cmath>

namespace invariant_dp {

double ReleaseRequest::l1_sensitivity() const {
  return (neighbours == Neighbours::ReplaceOne ? 2.0 : 1.0) * bounds.l1_factor();
}

double ReleaseRequest::l2_sensitivity() const {
  return std::sqrt(neighbours == Neighbours::ReplaceOne ? 2.0 : 1.0) * bounds.l2_factor();
}

std::vector<Margin> margins_by_index(const CellKeys& cells, const ReleaseRequest& request) {
  std::vector<Margin> margins;
  for (const auto& names : request.margins) {
    Margin margin;
    for (const auto& name : names) margin.columns.push_back(cells.column_index(name));
    margins.push_back(std::move(margin));
  }
  return margins;
}

}  // namespace invariant_dp
