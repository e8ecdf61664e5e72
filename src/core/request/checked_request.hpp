// A request checked once, as dp.privatize checks it before its source runs
// (release/request_checks.hpp does the checking): the release's request,
// the hierarchy and how its budget was given, the rules that join them
// applied. The hierarchy and crossed releases take only this, so nothing
// below the entry checks it again.
#pragma once

#include <string>
#include <vector>

#include "../mechanisms/release_request.hpp"
#include "hierarchy_request.hpp"

namespace invariant_dp {

struct CheckedRequest {
  ReleaseRequest release;
  HierarchyRequest hierarchy;
  HierarchyBudget budget;
  // The source's key columns, once accept_columns has checked them: the
  // release checks the columns it reads only if they are others.
  std::vector<std::string> key_columns;
  bool columns_checked = false;
};

}  // namespace invariant_dp
