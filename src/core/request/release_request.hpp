// dp.privatize's arguments as given, and their parsing into a validated
// ReleaseRequest (mechanisms/release_request.hpp): every option read and
// every rule that joins the arguments applied, each refusal naming the
// argument and the accepted range in PostgreSQL's style.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "../mechanisms/release_request.hpp"
#include "options.hpp"

namespace invariant_dp {

struct RawRequest {
  std::string mechanism;
  double epsilon = 0;
  bool has_delta = false;
  double delta = 0;
  std::vector<std::string> margins;  // each "a,b" or "" (grand total)
  std::vector<RawOption> options;  // checked against request/options.hpp's catalogue
  bool has_privacy_unit = false;
  std::string privacy_unit;
  bool has_bounds = false;
  std::vector<std::pair<std::string, std::string>> bounds;  // jsonb, flattened to text
};

// Validates names and ranges; throws InvalidArgument / OutOfRange.
ReleaseRequest validate_request(const RawRequest& raw);

// Largest epsilon accepted: beyond it a release is not meaningfully private.
constexpr double kMaxEpsilon = 100.0;

// Margins naming a column the source does not return: InvalidArgument.
void check_margin_columns(const ReleaseRequest& request, const std::vector<std::string>& key_columns);

}  // namespace invariant_dp
