// Force-included before every core file (CMakeLists.txt). An Eigen assertion
// must never abort() the PostgreSQL backend: in builds that keep assertions
// (no NDEBUG) turn them into an exception that the C boundary maps to an
// internal error, as MADlib does. Release builds compile them out.
#pragma once

#ifndef NDEBUG
#include <stdexcept>
#define eigen_assert(x) \
  do { if (!(x)) throw std::logic_error("internal linear-algebra check failed: " #x); } while (0)
#endif
