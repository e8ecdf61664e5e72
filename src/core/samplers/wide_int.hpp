// The core's integer arithmetic helpers, in one place:
// - the 128-bit integers of the exact samplers (GCC/Clang extension;
//   __extension__ keeps -Wpedantic builds quiet). Products of two 64-bit
//   numbers fit, so exact rational exponents and their checked arithmetic
//   need no GMP until they outgrow 128 bits (big_int.hpp);
// - checked arithmetic on counts. Counts come from users' tables and reach
//   2^63 - 1, so a sum, difference or product of counts, totals, noisy
//   values or rounded values that leaves bigint must be refused (OutOfRange,
//   SQLSTATE 22003), not wrapped (undefined behaviour, then any crash); a
//   double that becomes a count is range-checked first for the same reason.
#pragma once

#include <cmath>
#include <cstdint>

#include "../errors.hpp"

namespace invariant_dp {

__extension__ typedef unsigned __int128 Uint128;
__extension__ typedef __int128 Int128;

// Greatest common divisor (Euclid); gcd(a, 0) = a.
inline Uint128 gcd(Uint128 a, Uint128 b) {
  // Ends: Euclid: the remainder at least halves every two passes.
  while (b != 0) {
    const Uint128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// What the checks below say when a result leaves bigint.
inline constexpr const char* kSumOutOfRange = "sum of counts out of range for bigint";
inline constexpr const char* kNoisyCountOutOfRange = "noisy count out of range for bigint";

[[noreturn]] inline void throw_count_out_of_range(const char* message) {
  throw OutOfRange(message, "Counts, their totals and the values released for them must lie in bigint's range.",
                   "Release smaller counts, or split the table so that no total exceeds 9223372036854775807.");
}

inline std::int64_t checked_add(std::int64_t a, std::int64_t b, const char* message = kSumOutOfRange) {
  std::int64_t out;
  if (__builtin_add_overflow(a, b, &out)) throw_count_out_of_range(message);
  return out;
}

inline std::int64_t checked_sub(std::int64_t a, std::int64_t b, const char* message = kSumOutOfRange) {
  std::int64_t out;
  if (__builtin_sub_overflow(a, b, &out)) throw_count_out_of_range(message);
  return out;
}

inline std::int64_t checked_mul(std::int64_t a, std::int64_t b, const char* message = kSumOutOfRange) {
  std::int64_t out;
  if (__builtin_mul_overflow(a, b, &out)) throw_count_out_of_range(message);
  return out;
}

// total += x, checked: the accumulation of every sum of counts.
inline void add_to(std::int64_t& total, std::int64_t x, const char* message = kSumOutOfRange) {
  total = checked_add(total, x, message);
}

// A 128-bit intermediate (a product, a sum of many counts) back in bigint.
inline std::int64_t checked_narrow(Int128 x, const char* message = kSumOutOfRange) {
  if (x > INT64_MAX || x < INT64_MIN) throw_count_out_of_range(message);
  return static_cast<std::int64_t>(x);
}

// A double that becomes a count (a rounded noisy value, a solver's integer):
// NaN or a value outside [-2^63, 2^63) has no int64, and converting it
// anyway is undefined behaviour.
inline std::int64_t checked_int64(double x, const char* message = kNoisyCountOutOfRange) {
  if (!(x >= -0x1p63 && x < 0x1p63)) throw_count_out_of_range(message);
  return static_cast<std::int64_t>(x);
}

}  // namespace invariant_dp
