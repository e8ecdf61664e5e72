// The one exception barrier: every exception type maps to its status, with
// message, detail and hint copied (and truncated, never overflowing).
#include <gtest/gtest.h>

#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "capi/capi_guard.hpp"
#include "capi/invariant_dp_core.h"
#include "interrupt_callbacks.hpp"

using namespace invariant_dp;

namespace {

template <typename Exception>
idp_status status_of(Exception exception, idp_error* error) {
  return guarded(error, [&] { throw exception; });
}

}  // namespace

TEST(CApiGuard, MapsEveryExceptionType) {
  idp_error error{};
  EXPECT_EQ(guarded(&error, [] {}), IDP_OK);
  EXPECT_EQ(status_of(InvalidArgument("bad", "d", "h"), &error), IDP_INVALID_ARGUMENT);
  EXPECT_STREQ(error.message, "bad");
  EXPECT_STREQ(error.detail, "d");
  EXPECT_STREQ(error.hint, "h");
  EXPECT_EQ(status_of(OutOfRange("x"), &error), IDP_OUT_OF_RANGE);
  EXPECT_EQ(status_of(InvalidData("x"), &error), IDP_INVALID_DATA);
  EXPECT_EQ(status_of(InconsistentInvariants("x"), &error), IDP_INCONSISTENT_INVARIANTS);
  EXPECT_EQ(status_of(TooLarge("x"), &error), IDP_TOO_LARGE);
  EXPECT_EQ(status_of(Interrupted(), &error), IDP_INTERRUPTED);
  EXPECT_EQ(status_of(Error("x"), &error), IDP_INTERNAL);
  EXPECT_EQ(status_of(std::bad_alloc(), &error), IDP_OUT_OF_MEMORY);
  EXPECT_STREQ(error.message, "out of memory");
  EXPECT_EQ(status_of(std::length_error("vector"), &error), IDP_OUT_OF_MEMORY);
  EXPECT_EQ(status_of(std::logic_error("oops"), &error), IDP_INTERNAL);
  EXPECT_STREQ(error.detail, "oops");
  EXPECT_EQ(status_of(42, &error), IDP_INTERNAL);
}

TEST(CApiGuard, LongMessagesAreTruncatedNotOverflowed) {
  idp_error error{};
  const std::string huge(10000, 'x');
  EXPECT_EQ(status_of(InvalidArgument(huge, huge, huge), &error), IDP_INVALID_ARGUMENT);
  EXPECT_EQ(std::strlen(error.message), sizeof error.message - 1);
  EXPECT_EQ(std::strlen(error.detail), sizeof error.detail - 1);
  EXPECT_EQ(std::strlen(error.hint), sizeof error.hint - 1);
}

TEST(CApiGuard, SuccessClearsAPreviousError) {
  idp_error error{};
  status_of(InvalidArgument("bad"), &error);
  EXPECT_EQ(guarded(&error, [] {}), IDP_OK);
  EXPECT_EQ(error.message[0], '\0');
  EXPECT_EQ(error.status, IDP_OK);
}

// dp.range_variance takes arbitrary arrays from any role: a list of too many
// internal nodes is refused before anything is allocated, a shape of
// billions of leaves needs no memory per leaf, and a call stops when the
// caller cancels.
namespace {
using invariant_dp::test_interrupts::always_pending;
}  // namespace

TEST(CApiRangeVariance, BoundsMemoryByTheListedNodes) {
  idp_error error{};
  double lower = 0, variance = 0;
  const uint32_t huge[] = {2000000000u};
  const double levels[] = {1, 1};
  EXPECT_EQ(idp_cascade_range_variance("lattice_gaussian_cascade", huge, 1, levels, 2, nullptr, 0, 0, 0, 1, nullptr,
                                       &lower, &variance, &error),
            IDP_OK);
  EXPECT_GT(variance, 0);
  std::vector<uint32_t> many(200000, 1);
  std::vector<double> deep(many.size() + 1, 1.0);
  EXPECT_EQ(idp_cascade_range_variance("lattice_gaussian_cascade", many.data(), many.size(), deep.data(), deep.size(),
                                       nullptr, 0, 0, 0, 0, nullptr, &lower, &variance, &error),
            IDP_TOO_LARGE);
  const uint32_t fine[] = {2, 2, 2};
  EXPECT_EQ(idp_cascade_range_variance("lattice_gaussian_cascade", fine, 3, levels, 0, nullptr, 0, 0, 0, 1, nullptr,
                                       &lower, &variance, &error),
            IDP_INVALID_ARGUMENT);  // two levels of targets for a three-level tree
  const double three[] = {1, 0.5, 0.25};
  EXPECT_EQ(idp_cascade_range_variance("lattice_gaussian_cascade", fine, 3, three, 3, nullptr, 0, 0, 0, 1, nullptr,
                                       &lower, &variance, &error),
            IDP_OK);
  const idp_interrupts cancel{always_pending, nullptr, nullptr};
  std::vector<uint32_t> wide{4096u};
  EXPECT_EQ(idp_cascade_range_variance("lattice_gaussian_cascade", wide.data(), 1, levels, 2, nullptr, 0, 0, 0, 1,
                                       &cancel, &lower, &variance, &error),
            IDP_INTERRUPTED);
}
