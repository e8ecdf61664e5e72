// Every mechanism, on every structure it releases, gives the same release
// under one seed as it did when these fingerprints were recorded: a hash of
// the whole release table through the C boundary (values, sds, rows, the
// published metadata). Real numbers are hashed to 9 significant digits, so
// that builds whose floating-point sums run in another order (another
// optimisation level, a sanitizer) agree. A restructuring of the code must leave them all
// unchanged; a change of a law or a sampler changes its fingerprints, and
// the commit that makes it says why and records the new ones (run with
// IDP_PRINT_FINGERPRINTS=1 to print them).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <regex>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "capi/invariant_dp_core.h"
#include "prepared_release.hpp"
#include "table_builder.hpp"
#include "table_request.hpp"
#include "unit_cells.hpp"

namespace invariant_dp {
namespace {

using test_tables::delinquents;

// FNV-1a over the bytes of the table's arrays and its metadata.
struct Fingerprint {
  std::uint64_t hash = 1469598103934665603ull;
  void add(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) hash = (hash ^ p[i]) * 1099511628211ull;
  }
  template <typename T>
  void add_array(const T* values, std::size_t n) {
    const std::uint8_t present = values != nullptr;
    add(&present, 1);
    if (values != nullptr) add(values, n * sizeof(T));
  }
  void add_reals(const double* values, std::size_t n) {
    const std::uint8_t present = values != nullptr;
    add(&present, 1);
    for (std::size_t i = 0; values != nullptr && i < n; ++i) add_text(round9(values[i]));
  }
  void add_text(const std::string& text) { add(text.data(), text.size()); }
  static std::string round9(double x) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.9g", x == 0 ? 0.0 : x);  // -0 hashed as 0
    return buffer;
  }
};

// The metadata with every number that has a fraction or an exponent
// written to 9 significant digits.
std::string rounded_numbers(const char* json) {
  static const std::regex number(R"(-?\d+\.\d+(?:[eE][-+]?\d+)?|-?\d+[eE][-+]?\d+)");
  std::string out, text(json);
  std::sregex_iterator it(text.begin(), text.end(), number), end;
  std::size_t at = 0;
  for (; it != end; ++it) {
    out += text.substr(at, it->position() - at);
    out += Fingerprint::round9(std::stod(it->str()));
    at = it->position() + it->length();
  }
  return out + text.substr(at);
}

std::uint64_t fingerprint(const idp_release_table& t) {
  Fingerprint f;
  f.add(&t.integer_output, sizeof t.integer_output);
  f.add(&t.n_rows, sizeof t.n_rows);
  f.add(&t.n_axes, sizeof t.n_axes);
  f.add_array(t.row_cell, t.n_rows);
  f.add_array(t.row_is_cell, t.n_rows);
  f.add_array(t.row_depth, t.n_rows * t.n_axes);
  f.add_reals(t.values, t.n_rows);
  f.add_array(t.integer_values, t.n_rows);
  f.add_reals(t.noise_sd, t.n_rows);
  f.add_text(rounded_numbers(t.metadata_json));
  return f.hash;
}

// Seed 20261127 from the start of its stream for every release: a
// generation no other test uses makes the session's source restart,
// whatever ran before in the process.
idp_randomness fresh_seed() {
  static std::uint64_t generation = 0x46494e4745525052ull;  // "FINGERPR"
  return idp_randomness{true, 20261127, ++generation};
}

struct FingerprintCase {
  const char* name;
  const char* mechanism;
  double delta;  // 0: none
  std::vector<const char*> margins;
  std::vector<const char*> hierarchy;
  std::vector<std::pair<const char*, const char*>> options;
  std::uint64_t expected;
};

// Releases the 4 x 4 delinquent table with the case's request, seed 20261127.
std::uint64_t release_fingerprint(const FingerprintCase& c) {
  test_tables::Request r{c.mechanism, 1, c.delta, c.margins, c.hierarchy};
  r.set_options(c.options);
  const idp_request request = r.c_request();
  const auto table = delinquents();
  const test_tables::TableCells table_cells(table);
  const idp_cells& cells = table_cells.cells();
  idp_randomness randomness = fresh_seed();
  idp_error error{};
  idp_release_table* out = nullptr;
  if (prepare_and_release(&request, &cells, &randomness, nullptr, &out, &error) != IDP_OK) {
    ADD_FAILURE() << c.name << ": " << error.message;
    return 0;
  }
  const std::uint64_t hash = fingerprint(*out);
  idp_free_release(out);
  return hash;
}

// Privacy units: 40 people over the 16 cells, each up to 2 cells.
std::uint64_t unit_release_fingerprint(const char* mechanism, double delta, const char* options_json) {
  std::vector<std::string> people, keys;
  const auto table = delinquents();
  for (std::size_t cell = 0; cell < 16; ++cell)
    for (std::int64_t i = 0; i < table.counts[cell]; ++i) {
      people.push_back("p" + std::to_string((cell * 7 + i) % 40));
      keys.push_back(table.text[2 * cell]);
      keys.push_back(table.text[2 * cell + 1]);
    }
  std::vector<const char*> unit_text, key_text;
  for (const auto& p : people) unit_text.push_back(p.c_str());
  for (const auto& k : keys) key_text.push_back(k.c_str());
  const test_tables::UnitCells cells(unit_text, key_text, {"county", "edu"}, "2", "1");
  const char* option_keys[] = {"partition_selection"};
  const char* option_values[] = {options_json};
  idp_request request{};
  request.mechanism = mechanism;
  request.epsilon = 1;
  request.has_delta = delta > 0;
  request.delta = delta;
  if (options_json != nullptr) {
    request.n_options = 1;
    request.option_keys = option_keys;
    request.option_values = option_values;
  }
  cells.bind(request);
  idp_randomness randomness = fresh_seed();
  idp_error error{};
  idp_release_table* out = nullptr;
  if (prepare_and_release(&request, &cells.cells(), &randomness, nullptr, &out, &error) != IDP_OK) {
    ADD_FAILURE() << mechanism << " with a unit: " << error.message;
    return 0;
  }
  const std::uint64_t hash = fingerprint(*out);
  idp_free_release(out);
  return hash;
}

const std::vector<FingerprintCase>& cases() {
  static const std::vector<FingerprintCase> all = {
      {"discrete_laplace", "discrete_laplace", 0, {}, {}, {}, 0x0ed2325d35127403ull},
      {"discrete_gaussian", "discrete_gaussian", 1e-6, {}, {}, {}, 0x4808b2111aa4cd46ull},
      {"subspace_gaussian one margin",
       "subspace_gaussian",
       1e-6,
       {"county"},
       {},
       {{"stddev", "true"}},
       0xe138dec7bed232e8ull},
      {"subspace_gaussian both margins",
       "subspace_gaussian",
       1e-6,
       {"county", "edu"},
       {},
       {{"stddev", "true"}},
       0x6a9d806af12df451ull},
      {"subspace_laplace both margins", "subspace_laplace", 0, {"county", "edu"}, {}, {}, 0x7fe7490028c1f71cull},
      {"integer_laplace one margin", "integer_laplace", 0, {"county"}, {}, {{"stddev", "true"}}, 0xe6bec274bc52417cull},
      {"integer_laplace nested margins", "integer_laplace", 0, {"", "county"}, {}, {}, 0x6c5971a77b90e995ull},
      {"integer_laplace both margins",
       "integer_laplace",
       0,
       {"county", "edu"},
       {},
       {{"iterations", "20"}, {"sampler", "chain"}},
       0x1371ec3fc41ac0ceull},
      {"integer_laplace_l2 both margins",
       "integer_laplace_l2",
       0,
       {"county", "edu"},
       {},
       {{"iterations", "20"}},
       0x96093ef0a03244f2ull},
      {"integer_gaussian one margin", "integer_gaussian", 1e-6, {"county"}, {}, {}, 0xaf890808c3344458ull},
      {"integer_gaussian both margins",
       "integer_gaussian",
       1e-6,
       {"county", "edu"},
       {},
       {{"stddev", "true"}},
       0xcfc98ff2b803aa3dull},
      {"congenial both margins", "congenial", 0, {"county", "edu"}, {}, {}, 0x1c8ebdff0b19274aull},
      {"project_l2 both margins", "project_l2", 0, {"county", "edu"}, {}, {}, 0xbe6358581da5f6dbull},
      {"project_nn_l2 both margins", "project_nn_l2", 0, {"county", "edu"}, {}, {}, 0xc149c9706f5bc389ull},
      {"project_nn_integer both margins", "project_nn_integer", 0, {"county", "edu"}, {}, {}, 0xc8fda22b91a0c11full},
      {"cascade hierarchy", "cascade", 1e-6, {}, {"county", "edu"}, {}, 0xa12bb5b73aa814cdull},
      {"integer_cascade hierarchy",
       "integer_cascade",
       1e-6,
       {},
       {"county", "edu"},
       {{"level", "true"}},
       0x8ed5aeecc56dd897ull},
      {"nonnegative_cascade hierarchy",
       "nonnegative_cascade",
       0,
       {},
       {"county", "edu"},
       {{"stddev", "true"}},
       0x505fe1ea33e2d2e1ull},
      {"nonnegative_cascade exact counties",
       "nonnegative_cascade",
       0,
       {"county"},
       {"county", "edu"},
       {},
       0xce00dae5854cd274ull},
      {"cascade crossed", "cascade", 1e-6, {}, {"county"}, {{"crossed", "[\"edu\"]"}}, 0xe4c23ac475984964ull},
      {"integer_laplace hierarchy", "integer_laplace", 0, {}, {"county", "edu"}, {}, 0x7ecbab2effce4bcdull},
  };
  return all;
}

struct UnitCase {
  const char* mechanism;
  double delta;
  const char* selection;
  std::uint64_t expected;
};

const std::vector<UnitCase>& unit_cases() {
  static const std::vector<UnitCase> all = {
      {"discrete_laplace", 0, nullptr, 0x79192e65d862bfb4ull},
      {"integer_gaussian", 1e-6, nullptr, 0xb155bdf21dec99c6ull},
      {"discrete_laplace", 1e-6, "laplace", 0x4c2750aab806c9d0ull},
      {"discrete_laplace", 1e-6, "truncated_geometric", 0x053f1a545918a84cull},
  };
  return all;
}

bool printing() { return std::getenv("IDP_PRINT_FINGERPRINTS") != nullptr; }

TEST(ReleaseFingerprints, EveryMechanismOnEveryStructure) {
  for (const FingerprintCase& c : cases()) {
    const std::uint64_t got = release_fingerprint(c);
    if (printing()) std::printf("  %-36s 0x%016llxull\n", c.name, static_cast<unsigned long long>(got));
    else EXPECT_EQ(got, c.expected) << c.name;
  }
}

TEST(ReleaseFingerprints, WithAPrivacyUnit) {
  for (const UnitCase& c : unit_cases()) {
    const std::uint64_t got = unit_release_fingerprint(c.mechanism, c.delta, c.selection);
    if (printing()) std::printf("  %-36s 0x%016llxull\n", c.mechanism, static_cast<unsigned long long>(got));
    else EXPECT_EQ(got, c.expected) << c.mechanism << (c.selection ? " with partition selection" : "");
  }
}

}  // namespace
}  // namespace invariant_dp
