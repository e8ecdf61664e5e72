// The lattice sampler (mechanisms/lattice_release.hpp) through the release
// path, for every mechanism that uses it.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "mechanisms/release.hpp"
#include "table_builder.hpp"
#include "request/release_request.hpp"

using namespace invariant_dp;

// Crossing margins: the lattice sampler (MCMC). Every draw keeps both
// margins of the 4x4 table exactly, whatever the mechanism.
TEST(LatticeRelease, CrossingMarginsStayExactForEveryLatticeMechanism) {
  const auto table = test_tables::delinquents();
  const auto keys = table.keys();
  auto rng = make_seeded_random_source(4);
  for (const char* mechanism : {"integer_laplace", "integer_laplace_l2", "integer_gaussian"}) {
    RawRequest raw;
    raw.mechanism = mechanism;
    raw.epsilon = 0.5;
    raw.has_delta = std::string(mechanism) == "integer_gaussian";
    raw.delta = 1e-6;
    raw.margins = {"county", "edu"};
    raw.options = {{"iterations", "2000"}};
    // A 4 x 4 table has no exact l1 sampler: integer_laplace draws it only when asked for the chain.
    if (std::string(mechanism) == "integer_laplace") raw.options.push_back({"sampler", "chain"});
    const auto request = validate_request(raw);
    for (int draw = 0; draw < 5; ++draw) {
      const auto result = run_release(keys, table.counts.data(), request, *rng, Interrupts());
      ASSERT_TRUE(result.integer_output);
      for (int k = 0; k < 4; ++k) {
        std::int64_t row = 0, column = 0, true_row = 0, true_column = 0;
        for (int j = 0; j < 4; ++j) {
          row += result.integer_values[k * 4 + j];
          column += result.integer_values[j * 4 + k];
          true_row += table.counts[k * 4 + j];
          true_column += table.counts[j * 4 + k];
        }
        ASSERT_EQ(row, true_row) << mechanism;
        ASSERT_EQ(column, true_column) << mechanism;
      }
      for (double sd : result.noise_sd) ASSERT_GT(sd, 0) << mechanism;
      if (draw == 0 && std::string(mechanism) == "integer_gaussian") {
        // a complete two-way table: the exact lattice Gaussian, no chain
        EXPECT_NE(result.metadata_json.find("\"exact\": true"), std::string::npos) << result.metadata_json;
        EXPECT_EQ(result.metadata_json.find("\"iterations\""), std::string::npos);
      } else if (draw == 0) {
        EXPECT_NE(result.metadata_json.find("\"exact\": false"), std::string::npos) << result.metadata_json;
        EXPECT_NE(result.metadata_json.find("\"iterations\": 2000"), std::string::npos);
      }
    }
  }
}
