// Deterministic tests of the entry point of the exact table samplers
// (samplers/exact_table_laplace.hpp): which table lists it takes, margins
// kept on a list mixing two- and three-line tables, and its draws equal to
// those of the two samplers called in its order.
#include <gtest/gtest.h>

#include <vector>

#include "errors.hpp"
#include "random_source.hpp"
#include "samplers/exact_table_laplace.hpp"
#include "samplers/three_line_table.hpp"
#include "samplers/two_line_table.hpp"
#include "table_checks.hpp"

namespace invariant_dp {
namespace {

using namespace table_checks;

TEST(ExactTableLaplace, AppliesToTablesWithALineOfAtMostThreeLevels) {
  EXPECT_TRUE(exact_table_laplace_applies({table(2, 9), table(9, 3, 18), table(1, 5, 45)}));
  EXPECT_TRUE(exact_table_laplace_applies({}));
  EXPECT_FALSE(exact_table_laplace_applies({table(2, 9), table(4, 4, 18)}));
  LatticeTable cube{{2, 2, 2}, std::vector<std::size_t>(8)};
  EXPECT_FALSE(exact_table_laplace_applies({cube}));
  auto rng = make_seeded_random_source(1);
  std::vector<std::int64_t> z(16);
  EXPECT_THROW(sample_exact_table_laplace(*rng, Rational{2, 1}, {table(4, 4)}, 16, z.data(), {}), InvalidArgument);
}

TEST(ExactTableLaplace, MixedListsKeepTheirMarginsAndDrawAsTheTwoSamplers) {
  const std::vector<LatticeTable> mixed{table(3, 4), table(2, 5, 12), table(7, 3, 22), table(1, 4, 43),
                                        table(5, 2, 47)};
  const std::size_t n = total_cells(mixed);
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    auto a = make_seeded_random_source(seed), b = make_seeded_random_source(seed);
    std::vector<std::int64_t> z(n, 9), expected(n, 9);
    sample_exact_table_laplace(*a, Rational{5, 2}, mixed, n, z.data(), {});
    EXPECT_GT(expect_zero_margins(mixed, z), 0);
    sample_laplace_on_two_line_tables(*b, Rational{5, 2}, {mixed[1], mixed[3], mixed[4]}, n, expected.data(), {});
    sample_laplace_on_three_line_tables(*b, Rational{5, 2}, {mixed[0], mixed[2]}, n, expected.data(), {});
    EXPECT_EQ(z, expected);
  }
  std::vector<std::int64_t> z(n);
  auto rng = make_seeded_random_source(3);
  EXPECT_THROW(sample_exact_table_laplace(*rng, Rational{5, 2}, {table(2, 5), table(3, 3, 4)}, 20, z.data(), {}),
               InvalidArgument);  // cell 4 in two tables of different kinds
}

}  // namespace
}  // namespace invariant_dp
