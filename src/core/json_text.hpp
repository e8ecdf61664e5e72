// JSON text pieces for the metadata the core publishes (release noise laws,
// calibrations): a quoted string and the shortest number that reads back as
// the same double.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "errors.hpp"

namespace invariant_dp {

inline std::string json_quoted(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
      out += buffer;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// JSON has no NaN or infinity (jsonb would refuse the metadata): a published
// figure that overflowed is refused here, whichever calibration made it.
inline std::string json_number(double value) {
  if (!std::isfinite(value))
    throw OutOfRange("a figure of the published noise law is not finite",
                     "It is " + format_double(value) + ": a variance or a scale is beyond float8's range.",
                     "Raise epsilon (or rho), or give variance targets of ordinary size.");
  char buffer[32];
  for (int precision = 15; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  return buffer;
}

}  // namespace invariant_dp
