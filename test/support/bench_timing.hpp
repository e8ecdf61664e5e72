// Wall time, CPU time and peak resident memory of the benchmark process,
// measured the same way by every benchmark that prints them.
#pragma once

#include <sys/resource.h>

#include <chrono>

namespace invariant_dp::bench_timing {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// User and system CPU seconds of the process so far (every thread).
inline double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         1e-6 * double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

inline double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

}  // namespace invariant_dp::bench_timing
