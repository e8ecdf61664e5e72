// Error types of the core. Each maps to one SQLSTATE in src/pg/errors.c; the
// C boundary (capi/) is the only place that catches them. Messages follow
// PostgreSQL style: lower case, no trailing period, no C++ names; detail and
// hint are separate sentences (capitalised, with a period) or empty.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>

namespace invariant_dp {

// A double in an error detail, with every digit it has (%.17g).
inline std::string format_double(double x) {
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

 private:
  std::string detail_;
  std::string hint_;
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
