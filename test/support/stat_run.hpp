// How much of the statistical suite runs. The sanitized run of the test
// command (scripts/test) sets IDP_STAT_SHORT: the statistical tests whose
// power checks need samples that take minutes to draw under the sanitizers
// skip themselves there, saying so, and run in full in the unsanitized
// run. No test draws fewer samples in the short run: its false-failure rate
// and its power are those derived beside it, or it does not run.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

namespace invariant_dp::stat_run {

inline bool short_run() {
  const char* value = std::getenv("IDP_STAT_SHORT");
  return value != nullptr && *value != '\0' && std::strcmp(value, "0") != 0;
}

}  // namespace invariant_dp::stat_run

// First statement of a statistical test too long for the short run.
#define IDP_SKIP_IN_SHORT_RUN()                                                                              \
  do {                                                                                                      \
    if (invariant_dp::stat_run::short_run())                                                                \
      GTEST_SKIP() << "IDP_STAT_SHORT: its samples take minutes under the sanitizers; it runs in full in "  \
                      "the unsanitized suite";                                                              \
  } while (0)
