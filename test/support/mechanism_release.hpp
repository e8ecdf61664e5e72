// One mechanism's release through run_release (mechanisms/release.hpp), the
// path dp.privatize takes below its checks, for the tests named after a
// mechanism (test/unit/mechanisms, test/stat/mechanisms): its request from
// dp.privatize's arguments, the released values and noise whatever the
// output type, the published metadata parsed, and the margins it kept.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "errors.hpp"
#include "invariants/cell_keys.hpp"
#include "invariants/invariant_model.hpp"
#include "json_reader.hpp"
#include "mechanisms/diagnostics.hpp"
#include "mechanisms/release.hpp"
#include "random_source.hpp"
#include "request/options.hpp"
#include "request/release_request.hpp"
#include "table_builder.hpp"

namespace invariant_dp::mechanism_release {

using Options = std::vector<RawOption>;  // {{"name", "value"}, ...}

// dp.privatize's arguments as given.
inline RawRequest raw(const std::string& mechanism, double epsilon, std::vector<std::string> margins = {},
                      bool has_delta = false, double delta = 0) {
  RawRequest r;
  r.mechanism = mechanism;
  r.epsilon = epsilon;
  r.has_delta = has_delta;
  r.delta = delta;
  r.margins = std::move(margins);
  return r;
}

// The same, validated as dp.privatize validates it (delta 0: none given).
inline ReleaseRequest request(const std::string& mechanism, double epsilon, std::vector<std::string> margins = {},
                              double delta = 0, Options options = {}) {
  RawRequest r = raw(mechanism, epsilon, std::move(margins), delta > 0, delta);
  r.options = std::move(options);
  return validate_request(r);
}

// What validate_request refuses the arguments with (InvalidArgument's
// message), or "accepted".
inline std::string refusal(const RawRequest& r) {
  try {
    validate_request(r);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "accepted";
}

// Whether a refusal says the option is other mechanisms' to take: "option
// \"<option>\" applies to the <those that take it> only", this mechanism
// not among them (their order is the catalogue's, not this test's).
inline bool names_others_taking(const std::string& said, const std::string& option, const std::string& mechanism) {
  const std::string head = "option \"" + option + "\" applies to the ", tail = " only";
  return said.rfind(head, 0) == 0 && said.size() > head.size() + tail.size() &&
         said.compare(said.size() - tail.size(), tail.size(), tail) == 0 &&
         said.find(mechanism, head.size()) == std::string::npos;
}

// One column k of n cells whose counts run 0, 1, ..., 999, 0, 1, ...: the
// noise of independent cells, drawn apart from the counts, seen n times.
inline test_tables::TestTable cells_table(int n) {
  std::vector<std::int64_t> counts(n);
  for (int i = 0; i < n; ++i) counts[i] = i % 1000;
  return test_tables::grid({"k"}, {n}, counts);
}

// n groups g of two cells c (first, second): with the margin "g", n
// independent draws of a pair's noise, whose sum the margin holds at 0.
inline test_tables::TestTable pairs_table(int n, std::int64_t first, std::int64_t second) {
  std::vector<std::int64_t> counts;
  for (int g = 0; g < n; ++g) counts.insert(counts.end(), {first, second});
  return test_tables::grid({"g", "c"}, {n, 2}, counts);
}

inline ReleaseResult release_once(const test_tables::TestTable& table, const ReleaseRequest& request,
                                  std::uint64_t seed) {
  auto rng = make_seeded_random_source(seed);
  return run_release(table.keys(), table.counts.data(), request, *rng, Interrupts());
}

// The released values as reals (integer releases converted exactly below 2^53).
inline std::vector<double> values(const ReleaseResult& result) {
  if (!result.integer_output) return result.values;
  return std::vector<double>(result.integer_values.begin(), result.integer_values.end());
}

// The noise: released values minus the counts.
inline std::vector<double> noise(const ReleaseResult& result, const std::vector<std::int64_t>& counts) {
  std::vector<double> out = values(result);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] -= double(counts[i]);
  return out;
}

inline JsonValue metadata(const ReleaseResult& result) { return JsonValue::parse(result.metadata_json); }

// A metadata field along a path of keys, as text (strings) or number.
inline std::string text_at(const JsonValue& json, std::initializer_list<std::string_view> path) {
  const JsonValue* v = json.find_path(path);
  return v == nullptr ? std::string("<absent>") : v->string("field");
}
inline double number_at(const JsonValue& json, std::initializer_list<std::string_view> path) {
  const JsonValue* v = json.find_path(path);
  return v == nullptr ? -1e300 : v->number("field");
}

// Every group total of every declared margin of the release equals the
// counts' within tolerance (0: exactly, for integer releases).
inline void expect_margins_kept(const CellKeys& cells, const std::vector<std::int64_t>& counts,
                                const ReleaseRequest& request, const ReleaseResult& result, double tolerance) {
  const InvariantModel model(cells, margins_by_index(cells, request), Interrupts());
  const std::vector<double> x(counts.begin(), counts.end()), y = values(result);
  ASSERT_EQ(y.size(), x.size());
  std::vector<double> want(model.n_margin_groups()), got(model.n_margin_groups());
  model.margin_totals(x.data(), want.data());
  model.margin_totals(y.data(), got.data());
  for (std::size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[k], want[k], tolerance) << "margin group " << k;
}

// A pure-epsilon mechanism drawn without a chain: delta is refused, the
// sampler option is refused naming the mechanisms that take it, the plain
// request with one margin is accepted, and there is nothing to diagnose.
inline void expect_pure_epsilon_without_chain(const std::string& mechanism) {
  EXPECT_EQ(refusal(raw(mechanism, 1, {"county"}, true, 1e-6)), "mechanism \"" + mechanism + "\" does not use delta");
  RawRequest r = raw(mechanism, 1, {"county"});
  r.options = {{"sampler", "lattice"}};
  EXPECT_TRUE(names_others_taking(refusal(r), "sampler", mechanism)) << refusal(r);
  EXPECT_EQ(refusal(raw(mechanism, 1, {"county"})), "accepted");
  const auto table = test_tables::delinquents();
  auto rng = make_seeded_random_source(1);
  EXPECT_THROW(run_diagnostics(table.keys(), request(mechanism, 1, {"county"}), DiagnosticsSettings{}, *rng, Interrupts()),
               InvalidArgument);
}

}  // namespace invariant_dp::mechanism_release
