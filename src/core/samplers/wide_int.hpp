// The 128-bit integers of the exact samplers (GCC/Clang extension;
// __extension__ keeps -Wpedantic builds quiet). Products of two 64-bit
// numbers fit, so exact rational exponents and their checked arithmetic
// need no GMP until they outgrow 128 bits (big_int.hpp).
#pragma once

namespace invariant_dp {

__extension__ typedef unsigned __int128 Uint128;
__extension__ typedef __int128 Int128;

// Greatest common divisor (Euclid); gcd(a, 0) = a.
inline Uint128 gcd(Uint128 a, Uint128 b) {
  while (b != 0) {
    const Uint128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

}  // namespace invariant_dp
