// A checked request assembled from its parts, for the tests that build a
// release request and a hierarchy request themselves and call the
// hierarchy or crossed release directly (release/request_checks.hpp checks
// a request as dp.privatize does; these tests exercise the releases below).
#pragma once

#include <utility>

#include "request/checked_request.hpp"

namespace invariant_dp {

inline CheckedRequest checked_parts(ReleaseRequest release, HierarchyRequest hierarchy, HierarchyBudget budget = {}) {
  CheckedRequest checked;
  checked.release = std::move(release);
  checked.hierarchy = std::move(hierarchy);
  checked.budget = budget;
  return checked;
}

}  // namespace invariant_dp
