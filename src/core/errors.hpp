// Error types of the core. Each maps to one SQLSTATE in src/pg/core_bridge.c; the
// C boundary (capi/) is the only place that catches them. Messages follow
// PostgreSQL style: lower case, no trailing period, no C++ names; detail and
// hint are separate sentences (capitalised, with a period) or empty.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace invariant_dp {

// A cell's key named by an error: the core holds keys only as bytes, so a
// message says "Key {key0} appears more than once." and the shim renders
// {key0} as "(county, edu)=(Alpha, Low)" from the row it read. table says
// which rows (KeyRows::table; 0 = none), columns which key columns (bit k
// for column k; all bits: every column).
struct KeyRef {
  int table = 0;
  std::uint64_t row = 0;
  std::uint64_t columns = ~std::uint64_t{0};
};

// A double in an error detail, with every digit it has (%.17g); NaN and
// the infinities as PostgreSQL spells them.
inline std::string format_double(double x) {
  if (x != x) return "NaN";
  if (x == 1.0 / 0.0) return "Infinity";
  if (x == -1.0 / 0.0) return "-Infinity";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

class Error : public std::runtime_error {
 public:
  Error(std::string message, std::string detail = {}, std::string hint = {})
      : std::runtime_error(std::move(message)),
        detail_(std::move(detail)),
        hint_(std::move(hint)) {}
  const std::string& detail() const noexcept { return detail_; }
  const std::string& hint() const noexcept { return hint_; }
  // The keys {key0} and {key1} in the message, detail or hint stand for.
  const std::array<KeyRef, 2>& keys() const noexcept { return keys_; }
  void name_key(std::size_t slot, KeyRef key) { keys_.at(slot) = key; }

 private:
  std::string detail_;
  std::string hint_;
  std::array<KeyRef, 2> keys_{};
};

// A parameter the caller gave is invalid (SQLSTATE 22023).
class InvalidArgument : public Error {
  using Error::Error;
};
// A numeric parameter is outside the range the mechanism supports (22003).
class OutOfRange : public Error {
  using Error::Error;
};
// A required value is NULL (SQLSTATE 22004).
class NullValue : public Error {
  using Error::Error;
};
// The input data is invalid: duplicate cells, negative counts, ... (22000).
class InvalidData : public Error {
  using Error::Error;
};
// The declared invariants cannot be honoured: they pin every cell, or they
// contradict each other (22023 with its own message).
class InconsistentInvariants : public Error {
  using Error::Error;
};
// The input is larger than the configured limits (54000).
class TooLarge : public Error {
  using Error::Error;
};
// The caller asked to stop (query cancel, statement_timeout): 57014.
class Interrupted : public Error {
 public:
  Interrupted() : Error("canceling statement due to user request") {}
};

}  // namespace invariant_dp
