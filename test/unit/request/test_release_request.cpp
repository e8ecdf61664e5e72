// dp.privatize's arguments parsed into a validated request
// (request/release_request.hpp): epsilon, delta and the mechanism's name
// refused out of range, unknown names listed, options and neighbours read,
// margins checked against the source's columns.
#include <gtest/gtest.h>

#include <cmath>

#include "errors.hpp"
#include "mechanism_release.hpp"
#include "request/release_request.hpp"

using namespace invariant_dp;
using invariant_dp::mechanism_release::raw;

TEST(ReleaseRequest, RejectsBadEpsilonDeltaAndNames) {
  EXPECT_THROW(validate_request(raw("subspace_laplace", 0)), InvalidArgument);
  EXPECT_THROW(validate_request(raw("subspace_laplace", -1)), InvalidArgument);
  EXPECT_THROW(validate_request(raw("subspace_laplace", NAN)), InvalidArgument);
  EXPECT_THROW(validate_request(raw("subspace_laplace", INFINITY)), InvalidArgument);
  EXPECT_THROW(validate_request(raw("subspace_laplace", 101)), OutOfRange);
  EXPECT_THROW(validate_request(raw("subspace_gaussian", 1)), InvalidArgument);  // delta missing
  EXPECT_THROW(validate_request(raw("subspace_gaussian", 1, {}, true, 0)), InvalidArgument);
  EXPECT_THROW(validate_request(raw("subspace_gaussian", 1, {}, true, 1)), InvalidArgument);
  EXPECT_THROW(validate_request(raw("subspace_laplace", 1, {}, true, 1e-6)), InvalidArgument);
  EXPECT_THROW(validate_request(raw("no_such", 1)), InvalidArgument);
  EXPECT_THROW(validate_request(raw("discrete_laplace", 1, {"a"})), InvalidArgument);
  EXPECT_THROW(validate_request(raw("subspace_laplace", 1, {"a,,b"})), InvalidArgument);
  EXPECT_THROW(validate_request(raw("subspace_laplace", 1, {"a,a"})), InvalidArgument);
  EXPECT_NO_THROW(validate_request(raw("subspace_laplace", 100, {"", " a , b "})));
}

TEST(ReleaseRequest, UnknownMechanismListsKnownOnes) {
  try {
    validate_request(raw("laplace", 1));
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "unknown mechanism \"laplace\"");
    EXPECT_NE(e.detail().find("subspace_gaussian"), std::string::npos);
  }
}

TEST(ReleaseRequest, OptionsAndNeighbours) {
  RawRequest r = raw("subspace_laplace", 1);
  r.options = {{"stddev", "true"}, {"neighbours", "add_remove"}};
  const auto request = validate_request(r);
  EXPECT_TRUE(request.with_stddev);
  EXPECT_EQ(request.neighbours, Neighbours::AddRemove);
  r.margins = {"a"};
  EXPECT_THROW(validate_request(r), InvalidArgument);  // exact margins need replace_one
  r = raw("subspace_laplace", 1);
  r.options = {{"stddev", "yes"}};
  EXPECT_THROW(validate_request(r), InvalidArgument);
  r.options = {{"colour", "blue"}};
  EXPECT_THROW(validate_request(r), InvalidArgument);
}

TEST(ReleaseRequest, MarginColumnsMustExist) {
  const auto request = validate_request(raw("subspace_laplace", 1, {"county", "state"}));
  EXPECT_THROW(check_margin_columns(request, {"county", "edu"}), InvalidArgument);
  EXPECT_NO_THROW(check_margin_columns(validate_request(raw("subspace_laplace", 1, {"county"})), {"county", "edu"}));
}
